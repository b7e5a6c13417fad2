#!/usr/bin/env bash
# The service unit's hardening gate: systemd-analyze's overall exposure of
# systemd/damon-tierd.service must stay at or below 1.5, and the analysis
# must not have ignored a directive it could not parse (a misspelt directive
# would silently drop its protection and could still score well).
# Exit 77 (skip) where systemd-analyze cannot analyse a unit file offline.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
unit=$here/../../systemd/damon-tierd.service
max=1.5

if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze is not installed (it comes with the systemd package)"
	exit 77
fi
if ! systemd-analyze security --help 2>&1 | grep -q -- '--offline'; then
	echo "SKIP: this systemd-analyze ($(systemd-analyze --version | head -1)) has no" \
	     "--offline (needs systemd 250 or later)"
	exit 77
fi
[[ -r $unit ]] || { echo "FAIL: cannot read $unit"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

systemd-analyze security --offline=true --no-pager "$unit" >"$tmp/out" 2>"$tmp/err" && st=0 || st=$?
exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\(\.[0-9]*\)\{0,1\}\).*/\1/p' \
	   "$tmp/out" | head -1)

if [[ -z $exposure ]]; then
	bad "no 'Overall exposure level' in the output of systemd-analyze security (exit $st):"
	sed 's/^/  /' "$tmp/out" "$tmp/err" | head -30
elif awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e <= m) }'; then
	ok
	echo "exposure $exposure (at most $max)"
else
	bad "exposure $exposure is above $max; what still counts against the unit:"
	grep '✗' "$tmp/out" | sed 's/^/  /'
fi

# systemd logs unparsable directives and ignores them.
if grep -E 'Unknown (key|section)|Failed to parse|Invalid|ignoring' "$tmp/err" >"$tmp/bad"; then
	bad "systemd-analyze ignored parts of $unit:"
	sed 's/^/  /' "$tmp/bad"
else
	ok
fi

finish
