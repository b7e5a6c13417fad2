#!/bin/bash
# build-deb.sh [--nocheck] [OUTDIR]
#
# Builds the damon-tierd .deb from the working tree as it is now (committed
# or not) and prints the path of the .deb on stdout.  The tree is copied to
# a temporary directory first (without .git, build*/ and leftovers of an
# in-tree package build), so nothing is written into the source tree.
#
# OUTDIR receives the .deb, .buildinfo and .changes; it defaults to a new
# directory under ${TMPDIR:-/tmp}.  The build log stays in OUTDIR/build.log.
# --nocheck neither builds nor runs the unit and CLI tests that the package
# build runs (DEB_BUILD_OPTIONS=nocheck and the nocheck build profile);
# other DEB_BUILD_OPTIONS and DEB_BUILD_PROFILES pass through.
#
# Needs dpkg-dev, debhelper and the Build-Depends of debian/control; a
# missing one is named with the apt-get command that installs it.
set -euo pipefail

# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
PROG=build-deb

usage() {
	help_text >&2
	exit 2
}

nocheck=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--nocheck) nocheck=1; shift ;;
	-h | --help) usage ;;
	-*) say "unknown argument $1"; usage ;;
	*) break ;;
	esac
done
[[ $# -le 1 ]] || usage

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ -f $top/debian/control && -f $top/meson.build ]] || die "no debian/control or meson.build in $top"
for tool in dpkg-buildpackage dpkg-checkbuilddeps dh tar; do
	command -v "$tool" >/dev/null ||
		die "$tool not found: apt-get install -y dpkg-dev debhelper"
done

out=$(out_dir damon-tierd-deb "$@")

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-debbuild.XXXXXX")
trap 'rm -rf "$work"' EXIT
# dpkg-buildpackage writes the .deb into the parent of the source directory.
src=$work/damon-tierd
mkdir "$src"

# A copy of what is on disk, so that uncommitted work is what gets built.
copy_tree "$top" "$src"

cd "$src"
checkargs=()
((nocheck)) && checkargs=(-P nocheck)
if ! missing=$(dpkg-checkbuilddeps "${checkargs[@]}" 2>&1); then
	deps=$(sed -n 's/.*Unmet build dependencies: //p' <<<"$missing" |
		sed -e 's/([^)]*)//g' -e 's/<[^>]*>//g' -e 's/| *[^ ]*//g')
	die "missing build dependencies: ${deps:-$missing}; install them with: apt-get install -y$deps"
fi

opts=${DEB_BUILD_OPTIONS:-}
profiles=${DEB_BUILD_PROFILES:-}
if ((nocheck)); then
	opts="$opts nocheck"
	profiles="$profiles nocheck"
fi
say "building in $src (log: $out/build.log)"
t0=$SECONDS
if ! DEB_BUILD_OPTIONS="${opts# }" DEB_BUILD_PROFILES="${profiles# }" dpkg-buildpackage -b -us -uc -Jauto >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed after $((SECONDS - t0))s; full log: $out/build.log"
fi
say "built in $((SECONDS - t0))s"

shopt -s nullglob
debs=("$work"/damon-tierd_*.deb)
[[ ${#debs[@]} -eq 1 ]] || die "expected one damon-tierd_*.deb in $work, found ${#debs[@]}"
mv "$work"/damon-tierd_*.deb "$work"/damon-tierd_*.buildinfo "$work"/damon-tierd_*.changes "$out"/
# The debug symbols (dh_strip's -dbgsym package), if any, go along.
for f in "$work"/damon-tierd-dbgsym_*.deb; do mv "$f" "$out"/; done
echo "$out/$(basename "${debs[0]}")"
