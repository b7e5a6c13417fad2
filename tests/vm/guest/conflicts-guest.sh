#!/bin/sh
# Guest side of the vm-conflicts test (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/conflicts-guest.sh --kernel 6.17
# One boot, four scenarios; each starts and stops damon-tierd and puts the
# guest back as it found it:
#   a) damon_stat enabled at boot: "damon_stat = keep" blocks and leaves it
#      alone; the default (pause) switches it off while running, back on at exit.
#   b) a foreign kdamond that runs before the daemon starts: the daemon waits
#      (1 s, 2 s, ... backoff) and never touches it; once it is off, the daemon
#      takes over; at SIGTERM it stops only the kdamonds it still owns.
#   c) a second instance exits 5 while the first one runs.
#   d) numa_balancing=2: left alone (with a warning) by default, cleared to 0
#      while running with "numa_balancing = disable-tiering" and restored.
# Prints "CONFLICT PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=CONFLICT
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
STAT=/sys/module/damon_stat/parameters
NB=/proc/sys/kernel/numa_balancing
DEMOTION=/sys/kernel/mm/numa/demotion_enabled
STATE_DIR=/run/damon-tierd

# The DAMON kernel threads ("pid:comm" of every kdamond*); damon_stat's is
# the only one while no sysfs kdamond runs (6.17 has no kdamond_pid for it).
kthreads() {
	for d in /proc/[0-9]*; do
		c=$(cat "$d/comm" 2>/dev/null) || continue
		case $c in kdamond*) printf '%s:%s ' "${d#/proc/}" "$c" ;; esac
	done
}
# Every file under the kdamonds tree with its content, one line each.
snapshot() {
	find $ADMIN -type f | sort | while read -r f; do
		echo "$f=$(rd "$f" | tr '\n' ' ')"
	done
}
no_record() { [ ! -e $STATE_DIR/owner ]; }

note "kernel $(uname -r)"
stat_boot=$(stat_enabled)
nb_boot=$(rd $NB)
note "boot state: damon_stat enabled=$stat_boot kdamond threads: $(kthreads)," \
	"nr_kdamonds=$(nr_kdamonds), numa_balancing=$nb_boot, demotion_enabled=$(rd $DEMOTION)"

printf '[daemon]\nstate_dir = %s\nstatus_interval = 10s\n' $STATE_DIR >/tmp/default.conf
printf '[daemon]\nstate_dir = %s\ndamon_stat = keep\n' $STATE_DIR >/tmp/keep.conf
# Interval 1h: after the start-up check the daemon does not look at its
# kdamonds again, so a restart behind its back is not adopted before SIGTERM.
printf '[daemon]\nstate_dir = %s\ninterval = 1h\nstatus_interval = 1h\n' $STATE_DIR >/tmp/slow.conf
printf '[daemon]\nstate_dir = %s\nnuma_balancing = disable-tiering\n' $STATE_DIR >/tmp/nb.conf

# ---------------------------------------------------------------------------
note "=== a) damon_stat enabled at boot"
if [ "$stat_boot" != Y ]; then
	fail "a: damon_stat is not enabled at boot ($stat_boot); this kernel cannot run scenario a"
else
	spid=$(kthreads)
	[ -n "$spid" ] || fail "a: damon_stat enabled but no kdamond thread found"
	start_daemon a-keep /tmp/keep.conf
	wait_log "retrying in 4 s" 20
	check "a/keep: blocked, retrying with backoff (1 s, 2 s, 4 s)" \
		sh -c "grep -qF 'retrying in 1 s' $log && grep -qF 'retrying in 2 s' $log && grep -qF 'retrying in 4 s' $log"
	check "a/keep: the log names 'damon_stat = keep'" has_log "damon_stat = keep"
	check "a/keep: still running while blocked" alive
	check "a/keep: damon_stat untouched (enabled=$(stat_enabled), its kdamond still $(kthreads)= $spid)" \
		sh -c "[ '$(stat_enabled)' = Y ] && [ '$(kthreads)' = '$spid' ]"
	check "a/keep: no sysfs kdamond created (nr_kdamonds=$(nr_kdamonds))" eq "$(nr_kdamonds)" 0
	stop_daemon
	show_log
	check "a/keep: exit 0 on SIGTERM while blocked (rc $drc)" eq $drc 0
	check "a/keep: damon_stat still enabled with the same kdamond after exit ($(kthreads))" \
		sh -c "[ '$(stat_enabled)' = Y ] && [ '$(kthreads)' = '$spid' ]"
	check "a/keep: no ownership record left" no_record

	start_daemon a-pause /tmp/default.conf
	wait_running 60 2+
	check "a/pause: daemon runs $n kdamonds ($on on)" sh -c "[ $n -ge 2 ] && [ $on -eq $n ]"
	check "a/pause: damon_stat paused while running (enabled=$(stat_enabled))" eq "$(stat_enabled)" N
	check "a/pause: the log says it paused damon_stat" has_log "paused damon_stat"
	check "a/pause: NUMA balancing mode $nb_boot logged with demotion_enabled" \
		sh -c "grep -qF 'NUMA balancing mode $nb_boot' $log && grep -qF 'demotion_enabled' $log"
	check "a/pause: NUMA balancing left at $nb_boot" eq "$(rd $NB)" "$nb_boot"
	stop_daemon
	show_log
	check "a/pause: exit 0 on SIGTERM (rc $drc)" eq $drc 0
	check "a/pause: no kdamond of ours on after SIGTERM" all_off
	wait_until 5 stat_is Y
	check "a/pause: damon_stat re-enabled (enabled=$(stat_enabled), kdamond threads $(kthreads))" \
		sh -c "[ '$(stat_enabled)' = Y ] && [ -n '$(kthreads)' ]"
	check "a/pause: the log says it re-enabled damon_stat" has_log "re-enabled damon_stat"
	check "a/pause: no ownership record left" no_record
