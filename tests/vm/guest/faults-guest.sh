#!/bin/sh
# Guest side of the vm-faults test (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/faults-guest.sh --kernel 6.17
# One boot; faults injected behind the running daemon's back, each checked
# against its log and the kdamond files:
#   a) a kdamond of ours turned off by hand: restarted, logged once.
#   b) planned files rewritten by hand (an access pattern, a region end): the
#      drift is logged naming the file, the plan is re-committed.
#   c) SIGKILL, restart: the kdamonds are adopted (same pids, never off, no
#      nr_kdamonds rewrite); SIGKILL, config changed, restart: replaced, still
#      exactly two; SIGTERM: all off, damon_stat restored.
#   d) SIGHUP with bad configs (syntax, unknown key, bad unit, goal out of
#      range): rejected with file:line, kdamonds untouched.
#   e) SIGHUP with a config the daemon accepts but the kernel rejects (EINVAL
#      on commit): the previous parameters are kept.
# Time bounds are in reconcile periods ([daemon] interval), measured with the
# guest's /proc/uptime; the daemon only needs one period for each repair.
# Prints "FAULTS PASS/FAIL/SKIP: ..." lines; exits non-zero if any check failed.
set -u
TAG=FAULTS
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
STATE_DIR=/run/damon-tierd
PERIOD_CS=200 # [daemon] interval = 2s (and verify_interval = 2s: the drift cases), in centiseconds

# Every file of the kdamonds tree that the daemon plans (or the kernel keeps
# as is), one "path:value" line each: what the kernel updates by itself
# (stats, tuned intervals, effective quota), the fed goal value and the quota
# the daemon's controller sets every second are left out.
snapshot() {
	grep -r -H '' $ADMIN 2>/dev/null |
		grep -v -E '/stats/|/tried_regions/|/effective_bytes:|/current_value:|/quotas/bytes:|/intervals/(sample|aggr)_us:|/state:|/pid:' |
		sort
	k=0
	while [ $k -lt "$(nr_kdamonds)" ]; do
		echo "$ADMIN/$k/state:$(rd $ADMIN/$k/state)"
		echo "$ADMIN/$k/pid:$(rd $ADMIN/$k/pid)"
		k=$((k + 1))
	done
}
# same_snapshot A B: compares two snapshots, shows the difference.
same_snapshot() {
	cmp -s "$1" "$2" && return 0
	diff "$1" "$2" | head -n 20
	return 1
}

# new_line_matches LINE REGEX: a line of the log after line LINE matches REGEX.
new_line_matches() { tail -n +$(($1 + 1)) "$log" | grep -qE -- "$2"; }

# A background watcher of the kdamonds while the daemon is down or starting:
# one "nr state0 pid0 state1 pid1" line per look in /tmp/watch.log (a read
# that fails with EBUSY shows as "?").
watch_start() {
	rm -f /tmp/watch.stop /tmp/watch.log
	(
		while [ ! -e /tmp/watch.stop ]; do
			echo "$(cat $ADMIN/nr_kdamonds 2>/dev/null || echo '?')" \
				"$(cat $ADMIN/0/state 2>/dev/null || echo '?')" "$(cat $ADMIN/0/pid 2>/dev/null || echo '?')" \
				"$(cat $ADMIN/1/state 2>/dev/null || echo '?')" "$(cat $ADMIN/1/pid 2>/dev/null || echo '?')" \
				>>/tmp/watch.log
			sleep 0.2
		done
	) &
	wpid=$!
}
watch_stop() {
	: >/tmp/watch.stop
	wait "$wpid" 2>/dev/null
}

note "kernel $(uname -r)"
stat_boot=$(stat_enabled)
note "boot: damon_stat enabled=$stat_boot, nr_kdamonds=$(nr_kdamonds)"
printf '[daemon]\nstate_dir = %s\ninterval = 2s\nverify_interval = 2s\nstatus_interval = 10s\n' $STATE_DIR >/tmp/base.conf
printf '[daemon]\nstate_dir = %s\ninterval = 2s\nverify_interval = 2s\nstatus_interval = 10s\n[promote]\nused_goal = 85%%\nmin_accesses = 2\n' \
	$STATE_DIR >/tmp/goal85.conf

