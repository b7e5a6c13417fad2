#!/bin/bash
# Guest side of the vm-systemd test (tests/vm/systemd.sh): runs in a Debian
# guest with systemd as PID 1, as /usr/local/libexec/damon-tierd-vmtest from
# damon-tierd-vmtest.service, after multi-user.target.  damon-tierd is
# installed the way a package installs it (binary, unit, /etc config; not
# enabled) and driven only with systemctl and journalctl:
#   0. installed but not enabled, not running; damon_stat on (6.17 default)
#   1. systemctl start: returns after READY=1 with both kdamonds already on;
#      StatusText "running 2 kdamonds"; systemctl status shows it
#   2. the journal has the discovery and kdamond lines with their fields
#   3. the hardened unit could write DAMON sysfs and pause damon_stat
#   4. edit /etc/damon-tierd.conf + systemctl reload: the promote goal
#      target_value becomes 8500 online (same MainPID, same kdamond pids)
#   5. a broken config: systemctl reload fails, nothing changes, the journal
#      has the file:line error
#   6. systemctl start with a broken config fails (exit 2) and is not
#      restarted; systemctl restart with a good one runs again
#   7. systemctl stop: our kdamonds off, damon_stat back on
# Prints "SYSTEMD PASS/FAIL: ..." lines, @@BEGIN/@@END sections with the real
# output of systemctl and journalctl, and "DAMON_TIERD_VM_RESULT=<failures>".
# Always exits 0: the unit's SuccessAction powers the guest off.
# The helpers are called through check/wait_until.
# shellcheck disable=SC2317
set -u
export SYSTEMD_PAGER="" SYSTEMD_COLORS=0 SYSTEMD_URLIFY=0 COLUMNS=160 LC_ALL=C.UTF-8
U=damon-tierd
ADMIN=/sys/kernel/mm/damon/admin/kdamonds
STAT=/sys/module/damon_stat/parameters/enabled
CONF=/etc/damon-tierd.conf
T=$(mktemp -d)
fails=0

