# shellcheck shell=sh
# node0-cold-scheme.sh: sourced by the experiments' guest scripts (young-yield,
# first-pass).  Guest only.  Pauses damon_stat and NUMA balancing, then
# node0_cold_scheme QUOTA_BYTES APPLY_US stages kdamond 0: paddr over node 0's
# memory blocks, one migrate_cold scheme to node 1 for every region, with that
# quota per 100 ms window, the daemon's 0/100/100 weights and no filter.  Sets
# K (the kdamond's directory) and S (the scheme's); the caller adds filters and
# writes "on".
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
damon_stat_off
echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null

node0_cold_scheme() {
  span=$(node_span 0)
  lo=${span% *}; hi=${span#* }
  echo "node0 range $lo-$hi"
  A=$ADMIN
  echo 1 > "$A/nr_kdamonds"; K=$A/0; echo 1 > "$K/contexts/nr_contexts"; C=$K/contexts/0
  echo paddr > "$C/operations"
  I=$C/monitoring_attrs/intervals
  echo 5000 > "$I/sample_us"; echo 100000 > "$I/aggr_us"; echo 1000000 > "$I/update_us"
  echo 10 > "$C/monitoring_attrs/nr_regions/min"; echo 1000 > "$C/monitoring_attrs/nr_regions/max"
  echo 1 > "$C/targets/nr_targets"; echo 1 > "$C/targets/0/regions/nr_regions"
  echo "$lo" > "$C/targets/0/regions/0/start"; echo "$hi" > "$C/targets/0/regions/0/end"
  echo 1 > "$C/schemes/nr_schemes"; S=$C/schemes/0
  echo migrate_cold > "$S/action"; echo 1 > "$S/target_nid"
  echo 0 > "$S/access_pattern/sz/min"; echo 18446744073709551615 > "$S/access_pattern/sz/max"
  echo 0 > "$S/access_pattern/nr_accesses/min"; echo 4294967295 > "$S/access_pattern/nr_accesses/max"
  echo 0 > "$S/access_pattern/age/min"; echo 4294967295 > "$S/access_pattern/age/max"
  echo "$2" > "$S/apply_interval_us"
  echo "$1" > "$S/quotas/bytes"; echo 100 > "$S/quotas/reset_interval_ms"
  echo 0 > "$S/quotas/weights/sz_permil"; echo 100 > "$S/quotas/weights/nr_accesses_permil"
  echo 100 > "$S/quotas/weights/age_permil"
}
