#!/bin/bash
# test-rpm.sh [--check] [RPM]
#
# Checks the damon-tierd RPM: builds the source and binary RPMs from the
# working tree with build-rpm.sh (into a temp dir; --check runs the spec's
# %check too) or takes RPM.  Then checks
#  - the spec: Version is meson.build's, the changelog's top entry names
#    Version-Release, a BuildRequires for every dependency() of meson.build;
#  - the source RPM holds the spec and the tarball;
#  - the header: name, version, license (debian/copyright's), architecture,
#    the shared libraries required;
#  - the exact file list, owners and modes, the config as
#    %config(noreplace);
#  - the scriptlets: post, preun and postun name the unit (with Debian's
#    stand-in macros: systemd_post, systemd_preun,
#    systemd_postun_with_restart);
#  - the payload: the unit is the tree's and its Exec*= programs are
#    shipped, the binary's version and search path (/etc first), the
#    shipped binary validating the shipped config.
# On Debian the build runs with --nodeps and stand-in macros: see
# build-rpm.sh, and docs/testing.md for what this cannot prove.
# Prints one PASS/FAIL line per check and "N passed, M failed"; exits 1 if
# any check failed, 77 (skip) without RPM when rpmbuild is not installed.
# Nothing outside the temp dir is written.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=test-rpm
build_args=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--check) build_args=(--check); shift ;;
	-h | --help) help_text; exit 0 ;;
	-*) say "unknown argument $1"; exit 2 ;;
	*) break ;;
	esac
