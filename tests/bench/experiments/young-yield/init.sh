# young-filter yield (tests/bench/experiments/young-yield/run.sh): a demote scheme over
# node 0 while a toucher touches 64 MiB at RATE/page/s.  Guest only.
[ -x /bin/toucher ] && grep -q DAMON_TIERD_VM_RESULT /init 2>/dev/null || { echo "not in the test guest" >&2; exit 2; }
RATE=${RATE:-3}; DUR=${DUR:-30}
[ -w /sys/module/damon_stat/parameters/enabled ] && echo N > /sys/module/damon_stat/parameters/enabled
echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
/bin/toucher $RATE > /tmp/t.out 2>&1 &
TP=$!
sleep 2
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
lo=-1; hi=0
for m in /sys/devices/system/node/node0/memory*; do
  i=${m##*memory}; s=$((i * bs)); e=$((s + bs))
  [ $lo -lt 0 -o $s -lt $lo ] && lo=$s; [ $e -gt $hi ] && hi=$e
done
echo "node0 range $lo-$hi"
A=/sys/kernel/mm/damon/admin/kdamonds
echo 1 > $A/nr_kdamonds; K=$A/0; echo 1 > $K/contexts/nr_contexts; C=$K/contexts/0
echo paddr > $C/operations
I=$C/monitoring_attrs/intervals
echo 5000 > $I/sample_us; echo 100000 > $I/aggr_us; echo 1000000 > $I/update_us
echo 10 > $C/monitoring_attrs/nr_regions/min; echo 1000 > $C/monitoring_attrs/nr_regions/max
echo 1 > $C/targets/nr_targets; echo 1 > $C/targets/0/regions/nr_regions
echo $lo > $C/targets/0/regions/0/start; echo $hi > $C/targets/0/regions/0/end
echo 1 > $C/schemes/nr_schemes; S=$C/schemes/0
echo migrate_cold > $S/action; echo 1 > $S/target_nid
echo 0 > $S/access_pattern/sz/min; echo 18446744073709551615 > $S/access_pattern/sz/max
echo 0 > $S/access_pattern/nr_accesses/min; echo 4294967295 > $S/access_pattern/nr_accesses/max
echo 0 > $S/access_pattern/age/min; echo 4294967295 > $S/access_pattern/age/max
echo 100000 > $S/apply_interval_us
echo 15204352 > $S/quotas/bytes; echo 100 > $S/quotas/reset_interval_ms
echo 0 > $S/quotas/weights/sz_permil; echo 100 > $S/quotas/weights/nr_accesses_permil; echo 100 > $S/quotas/weights/age_permil
echo 1 > $S/ops_filters/nr_filters; F=$S/ops_filters/0
echo young > $F/type; echo Y > $F/matching; echo N > $F/allow
echo on > $K/state || { echo "YT cannot start"; exit 1; }
sleep $DUR
echo update_schemes_stats > $K/state
echo "YT kernel=$(uname -r) rate=$RATE dur=$DUR tried=$(cat $S/stats/sz_tried) applied=$(cat $S/stats/sz_applied) nr_tried=$(cat $S/stats/nr_tried) filter_passed=$(cat $S/stats/sz_ops_filter_passed 2>/dev/null)"
echo off > $K/state
kill -USR1 $TP; wait $TP
cat /tmp/t.out
