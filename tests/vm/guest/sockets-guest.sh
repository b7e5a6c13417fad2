#!/bin/sh
# Guest side of the vm-2socket tests (busybox sh), run with
#   tests/vm/e2e.sh --topology 2socket --guest tests/vm/guest/sockets-guest.sh --kernel 6.17
# Two sockets: nodes 0 and 1 with one CPU each, CPU-less node 2 near socket 0
# and CPU-less node 3 near socket 1, both in the lower memory tier.  The
# shipped configuration, NUMA balancing off (it would move each hot set to
# its task's node itself).
#
# One workload per socket, pinned to that socket's CPU: the one on CPU 0
# fills node 0 with cold data and has its hot set on node 2; the one on
# CPU 1 fills node 1 and has its hot set on node 3.  Checks, from the
# workloads' own pages (move_pages):
#   - the kernel's tiers are {0,1} and {2,3}, and the daemon planned demote
#     0 -> 2 and 1 -> 3, promote 2 -> 0 and 3 -> 1;
#   - >= 90% of each hot set ends on its own socket's DRAM, at most a
#     quarter on the other socket's.  No kdamond promotes into the other
#     socket, but up to 6.17 DAMON's migration may fall back to the next
#     node when the target is below its low watermark (a 6.17 run put 7% of
#     socket 0's hot set on node 1 as node 0 filled); a plan that promoted
#     into the wrong socket would put nearly all of it there;
#   - each socket's cold data was demoted into its own CXL node, and at most
#     1% of it went to the other socket's;
#   - after SIGTERM no kdamond runs and damon_stat is as found.
# Prints "SOCKETS PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=SOCKETS
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
DUR=${SOCKETS_DURATION:-90}
HOT=${SOCKETS_HOT:-32}

topology_setup "0-1|2-3"

# socket_workload S: on CPU S (affinity mask 1 << S), cold data on node S and
# the hot set on node S + 2; waits until its data is placed, sets wpid.
socket_workload() {
	taskset $((1 << $1)) /bin/workload --fast-node "$1" --slow-node $(($1 + 2)) --hot "$HOT" \
		--leave-free 32 --duration "$DUR" --report-interval 10 >/tmp/w"$1".log 2>&1 &
	wpid=$!
	wait_alive $wpid 120 workload_started /tmp/w"$1".log || {
		cat /tmp/w"$1".log
		abort "the workload of socket $1 did not start"
	}
}
socket_workload 0
wpid0=$wpid
socket_workload 1
wpid1=$wpid
grep -h '^WORKLOAD START' /tmp/w0.log /tmp/w1.log | sed "s/^/$TAG /"

daemon_up 4
for pair in "demote node0 -> node2" "demote node1 -> node3" "promote node2 -> node0" \
	"promote node3 -> node1"; do
	check "planned: $pair" has "$log" "$pair"
done
wait "$wpid0" "$wpid1"
kdamond_report
stop_daemon
sed 's/^/DAEMON: /' "$log" | grep -v 'quota controller: kdamond' | tail -n 30
grep -E '^(pgmigrate|pgpromote|pgdemote|numa_)' /proc/vmstat | sed "s/^/$TAG vmstat: /"

for s in 0 1; do
	o=$((1 - s))
	grep '^WORKLOAD' /tmp/w$s.log | sed "s/^/$TAG socket $s: /"
	final=$(grep '^WORKLOAD FINAL' /tmp/w$s.log)
	hot=$(field hot_on_node$s "$final")
	hot_by=$(field hot_by_node "$final")
	cold_by=$(field cold_by_node "$final")
	hp=$(field hot_pages "$final")
	cp=$(field cold_pages "$final")
	share() { awk -v a="$1" -v t="$2" 'BEGIN { printf "%.4f", t ? a / t : 0 }'; }
	away=$(share "$(nth_of "$hot_by" $o)" "$hp")
	own=$(share "$(nth_of "$cold_by" $((s + 2)))" "$cp")
	other=$(share "$(nth_of "$cold_by" $((o + 2)))" "$cp")
	verdict "socket $s: hot set on node $s: $hot >= 0.90" "socket $s: hot set on node $s: $hot < 0.90" \
		at_least "$hot" 0.90
	verdict "socket $s: $away of its hot set on node $o (<= 0.25)" \
		"socket $s: $away of its hot set went to the other socket's node $o" at_most "$away" 0.25
	verdict "socket $s: cold data demoted into node $((s + 2)): $own of it" \
		"socket $s: cold data not demoted into node $((s + 2)): $own" at_least "$own" 0.02
	verdict "socket $s: $other of its cold data on node $((o + 2)) (<= 0.01)" \
		"socket $s: $other of its cold data went to the other socket's node $((o + 2))" at_most "$other" 0.01
done
check_teardown "$stat_before"
finish
