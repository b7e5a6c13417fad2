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
TAG=GENTLE
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh

started() { grep -q '^WORKLOAD START' /tmp/workload.log; }
armed() { grep -q "started kdamond" "$log" && ! grep -q "cannot arm\|no effective quota" "$log"; }

note "kernel $(uname -r)"
/bin/workload --hot 16 --duration 40 --report-interval 1 >/tmp/workload.log 2>&1 &
wpid=$!
if ! wait_alive $wpid 60 started; then
	kill -0 $wpid 2>/dev/null && abort "the workload did not start"
	cat /tmp/workload.log
	abort "the workload exited"
fi
grep '^WORKLOAD START' /tmp/workload.log
start_daemon daemon /etc/damon-tierd.conf
wait $wpid
stop_daemon
sed 's/^/DAEMON: /' "$log"
grep '^WORKLOAD' /tmp/workload.log | sed -n 's/^\(WORKLOAD [^ ]*\) \(hot_on_node0=[^ ]*\) \(cold_on_node1=[^ ]*\).*\(node0_free_kb=[^ ]*\).*/GENTLE \1 \2 \3 \4/p'

verdict "damon-tierd exited 0 on SIGTERM" "damon-tierd exited $drc" eq "$drc" 0
verdict "kdamonds started and armed" "kdamonds not started or not armed" armed
max=$(sed -n 's/.*cold_on_node1=\([0-9.]*\).*/\1/p' /tmp/workload.log | sort -n | tail -n 1)
hot=$(sed -n 's/^WORKLOAD FINAL.*hot_on_node0=\([0-9.]*\).*/\1/p' /tmp/workload.log)
verdict "at most $max of the cold data on node 1 at any report (<= 0.25)" \
	"$max of the cold data on node 1 at one report (> 0.25): over-demotion at start" at_most "$max" 0.25
verdict "hot set on node 0: $hot >= 0.90" "hot set on node 0: $hot < 0.90" at_least "$hot" 0.90
finish
