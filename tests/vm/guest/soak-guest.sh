#!/bin/sh
# Guest side of tests/vm/soak.sh (busybox sh): damon-tierd with its defaults
# (the config only lowers status_interval, for the log) supervised for
# SOAK_MINUTES of guest time (/proc/uptime) under a changing workload, looped:
#   slow-hot  workload: cold data fills node 0, a 64 MiB hot set on node 1
#   shift     tierload gups: hot set A on node 1, at half the phase B
#   idle      nothing runs; the previous phase's memory is free
#   grow      tierload grow: a new hot chunk every quarter of the phase
#   mixed     tierload zipf (hot keys scattered over both nodes) together
#             with a small workload (32 MiB hot on node 1, no cold data)
# A sampler reads, every SOAK_SAMPLE seconds, the daemon's VmRSS, open fds
# and utime+stime, the age of the status files, the pid in status.json and
# pid + sz_applied of each of our kdamonds (the daemon sets refresh_ms, so
# the sysfs stats are fresh; this script writes nothing under DAMON sysfs);
# the status files' age is also probed every SOAK_PROBE seconds.  At the end
# SIGTERM, and the checks: no RSS growth (last third's max <= first third's
# max + SOAK_RSS_SLACK_KB), fd count constant after start-up, status files
# never older than 3 daemon periods, same daemon pid all along, sz_applied
# never decreasing while a kdamond's pid is unchanged, nothing above info in
# the daemon's log but the expected lines, clean exit on SIGTERM.
# Prints "SOAK PASS/FAIL: ..." lines and "SOAK SUMMARY ..." lines; exits
# non-zero if a check failed.
set -u
TAG=SOAK
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
MIN=${SOAK_MINUTES:-20}
if [ "$MIN" -ge 10 ]; then SAMPLE=${SOAK_SAMPLE:-30}; else SAMPLE=${SOAK_SAMPLE:-10}; fi
PROBE=${SOAK_PROBE:-5}
PHASE=${SOAK_PHASE:-$((MIN * 6 < 20 ? 20 : (MIN * 6 > 120 ? 120 : MIN * 6)))}
SLACK_KB=${SOAK_RSS_SLACK_KB:-256}
CONF=/etc/damon-tierd.conf
SAMPLES=/tmp/samples
RUNFLAG=/tmp/soak.running
# The only daemon lines above info level this test expects, each exactly
# once (an extended regular expression per line of the log):
#   the daemon pauses damon_stat at start (the cloud kernel boots with it on).
# The test provokes nothing else: the SIGTERM at the end logs at info.
EXPECTED='^damon-tierd: notice: paused damon_stat '
NR_EXPECTED=1

uptime_s() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# The open fds of process PID: how many, and one "N -> TARGET" line each.
fd_count() {
	set -- "/proc/$1/fd"/*
	if [ -e "$1" ] || [ -L "$1" ]; then echo $#; else echo 0; fi
}
fd_list() {
	for f in "/proc/$1/fd"/*; do
		[ -L "$f" ] && echo "${f##*/} -> $(readlink "$f")"
	done
}
# Open fds; a differing count is re-read (the daemon opens sysfs files for a
# moment every period; a leaked fd stays), the smallest count kept.
nfds() {
	c=$(fd_count "$1")
	if [ -z "${FD0:-}" ] || [ "$c" = "$FD0" ]; then
		echo "$c"
		return
	fi
	for _ in 1 2 3 4 5; do
		sleep 0.2
		d=$(fd_count "$1")
		[ "$d" -lt "$c" ] && c=$d
	done
	echo "$c"
}
# Seconds since FILE was last written (-1: missing).  Whole seconds on both
# sides, so the true age is within one second of it.
age() {
	m=$(stat -c %Y "$1" 2>/dev/null) || { echo -1; return; }
	echo $(($(date +%s) - m))
}
# Duration value of --check-config ("2s", "500ms", "1min", "1.5s") in ms.
to_ms() {
	echo "$1" | awk '{
		v = $1; u = $1; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u)
		m = u == "us" ? 0.001 : u == "ms" ? 1 : u == "s" ? 1000 : u == "min" ? 60000 : u == "h" ? 3600000 : -1
		if (m < 0 || v == "") { print -1; exit }
		printf "%d\n", v * m
	}'
}
cfg() { /bin/damon-tierd --check-config --config "$CONF" | awk -v k="$1" '$1 == k { print $3 }'; }

