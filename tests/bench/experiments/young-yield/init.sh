#!/bin/sh
# young-filter yield (tests/bench/experiments/young-yield/run.sh): a demote scheme over
# node 0 while a toucher touches 64 MiB at RATE/page/s.  Guest only.
# shellcheck source=SCRIPTDIR/../../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/toucher || { echo "not in the test guest" >&2; exit 2; }
RATE=${RATE:-3}; DUR=${DUR:-30}
# shellcheck source=SCRIPTDIR/../node0-cold-scheme.sh
. /bin/node0-cold-scheme.sh
/bin/toucher "$RATE" > /tmp/t.out 2>&1 &
TP=$!
sleep 2
node0_cold_scheme 15204352 100000
echo 1 > "$S/ops_filters/nr_filters"; F=$S/ops_filters/0
echo young > "$F/type"; echo Y > "$F/matching"; echo N > "$F/allow"
# DISARM=1: start with the scheme matching nothing and arm it after 1 s, as
# damon-tierd does (6.12-6.17 run a first pass without a quota:
# docs/kernel-compat.md, "The first apply pass of a new scheme has no quota").
[ "${DISARM:-0}" = 1 ] && echo 4294967295 > "$S/access_pattern/age/min"
echo on > "$K/state" || { echo "YT cannot start"; exit 1; }
if [ "${DISARM:-0}" = 1 ]; then
  sleep 1; echo 0 > "$S/access_pattern/age/min"; echo commit > "$K/state"
fi
sleep "$DUR"
echo update_schemes_stats > "$K/state"
echo "YT kernel=$(uname -r) disarm=${DISARM:-0} rate=$RATE dur=$DUR tried=$(cat "$S/stats/sz_tried") applied=$(cat "$S/stats/sz_applied") nr_tried=$(cat "$S/stats/nr_tried") filter_passed=$(cat "$S/stats/sz_ops_filter_passed" 2>/dev/null)"
echo off > "$K/state"
kill -USR1 $TP; wait $TP
cat /tmp/t.out