fi

# ---------------------------------------------------------------------------
note "=== b) a foreign kdamond runs before the daemon starts"
# The foreign user needs damon_stat off too (its exclusive context blocks
# every sysfs kdamond); this is the test's doing, not the daemon's.
[ "$(stat_enabled)" = Y ] && wr N $STAT/enabled
wait_until 5 not stat_is Y
ferr=0
fw() { wr "$1" "$2" || ferr=1; }
fw 1 $ADMIN/nr_kdamonds
K=$ADMIN/0
fw 1 $K/contexts/nr_contexts
fw paddr $K/contexts/0/operations
fw 1 $K/contexts/0/targets/nr_targets
fw 1 $K/contexts/0/targets/0/regions/nr_regions
fw 1048576 $K/contexts/0/targets/0/regions/0/start
fw 268435456 $K/contexts/0/targets/0/regions/0/end
fw 1 $K/contexts/0/schemes/nr_schemes
fw stat $K/contexts/0/schemes/0/action
fw on $K/state
fpid=$(rd $K/pid)
if [ $ferr != 0 ] || [ "$(rd $K/state)" != on ]; then
	fail "b: cannot start the foreign kdamond (state $(rd $K/state)); scenario b skipped"
else
	note "foreign kdamond 0 on, pid $fpid"
	snapshot >/tmp/foreign.before
	stat_b=$(stat_enabled)
	start_daemon b-foreign /tmp/slow.conf
	wait_log "retrying in 2 s" 20
	snapshot >/tmp/foreign.after
	check "b: blocked with the index and pid of the foreign kdamond" \
		has_log "kdamond 0 (pid $fpid) is running and was not started by damon-tierd"
	check "b: the log says how to stop it" \
		has_log "Stop it with the tool that started it (e.g. 'damo stop') or 'echo off > /sys/kernel/mm/damon/admin/kdamonds/0/state'"
	check "b: retries with backoff (1 s, then 2 s)" \
		sh -c "grep -qF 'retrying in 1 s' $log && grep -qF 'retrying in 2 s' $log"
	check "b: daemon still running while blocked" alive
	check "b: foreign kdamond still on with pid $fpid" \
		sh -c "[ '$(rd $K/state)' = on ] && [ '$(rd $K/pid)' = '$fpid' ]"
	check "b: nr_kdamonds still 1" eq "$(nr_kdamonds)" 1
	if cmp -s /tmp/foreign.before /tmp/foreign.after; then
		pass "b: all $(wc -l </tmp/foreign.before) files of the foreign kdamond unchanged"
	else
		fail "b: the foreign kdamond's files changed:"
		diff /tmp/foreign.before /tmp/foreign.after
	fi
	check "b: damon_stat untouched ($stat_b)" eq "$(stat_enabled)" "$stat_b"

	wr off $K/state
	note "foreign kdamond turned off (state $(rd $K/state))"
	wait_running 20 2+
	check "b: the daemon took over after the foreign kdamond stopped ($n kdamonds, $on on)" \
		sh -c "[ $n -ge 2 ] && [ $on -eq $n ]"
	# Armed too: "started kdamond 1" is logged after its arming commit, and a
	# restart during the arming would be adopted before SIGTERM.
	wait_log "started kdamond 1" 20
	check "b: the log shows its kdamonds started" \
		sh -c "grep -qF 'started kdamond 0' $log && grep -qF 'started kdamond 1' $log"
	# Restart kdamond 1 behind the daemon's back: a new pid means it is not
	# the daemon's any more, so SIGTERM must leave it on.
	p1=$(rd $ADMIN/1/pid)
	wr off $ADMIN/1/state
	wr on $ADMIN/1/state
	p1new=$(rd $ADMIN/1/pid)
	note "restarted kdamond 1 by hand: pid $p1 -> $p1new (state $(rd $ADMIN/1/state))"
	stop_daemon
	show_log
	check "b: exit 0 on SIGTERM (rc $drc)" eq $drc 0
	check "b: its own kdamond 0 turned off" eq "$(rd $ADMIN/0/state)" off
	check "b: the kdamond restarted by someone else still on (pid $p1new)" \
		sh -c "[ '$(rd $ADMIN/1/state)' = on ] && [ '$(rd $ADMIN/1/pid)' = '$p1new' ]"
	check "b: the log says it left kdamond 1 alone" has_log "kdamond 1 runs with pid $p1new, not our $p1; leaving it alone"
	check "b: damon_stat untouched after exit ($stat_b)" eq "$(stat_enabled)" "$stat_b"
	check "b: no ownership record left" no_record
	wr off $ADMIN/1/state
