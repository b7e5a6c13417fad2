#!/bin/sh
# Guest side of tests/vm/smoke.sh; runs as the test body of the initramfs
# /init (busybox sh). Settings come from the kernel command line as env:
#   SMOKE_INFO_ONLY=1     skip the workload run
#   SMOKE_DURATION=SEC    workload duration (default 20)
#   SMOKE_HOT=MiB SMOKE_COLD=MiB|auto   workload sizes (default 64 / auto)
#   SMOKE_DUMP=1          also print the full dumps (zoneinfo, node tree)
#   SMOKE_NUMAB=N         numa_balancing during the workload (default 0;
#                         "boot" keeps the boot value); the "stays on node"
#                         checks are reported but not enforced unless it is 0
# Sections are framed by "@@BEGIN <name>" / "@@END <name>" lines so that the
# host can cut them out of the console log.
# Exit status: 0 when all checks passed.

TAG=SMOKE
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
# check's result lines (the library's format is "SMOKE PASS: ...").
pass() { echo "SMOKE CHECK ok: $*"; }
fail() {
	echo "SMOKE CHECK FAILED: $*"
	fails=$((fails + 1))
}
# names PATH...: the names of the paths that exist, each followed by a space.
names() {
	for f in "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s ' "${f##*/}"; fi
	done
}
show() {
	# show FILE...: "path: content" (multi-line contents indented)
	for f in "$@"; do
		if [ -f "$f" ]; then
			if [ "$(wc -l <"$f" 2>/dev/null)" -le 1 ] 2>/dev/null; then
				echo "$f: $(cat "$f" 2>&1)"
			else
				echo "$f:"
				sed 's/^/    /' "$f" 2>&1
			fi
		else
			echo "$f: (missing)"
		fi
	done
}

DAMON_ADMIN=/sys/kernel/mm/damon/admin
TIERS=/sys/devices/virtual/memory_tiering
NODES=/sys/devices/system/node

section_begin info
echo "uname -r: $(uname -r)"
echo "cmdline: $(cat /proc/cmdline)"
for t in "$TIERS"/memory_tier*; do
	[ -d "$t" ] && echo "tier $(basename "$t") nodelist: $(cat "$t/nodelist")"
done
for n in "$NODES"/node[0-9]*; do
	echo "$(basename "$n") cpulist: '$(cat "$n/cpulist")' distance: $(cat "$n/distance")" \
		"MemTotal: $(awk '/MemTotal/ { print $4 }' "$n/meminfo") kB" \
		"MemFree: $(awk '/MemFree/ { print $4 }' "$n/meminfo") kB"
	echo "$(basename "$n") memory blocks: $(names "$n"/memory[0-9]*)"
done
echo "block_size_bytes: $(cat /sys/devices/system/memory/block_size_bytes)"
echo "ls node1: $(names "$NODES"/node1/*)"
if [ -f "$NODES/node1/access0/initiators/read_latency" ]; then
	echo "node1 access0 read_latency: $(cat "$NODES/node1/access0/initiators/read_latency")"
fi
show /sys/module/damon_stat/parameters/enabled
show /sys/module/damon_reclaim/parameters/enabled /sys/module/damon_lru_sort/parameters/enabled
show /proc/sys/kernel/numa_balancing
show /sys/kernel/mm/numa/demotion_enabled
if [ -d "$DAMON_ADMIN/kdamonds" ]; then
	echo "ls kdamonds: $(names "$DAMON_ADMIN"/kdamonds/*)"
	show "$DAMON_ADMIN/kdamonds/nr_kdamonds"
else
	echo "ls kdamonds: (no $DAMON_ADMIN/kdamonds)"
fi
echo "zoneinfo node 0 (min/low/high/managed):"
awk '
	/^Node/ { node = $2; sub(",", "", node); zone = $4 }
	node == "0" && ($1 == "min" || $1 == "low" || $1 == "high" || $1 == "managed") {
		printf "    node 0 zone %-8s %-8s %s\n", zone, $1, $2
	}
' /proc/zoneinfo
echo "tracing damon events: $(names /sys/kernel/tracing/events/damon/*)"
section_end info

check "two NUMA nodes" test -d "$NODES/node1"
check "node 1 is CPU-less" test -z "$(cat "$NODES/node1/cpulist")"
ntiers=$(names "$TIERS"/memory_tier* | wc -w)
check "two memory tiers (got $ntiers)" test "$ntiers" -eq 2
# node 1 must be in a tier of its own, with a higher tier id than node 0's
tier_of() {
	for t in "$TIERS"/memory_tier*; do
		if [ "$(cat "$t/nodelist")" = "$1" ]; then
			basename "$t" | sed 's/memory_tier//'
			return
		fi
	done
	echo -1
}
t0=$(tier_of 0)
t1=$(tier_of 1)
check "node 1 in a lower tier than node 0 (tier$t0 vs tier$t1)" test "$t0" -ge 0 -a "$t1" -gt "$t0"

# --- kdamond tree -------------------------------------------------------------
# Create one kdamond with one context, scheme and quota goal (the layout the
# daemon builds) and list it.
if [ -d "$DAMON_ADMIN/kdamonds" ]; then
	K=$DAMON_ADMIN/kdamonds
	echo 1 >"$K/nr_kdamonds"
	echo 1 >"$K/0/contexts/nr_contexts"
	echo 1 >"$K/0/contexts/0/schemes/nr_schemes"
	if [ -f "$K/0/contexts/0/schemes/0/quotas/goals/nr_goals" ]; then
		echo 1 >"$K/0/contexts/0/schemes/0/quotas/goals/nr_goals"
	else
		echo "no quotas/goals/nr_goals in this kernel"
	fi
	section_begin kdamond-tree
	(cd "$K/0" && find . | sort)
	section_end kdamond-tree

	# Everything one level further: one of each child directory.
	C=$K/0/contexts/0
	for f in "$C/targets/nr_targets" \
		"$C/targets/0/regions/nr_regions" \
		"$C/monitoring_attrs/probes/nr_probes" \
		"$C/monitoring_attrs/probes/0/filters/nr_filters" \
		"$C/schemes/0/filters/nr_filters" \
		"$C/schemes/0/core_filters/nr_filters" \
		"$C/schemes/0/ops_filters/nr_filters" \
		"$C/schemes/0/dests/nr_dests"; do
		[ -f "$f" ] && echo 1 >"$f"
	done
	section_begin kdamond-tree-full
	(cd "$K/0" && find . | sort)
	section_end kdamond-tree-full
	section_begin kdamond-values
	(cd "$K/0" && find . -type f | sort | while read -r f; do
		# shellcheck disable=SC2002  # cat's own read error is the value shown
		v=$(cat "$f" 2>&1 | tr '\n' '|' | sed 's/|$//')
		echo "$f = $v"
	done)
	section_end kdamond-values
	# Which keywords each keyword file accepts (unknown words give EINVAL).
	# Writes only to the staging files of this (stopped) kdamond.
	S=$C/schemes/0
	try_words() {
		file=$1
		shift
		[ -f "$file" ] || {
			echo "${file#"$K"/0/}: (missing)"
			return
		}
		orig=$(cat "$file")
		acc=""
		rej=""
		for word in "$@"; do
			if echo "$word" >"$file" 2>/dev/null; then
				acc="$acc $word"
			else
				rej="$rej $word"
			fi
		done
		echo "$orig" >"$file" 2>/dev/null
		echo "${file#"$K"/0/}: accepted:$acc | rejected:$rej"
	}
	section_begin damon-keywords
	try_words "$C/operations" vaddr fvaddr paddr
	try_words "$S/action" willneed cold pageout hugepage nohugepage lru_prio \
		lru_deprio migrate_hot migrate_cold stat
	try_words "$S/quotas/goals/0/target_metric" user_input some_mem_psi_us \
		node_mem_used_bp node_mem_free_bp memcg_mem_used_bp memcg_mem_free_bp \
		node_memcg_used_bp node_memcg_free_bp active_mem_bp inactive_mem_bp
	try_words "$S/quotas/goal_tuner" consist temporal aggressive fixed
	try_words "$S/watermarks/metric" none free_mem_rate
	for fd in filters core_filters ops_filters; do
		try_words "$S/$fd/0/type" anon active memcg young hugepage_size \
			unmapped addr target
	done
	try_words "$C/monitoring_attrs/probes/0/filters/0/type" anon active memcg \
		young hugepage_size unmapped addr target
	section_end damon-keywords
	section_begin damon-admin-top
	(cd "$DAMON_ADMIN/.." && find . -maxdepth 2 | sort)
	section_end damon-admin-top
	# leave no kdamond behind for the workload run
	echo 0 >"$K/nr_kdamonds"
fi

# --- dumps for fixture trees ----------------------------------------------------
if [ "${SMOKE_DUMP:-0}" = 1 ]; then
	section_begin zoneinfo
	cat /proc/zoneinfo
	section_end zoneinfo
	section_begin node-tree
	for top in /sys/devices/system/node /sys/devices/virtual/memory_tiering /sys/devices/system/memory; do
		find "$top" -maxdepth 2 | sort
	done
	echo
	echo "# contents"
	for top in /sys/devices/system/node /sys/devices/virtual/memory_tiering /sys/devices/system/memory; do
		find "$top" -maxdepth 2 \( -name cpulist -o -name meminfo -o -name distance \
			-o -name nodelist -o -name block_size_bytes \) | sort
	done | while read -r f; do
		echo "## $f"
		cat "$f"
	done
	for f in /sys/devices/system/node/possible /sys/devices/system/node/online \
		/sys/devices/system/node/has_cpu /sys/devices/system/node/has_memory \
		/sys/devices/system/node/has_normal_memory \
		/sys/devices/system/node/node1/access0/initiators/read_latency \
		/sys/devices/system/node/node1/access0/initiators/write_latency \
		/sys/devices/system/node/node1/access0/initiators/read_bandwidth \
		/sys/devices/system/node/node0/access0/initiators/read_latency \
		/sys/devices/system/node/node0/access0/initiators/read_bandwidth; do
		[ -f "$f" ] && { echo "## $f"; cat "$f"; }
	done
	for m in /sys/devices/system/memory/memory[0-9]*; do
		echo "## $m: phys_index=$(cat "$m/phys_index") state=$(cat "$m/state")" \
			"node=$(names "$m"/node[0-9]*)"
	done
	section_end node-tree
	section_begin iomem
	grep -i 'system ram' /proc/iomem
	section_end iomem
	section_begin vmstat-numa
	grep -E '^(numa_|pgpromote|pgdemote|pgmigrate)' /proc/vmstat
	section_end vmstat-numa
fi

# --- workload without DAMON -----------------------------------------------------
if [ "${SMOKE_INFO_ONLY:-0}" != 1 ]; then
	# No DAMON at all, and no NUMA balancing: nothing should move pages.
	damon_stat_off
	numab=${SMOKE_NUMAB:-0}
	[ "$numab" = boot ] || echo "$numab" >/proc/sys/kernel/numa_balancing
	numab=$(cat /proc/sys/kernel/numa_balancing)
	echo "workload run with numa_balancing=$numab"
	grep -E '^(numa_hint_faults|numa_pages_migrated|pgmigrate_success|pgpromote_success) ' /proc/vmstat | tr '\n' ' '
	echo
	section_begin workload
	/bin/workload --hot "${SMOKE_HOT:-64}" --cold "${SMOKE_COLD:-auto}" \
		--duration "${SMOKE_DURATION:-20}" --report-interval "${SMOKE_INTERVAL:-2}" \
		>/tmp/workload.out 2>&1
	wrc=$?
	cat /tmp/workload.out
	echo "node0 MemFree after: $(awk '/MemFree/ { print $4 }' "$NODES/node0/meminfo") kB"
	grep -E '^(numa_hint_faults|numa_pages_migrated|pgmigrate_success|pgpromote_success) ' /proc/vmstat | tr '\n' ' '
	echo
	section_end workload
	check "workload exit 0 (rc=$wrc)" test "$wrc" -eq 0
	first=$(grep '^WORKLOAD t=' /tmp/workload.out | head -n1)
	final=$(grep '^WORKLOAD FINAL' /tmp/workload.out | tail -n1)
	field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	# Fractions have 4 decimals: compare them as integers in 1/10000.
	bp() { echo "$1" | awk '{ printf "%d", $1 * 10000 + 0.5 }'; }
	check "FINAL line present" test -n "$final"
	check "hot set starts on node 1 ($(field hot_n1 "$first") of $(field hot_pages "$first"))" \
		test "$(field hot_n1 "$first")" -ge "$(($(field hot_pages "$first") * 99 / 100))"
	check "cold set starts on node 0 (cold_on_node1=$(field cold_on_node1 "$first"))" \
		test "$(bp "$(field cold_on_node1 "$first")")" -le 100
	if [ "$numab" != 0 ]; then
		pass() { echo "SMOKE INFO (ok, not enforced with numa_balancing=$numab): $*"; }
		fail() { echo "SMOKE INFO (no, not enforced with numa_balancing=$numab): $*"; }
	fi
	check "hot set stays on node 1 without DAMON (hot_on_node0=$(field hot_on_node0 "$final"))" \
		test "$(bp "$(field hot_on_node0 "$final")")" -le 100
	check "cold set stays on node 0 without DAMON (cold_on_node1=$(field cold_on_node1 "$final"))" \
		test "$(bp "$(field cold_on_node1 "$final")")" -le 100
fi

rc=0
[ "$fails" = 0 ] || rc=1
echo "SMOKE RESULT fail=$rc"
exit "$rc"
