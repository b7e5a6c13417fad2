# young-filter yield (tests/bench/experiments/young-yield/run.sh): a demote scheme over
# node 0 while a toucher touches 64 MiB at RATE/page/s.  Guest only.
[ -x /bin/toucher ] && grep -q DAMON_TIERD_VM_RESULT /init 2>/dev/null || { echo "not in the test guest" >&2; exit 2; }
RATE=${RATE:-3}; DUR=${DUR:-30}
. /bin/node0-cold-scheme.sh
/bin/toucher $RATE > /tmp/t.out 2>&1 &
TP=$!
sleep 2
node0_cold_scheme 15204352 100000
echo 1 > $S/ops_filters/nr_filters; F=$S/ops_filters/0
echo young > $F/type; echo Y > $F/matching; echo N > $F/allow
echo on > $K/state || { echo "YT cannot start"; exit 1; }
sleep $DUR
echo update_schemes_stats > $K/state
echo "YT kernel=$(uname -r) rate=$RATE dur=$DUR tried=$(cat $S/stats/sz_tried) applied=$(cat $S/stats/sz_applied) nr_tried=$(cat $S/stats/nr_tried) filter_passed=$(cat $S/stats/sz_ops_filter_passed 2>/dev/null)"
echo off > $K/state
kill -USR1 $TP; wait $TP
cat /tmp/t.out