start_daemon main /tmp/base.conf
if ! wait_running 90 2; then
	show_log
	abort "the daemon did not start its two kdamonds"
fi
# Both armed too ("started kdamond N" is logged after the arming commit), so
# the faults below never race the start.
wait_count ": started kdamond" 2 30 || fail "the daemon did not log both kdamonds started"
pass "daemon started 2 kdamonds (pids $(pids))"
P=$(kdamond_of migrate_hot)
D=$(kdamond_of migrate_cold)
note "promote kdamond $P, demote kdamond $D"

# ---------------------------------------------------------------------------
note "=== a) a kdamond of ours turned off by hand"
p0=$(rd $ADMIN/0/pid)
p1=$(rd $ADMIN/1/pid)
if [ "$D" = 1 ]; then role1="demote node0 -> node1"; else role1="promote node1 -> node0"; fi
wr off $ADMIN/1/state
t=$(now_cs)
note "kdamond 1 turned off (state $(rd $ADMIN/1/state)) at ${t}cs"
restored=0
while [ "$(now_cs)" -le $((t + 3 * PERIOD_CS)) ]; do
	if [ "$(rd $ADMIN/1/state)" = on ] && has_log "restarted kdamond 1 (pid"; then
		restored=1
		break
	fi
	sleep 0.1
done
dt=$(($(now_cs) - t))
check "a: kdamond 1 back on within 3 periods (after ${dt}cs, period ${PERIOD_CS}cs)" eq $restored 1
np1=$(rd $ADMIN/1/pid)
check "a: it runs with a new pid ($p1 -> $np1)" sh -c "[ '$np1' != '$p1' ] && [ '$np1' -gt 0 ]"
check "a: logged: kdamond 1 ($role1) was found off (pid $p1 gone); restarting it" \
	has_log "kdamond 1 ($role1) was found off (pid $p1 gone); restarting it"
check "a: logged: restarted kdamond 1 (pid $np1)" has_log "restarted kdamond 1 (pid $np1)"
check "a: kdamond 0 untouched (pid $p0)" sh -c "[ '$(rd $ADMIN/0/state)' = on ] && [ '$(rd $ADMIN/0/pid)' = '$p0' ]"
# Two more periods: the repair must not repeat.
sleep 4
check "a: 'found off' logged once ($(count_log 'was found off') lines)" eq "$(count_log 'was found off')" 1
check "a: 'restarted kdamond' logged once ($(count_log 'restarted kdamond') lines)" \
	eq "$(count_log 'restarted kdamond')" 1
check "a: kdamond 1 still runs with pid $np1" eq "$(rd $ADMIN/1/pid)" "$np1"

# ---------------------------------------------------------------------------
note "=== b) planned files changed behind the daemon's back"
# drift_case WHAT FILE VALUE
drift_case() {
	planned=$(rd "$2")
	pp=$(pids)
	before=$(count_log "re-committed the plan to kdamond $P")
	wr "$3" "$2"
	t=$(now_cs)
	note "$1: wrote $3 to $2 (planned $planned)"
	ok=0
	while [ "$(now_cs)" -le $((t + 3 * PERIOD_CS)) ]; do
		if [ "$(rd "$2")" = "$planned" ] &&
			[ "$(count_log "re-committed the plan to kdamond $P")" -gt "$before" ]; then
			ok=1
			break
		fi
		sleep 0.1
	done
	dt=$(($(now_cs) - t))
	check "b/$1: back to the planned \"$planned\" and re-committed within 3 periods (after ${dt}cs)" eq $ok 1
	check "b/$1: drift logged naming the file" \
		has_log "kdamond $P parameters drifted: $2 is \"$3\", expected \"$planned\"; re-committing the plan"
	check "b/$1: no restart (pids $pp)" eq "$(pids)" "$pp"
}
A=$ADMIN/$P/contexts/0/schemes/0/access_pattern/nr_accesses/min
R=$ADMIN/$P/contexts/0/targets/0/regions/0
drift_case pattern "$A" 7
start=$(rd "$R/start")
end=$(rd "$R/end")
drift_case region "$R/end" $((start + (end - start) / 2))
sleep 4
check "b: each drift re-committed once ($(count_log 're-committed the plan') lines)" \
	eq "$(count_log 're-committed the plan')" 2
