#!/bin/sh
# Guest side of the vm-gentle-start tests (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/gentle-start-guest.sh \
#       --config tests/vm/gentle-start.conf --kernel 6.17   (and 6.12)
# Starting damon-tierd on a full fast node must not demote more than its quota
# controller asks for.  Up to 6.17 a new DAMOS scheme's first apply pass runs
# before its first quota window is set up, without any quota, on the whole
# node (include/damon_sysfs.h, damon_start): the daemon starts its kdamonds
# with a scheme that matches nothing and arms it once the kernel reports an
# effective quota.  The config turns the demotion young filter off, so a pass
# without a quota would move every cold page at once (this workload's cold
# pages were all just written, so the filter would hide it).
#
# The workload fills node 0 with cold data down to 48 MiB free (about the
# daemon's free goal) and puts a 16 MiB hot set on node 1, then the daemon
# starts.  Checks, from the workload's own pages (move_pages): the hot set
# reaches node 0 (the kdamonds were armed), and at no report did more than a
# quarter of the cold data sit on node 1 (without the arming step all of it
# left node 0 in the first second).
# Prints "GENTLE PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
ADMIN=/sys/kernel/mm/damon/admin/kdamonds
fails=0
pass() { echo "GENTLE PASS: $*"; }
fail() { echo "GENTLE FAIL: $*"; fails=$((fails + 1)); }

echo "GENTLE kernel $(uname -r)"
/bin/workload --hot 16 --duration 40 --report-interval 1 >/tmp/workload.log 2>&1 &
wpid=$!
i=0
until grep -q '^WORKLOAD START' /tmp/workload.log; do
	kill -0 $wpid 2>/dev/null || { cat /tmp/workload.log; fail "the workload exited"; exit 1; }
	i=$((i + 1))
	[ $i -gt 600 ] && { fail "the workload did not start"; exit 1; }
	sleep 0.1
done
grep '^WORKLOAD START' /tmp/workload.log
/bin/damon-tierd --foreground --config /etc/damon-tierd.conf >/tmp/daemon.log 2>&1 &
dpid=$!
wait $wpid
kill -TERM $dpid
wait $dpid
rc=$?
sed 's/^/DAEMON: /' /tmp/daemon.log
grep '^WORKLOAD' /tmp/workload.log | sed -n 's/^\(WORKLOAD [^ ]*\) \(hot_on_node0=[^ ]*\) \(cold_on_node1=[^ ]*\).*\(node0_free_kb=[^ ]*\).*/GENTLE \1 \2 \3 \4/p'

[ $rc = 0 ] && pass "damon-tierd exited 0 on SIGTERM" || fail "damon-tierd exited $rc"
grep -q "started kdamond" /tmp/daemon.log && ! grep -q "cannot arm\|no effective quota" /tmp/daemon.log &&
	pass "kdamonds started and armed" || fail "kdamonds not started or not armed"
max=$(sed -n 's/.*cold_on_node1=\([0-9.]*\).*/\1/p' /tmp/workload.log | sort -n | tail -n 1)
hot=$(sed -n 's/^WORKLOAD FINAL.*hot_on_node0=\([0-9.]*\).*/\1/p' /tmp/workload.log)
[ -n "$max" ] && awk "BEGIN { exit !($max <= 0.25) }" &&
	pass "at most $max of the cold data on node 1 at any report (<= 0.25)" ||
	fail "$max of the cold data on node 1 at one report (> 0.25): over-demotion at start"
[ -n "$hot" ] && awk "BEGIN { exit !($hot >= 0.90) }" &&
	pass "hot set on node 0: $hot >= 0.90" || fail "hot set on node 0: $hot < 0.90"
echo "GENTLE done: $fails failed"
[ $fails = 0 ]
