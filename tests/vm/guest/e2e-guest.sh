#!/bin/sh
# Guest side of e2e.sh (busybox sh).  Prints E2E lines; exits non-zero on the
# first failed check.
set -u
TAG=E2E
# On 7.x reading a kdamond's pid takes the DAMON sysfs lock: EBUSY while the
# daemon commits a quota.  Up to 2 s of retries.
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
MODE=${E2E_MODE:-test}
DUR=${E2E_DURATION:-120}

note "kernel $(uname -r)"
stat_before=$(stat_enabled)
note "damon_stat before: $stat_before"

# The goal tuner's effective quota, every change (6.17+).
T=/sys/kernel/tracing
if [ -d $T/events/damon/damos_esz ]; then
	echo 8192 >$T/buffer_size_kb
	echo 1 >$T/events/damon/damos_esz/enable
	echo 1 >$T/tracing_on
fi

# Before the daemon runs, a dry run reads the DAMON features from the
# kernel's BTF; the daemon then probes them by writing.  Both must agree.
/bin/damon-tierd --dry-run --config /etc/damon-tierd.conf >/dev/null 2>/tmp/btf.err
btf_feats=$(sed -n "s/.*DAMON features (read from the kernel's BTF[^)]*): //p" /tmp/btf.err)

start_daemon daemon /etc/damon-tierd.conf

# Both kdamonds on (the daemon pauses damon_stat first).
ok=0
wait_running 60 2+ && ok=1
# ...and armed: "started kdamond" is logged once a kdamond's scheme is armed.
# Until then the daemon's arming commands hold the DAMON sysfs lock, which
# the dry run below also needs.
wait_count "started kdamond" "$n" 60
sed 's/^/DAEMON: /' "$log"
if [ $ok = 1 ]; then pass "daemon started $n kdamonds"; else abort "kdamonds not running"; fi
probe_feats=$(sed -n 's/.*DAMON features[^:]*: //p' "$log" | head -n 1)
note "DAMON features from BTF: ${btf_feats:-none}; probed: ${probe_feats:-none}"
verdict "the BTF names the features the write probe finds" \
	"BTF features '$btf_feats' differ from the probed '$probe_feats'" \
	eq "${btf_feats:-none}" "$probe_feats"

# What runs matches the plan: every planned write (except commands, the
# auto-tuned intervals and fed goal values) reads back from sysfs.  A path
# written twice counts with its last value (a kdamond starts with its scheme
# disarmed, then age/min is written again when it is armed).
/bin/damon-tierd --dry-run --config /etc/damon-tierd.conf >/tmp/plan.all 2>/tmp/plan.err
awk '$1 == "write" { x = $0; sub(/^write [^ ]+ /, "", x); if (!($2 in v)) order[n++] = $2; v[$2] = x }
	END { for (i = 0; i < n; i++) print "write", order[i], v[order[i]] }' /tmp/plan.all >/tmp/plan
[ -s /tmp/plan ] || sed 's/^/E2E dry-run: /' /tmp/plan.err
mism=0
checked=0
while read -r w path value; do
	[ "$w" = write ] || continue
	case $path in
	# quotas/bytes: the daemon's quota controller rewrites it every second.
	*/state | */nr_kdamonds | */sample_us | */aggr_us | */current_value | */quotas/bytes | /sys/module/*) continue ;;
	esac
	got=$(cat "$path" 2>/dev/null)
	checked=$((checked + 1))
	if [ "$got" != "$value" ]; then
		note "mismatch: $path = '$got', planned '$value'"
		mism=$((mism + 1))
	fi
done </tmp/plan
if [ $mism = 0 ] && [ $checked -gt 40 ]; then
	pass "sysfs matches the plan ($checked files)"
else
	fail "$mism of $checked files differ from the plan"
fi

if [ "$MODE" = demo ]; then
	/bin/workload --hot 64 --duration "$DUR" --report-interval 2 | tee /tmp/workload.log
else
	/bin/workload --hot 64 --duration "$DUR" --report-interval 10 | tee /tmp/workload.log
fi
sed 's/^/DAEMON: /' "$log" | grep -v "^DAEMON: .*started kdamond" | tail -n 40
grep -E '^(pgmigrate|pgpromote|pgdemote|numa_)' /proc/vmstat | sed 's/^/E2E vmstat: /'

# The promotion quota must really reach the kernel: with the kernel's goal
# tuner it ramps up from one byte to at least 1 MiB; with the daemon's
# controller it is committed from 1 byte (stopped) to at least one page.
esz_min=4096
grep -q '^tuner *= *kernel' /etc/damon-tierd.conf && esz_min=1048576
promote_pid=""
k=0
while [ "$k" -lt "$n" ]; do
	if [ "$(cat "$ADMIN/$k/contexts/0/schemes/0/action")" = migrate_hot ]; then
		promote_pid=$(rd "$ADMIN/$k/pid")
	fi
	k=$((k + 1))
done
if [ -d $T/events/damon/damos_esz ]; then
	cat $T/trace >/tmp/trace
	echo 0 >$T/tracing_on
	# shellcheck disable=SC2016  # an awk program
	verdict "promotion quota reached $esz_min bytes (damos_esz)" \
		"promotion quota never reached $esz_min bytes (damos_esz)" \
		awk -v pid="$promote_pid" -v want="$esz_min" '
		/damos_esz:/ {
			split($1, a, "-"); if (a[length(a)] != pid) next
			t = $0; sub(/:.*/, "", t); n = split(t, f, " "); ts = f[n] + 0
			e = $0; sub(/.*esz=/, "", e); e += 0
			if (first == "") first = ts
			if (e >= 4096 && page == "") page = ts
			if (e >= 1048576 && mib == "") mib = ts
			if (e > max) max = e
			cnt++
		}
		END {
			printf "E2E esz: promote kdamond pid %s: %d changes, max %d bytes, one page after %.1f s, 1 MiB after %.1f s\n", pid, cnt, max, page - first, mib - first
			exit !(max >= want)
		}' /tmp/trace