# One sample line: S t=… alive=… rss=… fds=… ticks=… age_json=… age_txt=…
# jpid=… kd=K:PID:SZ,…
sample() {
	alive=0
	[ -d "/proc/$dpid" ] && alive=1
	kd=""
	k=$KD_FIRST
	while [ "$k" -lt $((KD_FIRST + KD_COUNT)) ]; do
		p=$(rd_or "$ADMIN/$k/pid" x)
		sz=$(cat "$ADMIN/$k/contexts/0/schemes/0/stats/sz_applied" 2>/dev/null || echo x)
		kd="$kd${kd:+,}$k:$p:$sz"
		k=$((k + 1))
	done
	jpid=$(sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' "$STATE/status.json" 2>/dev/null)
	echo "S t=$(uptime_s) alive=$alive rss=$(rss_kb "$dpid") fds=$(nfds "$dpid") ticks=$(ticks "$dpid")" \
		"age_json=$(age "$STATE/status.json") age_txt=$(age "$STATE/status.txt") jpid=${jpid:-x} kd=$kd"
}
probe() { echo "M t=$(uptime_s) age_json=$(age "$STATE/status.json") age_txt=$(age "$STATE/status.txt")"; }
sampler() {
	next=$(($(uptime_s) + SAMPLE))
	while [ -e "$RUNFLAG" ]; do
		sleep "$PROBE"
		[ -e "$RUNFLAG" ] || break
		if [ "$(uptime_s)" -ge "$next" ]; then
			s=$(sample)
			echo "$s" >>"$SAMPLES"
			echo "SOAK sample $s"
			next=$((next + SAMPLE))
		else
			m=$(probe)
			echo "$m" >>"$SAMPLES"
			# Only the late probes go to the console, for diagnosis.
			echo "$m" | awk -F'[ =]' -v p="$PERIOD_MS" '$5 * 1000 > p + 1000 || $7 * 1000 > p + 1000 { exit 1 }' ||
				echo "SOAK late status file: $m"
		fi
	done
}

# --- phases --------------------------------------------------------------
# tierload: start it, wait for its data to be placed, SIGUSR1 starts its clock.
tl_start() {
	rm -f "/tmp/ready.$2"
	/bin/tierload --mode "$1" --duration "$3" --report-interval 10 \
		--ready-file "/tmp/ready.$2" >"/tmp/$2.log" 2>&1 &
	tlpid=$!
	if ! wait_alive "$tlpid" 300 test -s "/tmp/ready.$2"; then
		if kill -0 "$tlpid" 2>/dev/null; then
			kill "$tlpid"
			note "phase $2: tierload not ready after 300 s"
		else
			note "phase $2: tierload exited during setup: $(tail -n 3 "/tmp/$2.log" | tr '\n' ' ')"
		fi
		return 1
	fi
	kill -USR1 "$tlpid"
}
finals() {
	for f in "$@"; do
		grep -h -E '^(BENCH (EVENT|T90|FINAL)|WORKLOAD FINAL)' "/tmp/$f.log" | sed "s/^/SOAK phase $f: /"
	done
}
run_phase() {
	name=$1
	d=$2
	rc=0
	note "phase $name start t=$(uptime_s) duration=${d}s"
	case $name in
	slow-hot)
		/bin/workload --hot 64 --duration "$d" --report-interval 10 >"/tmp/$name.log" 2>&1 || rc=$?
		finals "$name"
		;;
	shift | grow)
		mode=gups
		[ "$name" = grow ] && mode=grow
		if tl_start $mode "$name" "$d"; then wait "$tlpid" || rc=$?; else rc=setup; fi
		finals "$name"
		;;
	idle)
		sleep "$d"
		;;
	mixed)
		if tl_start zipf "$name" "$d"; then
			/bin/workload --hot 32 --cold 0 --duration "$d" --report-interval 10 \
				>"/tmp/$name-small.log" 2>&1 || rc=small:$?
			wait "$tlpid" || rc="$rc zipf:$?"
		else
			rc=setup
		fi
		finals "$name" "$name-small"
		;;
	esac
	# A workload failing is not the daemon's fault, but the phase it was
	# meant to provide did not happen: say so (the run still counts).
	if [ "$rc" != 0 ]; then
		note "phase $name: workload rc=$rc; last output:"
		tail -n 3 "/tmp/$name.log" | sed 's/^/SOAK   /'
		PHASE_ERRORS=$((PHASE_ERRORS + 1))
	fi
	PHASES_RUN=$((PHASES_RUN + 1))
}

