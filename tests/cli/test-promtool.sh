#!/usr/bin/env bash
# The monitoring files through promtool (Debian's prometheus package,
# installed by tests/deps.sh):
#  - promtool check rules on monitoring/damon-tierd-alerts.yml;
#  - promtool test rules on monitoring/damon-tierd-alerts.test.yml: each
#    alert fires on the series it is for and not on healthy ones;
#  - promtool check metrics (the exposition format and naming conventions)
#    on the textfile of a status in which every metric has samples
#    ($DUMP_PROMETHEUS);
#  - every query of the Grafana dashboard parsed by promtool check rules
#    (written as recording rules by check-metrics.py --dashboard-rules).
# Which metrics, labels and values the files may use is check-metrics.py's
# part (test-metrics-doc).  Exit 77 (skip) where promtool is not installed.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$top/tests/lib/host.sh"
PROG=test-promtool

skip_without promtool "apt-get install prometheus"
dump=${DUMP_PROMETHEUS:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mon=$top/monitoring
promtool --version 2>&1 | head -1

# run NAME COMMAND...: ok or bad, with the command's output on failure.
run() {
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		ok "$name"
	else
		bad "$name:"
		sed 's/^/  /' "$tmp/out"
	fi
}

# The tests name the rule file relative to themselves.
test_rules() { (cd "$mon" && promtool test rules damon-tierd-alerts.test.yml); }
check_metrics() { promtool check metrics <"$tmp/damon-tierd.prom"; }

run "promtool check rules damon-tierd-alerts.yml" promtool check rules "$mon/damon-tierd-alerts.yml"
run "promtool test rules damon-tierd-alerts.test.yml" test_rules
"$dump" >"$tmp/damon-tierd.prom"
run "promtool check metrics on the textfile" check_metrics
if python3 "$top/tests/cli/check-metrics.py" --dashboard-rules "$tmp/dashboard-rules.yml"; then
	run "promtool parses every query of damon-tierd-dashboard.json ($(grep -c 'expr:' "$tmp/dashboard-rules.yml"))" \
		promtool check rules "$tmp/dashboard-rules.yml"
else
	bad "check-metrics.py --dashboard-rules failed"
fi
finish
