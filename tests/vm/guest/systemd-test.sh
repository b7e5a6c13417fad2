#!/bin/bash
# Guest side of the vm-systemd test (tests/vm/systemd.sh): runs in a Debian
# guest with systemd as PID 1, as /usr/local/libexec/damon-tierd-vmtest from
# damon-tierd-vmtest.service, after multi-user.target.  damon-tierd is the
# Debian package, installed into the image with dpkg (tests/vm/systemd.sh),
# and is driven only with systemctl, journalctl, damon-tierd status and dpkg:
#   0. the package is installed (dpkg -V clean) but not enabled, not running;
#      damon_stat on (6.17 default)
#   1. systemctl start: returns after READY=1 with both kdamonds already on;
#      StatusText "running 2 kdamonds"; systemctl status shows it
#   2. the journal has the discovery and kdamond lines with their fields
#   3. the hardened unit could write DAMON sysfs and pause damon_stat;
#      damon-tierd status (as root and as nobody) and status --json
#   4. edit /etc/damon-tierd.conf + systemctl reload: the promote used goal
#      becomes 8500 online (same MainPID, same kdamond pids)
#   5. a broken config: systemctl reload fails, nothing changes, the journal
#      has the file:line error
#   6. systemctl start with a broken config fails (exit 2) and is not
#      restarted; systemctl restart with a good one runs again
#   6b. Prometheus: a config drop-in sets daemon.prometheus_textfile, a unit
#      drop-in adds ReadWritePaths= for node_exporter's textfile directory;
#      the file is there, 0644, readable by nobody, in the exposition format
#   7. systemctl stop: our kdamonds off, damon_stat back on, the textfile
#      says damon_tierd_running 0
#   8. watchdog: a stopped (SIGSTOP) daemon stops pinging; systemd's watchdog
#      kills it (drop-in WatchdogSec=6s) and Restart=on-failure starts a new
#      one, which adopts or replaces our kdamonds: exactly two, both on
#   9. dpkg -r with the service running stops it (kdamonds off, damon_stat
#      back on, conffile kept); dpkg --purge removes the conffile
# Prints "SYSTEMD PASS/FAIL: ..." lines, @@BEGIN/@@END sections with the real
# output of systemctl and journalctl, the operator transcript (section
# systemd-operator: each command as "# CMD" and its output), and
# "DAMON_TIERD_VM_RESULT=<failures>".
# Always exits 0: the unit's SuccessAction powers the guest off.
# Most helpers here are only called through check and wait_until:
# shellcheck disable=SC2317
set -u
export SYSTEMD_PAGER="" SYSTEMD_COLORS=0 SYSTEMD_URLIFY=0 COLUMNS=160 LC_ALL=C.UTF-8
TAG=SYSTEMD
# Reads of a kdamond's files can fail with EBUSY while the daemon holds the
# DAMON sysfs lock: up to 5 s of retries.
RD_TRIES=50
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
U=damon-tierd
STAT=$DAMON_STAT_ENABLED
CONF=/etc/damon-tierd.conf
T=$(mktemp -d)

