#!/bin/sh
# Guest side of e2e.sh (busybox sh).  Prints E2E lines; exits non-zero on the
# first failed check.
set -u
ADMIN=/sys/kernel/mm/damon/admin/kdamonds
MODE=${E2E_MODE:-test}
DUR=${E2E_DURATION:-120}
fails=0
pass() { echo "E2E PASS: $*"; }
# Sets n (nr_kdamonds) and on (how many of them read "on").
count_on() {
	n=$(cat $ADMIN/nr_kdamonds)
	on=0
	k=0
	while [ "$k" -lt "$n" ]; do
		[ "$(cat $ADMIN/$k/state 2>/dev/null)" = on ] && on=$((on + 1))
		k=$((k + 1))
	done
}
fail() { echo "E2E FAIL: $*"; fails=$((fails + 1)); }

echo "E2E kernel $(uname -r)"
stat_before=$(cat /sys/module/damon_stat/parameters/enabled 2>/dev/null || echo absent)
echo "E2E damon_stat before: $stat_before"

# The goal tuner's effective quota, every change (6.17+).
T=/sys/kernel/tracing
if [ -d $T/events/damon/damos_esz ]; then
	echo 8192 >$T/buffer_size_kb
	echo 1 >$T/events/damon/damos_esz/enable
	echo 1 >$T/tracing_on
fi

/bin/damon-tierd --foreground --config /etc/damon-tierd.conf >/tmp/daemon.log 2>&1 &
dpid=$!

# Both kdamonds on (the daemon pauses damon_stat first).
ok=0
for _ in $(seq 120); do
	count_on
	if [ "$n" -ge 2 ] && [ "$on" -eq "$n" ]; then ok=1; break; fi
	kill -0 $dpid 2>/dev/null || break
	sleep 0.5
done
# ...and armed: "started kdamond" is logged once a kdamond's scheme is armed.
# Until then the daemon's arming commands hold the DAMON sysfs lock, which
# the dry run below also needs.
for _ in $(seq 120); do
	[ "$(grep -c 'started kdamond' /tmp/daemon.log)" -ge "$n" ] && break
	sleep 0.5
done
sed 's/^/DAEMON: /' /tmp/daemon.log
[ $ok = 1 ] && pass "daemon started $n kdamonds" || { fail "kdamonds not running"; exit 1; }

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
		echo "E2E mismatch: $path = '$got', planned '$value'"
		mism=$((mism + 1))
	fi
done </tmp/plan
[ $mism = 0 ] && [ $checked -gt 40 ] && pass "sysfs matches the plan ($checked files)" || fail "$mism of $checked files differ from the plan"

if [ "$MODE" = demo ]; then
	/bin/workload --hot 64 --duration "$DUR" --report-interval 2 | tee /tmp/workload.log
else
	/bin/workload --hot 64 --duration "$DUR" --report-interval 10 | tee /tmp/workload.log
fi
sed 's/^/DAEMON: /' /tmp/daemon.log | grep -v "^DAEMON: .*started kdamond" | tail -n 40
grep -E '^(pgmigrate|pgpromote|pgdemote|numa_)' /proc/vmstat | sed 's/^/E2E vmstat: /'

# The promotion quota must really reach the kernel: with the kernel's goal
# tuner it ramps up from one byte to at least 1 MiB; with the daemon's
# controller it is committed from 1 byte (stopped) to at least one page.
esz_min=4096
grep -q '^tuner *= *kernel' /etc/damon-tierd.conf && esz_min=1048576
promote_pid=""
k=0
while [ "$k" -lt "$n" ]; do
	# On 7.x reading pid takes the DAMON sysfs lock: EBUSY while the
	# daemon commits a quota.
	if [ "$(cat $ADMIN/$k/contexts/0/schemes/0/action)" = migrate_hot ]; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			promote_pid=$(cat $ADMIN/$k/pid 2>/dev/null) && [ -n "$promote_pid" ] && break
			sleep 0.2
		done
	fi
	k=$((k + 1))
done
if [ -d $T/events/damon/damos_esz ]; then
	cat $T/trace >/tmp/trace
	echo 0 >$T/tracing_on
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
		}' /tmp/trace && pass "promotion quota reached $esz_min bytes (damos_esz)" ||
		fail "promotion quota never reached $esz_min bytes (damos_esz)"
fi

final=$(grep '^WORKLOAD FINAL' /tmp/workload.log)
hot=$(echo "$final" | sed -n 's/.*hot_on_node0=\([0-9.]*\).*/\1/p')
cold=$(echo "$final" | sed -n 's/.*cold_on_node1=\([0-9.]*\).*/\1/p')
echo "E2E result: hot_on_node0=$hot cold_on_node1=$cold"
awk "BEGIN { exit !($hot >= 0.90) }" && pass "hot set on node0: $hot >= 0.90" || fail "hot set on node0: $hot < 0.90"
awk "BEGIN { exit !($cold >= 0.05) }" && pass "cold data demoted: $cold of it on node1" || fail "cold data not demoted: $cold on node1"

kill -TERM $dpid
wait $dpid
drc=$?
[ $drc = 0 ] && pass "daemon exited 0 on SIGTERM" || fail "daemon exited $drc on SIGTERM"
tail -n 5 /tmp/daemon.log | sed 's/^/DAEMON: /'
count_on
[ $on = 0 ] && pass "no kdamond of ours runs after SIGTERM" || fail "$on kdamonds still on after SIGTERM"
stat_after=$(cat /sys/module/damon_stat/parameters/enabled 2>/dev/null || echo absent)
[ "$stat_after" = "$stat_before" ] && pass "damon_stat restored ($stat_after)" || fail "damon_stat was $stat_before, now $stat_after"

echo "E2E done: $fails failed"
[ $fails = 0 ]
