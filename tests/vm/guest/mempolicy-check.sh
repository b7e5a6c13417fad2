#!/bin/sh
# Guest test: does a task's mempolicy block DAMON's migrate_hot?
#
# For each policy in MPC_POLICIES (default "keep default preferred"): the
# workload puts a MPC_HOT MiB (default 32) hot set on node 1 with MPOL_BIND,
# then keeps the bind (keep), drops it (default) or sets MPOL_PREFERRED node
# 0 (preferred); no cold set, so node 0 has room. One paddr kdamond over
# node 1's physical span runs a migrate_hot scheme to node 0 without quotas.
# DAMON_STAT and NUMA balancing are off. Reports hot_on_node0 over time.
# Run with: tests/vm/smoke.sh --guest tests/vm/guest/mempolicy-check.sh
# Exit status 0 when hot_on_node0 >= 0.5 at the end for every policy.

# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
K=$ADMIN
fail=0

[ -d "$K" ] || { echo "MPC: no DAMON sysfs"; exit 1; }
damon_stat_off
echo 0 >/proc/sys/kernel/numa_balancing

span=$(node_span 1)
start=${span% *}
end=${span#* }
echo "MPC: node1 span $start-$end"

w() { echo "$2" >"$1" || echo "MPC: write '$2' to $1 failed"; }

for pol in ${MPC_POLICIES:-keep default preferred}; do
	rm -f /tmp/ready
	/bin/workload --hot "${MPC_HOT:-32}" --cold 0 --duration "${MPC_DURATION:-30}" \
		--report-interval 5 --policy "$pol" --ready-file /tmp/ready >/tmp/w.out 2>&1 &
	wpid=$!
	wait_until 60 test -f /tmp/ready
	w "$K/nr_kdamonds" 1
	C=$K/0/contexts
	w "$C/nr_contexts" 1
	C=$C/0
	w "$C/operations" paddr
	w "$C/targets/nr_targets" 1
	w "$C/targets/0/regions/nr_regions" 1
	w "$C/targets/0/regions/0/start" "$start"
	w "$C/targets/0/regions/0/end" "$end"
	w "$C/schemes/nr_schemes" 1
	S=$C/schemes/0
	w "$S/action" migrate_hot
	w "$S/target_nid" 0
	w "$S/access_pattern/sz/min" 0
	w "$S/access_pattern/sz/max" 18446744073709551615
	w "$S/access_pattern/nr_accesses/min" 1
	w "$S/access_pattern/nr_accesses/max" 4294967295
	w "$S/access_pattern/age/min" 0
	w "$S/access_pattern/age/max" 4294967295
	w "$K/0/state" on
	echo "MPC: policy=$pol kdamond state=$(cat "$K/0/state") pid=$(cat "$K/0/pid")"
	wait "$wpid"
	w "$K/0/state" update_schemes_stats
	echo "MPC: policy=$pol stats: $(cd "$S/stats" && for f in *; do printf '%s=%s ' "$f" "$(cat "$f")"; done)"
	w "$K/0/state" off
	w "$K/nr_kdamonds" 0
	sed "s/^/MPC: policy=$pol /" /tmp/w.out
	final=$(grep '^WORKLOAD FINAL' /tmp/w.out | tr ' ' '\n' | sed -n 's/^hot_on_node0=//p')
	ok=$(echo "${final:-0}" | awk '{ print ($1 >= 0.5) ? 1 : 0 }')
	echo "MPC RESULT policy=$pol hot_on_node0=${final:-none} promoted=$ok"
	[ "$ok" = 1 ] || fail=1
	grep -E '^(pgmigrate_success|pgmigrate_fail|pgpromote_success|numa_hint_faults) ' /proc/vmstat | tr '\n' ' '
	echo
done
exit "$fail"
