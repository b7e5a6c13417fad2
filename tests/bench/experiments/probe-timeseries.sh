#!/bin/sh
# probe-timeseries.sh: a measurement aid for bench.sh --tierd-hook (not shipped; reads only).
#
# Runs in the guest once damon-tierd's kdamonds are on and prints to the console:
# - every second a PROBE line: node free memory, /proc/vmstat migration counters,
#   and for kdamonds 0 and 1 scheme 0's quota, effective quota, stats and the
#   interval files (as the kernel last refreshed them: see docs/kernel-compat.md, refresh_ms);
# - from the damon_aggregated tracepoint (regions at or above 512 MiB, the slow
#   node of the benchmark VM) one AGG line per aggregation: regions, bytes with
#   accesses, the largest nr_accesses; and from damos_before_apply one APPLY line
#   per second with the regions and bytes the slow node's scheme acted on.
# Used for docs/kernel-compat.md ("refresh_ms has one deadline for all kdamonds") and
# docs/benchmarks.md.
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/tierload || { echo "probe: not in the benchmark guest" >&2; exit 2; }
A=$ADMIN
(
 i=0
 while [ $i -lt 400 ]; do
  line="PROBE up=$(cut -d' ' -f1 /proc/uptime)"
  line="$line n0free=$(awk '/MemFree/{print $4}' /sys/devices/system/node/node0/meminfo)"
  line="$line n1free=$(awk '/MemFree/{print $4}' /sys/devices/system/node/node1/meminfo)"
  line="$line $(awk '/^pgmigrate_success|^pgdemote_direct|^pgdemote_kswapd|^pgpromote_success|^pgmigrate_fail/{printf "%s=%s ", $1, $2}' /proc/vmstat)"
  for k in 0 1; do
    C=$A/$k/contexts/0; S=$C/schemes/0
    [ -d "$S" ] || continue
    st=$S/stats
    line="$line | k$k $(cat "$S/action") q=$(cat "$S/quotas/bytes") eq=$(cat "$S/quotas/effective_bytes" 2>/dev/null) tried=$(cat "$st/nr_tried")/$(cat "$st/sz_tried") appl=$(cat "$st/nr_applied")/$(cat "$st/sz_applied") qx=$(cat "$st/qt_exceeds") smp=$(cat "$C/monitoring_attrs/intervals/sample_us") agg=$(cat "$C/monitoring_attrs/intervals/aggr_us")"
  done
  echo "$line"
  sleep 1; i=$((i+1))
 done
) > /dev/console 2>&1 &
T=/sys/kernel/tracing
echo 4096 > $T/buffer_size_kb
echo 'start >= 536870912' > $T/events/damon/damon_aggregated/filter
echo 'start >= 536870912' > $T/events/damon/damos_before_apply/filter
echo 1 > $T/events/damon/damon_aggregated/enable
echo 1 > $T/events/damon/damos_before_apply/enable
(
awk '
function flush() { if (an > 0) printf "AGG t=%.2f n=%d hotMiB=%.1f maxacc=%d sumacc=%d ageMinHot=%d\n", at, an, hb/1048576, mx, sa, amin; an=0; hb=0; mx=0; sa=0; amin=999999 }
function aflush() { if (pn > 0) printf "APPLY t=%d n=%d MiB=%.1f\n", pt, pn, pb/1048576; pn=0; pb=0 }
{
  ts=0; for (i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts=substr($i,1,length($i)-1)+0; break }
  for (i=1;i<=NF;i++) if ($i ~ /^[0-9]+-[0-9]+:$/) { split(substr($i,1,length($i)-1), r, "-"); acc=$(i+1)+0; age=$(i+2)+0; break }
  sz = r[2]-r[1]
  if ($0 ~ /damon_aggregated/) {
    if (an > 0 && (ts-at > 0.002 || ts-at < -0.002)) flush()
    if (an == 0) at=ts
    an++; if (acc > 0) { hb+=sz; if (age < amin) amin=age }; if (acc>mx) mx=acc; sa+=acc
  } else {
    s=int(ts); if (pn > 0 && s != pt) aflush(); pt=s; pn++; pb+=sz
  }
}' < $T/trace_pipe
) > /dev/console 2>&1 &
echo "BENCH HOOK probe-tr started"