# --- start-up ------------------------------------------------------------
note "kernel $(uname -r) minutes=$MIN sample=${SAMPLE}s probe=${PROBE}s phase=${PHASE}s rss_slack=${SLACK_KB}KiB"
for n in /sys/devices/system/node/node[0-9]*; do
	note "${n##*/} $(awk '/MemTotal|MemFree/ { printf "%s %s kB ", $3, $4 }' "$n/meminfo")"
done
[ -x /bin/tierload ] || abort "no /bin/tierload in the guest (soak.sh passes it through EXTRA_BINS)"
STATE=$(cfg daemon.state_dir)
PERIOD_MS=$(to_ms "$(cfg daemon.interval)")
if [ -z "$STATE" ] || ! [ "$PERIOD_MS" -gt 0 ] 2>/dev/null; then
	abort "cannot read daemon.interval/state_dir from --check-config"
fi
# Three periods, in whole seconds (status files' mtime has 1 s resolution).
MAX_AGE=$(((3 * PERIOD_MS + 999) / 1000))
note "daemon period ${PERIOD_MS} ms: status files may be at most ${MAX_AGE} s old"
stat_before=$(stat_enabled)

start_daemon daemon "$CONF"
# Up: the ownership record and the first status file are written, and the
# kdamonds run.
up() { [ -s "$STATE/owner" ] && [ -s "$STATE/status.json" ] && kdamonds_running 2+; }
if ! { wait_alive "$dpid" 60 up && alive; }; then
	sed 's/^/DAEMON: /' "$log"
	abort "the daemon did not start its kdamonds within 60 s"
fi
KD_FIRST=$(sed -n 's/^first=//p' "$STATE/owner")
KD_COUNT=$(sed -n 's/^count=//p' "$STATE/owner")
if [ -z "$KD_FIRST" ] || [ -z "$KD_COUNT" ]; then abort "no first=/count= in $STATE/owner"; fi
# Start-up is over after a few periods (the first status write, lazy opens).
sleep $((MAX_AGE + 1))
FD0=$(fd_count "$dpid")
note "daemon pid $dpid, kdamonds $KD_FIRST..$((KD_FIRST + KD_COUNT - 1)), $FD0 fds after start-up:"
fd_list "$dpid" | sed 's/^/SOAK   fd /'
sed 's/^/DAEMON: /' "$log"

: >"$SAMPLES"
s=$(sample)
echo "$s" >>"$SAMPLES"
echo "SOAK sample $s"
T0=$(uptime_s)
END=$((T0 + MIN * 60))
touch "$RUNFLAG"
sampler &
spid=$!

# --- the changing workload, looped until SOAK_MINUTES of guest time --------
PHASES_RUN=0
PHASE_ERRORS=0
while [ "$(uptime_s)" -lt $END ]; do
	for ph in slow-hot shift idle grow mixed; do
		left=$((END - $(uptime_s)))
		[ $left -le 0 ] && break
		d=$PHASE
		[ $left -lt "$d" ] && d=$left
		[ "$d" -lt 10 ] && d=10
		run_phase $ph "$d"
		alive || break 2
	done
done
rm -f "$RUNFLAG"
wait $spid
s=$(sample)
echo "$s" >>"$SAMPLES"
echo "SOAK sample $s"
T1=$(uptime_s)
note "soak ran $((T1 - T0)) s of guest time, $PHASES_RUN phases"
fd_list "$dpid" | sed 's/^/SOAK   fd at end /'
cp "$STATE/status.json" /tmp/last-status 2>/dev/null
sed 's/^/SOAK status.json at end: /' /tmp/last-status

# --- stop --------------------------------------------------------------------
daemon_pid=$dpid
stop_daemon
verdict "daemon exited 0 on SIGTERM" "daemon exited $drc on SIGTERM" eq "$drc" 0
stat_after=$(stat_enabled)
verdict "damon_stat restored ($stat_after)" "damon_stat was $stat_before, now $stat_after" eq "$stat_after" "$stat_before"

