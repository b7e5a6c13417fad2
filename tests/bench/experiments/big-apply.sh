#!/bin/sh
# big-apply.sh: a measurement aid for bench.sh --tierd-hook (not shipped; reads only).
# Prints every node-0 DAMOS application larger than 8 MiB (damos_before_apply) as a BIGAPPLY
# line, and kdamond 0's quota, effective quota and applied bytes five times a second for
# 30 s (QPROBE).  Showed the first apply pass without a quota: docs/kernel-compat.md, "The first apply pass of a new scheme has no quota".
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/tierload || { echo "not in the bench guest" >&2; exit 2; }
A=$ADMIN
T=/sys/kernel/tracing
echo 4096 > $T/buffer_size_kb
echo 'start < 536870912' > $T/events/damon/damos_before_apply/filter
echo 1 > $T/events/damon/damos_before_apply/enable
( awk '{ for (i=1;i<=NF;i++) if ($i ~ /^[0-9]+-[0-9]+:?$/ ) { sub(/:$/, "", $i); split($i,a,"-"); if (a[2]-a[1] > 8388608) print "BIGAPPLY", $0 } }' $T/trace_pipe > /dev/console 2>&1 & )
(
 i=0
 while [ $i -lt 150 ]; do
  S=$A/0/contexts/0/schemes/0
  echo "QPROBE up=$(cut -d' ' -f1 /proc/uptime) n0free=$(awk '/MemFree/{print $4}' /sys/devices/system/node/node0/meminfo) q=$(cat "$S/quotas/bytes") eq=$(cat "$S/quotas/effective_bytes") appl=$(cat "$S/stats/nr_applied")/$(cat "$S/stats/sz_applied") regions=$(cat "$A/0/contexts/0/targets/0/regions/nr_regions")" > /dev/console
  sleep 0.2; i=$((i+1))
 done
) &
echo "BENCH HOOK bigapply started"
