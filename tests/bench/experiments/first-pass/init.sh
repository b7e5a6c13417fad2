# first-pass (tests/bench/experiments/first-pass/run.sh): one migrate_cold scheme over
# node 0 with a Q-byte quota while 300 MiB written once sit there.  Guest only.
[ -x /bin/hog ] && grep -q DAMON_TIERD_VM_RESULT /init 2>/dev/null || { echo "not in the test guest" >&2; exit 2; }
Q=${Q:-1}; AI=${AI:-100000}
[ -w /sys/module/damon_stat/parameters/enabled ] && echo N > /sys/module/damon_stat/parameters/enabled
echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
/bin/hog 300 > /tmp/h.out 2>&1 &
sleep 3; cat /tmp/h.out
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
lo=-1; hi=0
for m in /sys/devices/system/node/node0/memory[0-9]*; do
  i=${m##*memory}; s=$((i * bs)); e=$((s + bs))
  [ $lo -lt 0 -o $s -lt $lo ] && lo=$s; [ $e -gt $hi ] && hi=$e
done
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
echo $AI > $S/apply_interval_us
echo $Q > $S/quotas/bytes; echo 100 > $S/quotas/reset_interval_ms
echo 0 > $S/quotas/weights/sz_permil; echo 100 > $S/quotas/weights/nr_accesses_permil; echo 100 > $S/quotas/weights/age_permil
m0=$(awk '/^pgmigrate_success/{print $2}' /proc/vmstat)
T=/sys/kernel/tracing
echo 1 > $T/events/damon/damos_before_apply/enable
echo 1 > $T/events/damon/damos_esz/enable 2>/dev/null
echo on > $K/state || { echo "FA cannot start"; exit 1; }
for t in 1 2 3 4 5 6; do
  sleep 1
  echo update_schemes_stats > $K/state; echo update_schemes_effective_quotas > $K/state 2>/dev/null
  echo "FA kernel=$(uname -r) Q=$Q AI=$AI t=$t migrated_MiB=$(( ($(awk '/^pgmigrate_success/{print $2}' /proc/vmstat) - m0) / 256 )) nr_applied=$(cat $S/stats/nr_applied) sz_applied=$(cat $S/stats/sz_applied) nr_tried=$(cat $S/stats/nr_tried) esz=$(cat $S/quotas/effective_bytes)"
done
echo off > $K/state
grep -v "^#" $T/trace | head -n 8 | sed "s/^/TR /"