fi
# Back to the boot state: every kdamond off, damon_stat as at boot.
k=0
while [ $k -lt "$(nr_kdamonds)" ]; do
	[ "$(rd $ADMIN/$k/state)" = on ] && wr off $ADMIN/$k/state
	k=$((k + 1))
done
[ "$stat_boot" = Y ] && wr Y $STAT/enabled
note "restored: damon_stat enabled=$(stat_enabled), kdamonds on: $(all_off && echo 0 || echo "$on")"

# ---------------------------------------------------------------------------
note "=== c) a second instance while one runs"
start_daemon c-first /tmp/default.conf
if ! wait_running 60 2+; then
	fail "c: the first instance did not start its kdamonds"
else
	pids="$(rd $ADMIN/0/pid) $(rd $ADMIN/1/pid)"
	stat_c=$(stat_enabled)
	first_log=$log
	/bin/damon-tierd --foreground --config /tmp/default.conf >/tmp/c-second.log 2>&1
	rc2=$?
	sed 's/^/DAEMON[c-second]: /' /tmp/c-second.log
	check "c: the second instance exits 5 (rc $rc2)" eq $rc2 5
	check "c: it says another damon-tierd is running" grep -qF "another damon-tierd is running" /tmp/c-second.log
	check "c: the first instance still runs" alive
	count_on
	check "c: the first instance's kdamonds unchanged (on $on of $n, pids $pids)" \
		sh -c "[ $on -eq $n ] && [ '$(rd $ADMIN/0/pid) $(rd $ADMIN/1/pid)' = '$pids' ]"
	check "c: damon_stat unchanged ($stat_c)" eq "$(stat_enabled)" "$stat_c"
	check "c: the record of the first instance is still there" test -e $STATE_DIR/owner
	log=$first_log
fi
stop_daemon
show_log
check "c: first instance exits 0 on SIGTERM (rc $drc)" eq $drc 0
check "c: no kdamond of ours on after SIGTERM" all_off
wait_until 5 stat_is "$stat_boot"
check "c: damon_stat back to $stat_boot" eq "$(stat_enabled)" "$stat_boot"

# ---------------------------------------------------------------------------
note "=== d) NUMA balancing in tiering mode"
# nb_run NAME CONFIG BEFORE WHILE: starts the daemon with numa_balancing at
# BEFORE, checks it reads WHILE while the daemon runs and BEFORE after SIGTERM.
nb_run() {
	echo "$3" >$NB
	start_daemon "$1" "$2"
	wait_running 60 2+
	check "$1: daemon runs $n kdamonds with numa_balancing=$3" sh -c "[ $n -ge 2 ] && [ $on -eq $n ]"
	check "$1: numa_balancing reads $4 while running (read $(rd $NB))" eq "$(rd $NB)" "$4"
	check "$1: the log states $DEMOTION ($(rd $DEMOTION))" has_log "$DEMOTION"
	stop_daemon
	show_log
	check "$1: exit 0 on SIGTERM (rc $drc)" eq $drc 0
	check "$1: numa_balancing reads $3 after exit (read $(rd $NB))" eq "$(rd $NB)" "$3"
	check "$1: no kdamond of ours on after SIGTERM" all_off
	wait_until 5 stat_is "$stat_boot"
	check "$1: damon_stat back to $stat_boot" eq "$(stat_enabled)" "$stat_boot"
}
if ! echo 2 >$NB 2>/dev/null || [ "$(rd $NB)" != 2 ]; then
	fail "d: this kernel does not take numa_balancing=2"
else
	nb_run d-leave /tmp/default.conf 2 2
	check "d-leave: warns that NUMA balancing runs in tiering mode" \
		has_log "NUMA balancing runs in tiering mode (/proc/sys/kernel/numa_balancing = 2)"
	nb_run d-disable /tmp/nb.conf 2 0
	check "d-disable: logs the change and the restore" \
		has_log "NUMA balancing tiering mode turned off (/proc/sys/kernel/numa_balancing 2 -> 0); restored on exit"
	nb_run d-disable3 /tmp/nb.conf 3 1
	check "d-disable3: logs 3 -> 1" has_log "(/proc/sys/kernel/numa_balancing 3 -> 1)"
fi
echo "$nb_boot" >$NB
check "d: numa_balancing back to its boot value $nb_boot" eq "$(rd $NB)" "$nb_boot"

finish
