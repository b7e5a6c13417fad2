#!/bin/sh
# promote-sweep.sh: a measurement aid for bench.sh --tierd-hook (not shipped).
#
# Runs in the guest once damon-tierd's kdamonds are on.  It adds a second
# scheme to the promote kdamond: action stat, the same access pattern and
# young filter as the promotion scheme, and a quota that sweeps the slow
# node's span every 1/FRAC s.  The young filter clears the young bit of
# every page it finds young, so the promotion scheme sees a page as young only
# if it was touched within the last sweep, instead of since its own last
# visit (which, at a small promotion quota, is many seconds): promotion then
# prefers pages touched often over pages touched once in a while.
#
# Writing nr_schemes wipes scheme 0, so it is saved and restored.  Run the
# daemon with [daemon] verify_interval = 24h, or it reverts the change as drift.
# Only inside the benchmark guest (its init is bench-guest.sh): never on a host.
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/tierload ||
  { echo "promote-sweep.sh: not in the benchmark guest; refusing to touch DAMON" >&2; exit 2; }
A=$ADMIN
FRAC=10
save() { # dir -> "rel=value" lines of writable files, nr_* first
  (cd "$1" && for f in action target_nid apply_interval_us access_pattern/sz/min access_pattern/sz/max \
     access_pattern/nr_accesses/min access_pattern/nr_accesses/max access_pattern/age/min access_pattern/age/max \
     quotas/ms quotas/bytes quotas/reset_interval_ms quotas/weights/sz_permil quotas/weights/nr_accesses_permil \
     quotas/weights/age_permil watermarks/metric; do echo "$f=$(cat "$f")"; done)
}
restore() { # dir file
  while IFS='=' read -r f v; do echo "$v" > "$1/$f" || echo "BENCH WARN hook cannot write $1/$f=$v"; done < "$2"
}
setfilter() { # scheme dir, filter dir, allow
  echo 1 > "$1/$2/nr_filters"; echo young > "$1/$2/0/type"; echo Y > "$1/$2/0/matching"; echo "$3" > "$1/$2/0/allow"
}
n=$(cat "$A/nr_kdamonds"); k=0
while [ $k -lt "$n" ]; do
  C=$A/$k/contexts/0
  if [ "$(cat "$C/schemes/0/action")" = migrate_hot ]; then
    S0=$C/schemes/0
    save "$S0" > /tmp/s0
    fd=filters; [ -d "$S0/ops_filters" ] && [ "$(cat "$S0/ops_filters/nr_filters")" -gt 0 ] && fd=ops_filters
    allow=$(cat "$S0/$fd/0/allow")
    echo 2 > "$C/schemes/nr_schemes"
    restore "$C/schemes/0" /tmp/s0
    setfilter "$C/schemes/0" $fd "$allow"
    restore "$C/schemes/1" /tmp/s0
    S=$C/schemes/1
    echo stat > "$S/action"
    setfilter "$S" $fd "$allow"
    span=0; r=0; nr=$(cat "$C/targets/0/regions/nr_regions")
    while [ $r -lt "$nr" ]; do
      st=$(cat "$C/targets/0/regions/$r/start"); en=$(cat "$C/targets/0/regions/$r/end")
      span=$((span + en - st)); r=$((r+1))
    done
    win=$(cat "$S/quotas/reset_interval_ms")
    b=$((span * win / (FRAC * 1000)))
    echo $b > "$S/quotas/bytes"
    echo commit > "$A/$k/state" || echo "BENCH WARN hook commit failed"
    echo "BENCH HOOK kdamond $k: stat sweep scheme, $b bytes per ${win} ms window (span $span), filter $fd allow $allow; scheme0: $(cat "$S0/action") $(cat "$S0/quotas/bytes") $(cat "$S0/$fd/nr_filters") $(cat "$S0/access_pattern/nr_accesses/min")"
  fi
  k=$((k+1))
done