# --- checks ------------------------------------------------------------------
nsamples=$(grep -c '^S ' "$SAMPLES")
nprobes=$(grep -c '^M ' "$SAMPLES")
verdict "ran $((T1 - T0)) s >= $((MIN * 60)) s of guest time" \
	"ran only $((T1 - T0)) s of guest time (< $((MIN * 60)) s)" [ $((T1 - T0)) -ge $((MIN * 60)) ]

# RSS: the last third's max <= the first third's max + slack.
eval "$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1); n++; r[n] = v["rss"] }
	END {
		t = int(n / 3); if (t < 1) t = 1
		for (i = 1; i <= t; i++) if (r[i] > f) f = r[i]
		for (i = n - t + 1; i <= n; i++) if (r[i] > l) l = r[i]
		for (i = 1; i <= n; i++) { if (r[i] > mx) mx = r[i]; if (mn == "" || r[i] < mn) mn = r[i] }
		printf "RSS_FIRST=%d RSS_LAST=%d RSS_MIN=%d RSS_MAX=%d RSS_THIRD=%d\n", f, l, mn, mx, t
	}' "$SAMPLES")"
if [ "$RSS_LAST" -le $((RSS_FIRST + SLACK_KB)) ] && [ "$RSS_LAST" -gt 0 ]; then
	pass "no RSS growth: last third max ${RSS_LAST} kB <= first third max ${RSS_FIRST} kB + ${SLACK_KB} (min $RSS_MIN, max $RSS_MAX kB, $RSS_THIRD samples a third)"
else
	fail "RSS grew: last third max ${RSS_LAST} kB > first third max ${RSS_FIRST} kB + ${SLACK_KB} (min $RSS_MIN, max $RSS_MAX kB)"
fi

# fds: the start-up count in every sample.
bad=$(awk -F'[ =]' -v fd0="$FD0" '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1); if (v["fds"] != fd0) printf "t=%s:%s ", v["t"], v["fds"] }' "$SAMPLES")
FD_MIN=$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1); if (m == "" || v["fds"] < m) m = v["fds"] } END { print m }' "$SAMPLES")
FD_MAX=$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1); if (v["fds"] > m) m = v["fds"] } END { print m + 0 }' "$SAMPLES")
verdict "open fds constant: $FD0 in all $nsamples samples" "open fds changed from $FD0: $bad" [ -z "$bad" ]

# Period kept: the daemon alive with one pid, status.json naming it, and the
# status files never older than 3 periods (samples and probes).
bad=$(awk -F'[ =]' -v pid="$daemon_pid" '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
	if (v["alive"] != 1 || v["jpid"] != pid) printf "t=%s alive=%s jpid=%s ", v["t"], v["alive"], v["jpid"] }' "$SAMPLES")
verdict "daemon pid $daemon_pid alive in all $nsamples samples, status.json names it" \
	"daemon not alive or another pid: $bad" [ -z "$bad" ]
eval "$(awk -F'[ =]' -v max="$MAX_AGE" '/^[SM] / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		for (j = 0; j < 2; j++) { a = j ? v["age_txt"] : v["age_json"]
			if (a > m) m = a
			if (a < 0 || a > max) { bad++; if (bad <= 5) b = b sprintf("t=%s:%s:%s ", v["t"], j ? "txt" : "json", a) } } }
	END { printf "AGE_MAX=%d AGE_BAD=%d AGE_LIST=\"%s\"\n", m, bad, b }' "$SAMPLES")"
verdict "status files rewritten every period: max age ${AGE_MAX} s <= ${MAX_AGE} s over $((nsamples + nprobes)) checks" \
	"status files older than ${MAX_AGE} s (or missing) $AGE_BAD times, max ${AGE_MAX} s: $AGE_LIST" eq "$AGE_BAD" 0