done
[[ $# -le 1 ]] || { echo "usage: test-rpm.sh [--check] [RPM]" >&2; exit 2; }

for tool in rpm rpm2cpio cpio; do
	skip_without "$tool" "apt-get install -y rpm cpio"
done
[[ $# -eq 1 ]] || skip_without rpmbuild "apt-get install -y rpm"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-test-rpm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
spec=$top/rpm/damon-tierd.spec

# --- the spec ------------------------------------------------------------------
want_version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$top/meson.build" | head -1)
spec_version=$(sed -n 's/^Version: *//p' "$spec")
spec_release=$(sed -n 's/^Release: *//p' "$spec" | sed 's/%{?dist}//')
check "spec Version $spec_version is meson.build's $want_version" test "$spec_version" = "$want_version"
top_entry=$(sed -n '/^%changelog/{n;p;q}' "$spec")
check "the changelog's top entry is $spec_version-$spec_release ($top_entry)" \
	test "${top_entry##* - }" = "$spec_version-$spec_release"
# Every library meson.build looks up with dependency() is a pkgconfig()
# BuildRequires; a library dropped from the build leaves the spec too.
deps=$(grep -o "dependency('[^']*'" "$top/meson.build" | sed "s/dependency('\(.*\)'/\1/" | sort -u)
brs=$(sed -n 's/^BuildRequires: *pkgconfig(\([^)]*\)).*/\1/p' "$spec" | sort -u)
check "a pkgconfig() BuildRequires for each dependency() of meson.build ($(paste -sd' ' <<<"$deps"))" \
	test "$deps" = "$brs"
check "the spec BuildRequires meson" grep -qE '^BuildRequires: *meson( |$)' "$spec"
check "the spec BuildRequires gcc" grep -qE '^BuildRequires: *gcc$' "$spec"

# --- build -----------------------------------------------------------------------
t0=$SECONDS
if [[ $# -eq 1 ]]; then
	rpmfile=$1
	[[ -r $rpmfile ]] || { bad "cannot read $rpmfile"; finish; exit 1; }
	srpm=
elif rpmfile=$("$here/build-rpm.sh" "${build_args[@]}" "$tmp/out"); then
	ok "build-rpm.sh built $(basename "$rpmfile") in $((SECONDS - t0))s"
	srpm=$(echo "$tmp"/out/damon-tierd-*.src.rpm)
else
	bad "build-rpm.sh failed (its log: above)"
	finish
	exit 1
fi

if [[ -n $srpm ]]; then
	check "the source RPM holds the spec and damon-tierd-$want_version.tar.gz" \
		test "$(rpm -qpl "$srpm" 2>/dev/null | sort | paste -sd' ')" = \
		"damon-tierd-$want_version.tar.gz damon-tierd.spec"
fi

# --- header ------------------------------------------------------------------------
q() { rpm -qp --qf "$1" "$rpmfile" 2>/dev/null; }
check "Name is damon-tierd" test "$(q '%{NAME}')" = damon-tierd
check "Version $(q '%{VERSION}') is meson.build's $want_version" test "$(q '%{VERSION}')" = "$want_version"
check "Release $(q '%{RELEASE}') starts with the spec's $spec_release" \
	test "$(q '%{RELEASE}' | cut -d. -f1)" = "$spec_release"
license=$(sed -n 's/^License: *//p' "$top/debian/copyright" | head -1)
check "License is debian/copyright's $license" test "$(q '%{LICENSE}')" = "$license"
check "Arch $(q '%{ARCH}') is this machine's $(uname -m)" test "$(q '%{ARCH}')" = "$(uname -m)"
requires=$(rpm -qp --requires "$rpmfile" 2>/dev/null)
for lib in libc.so.6 libsystemd.so.0 'libinih.so.[0-9]*'; do
	check "Requires $lib" grep -q "^$lib()" <<<"$requires"
done
check "Requires no libnuma" test -z "$(grep numa <<<"$requires")"

# --- file list ------------------------------------------------------------------------
# mode owner:group flags path, files and links only; the build-id links of
# the debug info (on Fedora in the -debuginfo package) left out.  The doc
# directory is damon-tierd (Fedora) or damon-tierd-VERSION (Debian's rpm), a
# man page may be compressed.
q '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEFLAGS:fflags} %{FILENAMES}\n]' |
	grep -v '^d' | grep -v ' /usr/lib/.build-id/' >"$tmp/files" || true
norm() { sed -e "s#/usr/share/doc/damon-tierd-$want_version/#/usr/share/doc/damon-tierd/#" -e 's/\.\(gz\|xz\|bz2\|zst\)$//'; }
# %{_sbindir} is /usr/bin where /usr/sbin is merged into it (Fedora 42).
sbindir=$(rpm --eval '%{_sbindir}')
expected=$(sort <<EOF
/etc/damon-tierd.conf
/usr/lib/systemd/system/damon-tierd.service
$sbindir/damon-tierd
/usr/share/doc/damon-tierd/README.md
/usr/share/man/man5/damon-tierd.conf.5
/usr/share/man/man8/damon-tierd.8
EOF
)
check_file_list "$expected" "$(awk '{ print $NF }' "$tmp/files" | norm | sort)"
check "every file is owned by root:root" test -z "$(awk '$2 != "root:root"' "$tmp/files")"
mode_of() { awk -v p="$1" '$NF == p { print $1 }' "$tmp/files"; }
flags_of() { awk -v p="$1" '$NF == p { print (NF == 4 ? $3 : "") }' "$tmp/files"; }
check "the binary is -rwxr-xr-x" test "$(mode_of "$sbindir/damon-tierd")" = -rwxr-xr-x
check "the config is -rw-r--r--" test "$(mode_of /etc/damon-tierd.conf)" = -rw-r--r--
check "the unit is -rw-r--r--" test "$(mode_of /usr/lib/systemd/system/damon-tierd.service)" = -rw-r--r--
check "/etc/damon-tierd.conf is %config(noreplace)" test "$(flags_of /etc/damon-tierd.conf)" = cn
check "nothing else is a config file" test "$(rpm -qp --configfiles "$rpmfile" 2>/dev/null)" = /etc/damon-tierd.conf

# --- scriptlets ------------------------------------------------------------------------
rpm -qp --scripts "$rpmfile" >"$tmp/scripts" 2>/dev/null
# scriptlet NAME: its body, up to the next scriptlet.
scriptlet() { awk -v n="$1" '/^[a-z]+ scriptlet/ { on = ($1 == n) ; next } on' "$tmp/scripts"; }
for s in postinstall preuninstall postuninstall; do
	check "the $s scriptlet names damon-tierd.service" grep -q 'damon-tierd\.service' <(scriptlet "$s")
done
if grep -q '^: systemd_' "$tmp/scripts"; then
	check "postinstall is systemd_post (the preset decides, nothing starts)" \
		grep -qx ': systemd_post damon-tierd.service' <(scriptlet postinstall)
	check "preuninstall is systemd_preun (stops on removal)" \
		grep -qx ': systemd_preun damon-tierd.service' <(scriptlet preuninstall)
	check "postuninstall is systemd_postun_with_restart (try-restart on upgrade)" \
		grep -qx ': systemd_postun_with_restart damon-tierd.service' <(scriptlet postuninstall)
fi
check "no scriptlet enables or starts the unit" \
	test -z "$(grep -E 'systemctl.* (enable|start)( |$)' "$tmp/scripts")"

# --- payload ---------------------------------------------------------------------------
ext=$tmp/ext
mkdir "$ext"
(cd "$ext" && rpm2cpio "$rpmfile" | cpio -idm --quiet)
unit=$ext/usr/lib/systemd/system/damon-tierd.service
check "the unit is the tree's systemd/damon-tierd.service, naming $sbindir" \
	cmp -s "$unit" <(sed "s#/usr/sbin/#$sbindir/#" "$top/systemd/damon-tierd.service")
check_payload "$ext" "$sbindir/damon-tierd" "$want_version"

echo "test-rpm: $((SECONDS - t0))s in all"
finish