check "b: no other drift logged ($(count_log 'parameters drifted') lines)" eq "$(count_log 'parameters drifted')" 2

# ---------------------------------------------------------------------------
note "=== c) SIGKILL and restart"
snapshot >/tmp/c.before
pp=$(pids)
note "record before SIGKILL: $(tr '\n' ' ' <$STATE_DIR/owner 2>/dev/null)"
kill_daemon
show_log
check "c: damon_stat still paused after SIGKILL ($(stat_enabled))" sh -c "[ '$stat_boot' != Y ] || [ '$(stat_enabled)' = N ]"
check "c: the kdamonds run on without the daemon (pids $(pids))" eq "$(pids)" "$pp"
watch_start
start_daemon c-adopt /tmp/base.conf
wait_log "adopted 2 running kdamonds from a previous run" 90
sleep 4 # two periods of the new instance under watch
watch_stop
show_log
check "c/adopt: logged: adopted 2 running kdamonds (pids ${pp%% *}, ...); plan unchanged" \
	has_log "adopted 2 running kdamonds from a previous run (pids ${pp%% *}, ...); plan unchanged"
check "c/adopt: 'adopted' logged once ($(count_log adopted) lines)" eq "$(count_log adopted)" 1
check "c/adopt: same kdamond pids ($pp -> $(pids))" eq "$(pids)" "$pp"
check "c/adopt: no kdamond started by the new instance" sh -c "! grep -qF 'started kdamond' $log"
want="2 on ${pp%% *} on ${pp##* }"
looks=$(wc -l </tmp/watch.log)
unk=$(grep -c '?' /tmp/watch.log)
bad=$(grep -v '?' /tmp/watch.log | grep -v -c -x "$want")
check "c/adopt: kdamonds never off, pids and nr_kdamonds=2 unchanged ($looks looks, $unk with a busy read, $bad differ)" \
	sh -c "[ $bad = 0 ] && [ $looks -gt $unk ]"
[ "$bad" != 0 ] && grep -v -x "$want" /tmp/watch.log | sort | uniq -c | head -n 10
snapshot >/tmp/c.after
check "c/adopt: every kdamond file as before the crash (nr_kdamonds not rewritten)" same_snapshot /tmp/c.before /tmp/c.after

kill_daemon
# Under the daemon's quota controller the goals are not in the kdamonds' files
# (a goal change alone is adopted); min_accesses is.
note "SIGKILL again; restart with [promote] used_goal = 85%, min_accesses = 2"
watch_start
start_daemon c-replace /tmp/goal85.conf
wait_log "replacing them" 90
wait_running 90 2
sleep 2
watch_stop
show_log
np=$(pids)
check "c/replace: logged: kdamonds from a previous run do not match the current plan (plan changed); replacing them" \
	has_log "kdamonds from a previous run do not match the current plan (plan changed); replacing them"
check "c/replace: new kdamond pids ($pp -> $np)" sh -c "[ '${np%% *}' != '${pp%% *}' ] && [ '${np##* }' != '${pp##* }' ]"
check "c/replace: exactly 2 kdamonds ($(nr_kdamonds))" eq "$(nr_kdamonds)" 2
maxn=$(grep -v '^?' /tmp/watch.log | cut -d' ' -f1 | sort -n | tail -n 1)
check "c/replace: never more than 2 kdamonds while replacing (max $maxn in $(wc -l </tmp/watch.log) looks)" \
	sh -c "[ '$maxn' -le 2 ]"
