#!/bin/bash
# build-rpm.sh [--check] [OUTDIR]
#
# Builds the damon-tierd source and binary RPMs from rpm/damon-tierd.spec
# and the working tree as it is now (committed or not), and prints the path
# of the binary RPM on stdout.  The tree goes into damon-tierd-VERSION.tar.gz
# (without .git, build*/ and package build leftovers), rpmbuild runs in a
# temporary directory: nothing is written into the source tree or $HOME.
#
# OUTDIR receives the .rpm and .src.rpm; it defaults to a new directory under
# ${TMPDIR:-/tmp}.  The build log stays in OUTDIR/build.log.  The build
# leaves out the spec's %check (the unit and CLI suites run on their own);
# --check runs it.
#
# On Fedora or RHEL rpmbuild checks the BuildRequires and uses the system's
# macros.  Where rpm has no %meson macro (Debian's rpm package) the
# BuildRequires cannot be resolved: the build runs with --nodeps, and
# tests/pkg/rpm-debian.macros stands in for the meson and systemd macros.
# docs/testing.md says what such a build cannot prove.
set -euo pipefail

# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
PROG=build-rpm

usage() {
	help_text >&2
	exit 2
}

check=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--check) check=1; shift ;;
	-h | --help) usage ;;
	-*) say "unknown argument $1"; usage ;;
	*) break ;;
	esac
done
[[ $# -le 1 ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
spec=$top/rpm/damon-tierd.spec
[[ -f $spec && -f $top/meson.build ]] || die "no rpm/damon-tierd.spec or meson.build in $top"
for tool in rpmbuild rpm tar; do
	command -v "$tool" >/dev/null || die "$tool not found: apt-get install -y rpm (or dnf install rpm-build)"
done
version=$(sed -n 's/^Version: *//p' "$spec")
[[ -n $version ]] || die "$spec has no Version:"

out=$(out_dir damon-tierd-rpm "$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-rpmbuild.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/SOURCES" "$work/tmp" "$work/src/damon-tierd-$version"

# A copy of what is on disk, so that uncommitted work is what gets built.
copy_tree "$top" "$work/src/damon-tierd-$version"
tar -C "$work/src" -czf "$work/SOURCES/damon-tierd-$version.tar.gz" "damon-tierd-$version"

args=(-ba --define "_topdir $work" --define "_tmppath $work/tmp")
((check)) || args+=(--without check)
if [[ -z $(rpm --eval '%{?meson}') ]]; then
	say "this rpm has no %meson: building with --nodeps and $here/rpm-debian.macros"
	args+=(--nodeps --load "$here/rpm-debian.macros")
fi
say "building (log: $out/build.log)"
t0=$SECONDS
if ! rpmbuild "${args[@]}" "$spec" >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "rpmbuild failed after $((SECONDS - t0))s; full log: $out/build.log"
fi
say "built in $((SECONDS - t0))s"

shopt -s nullglob
rpms=("$work"/RPMS/*/damon-tierd-"$version"-*.rpm)
srpms=("$work"/SRPMS/damon-tierd-"$version"-*.src.rpm)
[[ ${#rpms[@]} -eq 1 && ${#srpms[@]} -eq 1 ]] ||
	die "expected one binary and one source RPM, found ${#rpms[@]} and ${#srpms[@]}"
mv "${rpms[0]}" "${srpms[0]}" "$out"/
# The debuginfo packages, where the system's macros make them.
for f in "$work"/RPMS/*/damon-tierd-debug*.rpm; do mv "$f" "$out"/; done
echo "$out/$(basename "${rpms[0]}")"
