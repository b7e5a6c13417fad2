#!/bin/sh
# bench-guest.sh: guest body of tests/bench/bench.sh (busybox sh).  One
# (configuration, workload) per boot.  Environment (kernel command line):
#   BENCH_CONFIG     none | numab | seed | tierd | ideal
#   BENCH_WORKLOAD   gups | grow | zipf | scan | lukewarmN (tierload's lukewarm
#                    mode with N% of the accesses outside the hot set)
#   BENCH_DURATION   workload seconds (default 240)
#   BENCH_INTERVAL   sample interval, seconds (default 2)
#   BENCH_SLOW_NODE  the workload's slow node (default 1; 2 on the three-tier
#                    guest), also the node seed pairs with node 0
#
# Order: NUMA balancing off while the workload places its data (so that the
# start is the same for every configuration) -> the workload prints BENCH
# READY -> the configuration is set up (for seed and tierd: until both
# kdamonds run) -> counters are read -> SIGUSR1 starts the workload's clock
# -> at its end the counters are read again and printed as BENCH RESULT
# key=value lines.  The host (bench.sh) parses this console output.
set -u
TAG=BENCH
# A state command may find the DAMON sysfs lock held by the daemon's refresh
# (EBUSY): retried for 2 s.
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
CFG=${BENCH_CONFIG:?}
WL=${BENCH_WORKLOAD:?}
DUR=${BENCH_DURATION:-240}
RI=${BENCH_INTERVAL:-2}
SLOW=${BENCH_SLOW_NODE:-1}
A=$ADMIN

res() { echo "BENCH RESULT $*"; }
# bench.sh reads a "BENCH ERROR" line as a failed run.
die() {
	echo "BENCH ERROR $*"
	exit 1
}

vmstat_sum() { awk -v re="$1" '$1 ~ re { s += $2 } END { print s + 0 }' /proc/vmstat; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# The pids of the running sysfs kdamonds, space separated ("" when there
# are none).  Read with retries: a read that finds the DAMON sysfs lock held
# (EBUSY, the daemon committing) must not make the kdamonds look gone.
kdamond_pids() {
	p=""
	n=$(rd_or "$A/nr_kdamonds" 0)
	k=0
	while [ "$k" -lt "$n" ]; do
		q=$(rd_or "$A/$k/pid" "")
		[ -n "$q" ] && [ "$q" != -1 ] && p="$p${p:+ }$q"
		k=$((k + 1))
	done
	echo "$p"
}
# sum_ticks "PID...": the ticks of these processes, summed.
sum_ticks() {
	s=0
	for q in $1; do s=$((s + $(ticks "$q"))); done
	echo $s
}
kswapd_pids() {
	for d in /proc/[0-9]*; do
		case $(cat "$d/comm" 2>/dev/null) in kswapd*) echo "${d#/proc/}" ;; esac
	done
}
# state_cmd K COMMAND: a state command; the daemon's refresh may hold the
# DAMON sysfs lock (EBUSY).
state_cmd() { wr "$2" "$A/$1/state"; }

echo "BENCH GUEST kernel=$(uname -r) config=$CFG workload=$WL duration=$DUR interval=$RI"
echo "BENCH GUEST numa_balancing=$(cat /proc/sys/kernel/numa_balancing) damon_stat=$(stat_enabled) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled 2>/dev/null)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "BENCH GUEST ${n##*/} $(awk '/MemTotal|MemFree/ { printf "%s %s kB ", $3, $4 }' "$n/meminfo")"
done

# The kernel turns NUMA balancing on by itself on a 2-node machine; it must
# not move pages while the workload places them.
echo 0 >/proc/sys/kernel/numa_balancing

ideal=""
[ "$CFG" = ideal ] && ideal=--ideal
case $CFG in none | numab | seed | tierd | ideal) ;; *) die "unknown config $CFG" ;; esac
case $WL in
gups | grow | zipf | scan) set -- --mode "$WL" ;;
lukewarm[1-9] | lukewarm[1-9][0-9]) set -- --mode lukewarm --cold-share "$(awk -v p="${WL#lukewarm}" 'BEGIN { print p / 100 }')" ;;
*) die "unknown workload $WL" ;;
esac
rm -f /tmp/ready
# Its output goes to the console as it comes (tee) and to a file; its pid
# comes from the ready file.
/bin/tierload "$@" $ideal --slow-node "$SLOW" --duration "$DUR" --report-interval "$RI" \
	--ready-file /tmp/ready 2>&1 | tee /tmp/wl.log &
tpid=$!
if ! wait_alive $tpid 600 test -s /tmp/ready; then
	kill -0 $tpid 2>/dev/null && die "workload not ready after 600 s"
	die "workload exited during setup"
fi
wpid=$(cat /tmp/ready)

dpid=""
case $CFG in
numab)
	echo 2 >/proc/sys/kernel/numa_balancing || die "cannot set numa_balancing=2"
	echo true >/sys/kernel/mm/numa/demotion_enabled || die "cannot set demotion_enabled"
	;;
seed)
	sh /bin/seed-mtier.sh 0 "$SLOW" || die "seed-mtier.sh failed"
	;;
tierd)
	# damon-tierd leaves numa_balancing alone by default; it is 0 here so
	# that the daemon is measured alone.
	start_daemon daemon /etc/damon-tierd.conf
	if ! wait_running 60 2+; then
		sed 's/^/DAEMON: /' "$log"
		alive && die "kdamonds not on after 60 s"
		die "damon-tierd exited"
	fi
	# bench.sh --tierd-hook: a measurement aid run once the kdamonds are on.
	if [ -s /bin/tierd-hook.sh ]; then
		sh /bin/tierd-hook.sh || die "the --tierd-hook script failed"
	fi
	;;