check "c/replace: the new instance plans with the used goal of 85%" \
	has_log "used 85.00% (configured 85.00%)"
check "c/replace: no 'adopted' line" sh -c "! grep -qF adopted $log"
stop_daemon
tail -n 5 "$log" | sed 's/^/DAEMON[c-replace]: /'
check "c/term: exit 0 on SIGTERM (rc $drc)" eq $drc 0
check "c/term: all kdamonds off" all_off
wait_until 5 stat_is "$stat_boot"
check "c/term: damon_stat back to $stat_boot ($(stat_enabled))" eq "$(stat_enabled)" "$stat_boot"
check "c/term: the log says it re-enabled damon_stat" sh -c "[ '$stat_boot' != Y ] || grep -qF 're-enabled damon_stat' $log"
check "c/term: no ownership record left" test ! -e $STATE_DIR/owner

# ---------------------------------------------------------------------------
note "=== d) SIGHUP with bad configurations"
CONF=/tmp/reload.conf
cp /tmp/base.conf $CONF
start_daemon d-reload $CONF
wait_running 90 2 || fail "d: the daemon did not start its kdamonds"
sleep 2
snapshot >/tmp/d.before
printf '[daemon]\ninterval 2s\n' >/tmp/bad-syntax.conf
printf '[daemon]\nstatus_interval = 10s\nbogus_key = 1\n' >/tmp/bad-key.conf
printf '[daemon]\nstatus_interval = 10s\ninterval = 2\n' >/tmp/bad-unit.conf
printf '[daemon]\nstatus_interval = 10s\n[promote]\nused_goal = 10001\n' >/tmp/bad-goal.conf
i=0
for c in "syntax:2:cannot parse line (got \"interval 2s\"" \
	"key:3:[daemon] bogus_key: unknown key" \
	"unit:3:[daemon] interval: missing unit (got \"2\"" \
	"goal:4:[promote] used_goal: out of range (got \"10001\""; do
	name=${c%%:*}
	rest=${c#*:}
	line=${rest%%:*}
	what=${rest#*:}
	i=$((i + 1))
	cp "/tmp/bad-$name.conf" $CONF
	kill -HUP "$dpid"
	wait_count "reload rejected, the running configuration is kept" $i 30
	check "d/$name: rejected with $CONF:$line: $what..." \
		has_log "reload rejected, the running configuration is kept: $CONF:$line: $what"
	check "d/$name: daemon still running" alive
	snapshot >/tmp/d.after
	check "d/$name: kdamond files unchanged" same_snapshot /tmp/d.before /tmp/d.after
done
check "d: 4 rejections, no reload taken ($(count_log 'configuration reloaded') 'reloaded' lines)" \
	sh -c "[ $(count_log 'reload rejected') = 4 ] && ! grep -qF 'configuration reloaded' $log"

# ---------------------------------------------------------------------------
note "=== e) SIGHUP with parameters the kernel rejects"
# The config is valid (sample 200ms within 150ms..10s, at most aggr 2s), but
# the planner caps the tuned sampling interval at the quota window unless
# max_sample_interval is set: 100ms, raised to the 150ms minimum.  The
# kernel refuses a start value outside [min, max] (damon_set_attrs ->
# damon_valid_intervals_goal: EINVAL), and the tuned value now running is
# below the new minimum, so the daemon writes the 200ms start value.
printf '[daemon]\nstate_dir = %s\ninterval = 2s\nverify_interval = 2s\nstatus_interval = 10s\n[monitoring]\nsample_interval = 200ms\naggr_interval = 2s\nmin_sample_interval = 150ms\n' \
	$STATE_DIR >/tmp/kernel-rejects.conf
/bin/damon-tierd --check-config --config /tmp/kernel-rejects.conf >/tmp/e.check 2>&1
accepted=0
grep -qF "configuration is valid" /tmp/e.check && accepted=1
if [ $accepted = 0 ]; then
	skip "e: --check-config now rejects the trigger config ($(head -n 1 /tmp/e.check)); no kernel EINVAL trigger left"
else
	pass "e: the daemon's own validation accepts the config"
	pp=$(pids)
	cp /tmp/kernel-rejects.conf $CONF
	l0=$(wc -l <"$log")
	kill -HUP "$dpid"
	wait_alive "$dpid" 30 new_line_matches "$l0" "configuration reloaded|reload rejected|reload: the kernel rejected"
	sleep 1
	t=$(now_cs)
	grep -F "reload" "$log" | sed 's/^/DAEMON[d-reload]: /'
	if grep -qF "reload: committed new parameters" "$log"; then
		skip "e: the kernel accepted the reload (the plan is consistent now); no kernel EINVAL trigger left"
	else
		check "e: logged: reload: the kernel rejected the new parameters of kdamond ... (...); keeping the previous ones" \
			sh -c "grep -F 'reload: the kernel rejected the new parameters of kdamond' $log | grep -qF 'keeping the previous ones'"
		check "e: the reason names the file of the failed commit" \
			sh -c "grep -F 'reload: the kernel rejected the new parameters of kdamond' $log | grep -qF '/state'"
		check "e: daemon still running" alive
		check "e: same kdamonds, both on ($pp -> $(pids))" \
			sh -c "[ '$(pids)' = '$pp' ] && [ '$(rd $ADMIN/0/state) $(rd $ADMIN/1/state)' = 'on on' ]"
		# Two periods for the daemon to settle, then the files must be as before.
		while [ "$(now_cs)" -le $((t + 2 * PERIOD_CS)) ]; do sleep 0.2; done
		snapshot >/tmp/e.after
		check "e: the previous parameters are staged again (files as before the reload)" \
			same_snapshot /tmp/d.before /tmp/e.after
		drifted=$(grep -E 'parameters drifted|was found off' "$log" | head -n 2 | tr '\n' ' ')
		check "e: no drift or restart after the rejected reload${drifted:+ (got: $drifted)}" \
			sh -c "! grep -qE 'parameters drifted|was found off' $log"
	fi
fi
stop_daemon
tail -n 8 "$log" | sed 's/^/DAEMON[d-reload]: /'
check "d+e: exit 0 on SIGTERM (rc $drc)" eq $drc 0
check "d+e: all kdamonds off" all_off
wait_until 5 stat_is "$stat_boot"
check "d+e: damon_stat back to $stat_boot" eq "$(stat_enabled)" "$stat_boot"

# ---------------------------------------------------------------------------
note "=== e2) such a config at start-up"
# Not a reload: the daemon cannot keep anything, so a start-up rejection is
# an error exit.  A config the validation accepts should not get this far.
# Only the start value above the capped maximum (100ms) this time.
printf '[daemon]\nstate_dir = %s\ninterval = 2s\nverify_interval = 2s\nstatus_interval = 10s\n[monitoring]\nsample_interval = 200ms\naggr_interval = 2s\n' \
	$STATE_DIR >/tmp/kernel-rejects-start.conf
accepted=0
/bin/damon-tierd --check-config --config /tmp/kernel-rejects-start.conf 2>&1 | grep -qF "configuration is valid" && accepted=1
if [ $accepted = 1 ]; then
	start_daemon e-start /tmp/kernel-rejects-start.conf
	wait_running 150 2
	if alive; then
		pass "e2: the daemon started with a config its validation accepts ($(pids))"
		stop_daemon
	else
		wait "$dpid"
		erc=$?
		dpid=""
		show_log
		fail "e2: a config that passes --check-config makes the daemon exit $erc at start-up (kernel EINVAL)"
	fi
else
	skip "e2: the trigger config is rejected by the daemon's validation"
fi
check "e2: all kdamonds off afterwards" all_off
wait_until 5 stat_is "$stat_boot"
check "e2: damon_stat back to $stat_boot" eq "$(stat_enabled)" "$stat_boot"

finish
