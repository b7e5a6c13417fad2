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
ADMIN=/sys/kernel/mm/damon/admin/kdamonds
R=/sys/module/damon_reclaim/parameters
STAT=/sys/module/damon_stat/parameters/enabled
NB=/proc/sys/kernel/numa_balancing
fails=0
pass() { echo "RECLAIM PASS: $*"; }
fail() { echo "RECLAIM FAIL: $*"; fails=$((fails + 1)); }
check() {
	d=$1
	shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
eq() { [ "$1" = "$2" ]; }
rd() { cat "$1" 2>/dev/null || echo absent; }
state() {
	echo "reclaim enabled=$(rd $R/enabled) kdamond_pid=$(rd $R/kdamond_pid)" \
		"damon_stat=$(rd $STAT) nr_kdamonds=$(rd $ADMIN/nr_kdamonds) numa_balancing=$(rd $NB)"
}

echo "RECLAIM kernel $(uname -r); cmdline: $(cat /proc/cmdline)"
# damon_reclaim starts from a late initcall; give it a moment under TCG.
i=0
while [ "$(rd $R/kdamond_pid)" = -1 ] && [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done
before=$(state)
echo "RECLAIM before: $before"
rpid=$(rd $R/kdamond_pid)
check "damon_reclaim runs (enabled=$(rd $R/enabled), kdamond_pid=$rpid)" \
	sh -c "[ '$(rd $R/enabled)' = Y ] && [ '$rpid' != -1 ] && [ '$rpid' != absent ] && [ -d /proc/$rpid ]"
check "no sysfs kdamond exists before (nr_kdamonds=$(rd $ADMIN/nr_kdamonds))" eq "$(rd $ADMIN/nr_kdamonds)" 0

timeout 60 /bin/damon-tierd --foreground --config /etc/damon-tierd.conf >/tmp/daemon.log 2>&1
rc=$?
sed 's/^/DAEMON: /' /tmp/daemon.log
after=$(state)
echo "RECLAIM after: $after"
check "damon-tierd exits 4 (rc $rc)" eq $rc 4
check "the message names /sys/module/damon_reclaim/parameters/enabled" \
	grep -qF "/sys/module/damon_reclaim/parameters/enabled" /tmp/daemon.log
check "the message says it will not disable it" grep -qF "will not disable it" /tmp/daemon.log
check "damon_reclaim still enabled with the same kdamond (pid $rpid)" \
	sh -c "[ '$(rd $R/enabled)' = Y ] && [ '$(rd $R/kdamond_pid)' = '$rpid' ] && [ -d /proc/$rpid ]"
check "no sysfs kdamond created (nr_kdamonds=$(rd $ADMIN/nr_kdamonds))" eq "$(rd $ADMIN/nr_kdamonds)" 0
check "nothing else changed (damon_stat, NUMA balancing)" eq "$after" "$before"
check "no ownership record" test ! -e /run/damon-tierd/owner

echo "RECLAIM done: $fails failed"
[ $fails = 0 ]
