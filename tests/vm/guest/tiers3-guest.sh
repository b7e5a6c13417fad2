#!/bin/sh
# Guest side of the vm-3tier tests (busybox sh), run with
#   tests/vm/e2e.sh --topology 3tier --guest tests/vm/guest/tiers3-guest.sh --kernel 6.17
# Three memory tiers: node 0 (DRAM, the CPUs), CPU-less node 1 (CXL) and
# CPU-less node 2 (slower still).  The shipped configuration, NUMA balancing
# off (it would move the hot set itself).
#
# Node 1 is first filled with data of its own that is never touched again
# (workload --idle: down to 32 MiB free), then the workload fills node 0 with
# cold data (48 MiB left free) and puts its hot set on node 2.  Checks, from
# the workloads' own pages (move_pages):
#   - the kernel built the three tiers, and the daemon planned four kdamonds:
#     demote 0 -> 1 and 1 -> 2, promote 1 -> 0 and 2 -> 0;
#   - >= 90% of the hot set ends on node 0, and at no report was more than
#     10% of it on node 1: it went straight to the top tier;
#   - cold data left node 0 (demoted), and cold data moved on from node 1 to
#     node 2 (node 1 filled up and its own demotion made room);
#   - after SIGTERM no kdamond runs and damon_stat is as found.
# Prints "TIER3 PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=TIER3
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
DUR=${TIER3_DURATION:-100}
HOT=${TIER3_HOT:-48}

topology_setup "0|1|2"

/bin/workload --idle --fast-node 1 --slow-node 2 --hot 1 --leave-free 32 --duration 100000 \
	--report-interval 10 >/tmp/filler.log 2>&1 &
fpid=$!
wait_alive $fpid 120 workload_started /tmp/filler.log || {
	cat /tmp/filler.log
	abort "the node 1 filler did not start"
}
/bin/workload --fast-node 0 --slow-node 2 --hot "$HOT" --duration "$DUR" --report-interval 10 \
	>/tmp/workload.log 2>&1 &
wpid=$!
wait_alive $wpid 120 workload_started /tmp/workload.log || {
	cat /tmp/workload.log
	abort "the workload did not start"
}
grep '^WORKLOAD' /tmp/filler.log /tmp/workload.log | sed "s/^/$TAG /"

daemon_up 4
check "the daemon found 3 memory tiers" has "$log" "found 3 memory tiers (from memory_tiering)"
for pair in "demote node0 -> node1" "demote node1 -> node2" "promote node1 -> node0" \
	"promote node2 -> node0"; do
	check "planned: $pair" has "$log" "$pair"
done
check "nothing promotes into node 1" not grep -q "promote node2 -> node1" "$log"

wait $wpid
/bin/damon-tierd status --config /etc/damon-tierd.conf >/tmp/status.txt 2>&1
sed "s/^/$TAG status: /" /tmp/status.txt
kdamond_report
stop_daemon
sed 's/^/DAEMON: /' "$log" | grep -v 'quota controller: kdamond' | tail -n 40
grep -E '^(pgmigrate|pgpromote|pgdemote|numa_)' /proc/vmstat | sed "s/^/$TAG vmstat: /"
grep '^WORKLOAD' /tmp/workload.log | sed "s/^/$TAG /"
kill -TERM $fpid
wait $fpid
ffinal=$(grep '^WORKLOAD FINAL' /tmp/filler.log)
echo "$ffinal" | sed "s/^/$TAG filler: /"
final=$(grep '^WORKLOAD FINAL' /tmp/workload.log)
hot=$(field hot_on_node0 "$final")
hot_pages=$(field hot_pages "$final")
cold_pages=$(field cold_pages "$final")
cold_by=$(field cold_by_node "$final")
verdict "hot set on node 0: $hot >= 0.90" "hot set on node 0: $hot < 0.90" at_least "$hot" 0.90
# The largest share of the hot set that sat on node 1 at any report.
mid=$(sed -n 's/^WORKLOAD .*hot_pages=\([0-9]*\).*hot_by_node=\([0-9,]*\).*/\1 \2/p' /tmp/workload.log |
	awk '{ split($2, c, ","); s = $1 ? c[2] / $1 : 0; if (s > m) m = s } END { printf "%.4f", m + 0 }')
verdict "straight to the top tier: at most $mid of the hot set on node 1 at any report (<= 0.10)" \
	"the hot set went through node 1: $mid of it there at one report (> 0.10)" at_most "$mid" 0.10
down=$(awk -v a="$(nth_of "$cold_by" 1)" -v b="$(nth_of "$cold_by" 2)" -v t="$cold_pages" \
	'BEGIN { printf "%.4f", t ? (a + b) / t : 0 }')
verdict "cold data demoted from node 0: $down of it on nodes 1 and 2" \
	"cold data not demoted: $down of it off node 0" at_least "$down" 0.05
# Cold data on node 2: the workload's (via node 1) and the filler's own.
on2=$(($(nth_of "$cold_by" 2) + $(nth_of "$(field cold_by_node "$ffinal")" 2)))
note "cold pages on node 2: $on2 (workload $(nth_of "$cold_by" 2), filler $(nth_of "$(field cold_by_node "$ffinal")" 2)); hot pages $hot_pages"
verdict "node 1's cold data moved on to node 2: $((on2 / 256)) MiB (>= 4)" \
	"nothing moved on from node 1 to node 2 ($on2 pages)" at_least "$on2" 1024

check_teardown "$stat_before"

finish
