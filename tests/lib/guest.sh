# shellcheck shell=sh
# tests/lib/guest.sh: the helpers every guest script shares (POSIX sh: busybox
# ash in the initramfs guests, bash in the systemd guest).
#
# Every guest has it at one fixed path: tests/vm/mkinitramfs.sh puts it into
# each initramfs it builds (tests/vm, tests/bench and its experiments) and
# tests/vm/systemd.sh into the systemd image.  A guest script sources it with
#   # shellcheck source=SCRIPTDIR/../../lib/guest.sh
#   . /usr/local/lib/damon-tierd-tests/guest.sh
#
# The caller sets TAG, the first word of its result lines ("E2E",
# "CONFLICT", ...), and may set RD_TRIES (how often rd and wr try a busy
# file, 0.1 s apart; default 10) before sourcing.  The helpers keep their own state in
# variables that start with "_"; the only variables they set for the caller
# are the documented ones: fails, n and on (count_on), kpids
# (kdamond_report), stat_before (topology_setup), dpid and log
# (start_daemon), drc (stop_daemon), tlpid (tierload_start).

TAG=${TAG:-TEST}
RD_TRIES=${RD_TRIES:-10}
ADMIN=/sys/kernel/mm/damon/admin/kdamonds
DAMON_STAT_ENABLED=/sys/module/damon_stat/parameters/enabled
fails=0
_failed=""
dpid=""
log=/dev/null

# --- results -----------------------------------------------------------------
# "TAG PASS: ..." and "TAG FAIL: ..." lines; fail counts in $fails.
pass() { echo "$TAG PASS: $*"; }
fail() {
	echo "$TAG FAIL: $*"
	fails=$((fails + 1))
	_failed="$_failed
$TAG failed: $*"
}
skip() { echo "$TAG SKIP: $*"; }
note() { echo "$TAG $*"; }
# check DESCRIPTION COMMAND...: PASS or FAIL with DESCRIPTION by COMMAND's
# status; a failed eq also says what it read.
check() {
	_check_what=$1
	shift
	if "$@"; then
		pass "$_check_what"
	elif [ "$1" = eq ]; then
		fail "$_check_what (read \"$2\", expected \"$3\")"
	else
		fail "$_check_what"
	fi
}
# verdict PASS_TEXT FAIL_TEXT COMMAND...: PASS with PASS_TEXT or FAIL with
# FAIL_TEXT by COMMAND's status.
verdict() {
	_verdict_pass=$1
	_verdict_fail=$2
	shift 2
	if "$@"; then pass "$_verdict_pass"; else fail "$_verdict_fail"; fi
}
eq() { [ "$1" = "$2" ]; }
ne() { [ "$1" != "$2" ]; }
# at_least VALUE MIN, at_most VALUE MAX: decimal comparisons (awk); false
# for an empty VALUE.
at_least() { [ -n "$1" ] && awk "BEGIN { exit !($1 >= $2) }"; }
at_most() { [ -n "$1" ] && awk "BEGIN { exit !($1 <= $2) }"; }
# not COMMAND...: succeeds when COMMAND fails (for wait_until and check).
not() { ! "$@"; }
# has FILE TEXT: FILE has the fixed string TEXT.
has() { grep -qF -- "$2" "$1"; }
# finish: the failed checks again (the host keeps only the console's tail)
# and the "TAG done: N failed" line; succeeds when nothing failed.
finish() {
	[ -z "$_failed" ] || echo "$_failed" | sed 1d
	echo "$TAG done: $fails failed"
	[ "$fails" = 0 ]
}
# abort MESSAGE: a failure the script cannot go on after: FAIL, done line, exit 1.
abort() {
	fail "$*"
	finish
	exit 1
}
# Sections of the console that the host cuts out (smoke.sh, systemd.sh --notes).
section_begin() { echo "@@BEGIN $1"; }
section_end() { echo "@@END $1"; }
# section NAME: stdin between @@BEGIN NAME and @@END NAME.
section() {
	section_begin "$1"
	cat
	section_end "$1"
}

# --- waiting -----------------------------------------------------------------
# The bounds only keep a broken guest from hanging; they are no time
# thresholds (guest time runs at a varying speed under TCG).
# wait_until SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds,
# at most 5 * SECONDS times and then once more; COMMAND's last status.
wait_until() {
	_wu_n=$(($1 * 5))
	shift
	while [ "$_wu_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		_wu_n=$((_wu_n - 1))
	done
	"$@"
}
# wait_alive PID SECONDS COMMAND...: wait_until, but it stops polling as soon
# as process PID is gone (COMMAND then has its last try).
wait_alive() {
	_wa_pid=$1
	_wa_n=$(($2 * 5))
	shift 2
	while [ "$_wa_n" -gt 0 ]; do
		"$@" && return 0
		kill -0 "$_wa_pid" 2>/dev/null || break
		sleep 0.2
		_wa_n=$((_wa_n - 1))
	done
	"$@"
}
now_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }

# --- sysfs ---------------------------------------------------------------------
# rd FILE: its content.  Reads of a kdamond's files can fail with EBUSY while
# the daemon (or the kernel's refresh) holds the DAMON sysfs lock: retried
# RD_TRIES times, 0.1 s apart.  Fails at once for a missing file.
rd() {
	_rd_n=$RD_TRIES
	while :; do
		_rd_v=$(cat "$1" 2>/dev/null) && {
			echo "$_rd_v"
			return 0
		}
		[ -e "$1" ] || return 1
		_rd_n=$((_rd_n - 1))
		[ "$_rd_n" -gt 0 ] || return 1
		sleep 0.1
	done
}
# rd_or FILE DEFAULT: rd FILE, or DEFAULT when it cannot be read.
rd_or() { rd "$1" || echo "$2"; }
# wr VALUE FILE: a write, retried like rd while the lock is busy.
wr() {
	_wr_n=$RD_TRIES
	while :; do
		echo "$1" 2>/dev/null >"$2" && return 0
		_wr_n=$((_wr_n - 1))
		[ "$_wr_n" -gt 0 ] || break
		sleep 0.1
	done
	note "cannot write $1 to $2"
	return 1
}
# DAMON_STAT's enabled parameter (Y/N), "absent" on a kernel without it.
stat_enabled() { rd_or "$DAMON_STAT_ENABLED" absent; }
stat_is() { [ "$(stat_enabled)" = "$1" ]; }
# damon_stat_off: turns DAMON_STAT off where the kernel has it: its
# exclusive context blocks every sysfs kdamond.
damon_stat_off() { [ ! -e "$DAMON_STAT_ENABLED" ] || echo N >"$DAMON_STAT_ENABLED"; }
nr_kdamonds() { rd "$ADMIN/nr_kdamonds"; }
# count_on: sets n (nr_kdamonds, 0 when unreadable) and on (how many of them
# read "on").
count_on() {
	n=$(nr_kdamonds || echo 0)
	on=0
	_co_k=0
	while [ "$_co_k" -lt "$n" ]; do
		[ "$(rd "$ADMIN/$_co_k/state")" = on ] && on=$((on + 1))
		_co_k=$((_co_k + 1))
	done
}
all_off() {
	count_on
	[ "$on" -eq 0 ]
}
# kdamonds_running N|N+: exactly N (N+: at least N) kdamonds exist and all
# of them are on; sets n and on.
kdamonds_running() {
	count_on
	case $1 in
	*+) [ "$n" -ge "${1%+}" ] || return 1 ;;
	*) [ "$n" -eq "$1" ] || return 1 ;;
	esac
	[ "$on" -eq "$n" ]
}
# The pids of kdamonds 0 and 1, "P0 P1".
pids() { echo "$(rd "$ADMIN/0/pid") $(rd "$ADMIN/1/pid")"; }
# kdamond_of ACTION: the index of the kdamond whose scheme has ACTION, or -1.
kdamond_of() {
	_ko_k=0
	while [ "$_ko_k" -lt "$(nr_kdamonds)" ]; do
		[ "$(rd "$ADMIN/$_ko_k/contexts/0/schemes/0/action")" = "$1" ] && {
			echo "$_ko_k"
			return 0
		}
		_ko_k=$((_ko_k + 1))
	done
	echo -1
}
# utime + stime of process PID in clock ticks (fields 14 and 15 of its stat,
# counted after the ")" that ends the command name); 0 when it is gone.
ticks() {
	if [ -n "$1" ] && [ -r "/proc/$1/stat" ]; then
		sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
	else
		echo 0
	fi
}
block_size() { echo $((0x$(cat /sys/devices/system/memory/block_size_bytes))); }
# node_span NID: "START END", from the start of node NID's first memory block
# to the end of its last one (holes included: the node's span, as
# samples/damon/mtier.c takes it); fails when the node has no memory block.
# memory[0-9]* leaves out memory_failure.
node_span() {
	_ns_bs=$(block_size)
	_ns_lo=""
	_ns_hi=""
	for _ns_d in /sys/devices/system/node/node"$1"/memory[0-9]*; do
		[ -e "$_ns_d" ] || continue
		_ns_id=${_ns_d##*/memory}
		if [ -z "$_ns_lo" ] || [ "$_ns_id" -lt "$_ns_lo" ]; then _ns_lo=$_ns_id; fi
		if [ -z "$_ns_hi" ] || [ "$_ns_id" -gt "$_ns_hi" ]; then _ns_hi=$_ns_id; fi
	done
	[ -n "$_ns_lo" ] || return 1
	echo "$((_ns_lo * _ns_bs)) $(((_ns_hi + 1) * _ns_bs))"
}
# in_test_guest BINARY: true only inside a guest of tests/vm/mkinitramfs.sh
# that has BINARY.  The measurement aids refuse to touch DAMON anywhere else.
in_test_guest() { [ -x "$1" ] && grep -q DAMON_TIERD_VM_RESULT /init 2>/dev/null; }

# --- topology ---------------------------------------------------------------
# memory_tiers: the memory tiers' node lists, fastest first, "|"-separated
# (e.g. "0|1|2", "0-1|2-3").
memory_tiers() {
	for _mt_t in /sys/devices/virtual/memory_tiering/memory_tier[0-9]*; do
		[ -d "$_mt_t" ] && echo "${_mt_t##*memory_tier} $(cat "$_mt_t/nodelist")"
	done | sort -n | awk '{ printf "%s%s", n++ ? "|" : "", $2 }'
}
# topology_section: the machine as the daemon sees it, framed as section
# "topology": tiers, each node's CPUs, distances, memory and HMAT data.
topology_section() {
	section_begin topology
	echo "kernel $(uname -r)"
	for _ts_t in /sys/devices/virtual/memory_tiering/memory_tier[0-9]*; do
		[ -d "$_ts_t" ] && echo "${_ts_t##*/} nodelist $(cat "$_ts_t/nodelist")"
	done
	for _ts_n in /sys/devices/system/node/node[0-9]*; do
		_ts_i=$_ts_n/access0/initiators
		_ts_in=$(for _ts_x in "$_ts_i"/node[0-9]*; do [ -e "$_ts_x" ] && printf '%s ' "${_ts_x##*/}"; done)
		echo "${_ts_n##*/} cpulist '$(cat "$_ts_n/cpulist")' distance '$(cat "$_ts_n/distance")'" \
			"MemTotal $(awk '/MemTotal/ { print $4 }' "$_ts_n/meminfo") kB" \
			"access0 initiators '${_ts_in% }'" \
			"read_latency $(cat "$_ts_i/read_latency" 2>/dev/null || echo -)" \
			"read_bandwidth $(cat "$_ts_i/read_bandwidth" 2>/dev/null || echo -)"
	done
	section_end topology
}
# topology_setup WANT: the topology section, a check that the memory tiers
# read WANT (as memory_tiers prints them), stat_before (damon_stat as found,
# for check_teardown) and NUMA balancing off: it would move the workloads'
# pages itself, and the tests are about what the daemon moves.
# shellcheck disable=SC2034  # stat_before is for the caller
topology_setup() {
	topology_section
	_tp_t=$(memory_tiers)
	verdict "memory tiers, fastest first: $_tp_t" "memory tiers '$_tp_t', not $1" eq "$_tp_t" "$1"
	stat_before=$(stat_enabled)
	echo 0 >/proc/sys/kernel/numa_balancing || abort "cannot turn NUMA balancing off"
}
# workload_started LOG: tests/vm/workload has placed its data.
workload_started() { grep -q '^WORKLOAD START' "$1"; }
# nth_of LIST I: the I-th (from 0) comma-separated number in LIST (0 if none).
nth_of() { echo "$1" | awk -F, -v i="$2" '{ print ($(i + 1) == "" ? 0 : $(i + 1)) }'; }

# --- the daemon in the background ------------------------------------------
# start_daemon NAME CONFIG: runs /bin/damon-tierd in the foreground mode in
# the background; sets dpid and log (/tmp/NAME.log, its stdout and stderr).
start_daemon() {
	log=/tmp/$1.log
	/bin/damon-tierd --foreground --config "$2" >"$log" 2>&1 &
	dpid=$!
}
alive() { kill -0 "$dpid" 2>/dev/null; }
# stop_daemon: SIGTERM and wait; sets drc (its exit status).
# shellcheck disable=SC2034  # drc is for the caller
stop_daemon() {
	kill -TERM "$dpid" 2>/dev/null
	wait "$dpid"
	drc=$?
	dpid=""
}
kill_daemon() {
	kill -KILL "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	dpid=""
}
show_log() { sed "s|^|DAEMON[$(basename "$log" .log)]: |" "$log"; }
has_log() { has "$log" "$1"; }
count_log() { grep -cF -- "$1" "$log"; }
log_count_ge() { [ "$(count_log "$1")" -ge "$2" ]; }
# wait_log TEXT SECONDS: until the log has the fixed string TEXT.
wait_log() { wait_alive "$dpid" "$2" has_log "$1"; }
# wait_count TEXT N SECONDS: until the log has N lines with TEXT.
wait_count() { wait_alive "$dpid" "$3" log_count_ge "$1" "$2"; }
# wait_running SECONDS N|N+: until the daemon's kdamonds run
# (kdamonds_running N|N+); fails at once when the daemon is gone.
wait_running() { wait_alive "$dpid" "$1" kdamonds_running "$2" && alive; }

# kdamond_report: one line per kdamond (action, target node, bytes applied);
# sets kpids (their pids) for check_teardown.  Call it while they run.
kdamond_report() {
	count_on
	kpids=""
	_kr_k=0
	while [ "$_kr_k" -lt "$n" ]; do
		kpids="$kpids $(rd "$ADMIN/$_kr_k/pid")"
		_kr_d=$ADMIN/$_kr_k/contexts/0/schemes/0
		note "kdamond $_kr_k: $(rd "$_kr_d/action") -> node$(rd "$_kr_d/target_nid"), applied" \
			"$(($(rd_or "$_kr_d/stats/sz_applied" 0) >> 20)) MiB"
		_kr_k=$((_kr_k + 1))
	done
}
# check_teardown STAT_BEFORE: after stop_daemon, the daemon exited 0, none of
# ours is on, none of the threads kdamond_report saw is left, and damon_stat
# is STAT_BEFORE again.
check_teardown() {
	verdict "daemon exited 0 on SIGTERM" "daemon exited $drc on SIGTERM" eq "$drc" 0
	count_on
	verdict "no kdamond of ours runs after SIGTERM" "$on kdamonds still on after SIGTERM" eq "$on" 0
	_ct_left=""
	for _ct_p in $kpids; do [ -d "/proc/$_ct_p" ] && _ct_left="$_ct_left $_ct_p"; done
	verdict "none of the kdamond threads ($kpids ) is left" "kdamond threads left:$_ct_left" \
		eq "$_ct_left" ""
	_ct_after=$(stat_enabled)
	verdict "damon_stat restored ($_ct_after)" "damon_stat was $1, now $_ct_after" eq "$_ct_after" "$1"
}

# daemon_up N: damon-tierd with /etc/damon-tierd.conf in the background, and
# a check that its N kdamonds run and were armed within 60 s each.
daemon_up() {
	start_daemon daemon /etc/damon-tierd.conf
	_du_ok=0
	wait_running 60 "$1" && _du_ok=1
	wait_count "started kdamond" "$1" 60
	verdict "daemon started $1 kdamonds" "$1 kdamonds not running (n=$n on=$on)" eq "$_du_ok" 1
}

# --- tierload (tests/bench/tierload) in a test guest --------------------------
# field KEY LINE: the value of the word KEY=value in LINE ("" when absent).
field() { echo " $2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
# tierload_start LOG ARGS...: /bin/tierload ARGS in the background, its output
# in LOG; waits until it has placed its data (its ready file; at most 600 s).
# Sets tlpid; SIGUSR1 to it starts its clock.  Fails when it exits first or is
# not ready in time.
tierload_start() {
	_tl_log=$1
	shift
	rm -f /tmp/tierload.ready
	/bin/tierload "$@" --ready-file /tmp/tierload.ready >"$_tl_log" 2>&1 &
	tlpid=$!
	wait_alive "$tlpid" 600 test -s /tmp/tierload.ready
}
# tierload_under_daemon LOG ARGS...: one tierload run under damon-tierd's
# /etc/damon-tierd.conf, the daemon measured alone: NUMA balancing off (the
# kernel turns it on for a two-node machine, and it would migrate pages
# itself), the workload places its data, the daemon starts, and once its
# kdamonds run the workload's clock starts; at the workload's end the daemon
# is stopped (SIGTERM, exit status in drc).  The workload's EVENT, T90,
# SCAN and FINAL lines and every fifth sample go to the console, then the
# daemon's last log lines.  Aborts the test when the setup fails.
tierload_under_daemon() {
	_tud_log=$1
	echo 0 >/proc/sys/kernel/numa_balancing || abort "cannot turn NUMA balancing off"
	if ! tierload_start "$@"; then
		sed "s/^/$TAG tierload: /" "$_tud_log"
		abort "tierload did not place its data"
	fi
	grep '^BENCH CONFIG' "$_tud_log" | sed "s/^/$TAG /"
	start_daemon daemon /etc/damon-tierd.conf
	if ! wait_running 60 2+; then
		show_log
		kill "$tlpid"
		abort "damon-tierd's kdamonds are not on after 60 s"
	fi
	kill -USR1 "$tlpid"
	wait "$tlpid" || note "tierload exited $?"
	stop_daemon
	awk '/^BENCH (EVENT|T90|SCAN|FINAL)/ || (/^BENCH SAMPLE/ && n++ % 5 == 0)' "$_tud_log" | sed "s/^/$TAG /"
	tail -n 25 "$log" | sed 's/^/DAEMON: /'
}