fi

final=$(grep '^WORKLOAD FINAL' /tmp/workload.log)
hot=$(echo "$final" | sed -n 's/.*hot_on_node0=\([0-9.]*\).*/\1/p')
cold=$(echo "$final" | sed -n 's/.*cold_on_node1=\([0-9.]*\).*/\1/p')
note "result: hot_on_node0=$hot cold_on_node1=$cold"
verdict "hot set on node0: $hot >= 0.90" "hot set on node0: $hot < 0.90" at_least "$hot" 0.90
verdict "cold data demoted: $cold of it on node1" "cold data not demoted: $cold on node1" at_least "$cold" 0.05

# "damon-tierd status" explains each side of the boundary: a "why:" line
# per side, an explain object per side in the JSON, and both reasons at the
# end of the journal's status line.  Shape only: which reason depends on
# where the workload is.  The exit status also says whether the report is
# fresh (three periods), which is guest time: it is judged against the
# JSON's own "stale", not asserted.
status_of() { # OUT ARGS...: runs status ARGS into OUT; sets st_rc
	_so_out=$1
	shift
	st_rc=0
	/bin/damon-tierd status "$@" >"$_so_out" 2>&1 || st_rc=$?
}
status_of /tmp/status.json --json --config /etc/damon-tierd.conf
want_rc=0
grep -q '"stale":true' /tmp/status.json && want_rc=1 && note "the report is stale (guest time)"
verdict "status --json exits $want_rc" "status --json exited $st_rc" eq "$st_rc" "$want_rc"
check "status --json is one object on one line" eq "$(wc -l </tmp/status.json)" 1
check "status --json: schema 1, running" grep -q '^{"schema":1,"running":true,' /tmp/status.json
check "status --json explains promotion" grep -qE \
	'"explain":\{"promote":\{"activity":"[a-z]+","reason":"[a-z_]+","text":"promotion [a-z]+: ' /tmp/status.json
check "status --json explains demotion" grep -qE \
	'"demote":\{"activity":"[a-z]+","reason":"[a-z_]+","text":"demotion [a-z]+: ' /tmp/status.json
grep -oE '"text":"[^"]*"' /tmp/status.json | sed 's/^/E2E status --json: /'
status_of /tmp/status.txt --config /etc/damon-tierd.conf
sed 's/^/E2E status: /' /tmp/status.txt
check "status runs" at_most "$st_rc" 1
check "status says why promotion does what it does" grep -qE '^  why: promotion [a-z]+: .' /tmp/status.txt
check "status says why demotion does what it does" grep -qE '^  why: demotion [a-z]+: .' /tmp/status.txt
check "the journal's status line ends with both reasons" grep -qE \
	'promoted .*; promotion [a-z]+: .*; demotion [a-z]+: ' "$log"
# A broken config does not hide the report: its file:line, and exit 2.
printf '[daemon]\ninterval = 10 fortnights\n' >/tmp/bad.conf
status_of /tmp/status-bad.txt --config /tmp/bad.conf
want_rc=2
grep -q 'may be stuck' /tmp/status-bad.txt && want_rc=1
verdict "status with a broken config exits $want_rc" "status with a broken config exited $st_rc" \
	eq "$st_rc" "$want_rc"
check "status names the config error's file:line" has /tmp/status-bad.txt "configuration: invalid: /tmp/bad.conf:2"
check "status with a broken config still explains" grep -qE '^  why: demotion [a-z]+: ' /tmp/status-bad.txt

stop_daemon
verdict "daemon exited 0 on SIGTERM" "daemon exited $drc on SIGTERM" eq "$drc" 0
status_of /tmp/status.json --json --config /etc/damon-tierd.conf
verdict "status after the stop exits 1" "status after the stop exited $st_rc" eq "$st_rc" 1
check "its last report reads running false" grep -q '^{"schema":1,"running":false,' /tmp/status.json
tail -n 5 "$log" | sed 's/^/DAEMON: /'
count_on
verdict "no kdamond of ours runs after SIGTERM" "$on kdamonds still on after SIGTERM" eq "$on" 0
stat_after=$(stat_enabled)
verdict "damon_stat restored ($stat_after)" "damon_stat was $stat_before, now $stat_after" eq "$stat_after" "$stat_before"

finish
