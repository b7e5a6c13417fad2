#!/bin/sh
# seed-mtier.sh [FAST_NID SLOW_NID] (busybox sh, inside the benchmark guest)
#
# The seed design, written by hand through DAMON sysfs: exactly the
# parameters of samples/damon/mtier.c (damon_sample_mtier_build_ctx), as
# listed in /work/shared/reference/damon-sysfs-facts.md section 11, in the
# write order of section 12.  Two paddr kdamonds:
#   0  promote: monitors the slow node's memory-block span, migrate_hot to
#      the fast node, nr_accesses [1, UINT_MAX], young filter allow=Y,
#      goal node_mem_used_bp 9970 on the fast node;
#   1  demote: monitors the fast node's span, migrate_cold to the slow node,
#      nr_accesses [0, 0], young filter allow=N, goal node_mem_free_bp 50.
# Both: 5 ms / 100 ms, intervals_goal 4% / 3 aggregations / 5 ms..10 s,
# nr_regions 10..1000, age [0, UINT_MAX], sz [0, ULONG_MAX], apply interval
# 1 s, quota 200 MiB per 1000 ms, weights sz 0 / nr_accesses 100 / age 100.
# mtier hard-codes node 0 as fast and node 1 as slow; so do the defaults here.
#
# damon_stat is switched off first (it is exclusive and blocks sysfs
# kdamonds), NUMA balancing is set to 0, then the kdamonds are written and
# turned on.  Exits non-zero, naming the file, on the first failed write.
set -u
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
FAST=${1:-0}
SLOW=${2:-1}
A=$ADMIN
UINT_MAX=4294967295
ULONG_MAX=18446744073709551615

w() {
	if ! echo "$2" >"$1" 2>/dev/null; then
		echo "seed-mtier: cannot write '$2' to $1" >&2
		exit 1
	fi
}

damon_stat_off 2>/dev/null || {
	echo "seed-mtier: cannot write 'N' to $DAMON_STAT_ENABLED" >&2
	exit 1
}
w /proc/sys/kernel/numa_balancing 0

# kdamond K: role (promote|demote), monitored node, target node.
setup() {
	k=$1
	role=$2
	mon=$3
	to=$4
	# [start, end) of the node's memory blocks, first block to last (mtier's
	# detect_node_addresses takes the node's pfn span the same way: holes
	# and all).
	span=$(node_span "$mon") || {
		echo "seed-mtier: node$mon has no memory blocks" >&2
		exit 1
	}
	start=${span% *}
	end=${span#* }
	K=$A/$k
	[ "$(cat "$K/contexts/nr_contexts")" = 1 ] || w "$K/contexts/nr_contexts" 1
	C=$K/contexts/0
	w "$C/operations" paddr
	I=$C/monitoring_attrs/intervals
	w "$I/sample_us" 5000
	w "$I/aggr_us" 100000
	w "$I/intervals_goal/access_bp" 400
	w "$I/intervals_goal/aggrs" 3
	w "$I/intervals_goal/min_sample_us" 5000
	w "$I/intervals_goal/max_sample_us" 10000000
	w "$C/monitoring_attrs/nr_regions/min" 10
	w "$C/monitoring_attrs/nr_regions/max" 1000
	[ "$(cat "$C/targets/nr_targets")" = 1 ] || w "$C/targets/nr_targets" 1
	w "$C/targets/0/regions/nr_regions" 1
	w "$C/targets/0/regions/0/start" "$start"
	w "$C/targets/0/regions/0/end" "$end"
	[ "$(cat "$C/schemes/nr_schemes")" = 1 ] || w "$C/schemes/nr_schemes" 1
	S=$C/schemes/0
	P=$S/access_pattern
	if [ "$role" = promote ]; then
		w "$S/action" migrate_hot
		w "$P/nr_accesses/min" 1
		w "$P/nr_accesses/max" "$UINT_MAX"
	else
		w "$S/action" migrate_cold
		w "$P/nr_accesses/min" 0
		w "$P/nr_accesses/max" 0
	fi
	w "$P/sz/min" 0
	w "$P/sz/max" "$ULONG_MAX"
	w "$P/age/min" 0
	w "$P/age/max" "$UINT_MAX"
	w "$S/apply_interval_us" 1000000
	Q=$S/quotas
	w "$Q/bytes" $((200 * 1024 * 1024))
	w "$Q/ms" 0
	w "$Q/reset_interval_ms" 1000
	w "$Q/weights/sz_permil" 0
	w "$Q/weights/nr_accesses_permil" 100
	w "$Q/weights/age_permil" 100
	[ "$(cat "$Q/goals/nr_goals")" = 1 ] || w "$Q/goals/nr_goals" 1
	if [ "$role" = promote ]; then
		w "$Q/goals/0/target_metric" node_mem_used_bp
		w "$Q/goals/0/nid" "$FAST"
		w "$Q/goals/0/target_value" 9970
	else
		w "$Q/goals/0/target_metric" node_mem_free_bp
		w "$Q/goals/0/nid" "$FAST"
		w "$Q/goals/0/target_value" 50
	fi
	w "$S/ops_filters/nr_filters" 1
	w "$S/ops_filters/0/type" young
	w "$S/ops_filters/0/matching" Y
	if [ "$role" = promote ]; then
		w "$S/ops_filters/0/allow" Y
	else
		w "$S/ops_filters/0/allow" N
	fi
	w "$S/target_nid" "$to"
	echo "seed-mtier: kdamond $k $role node$mon [$start, $end) -> node$to"
}

[ "$(cat "$A/nr_kdamonds")" = 2 ] || w "$A/nr_kdamonds" 2
setup 0 promote "$SLOW" "$FAST"
setup 1 demote "$FAST" "$SLOW"
w "$A/0/state" on
w "$A/1/state" on
echo "seed-mtier: on, pids $(cat "$A/0/pid") $(cat "$A/1/pid")"