prop() { systemctl show -P "$1" "$U"; }
# "state:pid" of every kdamond, space separated.
kd_states() {
	local n k out=""
	n=$(nr_kdamonds || echo 0)
	for ((k = 0; k < n; k++)); do
		out+="$(rd "$ADMIN/$k/state"):$(rd "$ADMIN/$k/pid") "
	done
	echo "${out% }"
}
# Two kdamonds, both on.
all_on() { kdamonds_running 2; }
none_on() {
	local n k
	n=$(nr_kdamonds || echo 0)
	for ((k = 0; k < n; k++)); do
		[[ $(rd "$ADMIN/$k/state") == off ]] || return 1
	done
}
# The promote (used) goal the daemon runs with, in basis points.  The
# default quota tuner (the daemon's controller) writes no kernel goal, so it
# comes from the status file, rewritten every period; a kernel goal, if any,
# must agree.
promote_goal() {
	local k g t
	# The first "promote" object is the direction; the explanation's
	# (under "explain") quotes the goal too.
	g=$(grep -o '"promote":{[^}]*}' /run/damon-tierd/status.json 2>/dev/null |
		sed -n 's/.*"goal_bp":\([0-9]*\).*/\1/p' | head -n1)
	k=$(kdamond_of migrate_hot)
	t=$ADMIN/$k/contexts/0/schemes/0/quotas/goals/0/target_value
	if ((k >= 0)) && [[ $(rd "${t%/0/target_value}/nr_goals" 2>/dev/null) == 1 ]]; then
		[[ $(rd "$t") == "$g" ]] || g="status $g, kernel $(rd "$t")"
	fi
	echo "$g"
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

# The operator transcript (section systemd-operator, kept as
# tests/vm/notes/systemd-operator.txt): real
# commands and their real output, in the order the test runs them.
OP=$T/operator.txt
{
	echo "damon-tierd $(dpkg-query -W -f='${Version}' damon-tierd 2>/dev/null) (Debian package, installed with dpkg -i, not enabled)"
	echo "$(systemctl --version | head -n1), kernel $(uname -r), QEMU TCG: node0 2 CPUs + DRAM, node1 CPU-less"
	echo "Captured by tests/vm/systemd.sh --notes DIR (tests/vm/guest/systemd-test.sh): each"
	echo "command as \"# COMMAND\" (run as root), then its real output and a non-zero exit status."
} >"$OP"
ophead() { printf '\n==== %s ====\n' "$*" >>"$OP"; }
# op OUT CMDLINE: runs CMDLINE with bash, appends "# CMDLINE", its output
# (stdout and stderr) and a non-zero exit status to the transcript, and
# copies the output to the file OUT too unless OUT is "-".  Returns
# CMDLINE's status.
op() {
	local out=$1 cmd=$2 rc
	bash -c "$cmd" >"$T/op.last" 2>&1
	rc=$?
	{
		printf '# %s\n' "$cmd"
		cat "$T/op.last"
		((rc == 0)) || echo "(exit status $rc)"
	} >>"$OP"
	[[ $out == - ]] || cp "$T/op.last" "$out"
	return $rc
}
# mark: waits for the next second of the wall clock and prints it (HH:MM:SS),
# so that "journalctl --since MARK" shows exactly what came after the mark.
mark() {
	local s
	s=$(date +%s)
	while [[ $(date +%s) == "$s" ]]; do sleep 0.05; done
	date +%T
}
# The journal cursor of the unit's newest entry; jsince CURSOR: messages after it.
jcursor() { journalctl -u "$U" -n 1 -o export --no-pager | sed -n 's/^__CURSOR=//p'; }
jsince() { journalctl -u "$U" --no-pager -o cat --after-cursor="$1"; }

echo "SYSTEMD TEST kernel=$(uname -r) $(systemctl --version | head -n1)"
# The boot transaction is not finished while this unit runs, so
# systemd-analyze time cannot answer yet; the target's timestamp can.
mu=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
echo "SYSTEMD INFO: multi-user.target reached $((mu / 1000000)).$(printf '%03d' $((mu / 1000 % 1000))) s after boot; test starts at $(cut -d' ' -f1 /proc/uptime) s"
systemctl --failed --no-legend --plain 2>&1 | section failed-units-at-boot

# -- 0. installed by dpkg, not enabled --------------------------------------
step "0 installed by dpkg, not enabled"
pkgstatus=$(dpkg-query -W -f='${Status} ${Version}' damon-tierd 2>&1)
check "dpkg: damon-tierd is installed ($pkgstatus)" \
	bash -c "[[ '$pkgstatus' == 'install ok installed '* ]]"
# systemd.sh --unit replaces the packaged unit file, which dpkg -V then flags.
dpkg -V damon-tierd >"$T/dpkg-V.out" 2>&1
vrc=$?
if [[ -e /usr/local/share/damon-tierd-vmtest/unit-replaced ]]; then
	sed -i '\| /usr/lib/systemd/system/damon-tierd.service$|d' "$T/dpkg-V.out"
	echo "SYSTEMD INFO: the unit file was replaced by systemd.sh --unit"
	vrc=0
fi
check "dpkg -V: the installed files are the package's (rc $vrc: $(cat "$T/dpkg-V.out"))" \
	bash -c "[[ $vrc == 0 && ! -s $T/dpkg-V.out ]]"
check "dpkg: $CONF is a conffile" \
	bash -c "dpkg-query -W -f='\${Conffiles}' damon-tierd | grep -q '^ $CONF '"
dpkg-query -L damon-tierd >"$T/dpkg-L.out" 2>&1
check "dpkg: the unit and the binary belong to damon-tierd" \
	bash -c "grep -qx /usr/lib/systemd/system/$U.service $T/dpkg-L.out && grep -qx /usr/sbin/damon-tierd $T/dpkg-L.out"
check "binary has all its libraries (ldd)" \
	bash -c '! ldd /usr/sbin/damon-tierd | grep -q "not found"'
ophead "installed with dpkg -i: not enabled, not running"
op "$T/is-enabled.out" "systemctl is-enabled $U"
check "unit is installed but not enabled (is-enabled: $(cat "$T/is-enabled.out"))" \
	eq "$(cat "$T/is-enabled.out")" disabled
check "no [Install] symlink was made (no /etc/systemd/system/*.wants/$U.service)" \
	bash -c "! ls /etc/systemd/system/*.wants/$U.service 2>/dev/null | grep -q ."
check "unit is not running before start ($(systemctl is-active $U 2>&1))" \
	eq "$(systemctl is-active $U 2>&1)" inactive
check "shipped config passes --check-config" \
	bash -c "/usr/sbin/damon-tierd --check-config >$T/check.out 2>&1"
stat_before=$(stat_enabled)
check "damon_stat enabled at boot ($stat_before)" eq "$stat_before" Y
check "no kdamond before start (nr_kdamonds $(nr_kdamonds))" eq "$(nr_kdamonds)" 0
systemd-analyze verify --man=no /usr/lib/systemd/system/$U.service >"$T/verify.out" 2>&1
vrc=$?
section unit-verify <"$T/verify.out"
check "systemd-analyze verify accepts the unit (rc $vrc)" eq "$vrc" 0

# -- 1. systemctl start ------------------------------------------------------
step "1 systemctl start"
ophead "start"
op "$T/start.out" "systemctl start $U"
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
op "$T/status.out" "systemctl status $U -l"
src=$?
section systemctl-status-running <"$T/status.out"
check "systemctl status exits 0 for a running unit (rc $src)" eq "$src" 0
check "systemctl status shows active (running)" has "$T/status.out" "Active: active (running)"
check "systemctl status shows the status text" has "$T/status.out" 'Status: "running 2 kdamonds"'

# -- 2. journal --------------------------------------------------------------
step "2 journal"
wait_until 10 jhas "started kdamond 1"
op "$T/j.txt" "journalctl -u $U -o cat"
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
read -r -a kpids <<<"$(pids)"
check "the kdamond pids are kdamond threads (${kpids[*]})" pids_are_kdamonds "${kpids[@]}"
check "damon_stat paused by the daemon ($(stat_enabled))" eq "$(stat_enabled)" N
check "RuntimeDirectory /run/damon-tierd exists" test -d /run/damon-tierd
echo "SYSTEMD INFO: promote kdamond $(kdamond_of migrate_hot), used goal $(promote_goal)"
systemd-analyze security $U --no-pager >"$T/security.out" 2>&1
section systemd-analyze-security <"$T/security.out"
# The daemon publishes /run/damon-tierd/status.txt and status.json (0644)
# every period; "damon-tierd status" prints them for anyone.
wait_until 10 test -s /run/damon-tierd/status.json
ophead "damon-tierd status (root, and nobody), --json"
op "$T/st-root.out" "damon-tierd status"
rc=$?
check "damon-tierd status as root: exit 0, 'damon-tierd (pid $mainpid): running' (rc $rc: $(head -n1 "$T/st-root.out"))" \
	eq "$rc:$(head -n1 "$T/st-root.out")" "0:damon-tierd (pid $mainpid): running"
check "damon-tierd status shows both kdamonds" \
	bash -c "grep -qE '^ +promote +kdamond' $T/st-root.out && grep -qE '^ +demote +kdamond' $T/st-root.out"
op "$T/st-nobody.out" "setpriv --reuid=nobody --regid=nogroup --clear-groups damon-tierd status"
rc=$?
check "damon-tierd status as nobody: exit 0, same report (rc $rc: $(head -n1 "$T/st-nobody.out"))" \
	eq "$rc:$(head -n1 "$T/st-nobody.out")" "0:damon-tierd (pid $mainpid): running"
op "$T/st-json.out" "damon-tierd status --json"
rc=$?
check "damon-tierd status --json: exit 0, {\"schema\":1,\"running\":true,...,\"pid\":$mainpid,... (rc $rc)" \
	bash -c "[[ $rc == 0 ]] && head -c 40 $T/st-json.out | grep -qF '{\"schema\":1,\"running\":true,' &&
		grep -qF '\"pid\":$mainpid,\"interval_us\":' $T/st-json.out &&
		grep -qF '\"state\":\"running\"' $T/st-json.out"

# -- 4. reload with an edited config -----------------------------------------
step "4 reload with an edited config"
cp $CONF "$T/conf.orig"
ophead "edit the config, systemctl reload"
op - "sed -i 's/^#used_goal = auto\$/used_goal = 85%/' $CONF"
check "config edited ([promote] used_goal = 85%)" grep -qx 'used_goal = 85%' $CONF
since=$(mark)
cur=$(jcursor)
op "$T/reload.out" "systemctl reload $U"
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
check "promote used goal is 8500 after reload ($(promote_goal))" goal_is 8500
wait_until 10 sub_running
check "still active (running) after reload ($(prop ActiveState)/$(prop SubState))" \
	eq "$(prop ActiveState)/$(prop SubState)" active/running
check "same MainPID after reload ($(prop MainPID) = $mainpid)" eq "$(prop MainPID)" "$mainpid"
check "same kdamonds after reload ($(kd_states))" \
	eq "$(kd_states)" "on:${kpids[0]} on:${kpids[1]}"
wait_until 10 jhas "configuration reloaded"
# Under the daemon's quota controller (the default) a goal is not in the
# kdamonds' files: the reload applies it to the controller, which logs it.
check "journal: the reloaded goal applied (85.00% in the goals line)" jhas "used 85.00% (configured 85.00%)"
check "journal: 'configuration reloaded'" jhas "configuration reloaded"
# A reload logs the next status line right away (the periodic ones come
# every status_interval, 60 s).
wait_until 10 bash -c "journalctl -u $U -o cat --after-cursor='$cur' DAMON_TIERD_EVENT=status | grep -q ."
check "journal: a status line after the reload" \
	bash -c "journalctl -u $U -o cat --after-cursor='$cur' DAMON_TIERD_EVENT=status | grep -q 'node0 used'"
op - "journalctl -u $U -o cat --since $since"
echo "SYSTEMD INFO: StatusText after reload: '$(prop StatusText)'"

# -- 5. reload with a broken config ------------------------------------------
step "5 reload with a broken config"
cp $CONF "$T/conf.good"
ophead "a broken config: systemctl reload fails, the daemon keeps running"
op - "sed -i 's/^#size = 200MiB\$/size = 12 parsecs/' $CONF"
badline=$(grep -n '^size = 12 parsecs$' $CONF | cut -d: -f1)
check "config broken ([quota] size = 12 parsecs at line ${badline:-?})" test -n "$badline"
since=$(mark)
op "$T/reload-bad.out" "systemctl reload $U"
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
op - "journalctl -u $U -o cat --since $since"
op "$T/status-bad.out" "systemctl status $U -l"
section systemctl-status-after-failed-reload <"$T/status-bad.out"

# -- 6. restart paths --------------------------------------------------------
step "6 start with a broken config, restart"
ophead "systemctl start with the broken config fails; fixed, it starts"
op - "systemctl stop $U"
op "$T/start-bad.out" "systemctl start $U"
rc=$?
check "systemctl start with a broken config fails (rc $rc)" ne "$rc" 0
# RestartPreventExitStatus=2: a config error is not retried.  Wait past
# RestartSec=5s to see that no restart comes.
sleep 7
check "no restart after a config error (NRestarts $(prop NRestarts), $(prop ActiveState), exit $(prop ExecMainStatus))" \
	eq "$(prop NRestarts)/$(prop ActiveState)/$(prop ExecMainStatus)" 0/failed/2
check "no kdamond on after the failed start ($(kd_states))" none_on
check "damon_stat on after the failed start ($(stat_enabled))" eq "$(stat_enabled)" Y
op "$T/status-failed.out" "systemctl status $U -l"
section systemctl-status-failed-start <"$T/status-failed.out"
op - "systemctl reset-failed $U"
op - "sed -i 's/^size = 12 parsecs\$/#size = 200MiB/' $CONF"
check "config fixed (the same file as before the broken edit)" cmp -s "$T/conf.good" $CONF
cp "$T/conf.good" $CONF
op - "systemctl start $U"
rc=$?
check "systemctl start with the fixed config succeeds (rc $rc)" eq "$rc" 0
check "both kdamonds on again ($(kd_states))" all_on
wait_until 10 goal_is 8500
check "goal 8500 from the edited config after the fresh start ($(promote_goal))" goal_is 8500
oldpid=$(prop MainPID)
op - "systemctl restart $U"
rc=$?
newpid=$(prop MainPID)
check "systemctl restart succeeds with a new MainPID (rc $rc, $oldpid -> $newpid)" \
	bash -c "[[ $rc == 0 && $newpid != 0 && $newpid != $oldpid ]]"
check "both kdamonds on after restart ($(kd_states))" all_on
check "StatusText after restart ('$(prop StatusText)')" \
	bash -c "[[ '$(prop StatusText)' == 'running 2 kdamonds'* ]]"

# -- 6b. Prometheus textfile -------------------------------------------------
step "6b Prometheus textfile"
PROMDIR=/var/lib/prometheus/node-exporter
PROM=$PROMDIR/damon-tierd.prom
PROM_UNIT_DROPIN=/etc/systemd/system/$U.service.d/prometheus.conf
PROM_CONF_DROPIN=/etc/damon-tierd.conf.d/prometheus.conf
# One sample line of the text exposition format: name{labels} value.
prom_valid() {
	grep -v '^#' "$1" | grep -qvE '^[a-z_][a-z0-9_]*(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [-+0-9.e]+$' && return 1
	grep -q '^damon_tierd_' "$1"
}
prom_has() { [[ -f $PROM ]] && grep -qF -- "$1" "$PROM"; }
ophead "Prometheus: node_exporter textfile output"
op - "mkdir -p $PROMDIR"
mkdir -p "${PROM_UNIT_DROPIN%/*}" "${PROM_CONF_DROPIN%/*}"
printf '%s\n' "[Service]" "ReadWritePaths=$PROMDIR" >"$PROM_UNIT_DROPIN"
printf '%s\n' "[daemon]" "prometheus_textfile = $PROM" >"$PROM_CONF_DROPIN"
op - "cat $PROM_UNIT_DROPIN"
op - "cat $PROM_CONF_DROPIN"
op - "systemctl daemon-reload"
op - "systemctl restart $U"
rc=$?
check "restart with the Prometheus drop-ins succeeds (rc $rc)" eq "$rc" 0
check "--check-config shows the textfile from the drop-in" \
	bash -c "damon-tierd --check-config | grep -qE '^daemon.prometheus_textfile = $PROM +# $PROM_CONF_DROPIN:2'"
wait_until 20 prom_has 'damon_tierd_migrated_bytes_total{direction="promote",node="1"}'
op - "ls -l $PROM"
op "$T/prom.out" "cat $PROM"
section prometheus-textfile <"$T/prom.out"
check "textfile written, mode 644 ($(stat -c %a $PROM 2>&1))" eq "$(stat -c %a $PROM 2>&1)" 644
check "textfile readable by nobody (node_exporter does not run as root)" \
	runuser -u nobody -- test -r $PROM
check "textfile: damon_tierd_running 1" prom_has "damon_tierd_running 1"
check "textfile: build info" prom_has "damon_tierd_build_info{version="
check "textfile: migrated_bytes_total is a counter" prom_has "# TYPE damon_tierd_migrated_bytes_total counter"
for m in 'damon_tierd_migrated_bytes_total{direction="promote",node="1"}' \
	'damon_tierd_migrated_bytes_total{direction="demote",node="0"}' \
	'damon_tierd_node_used_ratio{node="0"}' 'damon_tierd_node_used_ratio{node="1"}' \
	'damon_tierd_goal_ratio{goal="used",node="0"}' 'damon_tierd_goal_ratio{goal="free",node="0"}' \
	'damon_tierd_effective_quota_bytes{direction="promote",node="1"}' \
	'damon_tierd_errors_total' 'damon_tierd_repairs_total'; do
	check "textfile: $m" prom_has "$m "
done
check "textfile: every sample line is in the exposition format" prom_valid $PROM
check "no temporary file left next to it" test ! -e $PROM.tmp
m1=$(stat -c %Y $PROM)
# Rewritten every interval (5 s).
wait_until 20 bash -c "[[ \$(stat -c %Y $PROM) != $m1 ]]"
check "textfile rewritten on the next interval (mtime $m1 -> $(stat -c %Y $PROM))" \
	ne "$(stat -c %Y $PROM)" "$m1"

# -- 7. systemctl stop -------------------------------------------------------
step "7 systemctl stop"
read -r -a kpids <<<"$(pids)"
ophead "stop"
since=$(mark)
op "$T/stop.out" "systemctl stop $U"
rc=$?
check "systemctl stop succeeds (rc $rc)" eq "$rc" 0
check "inactive after stop, Result=success ($(prop ActiveState), $(prop Result))" \
	eq "$(prop ActiveState)/$(prop Result)" inactive/success
check "kdamonds off after stop, nr_kdamonds as found at boot ($(nr_kdamonds): $(kd_states))" \
	bash -c "[[ $(nr_kdamonds) == 0 ]]"
check "no kdamond left on after stop" none_on
check "kdamond threads gone (${kpids[*]})" pids_gone "${kpids[@]}"
check "damon_stat re-enabled after stop ($(stat_enabled))" eq "$(stat_enabled)" Y
check "journal: 're-enabled damon_stat'" jhas "re-enabled damon_stat"
check "journal: 'stopped; no kdamond of ours is running'" jhas "stopped; no kdamond of ours is running"
op - "journalctl -u $U -o cat --since $since"
op "$T/status-stopped.out" "systemctl status $U -l"
section systemctl-status-stopped <"$T/status-stopped.out"
# The status files outlive the daemon (RuntimeDirectoryPreserve=yes).
op "$T/st-stopped.out" "damon-tierd status"
rc=$?
check "damon-tierd status after stop: exit non-zero, says not running (rc $rc)" \
	bash -c "[[ $rc != 0 ]] && grep -q 'damon-tierd is not running' $T/st-stopped.out"
check "textfile after stop: damon_tierd_running 0" prom_has "damon_tierd_running 0"
op - "grep running $PROM"
cp "$T/conf.orig" $CONF
rm -f "$PROM_UNIT_DROPIN" "$PROM_CONF_DROPIN" $PROM
rmdir "${PROM_CONF_DROPIN%/*}"
systemctl daemon-reload

# -- 8. watchdog ---------------------------------------------------------------
# A hung main loop, simulated without a code hook: SIGSTOP stops the
# sd-event loop and with it the WATCHDOG=1 pings.  The unit has
# WatchdogSec=60s; a drop-in shortens it to keep the test short, and
# TimeoutAbortSec= bounds the wait for the SIGABRT (WatchdogSignal=) to work
# before systemd sends SIGKILL (it would be TimeoutStopSec=60s).  systemd
# follows the SIGABRT with a SIGCONT, so even a stopped process gets it.
step "8 watchdog"
DROPIN=/etc/systemd/system/$U.service.d/watchdog.conf
mkdir -p "${DROPIN%/*}"
printf '%s\n' "# damon-tierd VM test: a short watchdog and restart delay." "[Service]" \
	"WatchdogSec=6s" "RestartSec=1s" "TimeoutAbortSec=5s" >"$DROPIN"
ophead "watchdog: a hung main loop (SIGSTOP) is killed and restarted"
op - "cat $DROPIN"
op - "systemctl daemon-reload"
op - "systemctl restart $U"
rc=$?
check "restart with the watchdog drop-in succeeds (rc $rc, WatchdogUSec=$(prop WatchdogUSec))" \
	eq "$rc/$(prop WatchdogUSec)" 0/6s
check "both kdamonds on before the hang ($(kd_states))" all_on
wdpid=$(prop MainPID)
nrestarts0=$(prop NRestarts)
read -r -a kpids <<<"$(pids)"
since=$(mark)
cur=$(jcursor)
t0=$(cut -d' ' -f1 /proc/uptime)
op - "kill -STOP $wdpid"
new_instance_running() {
	local p
	p=$(prop MainPID)
	[[ $p != 0 && $p != "$wdpid" && $(prop SubState) == running &&
		$(prop StatusText) == "running 2 kdamonds"* ]]
}
# The bound only keeps a broken guest from hanging: 6 s of watchdog, at most
# 5 s of abort timeout, 1 s of RestartSec and a start.
wait_until 60 new_instance_running
t1=$(cut -d' ' -f1 /proc/uptime)
echo "SYSTEMD INFO: stopped pid $wdpid at $t0 s; new instance $(prop MainPID) running at $t1 s"
jsince "$cur" >"$T/j-wd.txt"
check "journal: systemd's 'Watchdog timeout'" has "$T/j-wd.txt" "Watchdog timeout"
check "journal: systemd killed the hung daemon with SIGABRT (WatchdogSignal)" \
	grep -qE "Killing process $wdpid \(damon-tierd\) with signal SIGABRT" "$T/j-wd.txt"
echo "SYSTEMD INFO: $(grep -m1 'Main process exited' "$T/j-wd.txt")"
check "journal: Result 'watchdog'" has "$T/j-wd.txt" "Failed with result 'watchdog'"
check "the hung process is gone (pid $wdpid)" test ! -e "/proc/$wdpid"
check "Restart=on-failure restarted it: NRestarts $nrestarts0 -> $(prop NRestarts)" \
	eq "$(prop NRestarts)" $((nrestarts0 + 1))
newpid=$(prop MainPID)
check "a new MainPID running ($wdpid -> $newpid, $(prop ActiveState)/$(prop SubState))" \
	bash -c "[[ $newpid != 0 && $newpid != $wdpid && '$(prop ActiveState)/$(prop SubState)' == active/running ]]"
check "MainPID is the daemon ($(cat /proc/"$newpid"/comm 2>/dev/null))" \
	eq "$(cat /proc/"$newpid"/comm 2>/dev/null)" damon-tierd
wait_until 10 bash -c "journalctl -u $U -o cat --after-cursor='$cur' | grep -qE 'adopted 2 running kdamonds|replacing them'"
jsince "$cur" >"$T/j-wd.txt"
if grep -qF "adopted 2 running kdamonds" "$T/j-wd.txt"; then
	pass "journal: the new instance adopted 2 running kdamonds"
	check "adopted: the same kdamond threads, never stopped ($(kd_states))" \
		eq "$(kd_states)" "on:${kpids[0]} on:${kpids[1]}"
	check "StatusText 'running 2 kdamonds (adopted)' ('$(prop StatusText)')" \
		eq "$(prop StatusText)" "running 2 kdamonds (adopted)"
elif grep -qF "replacing them" "$T/j-wd.txt"; then
	pass "journal: the new instance replaced the kdamonds of the killed one"
else
	fail "journal: neither 'adopted 2 running kdamonds' nor 'replacing them'"
fi
check "exactly 2 kdamonds, both on ($(nr_kdamonds): $(kd_states))" all_on
check "damon_stat still paused ($(stat_enabled))" eq "$(stat_enabled)" N
op - "journalctl -u $U -o cat --since $since"
op - "systemctl status $U -l"

# -- 9. dpkg -r, dpkg --purge ---------------------------------------------------
step "9 dpkg -r with the service running, dpkg --purge"
mainpid=$(prop MainPID)
read -r -a kpids <<<"$(pids)"
check "running before removal (MainPID $mainpid, $(prop SubState), $(kd_states))" \
	bash -c "[[ '$(prop SubState)' == running ]] && [[ '$(kd_states)' == on:*' 'on:* ]]"
ophead "dpkg -r with the service running, then dpkg --purge"
cur=$(jcursor)
op "$T/dpkg-r.out" "dpkg -r damon-tierd"
rc=$?
check "dpkg -r damon-tierd succeeds (rc $rc)" eq "$rc" 0
check "dpkg -r printed no warning (prerm: no ownership record left behind)" \
	bash -c "! grep -qi warning $T/dpkg-r.out"
check "the service is inactive ($(systemctl is-active $U 2>&1))" \
	eq "$(systemctl is-active $U 2>&1)" inactive
check "the daemon is gone (pid $mainpid)" test ! -e "/proc/$mainpid"
check "no kdamond of ours runs: nr_kdamonds 0 ($(nr_kdamonds))" eq "$(nr_kdamonds)" 0
check "all kdamonds off" none_on
check "kdamond threads gone (${kpids[*]})" pids_gone "${kpids[@]}"
check "damon_stat back to Y ($(stat_enabled))" eq "$(stat_enabled)" Y
jsince "$cur" >"$T/j-rm.txt"
check "journal: 'stopped; no kdamond of ours is running' on removal" \
	has "$T/j-rm.txt" "stopped; no kdamond of ours is running"
check "journal: 're-enabled damon_stat' on removal" has "$T/j-rm.txt" "re-enabled damon_stat"
check "$CONF kept (a conffile)" test -f $CONF
check "binary and unit removed" \
	bash -c "[[ ! -e /usr/sbin/damon-tierd && ! -e /usr/lib/systemd/system/$U.service ]]"
pkgstatus=$(dpkg-query -W -f='${Status}' damon-tierd 2>&1)
check "dpkg: 'deinstall ok config-files' ($pkgstatus)" eq "$pkgstatus" "deinstall ok config-files"
check "systemd no longer knows the unit (LoadState $(prop LoadState))" eq "$(prop LoadState)" not-found
op - "systemctl is-active $U"
op - "cat $STAT"
op - "ls -l $CONF"
op "$T/dpkg-purge.out" "dpkg --purge damon-tierd"
rc=$?
check "dpkg --purge damon-tierd succeeds (rc $rc)" eq "$rc" 0
check "$CONF removed by purge" test ! -e $CONF
check "/run/damon-tierd removed by purge" test ! -e /run/damon-tierd
pkgstatus=$(dpkg-query -W -f='${Status}' damon-tierd 2>/dev/null)
check "dpkg: not installed after purge ('$pkgstatus')" \
	bash -c "[[ -z '$pkgstatus' || '$pkgstatus' == *not-installed ]]"
check "no deb-systemd-helper state left" \
	bash -c "! ls -a /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked 2>/dev/null | grep -q damon-tierd"
# The watchdog drop-in is the operator's file, not the package's.
rm -f "$DROPIN"
rmdir "${DROPIN%/*}"
systemctl daemon-reload

journalctl -u $U --no-pager -o short-monotonic >"$T/journal.out" 2>&1
section journal-full <"$T/journal.out"
section systemd-operator <"$OP"

step "done"
echo "SYSTEMD RESULT: $fails failure(s)"
echo "DAMON_TIERD_VM_RESULT=$fails"
exit 0
