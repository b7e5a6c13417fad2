#!/bin/sh
# Guest side of the vm-reclaim test (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/reclaim-guest.sh --kernel 6.17 \
#       --append "damon_reclaim.enabled=Y"
# DAMON_RECLAIM runs from boot (an active memory policy with an exclusive
# DAMON context; on 6.17 it starts before DAMON_STAT, which then reads N).  damon-tierd must refuse with exit 4, name the parameter
# that turns it off, and change nothing: damon_reclaim keeps running with the
# same kdamond, no sysfs kdamond is created, damon_stat and NUMA balancing
# stay as they were.
# Prints "RECLAIM PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=RECLAIM
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
R=/sys/module/damon_reclaim/parameters
NB=/proc/sys/kernel/numa_balancing
state() {
	echo "reclaim enabled=$(rd_or $R/enabled absent) kdamond_pid=$(rd_or $R/kdamond_pid absent)" \
		"damon_stat=$(stat_enabled) nr_kdamonds=$(rd_or $ADMIN/nr_kdamonds absent) numa_balancing=$(rd_or $NB absent)"
}
reclaim_pid() { rd_or $R/kdamond_pid absent; }
reclaim_started() { [ "$(reclaim_pid)" != -1 ]; }

note "kernel $(uname -r); cmdline: $(cat /proc/cmdline)"
# damon_reclaim starts from a late initcall; give it a moment under TCG.
wait_until 10 reclaim_started
before=$(state)
note "before: $before"
rpid=$(reclaim_pid)
check "damon_reclaim runs (enabled=$(rd_or $R/enabled absent), kdamond_pid=$rpid)" \
	sh -c "[ '$(rd_or $R/enabled absent)' = Y ] && [ '$rpid' != -1 ] && [ '$rpid' != absent ] && [ -d /proc/$rpid ]"
check "no sysfs kdamond exists before (nr_kdamonds=$(rd_or $ADMIN/nr_kdamonds absent))" eq "$(rd_or $ADMIN/nr_kdamonds absent)" 0

timeout 60 /bin/damon-tierd --foreground --config /etc/damon-tierd.conf >/tmp/daemon.log 2>&1
rc=$?
sed 's/^/DAEMON: /' /tmp/daemon.log
after=$(state)
note "after: $after"
check "damon-tierd exits 4 (rc $rc)" eq $rc 4
check "the message names /sys/module/damon_reclaim/parameters/enabled" \
	grep -qF "/sys/module/damon_reclaim/parameters/enabled" /tmp/daemon.log
check "the message says it will not disable it" grep -qF "will not disable it" /tmp/daemon.log
check "damon_reclaim still enabled with the same kdamond (pid $rpid)" \
	sh -c "[ '$(rd_or $R/enabled absent)' = Y ] && [ '$(reclaim_pid)' = '$rpid' ] && [ -d /proc/$rpid ]"
check "no sysfs kdamond created (nr_kdamonds=$(rd_or $ADMIN/nr_kdamonds absent))" eq "$(rd_or $ADMIN/nr_kdamonds absent)" 0
check "nothing else changed (damon_stat, NUMA balancing)" eq "$after" "$before"
check "no ownership record" test ! -e /run/damon-tierd/owner

finish
