#!/bin/sh
# fail-charge.sh: a measurement aid for bench.sh --tierd-hook (not shipped).  On 7.2+,
# charge the demotion scheme for failed bytes at 1/32 (quotas/fail_charge_num/denom), so a
# window tries more regions for the same quota.  docs/benchmarks.md, "What was tried".
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
in_test_guest /bin/tierload || { echo "not in the bench guest" >&2; exit 2; }
A=$ADMIN
for k in 0 1; do
  S=$A/$k/contexts/0/schemes/0
  if [ "$(cat "$S/action")" = migrate_cold ] && [ -e "$S/quotas/fail_charge_denom" ]; then
    echo 1 > "$S/quotas/fail_charge_num"; echo 32 > "$S/quotas/fail_charge_denom"
    echo commit > "$A/$k/state" && echo "BENCH HOOK fail_charge 1/32 on kdamond $k"
  fi
done
