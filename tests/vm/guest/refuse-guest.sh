#!/bin/sh
# Guest side of the vm-refuse test (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/refuse-guest.sh --kernel 6.1
# bookworm's 6.1 cloud kernel is built without CONFIG_DAMON.  damon-tierd
# must exit 3 with a message naming the missing CONFIG_DAMON_SYSFS and the
# first kernel that has it (5.18), and write nothing: NUMA balancing and the
# memory tiering files stay as they were, and no ownership record is left.
# Prints "REFUSE PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=REFUSE
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
NB=/proc/sys/kernel/numa_balancing
DEMOTION=/sys/kernel/mm/numa/demotion_enabled
damon_modules() {
	for d in /sys/module/damon*; do
		[ -e "$d" ] && printf '%s ' "${d#/sys/module/}"
	done
}
state() {
	echo "numa_balancing=$(rd_or $NB absent) demotion_enabled=$(rd_or $DEMOTION absent) damon_modules=[$(damon_modules)]"
}

note "kernel $(uname -r)"
check "this kernel has no DAMON sysfs (/sys/kernel/mm/damon absent)" test ! -e /sys/kernel/mm/damon
before=$(state)
note "before: $before"

timeout 60 /bin/damon-tierd --foreground --config /etc/damon-tierd.conf >/tmp/daemon.log 2>&1
rc=$?
sed 's/^/DAEMON: /' /tmp/daemon.log
after=$(state)
note "after: $after"
check "damon-tierd exits 3 (rc $rc)" eq $rc 3
check "the message names CONFIG_DAMON_SYSFS" grep -qF "CONFIG_DAMON_SYSFS" /tmp/daemon.log
check "the message names Linux 5.18" grep -qF "5.18" /tmp/daemon.log
check "nothing changed ($after)" eq "$after" "$before"
check "no DAMON sysfs appeared" test ! -e /sys/kernel/mm/damon
check "no ownership record" test ! -e /run/damon-tierd/owner

finish