pass() { echo "SYSTEMD PASS: $*"; }
fail() { echo "SYSTEMD FAIL: $*"; fails=$((fails + 1)); }
# check DESCRIPTION COMMAND...
check() {
	local d=$1
	shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
eq() { [[ $1 == "$2" ]]; }
ne() { [[ $1 != "$2" ]]; }
has() { grep -qF -- "$2" "$1"; }
# section NAME: stdin to the console between @@BEGIN NAME / @@END NAME.
section() {
	echo "@@BEGIN $1"
	cat
	echo "@@END $1"
}
# Sysfs reads of a kdamond's files can fail with EBUSY while the daemon
# holds the DAMON sysfs lock.
rd() {
	local v
	for _ in $(seq 50); do
		v=$(cat "$1" 2>/dev/null) && { echo "$v"; return 0; }
		[[ -e $1 ]] || break
		sleep 0.1
	done
	return 1
}
prop() { systemctl show -P "$1" "$U"; }
# wait_until SECONDS COMMAND...: polls every 0.2 s; the bound only keeps a
# broken guest from hanging, it is not a performance threshold.
wait_until() {
	local n=$(($1 * 5))
	shift
	while ((n-- > 0)); do
		"$@" && return 0
		sleep 0.2
	done
	"$@"
}
nr_kdamonds() { rd $ADMIN/nr_kdamonds || echo 0; }
# "state:pid" of every kdamond, space separated.
kd_states() {
	local n k out=""
	n=$(nr_kdamonds)
	for ((k = 0; k < n; k++)); do
		out+="$(rd "$ADMIN/$k/state"):$(rd "$ADMIN/$k/pid") "
	done
	echo "${out% }"
}
all_on() {
	local n k
	n=$(nr_kdamonds)
	((n == 2)) || return 1
	for ((k = 0; k < n; k++)); do
		[[ $(rd "$ADMIN/$k/state") == on ]] || return 1
	done
}
none_on() {
	local n k
	n=$(nr_kdamonds)
	for ((k = 0; k < n; k++)); do
		[[ $(rd "$ADMIN/$k/state") == off ]] || return 1
	done
}
# The kdamond whose scheme migrates hot pages (the promote one).
promote_idx() {
	local n k
	n=$(nr_kdamonds)
	for ((k = 0; k < n; k++)); do
		[[ $(rd "$ADMIN/$k/contexts/0/schemes/0/action") == migrate_hot ]] && { echo "$k"; return 0; }
	done
	echo -1
}
promote_goal() {
	local k
	k=$(promote_idx)
	((k >= 0)) && rd "$ADMIN/$k/contexts/0/schemes/0/quotas/goals/0/target_value"
}
goal_is() { [[ $(promote_goal) == "$1" ]]; }
is_kdamond_thread() { [[ $(cat "/proc/$1/comm" 2>/dev/null) == kdamond* ]]; }
pids_are_kdamonds() {
	local p
	for p in "$@"; do is_kdamond_thread "$p" || return 1; done
}
pids_gone() {
	local p
	for p in "$@"; do is_kdamond_thread "$p" && return 1; done
	return 0
}
# journal of the unit since the test began, as plain messages.
jmsg() { journalctl -u "$U" --no-pager -o cat "$@"; }
jhas() { jmsg | grep -qF -- "$1"; }
sub_running() { [[ $(prop SubState) == running ]]; }
step() { echo "SYSTEMD STEP: $* (uptime $(cut -d' ' -f1 /proc/uptime) s)"; }

echo "SYSTEMD TEST kernel=$(uname -r) $(systemctl --version | head -n1)"
# The boot transaction is not finished while this unit runs, so
# systemd-analyze time cannot answer yet; the target's timestamp can.
mu=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
echo "SYSTEMD INFO: multi-user.target reached $((mu / 1000000)).$(printf '%03d' $((mu / 1000 % 1000))) s after boot; test starts at $(cut -d' ' -f1 /proc/uptime) s"
systemctl --failed --no-legend --plain 2>&1 | section failed-units-at-boot

# -- 0. installed as a package would be ------------------------------------
step "0 installed as a package would be"
check "binary has all its libraries (ldd)" \
	bash -c '! ldd /usr/sbin/damon-tierd | grep -q "not found"'
check "unit is installed but not enabled (is-enabled: $(systemctl is-enabled $U 2>&1))" \
	eq "$(systemctl is-enabled $U 2>&1)" disabled
check "unit is not running before start ($(systemctl is-active $U 2>&1))" \
	eq "$(systemctl is-active $U 2>&1)" inactive
check "shipped config passes --check-config" \
	bash -c "/usr/sbin/damon-tierd --check-config >$T/check.out 2>&1"
stat_before=$(rd $STAT || echo absent)
check "damon_stat enabled at boot ($stat_before)" eq "$stat_before" Y
check "no kdamond before start (nr_kdamonds $(nr_kdamonds))" eq "$(nr_kdamonds)" 0
systemd-analyze verify --man=no /usr/lib/systemd/system/$U.service >"$T/verify.out" 2>&1
vrc=$?
section unit-verify <"$T/verify.out"
check "systemd-analyze verify accepts the unit (rc $vrc)" eq "$vrc" 0

# -- 1. systemctl start ------------------------------------------------------
step "1 systemctl start"
systemctl start $U >"$T/start.out" 2>&1
rc=$?
# Type=notify: start returns after READY=1, which the daemon sends after both
# kdamonds are on.  So they must be on right now, without waiting.
states_at_ready=$(kd_states)
check "systemctl start damon-tierd succeeds (rc $rc) $(cat "$T/start.out")" eq "$rc" 0
check "both kdamonds on when start returned (READY after the kdamonds: $states_at_ready)" all_on
check "ActiveState=active SubState=running ($(prop ActiveState)/$(prop SubState))" \
	eq "$(prop ActiveState)/$(prop SubState)" active/running
check "Type=notify or notify-reload ($(prop Type))" bash -c "[[ $(prop Type) == notify* ]]"
status_text=$(prop StatusText)
check "StatusText is 'running 2 kdamonds' ('$status_text')" eq "$status_text" "running 2 kdamonds"
mainpid=$(prop MainPID)
check "MainPID is the daemon ($mainpid: $(cat /proc/"$mainpid"/comm 2>/dev/null))" \
	eq "$(cat /proc/"$mainpid"/comm 2>/dev/null)" damon-tierd
systemctl status $U --no-pager -l >"$T/status.out" 2>&1
src=$?
section systemctl-status-running <"$T/status.out"
check "systemctl status exits 0 for a running unit (rc $src)" eq "$src" 0
check "systemctl status shows active (running)" has "$T/status.out" "Active: active (running)"
check "systemctl status shows the status text" has "$T/status.out" 'Status: "running 2 kdamonds"'

# -- 2. journal --------------------------------------------------------------
step "2 journal"
wait_until 10 jhas "started kdamond 1"
jmsg >"$T/j.txt"
check "journal: 'found 2 memory tiers'" has "$T/j.txt" "found 2 memory tiers"
check "journal: two 'started kdamond' lines ($(grep -c 'started kdamond' "$T/j.txt"))" \
	eq "$(grep -c 'started kdamond' "$T/j.txt")" 2
# Matching on a field proves the field is on that very entry.
jmsg DAMON_TIERD_EVENT=discovery >"$T/j-disc.txt"
check "journal: DAMON_TIERD_EVENT=discovery is on the discovery entry" \
	has "$T/j-disc.txt" "found 2 memory tiers"
jmsg DAMON_TIERD_ROLE=promote >"$T/j-prom.txt"
jmsg DAMON_TIERD_ROLE=demote >"$T/j-dem.txt"
check "journal: DAMON_TIERD_ROLE=promote on one 'started kdamond' entry" \
	eq "$(grep -c 'started kdamond' "$T/j-prom.txt")" 1
check "journal: DAMON_TIERD_ROLE=demote on one 'started kdamond' entry" \
	eq "$(grep -c 'started kdamond' "$T/j-dem.txt")" 1
for k in 0 1; do
	check "journal: DAMON_TIERD_KDAMOND=$k on 'started kdamond $k'" \
		bash -c "journalctl -u $U -o cat DAMON_TIERD_KDAMOND=$k | grep -qF 'started kdamond $k '"
done
check "journal: the lines are at their priority (paused damon_stat at notice)" \
	bash -c "journalctl -u $U -o cat -p notice | grep -qF 'paused damon_stat'"
journalctl -u $U --no-pager -o verbose DAMON_TIERD_EVENT=discovery >"$T/jv.txt" 2>&1
journalctl -u $U --no-pager -o verbose DAMON_TIERD_ROLE=promote >>"$T/jv.txt" 2>&1
section journal-verbose-start <"$T/jv.txt"
verbose_fields() {
	grep -q '^ *DAMON_TIERD_EVENT=discovery$' "$T/jv.txt" &&
		grep -q '^ *DAMON_TIERD_KDAMOND=[0-9]' "$T/jv.txt" &&
		grep -q '^ *DAMON_TIERD_ROLE=promote$' "$T/jv.txt"
}
check "journal -o verbose: structured fields present" verbose_fields

# -- 3. the hardened unit wrote DAMON sysfs ----------------------------------
step "3 the hardened unit wrote DAMON sysfs"
read -r -a kpids <<<"$(for k in 0 1; do rd "$ADMIN/$k/pid"; done | tr '\n' ' ')"
check "the kdamond pids are kdamond threads (${kpids[*]})" pids_are_kdamonds "${kpids[@]}"
check "damon_stat paused by the daemon ($(rd $STAT))" eq "$(rd $STAT)" N
check "RuntimeDirectory /run/damon-tierd exists" test -d /run/damon-tierd
echo "SYSTEMD INFO: promote kdamond $(promote_idx), goal target_value $(promote_goal)"
systemd-analyze security $U --no-pager >"$T/security.out" 2>&1
section systemd-analyze-security <"$T/security.out"

# -- 4. reload with an edited config -----------------------------------------
step "4 reload with an edited config"
cp $CONF "$T/conf.orig"
sed -i 's/^#used_goal = auto$/used_goal = 85%/' $CONF
check "config edited ([promote] used_goal = 85%)" grep -qx 'used_goal = 85%' $CONF
systemctl reload $U >"$T/reload.out" 2>&1
rc=$?
goal_at_return=$(promote_goal)
check "systemctl reload succeeds (rc $rc) $(cat "$T/reload.out")" eq "$rc" 0
# Type=notify-reload holds the reload job until the daemon's READY=1, so the
# new goal is in place when systemctl returns; with Type=notify and
# "kill -HUP" the reload is asynchronous and only the wait below holds.
if [[ $(prop Type) == notify-reload ]]; then
	check "reload is synchronous (goal $goal_at_return when systemctl reload returned)" \
		eq "$goal_at_return" 8500
else
	echo "SYSTEMD INFO: goal when systemctl reload returned: $goal_at_return (Type=$(prop Type): asynchronous)"
fi
wait_until 30 goal_is 8500
check "promote goal target_value is 8500 after reload ($(promote_goal))" goal_is 8500
wait_until 10 sub_running
check "still active (running) after reload ($(prop ActiveState)/$(prop SubState))" \
	eq "$(prop ActiveState)/$(prop SubState)" active/running
check "same MainPID after reload ($(prop MainPID) = $mainpid)" eq "$(prop MainPID)" "$mainpid"
check "same kdamonds after reload ($(kd_states))" \
	eq "$(kd_states)" "on:${kpids[0]} on:${kpids[1]}"
wait_until 10 jhas "configuration reloaded"
check "journal: 'committed new parameters' on reload" jhas "reload: committed new parameters to kdamond"
check "journal: 'configuration reloaded'" jhas "configuration reloaded"
echo "SYSTEMD INFO: StatusText after reload: '$(prop StatusText)'"

# -- 5. reload with a broken config ------------------------------------------
step "5 reload with a broken config"
cp $CONF "$T/conf.good"
sed -i 's/^#size = 200MiB$/size = 12 parsecs/' $CONF
badline=$(grep -n '^size = 12 parsecs$' $CONF | cut -d: -f1)
check "config broken ([quota] size = 12 parsecs at line ${badline:-?})" test -n "$badline"
systemctl reload $U >"$T/reload-bad.out" 2>&1
rc=$?
section systemctl-reload-broken <"$T/reload-bad.out"
check "systemctl reload fails on a broken config (rc $rc)" ne "$rc" 0
check "still active after the failed reload ($(prop ActiveState)/$(prop SubState))" \
	eq "$(prop ActiveState)" active
check "same MainPID after the failed reload ($(prop MainPID))" eq "$(prop MainPID)" "$mainpid"
check "kdamonds untouched by the failed reload ($(kd_states))" \
	eq "$(kd_states)" "on:${kpids[0]} on:${kpids[1]}"
check "running goal kept after the failed reload ($(promote_goal))" goal_is 8500
wait_until 10 jhas "$CONF:$badline"
check "journal: the error names $CONF:$badline" jhas "$CONF:$badline"
jmsg | grep -F "$CONF:$badline" | section journal-reload-error
systemctl status $U --no-pager -l >"$T/status-bad.out" 2>&1
section systemctl-status-after-failed-reload <"$T/status-bad.out"

# -- 6. restart paths --------------------------------------------------------
step "6 start with a broken config, restart"
systemctl stop $U
systemctl start $U >"$T/start-bad.out" 2>&1
rc=$?
check "systemctl start with a broken config fails (rc $rc)" ne "$rc" 0
# RestartPreventExitStatus=2: a config error is not retried.  Wait past
# RestartSec=5s to see that no restart comes.
sleep 7
check "no restart after a config error (NRestarts $(prop NRestarts), $(prop ActiveState), exit $(prop ExecMainStatus))" \
	eq "$(prop NRestarts)/$(prop ActiveState)/$(prop ExecMainStatus)" 0/failed/2
check "no kdamond on after the failed start ($(kd_states))" none_on
check "damon_stat on after the failed start ($(rd $STAT))" eq "$(rd $STAT)" Y
systemctl status $U --no-pager -l >"$T/status-failed.out" 2>&1
section systemctl-status-failed-start <"$T/status-failed.out"
systemctl reset-failed $U
cp "$T/conf.good" $CONF
systemctl start $U
rc=$?
check "systemctl start with the fixed config succeeds (rc $rc)" eq "$rc" 0
check "both kdamonds on again ($(kd_states))" all_on
check "goal 8500 from the edited config after the fresh start ($(promote_goal))" goal_is 8500
oldpid=$(prop MainPID)
systemctl restart $U
rc=$?
newpid=$(prop MainPID)
check "systemctl restart succeeds with a new MainPID (rc $rc, $oldpid -> $newpid)" \
	bash -c "[[ $rc == 0 && $newpid != 0 && $newpid != $oldpid ]]"
check "both kdamonds on after restart ($(kd_states))" all_on
check "StatusText after restart ('$(prop StatusText)')" \
	bash -c "[[ '$(prop StatusText)' == 'running 2 kdamonds'* ]]"

# -- 7. systemctl stop -------------------------------------------------------
step "7 systemctl stop"
read -r -a kpids <<<"$(for k in 0 1; do rd "$ADMIN/$k/pid"; done | tr '\n' ' ')"
systemctl stop $U >"$T/stop.out" 2>&1
rc=$?
check "systemctl stop succeeds (rc $rc)" eq "$rc" 0
check "inactive after stop, Result=success ($(prop ActiveState), $(prop Result))" \
	eq "$(prop ActiveState)/$(prop Result)" inactive/success
check "kdamonds off after stop, nr_kdamonds as found at boot ($(nr_kdamonds): $(kd_states))" \
	bash -c "[[ $(nr_kdamonds) == 0 ]]"
check "no kdamond left on after stop" none_on
check "kdamond threads gone (${kpids[*]})" pids_gone "${kpids[@]}"
check "damon_stat re-enabled after stop ($(rd $STAT))" eq "$(rd $STAT)" Y
check "journal: 're-enabled damon_stat'" jhas "re-enabled damon_stat"
check "journal: 'stopped; no kdamond of ours is running'" jhas "stopped; no kdamond of ours is running"
systemctl status $U --no-pager -l >"$T/status-stopped.out" 2>&1
section systemctl-status-stopped <"$T/status-stopped.out"
journalctl -u $U --no-pager -o short-monotonic >"$T/journal.out" 2>&1
section journal-full <"$T/journal.out"
cp "$T/conf.orig" $CONF

step "done"
echo "SYSTEMD RESULT: $fails failure(s)"
echo "DAMON_TIERD_VM_RESULT=$fails"
exit 0
