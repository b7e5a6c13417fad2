#!/bin/bash
# soak.sh [--minutes N] [--kernel GLOB] [--log FILE] [--append WORDS]
#
# The soak test (not in CI: it takes N minutes of guest time plus boot):
#   tests/vm/soak.sh                  # 20 minutes, 6.17 (~25 min wall clock)
#   tests/vm/soak.sh --minutes 2      # short form, for development
#   DAMON_TIERD=/tmp/bk/damon-tierd WORKLOAD=/tmp/bk/tests/vm/workload \
#   TIERLOAD=/tmp/bk/tests/vm/tierload tests/vm/soak.sh --log /tmp/soak.log
#
# One TCG guest (tests/vm/e2e.sh --guest guest/soak-guest.sh) runs
# damon-tierd with its shipped defaults (the config sets only
# [daemon] status_interval = 30s, for the log) for at least N minutes of
# guest time while the workload changes, looped: hot set on the slow node
# (workload), hot set shifting to another region (tierload gups), idle,
# resident set growing (tierload grow), mixed (tierload zipf + a small
# workload).  Every 30 s (10 s below 10 minutes) it samples the daemon and
# asserts at the end: no RSS growth (last third's max <= first third's max +
# 256 KiB), a constant fd count after start-up, the main loop kept its period
# (status.json/status.txt never older than 3 periods, probed every 5 s; one
# daemon pid all along), sz_applied of each of our kdamonds never decreasing
# while its pid is unchanged, nothing above info in the daemon's log but the
# expected "paused damon_stat" notice, exit 0 on SIGTERM.  The daemon's CPU
# time is reported, not asserted.  Output: "SOAK PASS/FAIL: ..." and
# "SOAK SUMMARY ..." lines (repeated at the end); exit status: the guest's.
#
# --append WORDS passes key=value words to the guest: SOAK_SAMPLE,
# SOAK_PROBE, SOAK_PHASE (seconds), SOAK_RSS_SLACK_KB.
# Env: DAMON_TIERD, WORKLOAD (as e2e.sh), TIERLOAD (default
# build/tests/vm/tierload).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=soak
DIE_STATUS=2
minutes=20
glob=6.17
log=""
extra_append=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--minutes) minutes=${2:?}; shift 2 ;;
	--kernel) glob=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	-h | --help) help_text; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done
[[ $minutes =~ ^[1-9][0-9]*$ ]] || die "--minutes wants a whole number >= 1, not '$minutes'"

tierload=${TIERLOAD:-$top/build/tests/vm/tierload}
[[ -x $tierload ]] || die "no tierload binary at $tierload (build first, or set TIERLOAD)"

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT
keep_log=$log
[[ -n $log ]] || log=$work/console.log
printf '[daemon]\nstatus_interval = 30s\n' >"$work/damon-tierd.conf"

# Guest time, plus boot, the last phase's overrun (<= 2 min) and slack for
# a loaded host.
timeout_s=$((minutes * 60 * 3 / 2 + 900))
rc=0
EXTRA_BINS="$tierload:/bin/tierload${EXTRA_BINS:+ $EXTRA_BINS}" \
	"$here/e2e.sh" --kernel "$glob" --guest "$here/guest/soak-guest.sh" \
	--config "$work/damon-tierd.conf" --timeout "$timeout_s" \
	--append "SOAK_MINUTES=$minutes$extra_append" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}

echo "=== soak summary${keep_log:+ (console: $keep_log)} ==="
grep -a -E '^SOAK (PASS|FAIL|SUMMARY|done)' "$log" | tr -d '\r' || echo "soak: no SOAK lines in the console"
exit "$rc"