esac
echo "BENCH GUEST tiering set up: numa_balancing=$(cat /proc/sys/kernel/numa_balancing) damon_stat=$(stat_enabled) demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled 2>/dev/null) kdamonds=$(kdamond_pids)"

kd0=$(kdamond_pids)
# The schemes' sz_applied by action, fresh from the kdamonds ("P D").
damon_applied() {
	promoted=0
	demoted=0
	n=$(cat $A/nr_kdamonds 2>/dev/null || echo 0)
	k=0
	while [ "$k" -lt "$n" ]; do
		state_cmd "$k" update_schemes_stats || echo "BENCH WARN update_schemes_stats failed on kdamond $k" >&2
		S=$A/$k/contexts/0/schemes/0
		sz=$(cat $S/stats/sz_applied 2>/dev/null || echo 0)
		case $(cat $S/action 2>/dev/null) in
		migrate_hot) promoted=$((promoted + sz)) ;;
		migrate_cold) demoted=$((demoted + sz)) ;;
		esac
		k=$((k + 1))
	done
	echo "$promoted $demoted"
}
da0="0 0"
[ -n "$kd0" ] && da0=$(damon_applied)
ks0=$(kswapd_pids)
mig0=$(vmstat_sum '^pgmigrate_success$')
pro0=$(vmstat_sum '^pgpromote_success$')
dem0=$(vmstat_sum '^pgdemote_')
nbm0=$(vmstat_sum '^numa_pages_migrated$')
dt0=$(ticks "$dpid")
kt0=$(sum_ticks "$kd0")
# Each kdamond's own ticks at the start, "PID:TICKS ...", for the split of
# the CPU column between them in the log.
kt0_each=""
for q in $kd0; do kt0_each="$kt0_each $q:$(ticks "$q")"; done
st0=$(sum_ticks "$ks0")
up0=$(uptime_s)
kill -USR1 "$wpid"
wait $tpid
up1=$(uptime_s)
dt1=$(ticks "$dpid")
kd1=$(kdamond_pids)
kt1=$(sum_ticks "$kd1")
st1=$(sum_ticks "$ks0")
mig1=$(vmstat_sum '^pgmigrate_success$')
pro1=$(vmstat_sum '^pgpromote_success$')
dem1=$(vmstat_sum '^pgdemote_')
nbm1=$(vmstat_sum '^numa_pages_migrated$')

grep -q '^BENCH FINAL' /tmp/wl.log || die "workload ended without its FINAL line"
res "elapsed_s=$(awk -v a="$up0" -v b="$up1" 'BEGIN { printf "%.2f", b - a }')"
res "migrated_bytes=$(((mig1 - mig0) * 4096)) pgpromote=$((pro1 - pro0)) pgdemote=$((dem1 - dem0)) numa_pages_migrated=$((nbm1 - nbm0))"
res "kswapd_ticks=$((st1 - st0))"
if [ -n "$kd0" ] && [ -z "$kd1" ]; then
	# Unknown rather than 0: no kdamond pid could be read at the end.
	echo "BENCH WARN no kdamond pid readable at the end: kdamond CPU unknown"
elif [ -n "$kd0" ]; then
	# A kdamond restarted during the run has a new pid: its ticks count
	# from its own start.
	[ "$kd0" = "$kd1" ] || kt0=0
	res "kdamond_pids=$(echo "$kd1" | tr ' ' ,) kdamond_ticks=$((kt1 - kt0))"
fi
if [ -n "$kd0" ]; then
	da1=$(damon_applied)
	n=$(cat $A/nr_kdamonds)
	k=0
	while [ "$k" -lt "$n" ]; do
		S=$A/$k/contexts/0/schemes/0
		q=$(rd_or "$A/$k/pid" "")
		t0=$(echo "$kt0_each" | tr ' ' '\n' | sed -n "s/^$q:\([0-9]*\)$/\1/p")
		echo "BENCH GUEST kdamond $k $(cat $S/action): nr_tried=$(cat $S/stats/nr_tried) sz_tried=$(cat $S/stats/sz_tried) nr_applied=$(cat $S/stats/nr_applied) sz_applied=$(cat $S/stats/sz_applied) qt_exceeds=$(cat $S/stats/qt_exceeds) sample_us=$(cat $A/$k/contexts/0/monitoring_attrs/intervals/sample_us) aggr_us=$(cat $A/$k/contexts/0/monitoring_attrs/intervals/aggr_us) ticks=$(($(ticks "$q") - ${t0:-0}))"
		k=$((k + 1))
	done
	# Over the run only, like the other counters (setup-time work left out).
	p0=${da0% *} d0=${da0#* } p1=${da1% *} d1=${da1#* }
	res "damon_promoted_bytes=$((p1 - p0)) damon_demoted_bytes=$((d1 - d0)) damon_promoted_before_start=$p0 damon_demoted_before_start=$d0"
fi
if [ -n "$dpid" ]; then
	res "daemon_ticks=$((dt1 - dt0)) daemon_vmhwm_kb=$(awk '/^VmHWM:/ { print $2 }' /proc/$dpid/status) daemon_vmrss_kb=$(awk '/^VmRSS:/ { print $2 }' /proc/$dpid/status)"
	kill -TERM $dpid
	wait $dpid
	echo "BENCH GUEST damon-tierd exited $?"
	sed 's/^/DAEMON: /' /tmp/daemon.log
fi
grep -E '^(pgmigrate|pgpromote|pgdemote|numa_|pgsteal|pgscan)' /proc/vmstat | sed 's/^/BENCH VMSTAT /'
echo "BENCH DONE"
