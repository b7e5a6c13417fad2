#!/usr/bin/env bash
# Runs shellcheck over every shell script of the tree: each *.sh, and every other
# file whose first line is a sh or bash shebang (.ci/run, the maintainer
# scripts in debian/).  Sourced files are followed (-x), so the helpers of
# tests/lib/guest.sh and tests/lib/host.sh count as defined where they are
# used.  Build directories (top-level ones with meson-private/), .git and
# the package build's staging directories are left out.  All severities count:
# the run must be clean.  A warning that is a false positive gets a targeted
# "# shellcheck disable=SCxxxx" with its reason in the script.
# Exit 77 (skip) where shellcheck is not installed (tests/deps.sh installs it).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$top/tests/lib/host.sh"
PROG=test-shellcheck

skip_without shellcheck "apt-get install shellcheck"

cd "$top"
# Build directories (meson's, inside the tree) are not the tree's scripts.
prune=(-name .git -o -name 'obj-*' -o -path ./debian/.debhelper -o -path ./debian/damon-tierd)
for d in */; do
	[[ -e $d/meson-private ]] && prune+=(-o -path "./${d%/}")
done
scripts=()
while IFS= read -r -d '' f; do
	f=${f#./}
	case $f in
	*.sh) scripts+=("$f") ;;
	*)
		# A shebang naming sh, bash, dash or busybox sh (not make, python, ...).
		line=""
		IFS= read -r line <"$f" 2>/dev/null || true
		[[ $line =~ ^'#!'.*[/\ ](ba|da)?sh(\ |$) ]] && scripts+=("$f")
		;;
	esac
done < <(find . \( "${prune[@]}" \) -prune -o -type f -print0 | LC_ALL=C sort -z)

# Every script the tests and the README name must be there; a handful would
# mean the search went wrong.
((${#scripts[@]} >= 40)) || die "found only ${#scripts[@]} shell scripts under $top: ${scripts[*]}"
for must in .ci/run tests/run-all.sh tests/lib/guest.sh tests/lib/host.sh debian/damon-tierd.prerm; do
	[[ " ${scripts[*]} " == *" $must "* ]] || die "$must is not among the scripts found"
done

echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p') on ${#scripts[@]} scripts"
if shellcheck -x "${scripts[@]}"; then
	echo "shellcheck: clean"
else
	echo "FAIL: shellcheck found the issues above"
	exit 1
fi
