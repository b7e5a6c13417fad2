#!/bin/sh
# first-pass (tests/bench/experiments/first-pass/run.sh): one migrate_cold scheme over
# node 0 with a Q-byte quota while 300 MiB written once sit there.  Guest only.
# shellcheck source=SCRIPTDIR/../../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/hog || { echo "not in the test guest" >&2; exit 2; }
Q=${Q:-1}; AI=${AI:-100000}
# shellcheck source=SCRIPTDIR/../node0-cold-scheme.sh
. /bin/node0-cold-scheme.sh
/bin/hog 300 > /tmp/h.out 2>&1 &
sleep 3; cat /tmp/h.out
node0_cold_scheme "$Q" "$AI"
m0=$(awk '/^pgmigrate_success/{print $2}' /proc/vmstat)
T=/sys/kernel/tracing
echo 1 > $T/events/damon/damos_before_apply/enable
echo 1 > $T/events/damon/damos_esz/enable 2>/dev/null
echo on > "$K/state" || { echo "FA cannot start"; exit 1; }
for t in 1 2 3 4 5 6; do
  sleep 1
  echo update_schemes_stats > "$K/state"; echo update_schemes_effective_quotas > "$K/state" 2>/dev/null
  echo "FA kernel=$(uname -r) Q=$Q AI=$AI t=$t migrated_MiB=$(( ($(awk '/^pgmigrate_success/{print $2}' /proc/vmstat) - m0) / 256 )) nr_applied=$(cat "$S/stats/nr_applied") sz_applied=$(cat "$S/stats/sz_applied") nr_tried=$(cat "$S/stats/nr_tried") esz=$(cat "$S/quotas/effective_bytes")"
done
echo off > "$K/state"
grep -v "^#" $T/trace | head -n 8 | sed "s/^/TR /"