# sz_applied never decreases while the kdamond's pid is unchanged.
eval "$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		n = split(v["kd"], e, ",")
		for (j = 1; j <= n; j++) { split(e[j], f, ":"); k = f[1]
			if (f[2] == "x" || f[3] == "x") { unread++; continue }
			if (k in pid && pid[k] != f[2]) { restarts++; rl = rl sprintf("t=%s:kdamond%s:%s->%s ", v["t"], k, pid[k], f[2]) }
			else if (k in sz && f[3] + 0 < sz[k] + 0) { dec++; dl = dl sprintf("t=%s:kdamond%s:%s->%s ", v["t"], k, sz[k], f[3]) }
			if (!(k in first)) first[k] = f[3]
			pid[k] = f[2]; sz[k] = f[3]; last[k] = f[3] } }
	END { for (k in last) s = s (s == "" ? "" : " ") sprintf("kdamond%s:%.0f->%.0f", k, first[k], last[k])
		printf "SZ_DEC=%d SZ_DECL=\"%s\" KD_RESTARTS=%d KD_RL=\"%s\" SZ_UNREAD=%d SZ_SPAN=\"%s\"\n", dec, dl, restarts, rl, unread, s }' "$SAMPLES")"
verdict "sz_applied monotonic per kdamond pid ($SZ_SPAN)" \
	"sz_applied decreased $SZ_DEC times ($SZ_DECL), $SZ_UNREAD unreadable reads" eq "$SZ_DEC $SZ_UNREAD" "0 0"
[ "$KD_RESTARTS" = 0 ] || note "kdamond pid changes: $KD_RESTARTS ($KD_RL)"

# The daemon's log: nothing above info but the expected lines.
grep -E '^damon-tierd: (notice|warning|error|critical|alert|emergency): ' "$log" >/tmp/above-info
exp=$(grep -c -E "$EXPECTED" /tmp/above-info)
grep -v -E "$EXPECTED" /tmp/above-info >/tmp/unexpected
if [ ! -s /tmp/unexpected ] && [ "$exp" = "$NR_EXPECTED" ]; then
	pass "daemon log: nothing above info but the $exp expected line(s) ($(wc -l <"$log") lines)"
elif [ ! -s /tmp/unexpected ]; then
	fail "daemon log: the expected line(s) ($EXPECTED) appear $exp times, not $NR_EXPECTED"
else
	fail "daemon log: $(wc -l </tmp/unexpected) unexpected line(s) above info:"
	sed 's/^/SOAK   unexpected: /' /tmp/unexpected | head -n 50
fi
note "daemon log, last lines:"
tail -n 8 "$log" | sed 's/^/DAEMON: /'

# CPU, reported only.
eval "$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) v[$i] = $(i + 1); if (n == 0) { a = v["ticks"]; ta = v["t"] } b = v["ticks"]; tb = v["t"]; n++ }
	END { printf "CPU_S=%.2f CPU_SPAN=%d\n", (b - a) / 100, tb - ta }' "$SAMPLES")"
CPU_PCT=$(awk -v c="$CPU_S" -v t="$CPU_SPAN" 'BEGIN { printf "%.3f", (t > 0 ? 100 * c / t : 0) }')
REPAIRS=$(sed -n 's/.*"repairs_total":\([0-9]*\).*/\1/p' /tmp/last-status 2>/dev/null)
ERRORS=$(sed -n 's/.*"errors_total":\([0-9]*\).*/\1/p' /tmp/last-status 2>/dev/null)
echo "SOAK SUMMARY guest_seconds=$((T1 - T0)) phases=$PHASES_RUN phase_workload_errors=$PHASE_ERRORS samples=$nsamples probes=$nprobes"
echo "SOAK SUMMARY rss_kb first=$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) if ($i == "rss") { print $(i + 1); exit } }' "$SAMPLES") last=$(awk -F'[ =]' '/^S / { for (i = 2; i < NF; i += 2) if ($i == "rss") r = $(i + 1) } END { print r }' "$SAMPLES") min=$RSS_MIN max=$RSS_MAX first_third_max=$RSS_FIRST last_third_max=$RSS_LAST"
echo "SOAK SUMMARY fds start=$FD0 min=$FD_MIN max=$FD_MAX"
echo "SOAK SUMMARY cpu_seconds=$CPU_S over ${CPU_SPAN} s (${CPU_PCT}% of one CPU)"
echo "SOAK SUMMARY status_age_max=${AGE_MAX}s limit=${MAX_AGE}s kdamond_restarts=$KD_RESTARTS sz_applied $SZ_SPAN"
echo "SOAK SUMMARY status.json repairs_total=${REPAIRS:-?} errors_total=${ERRORS:-?}"
finish
