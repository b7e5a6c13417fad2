#!/bin/bash
# test-deb.sh [--check] [DEB]
#
# Checks the damon-tierd .deb: builds it from the working tree with
# build-deb.sh (into a temp dir; --check runs the package build's unit and
# CLI tests too, which the default build skips since the unit and cli suites
# run on their own) or takes DEB.  Then checks
#  - the control fields, the version against meson.build, the conffiles;
#  - the exact file list, owners and modes, the unit's ExecStart= naming the
#    shipped binary, the shipped binary validating the shipped config;
#  - the maintainer scripts, run with stub deb-systemd-helper,
#    deb-systemd-invoke and systemctl (which only log) and /run pointed into
#    a temp dir: installing neither enables nor starts the unit, an upgrade
#    restarts it only where it runs, removal stops it, purge cleans up;
#  - a real dpkg install, remove and purge into a scratch root
#    (dpkg --root, the same stubs): the conffile survives remove, not purge;
#  - lintian: no error or warning (skipped when lintian is not installed).
# Prints one PASS/FAIL line per check and "N passed, M failed"; exits 1 if
# any check failed, 77 (skip) without DEB when dpkg-dev or debhelper is not
# installed.  Nothing outside the temp dir is written.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=test-deb
build_args=(--nocheck)
while [[ $# -gt 0 ]]; do
	case $1 in
	--check) build_args=(); shift ;;
	-h | --help) help_text; exit 0 ;;
	-*) say "unknown argument $1"; exit 2 ;;
	*) break ;;
	esac
done
[[ $# -le 1 ]] || { echo "usage: test-deb.sh [--check] [DEB]" >&2; exit 2; }

if [[ $# -eq 0 ]]; then
	for tool in dpkg-buildpackage dh; do
		skip_without "$tool" "apt-get install -y dpkg-dev debhelper fakeroot lintian"
	done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-test-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

t0=$SECONDS
if [[ $# -eq 1 ]]; then
	deb=$1
	[[ -r $deb ]] || { bad "cannot read $deb"; finish; exit 1; }
elif deb=$("$here/build-deb.sh" "${build_args[@]}" "$tmp/out"); then
	ok "build-deb.sh built $(basename "$deb") in $((SECONDS - t0))s"
else
	bad "build-deb.sh failed (its log: above)"
	finish
	exit 1
fi

# --- control fields, version, conffiles ------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
want_version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$top/meson.build" | head -1)
check "Package is damon-tierd" test "$(field Package)" = damon-tierd
check "Section is admin" test "$(field Section)" = admin
check "Version $(field Version) is meson.build's $want_version" test "$(field Version)" = "$want_version"
check "Architecture $(field Architecture) is a real one" test "$(field Architecture)" != all
depends=$(field Depends)
for lib in libc6 libsystemd0 libinih1; do
	check "Depends names $lib ($depends)" grep -qE "(^|, )$lib( |,|$)" <<<"$depends"
done
dpkg-deb -e "$deb" "$tmp/ctl"
check "conffiles is exactly /etc/damon-tierd.conf" \
	test "$(cat "$tmp/ctl/conffiles" 2>/dev/null)" = /etc/damon-tierd.conf

# --- file list ---------------------------------------------------------------
expected="./etc/damon-tierd.conf
./usr/lib/systemd/system/damon-tierd.service
./usr/sbin/damon-tierd
./usr/share/doc/damon-tierd/changelog.gz
./usr/share/doc/damon-tierd/copyright
./usr/share/lintian/overrides/damon-tierd
./usr/share/man/man5/damon-tierd.conf.5.gz
./usr/share/man/man8/damon-tierd.8.gz"
dpkg-deb -c "$deb" >"$tmp/contents"
# Files and links (not directories): mode owner size date time path.
check_file_list "$expected" "$(awk '$1 !~ /^d/ { print $6 }' "$tmp/contents" | sort)"
check "every entry is owned by root/root" \
	test -z "$(awk '$2 != "root/root"' "$tmp/contents")"
mode_of() { awk -v p="$1" '$6 == p { print $1 }' "$tmp/contents"; }
check "the binary is -rwxr-xr-x" test "$(mode_of ./usr/sbin/damon-tierd)" = -rwxr-xr-x
check "the config is -rw-r--r--" test "$(mode_of ./etc/damon-tierd.conf)" = -rw-r--r--
check "the unit is -rw-r--r--" \
	test "$(mode_of ./usr/lib/systemd/system/damon-tierd.service)" = -rw-r--r--

# --- shipped files -----------------------------------------------------------
ext=$tmp/ext
dpkg-deb -x "$deb" "$ext"
unit=$ext/usr/lib/systemd/system/damon-tierd.service
check "the unit's ExecStart= is /usr/sbin/damon-tierd --foreground" \
	grep -qx 'ExecStart=/usr/sbin/damon-tierd --foreground' "$unit"
check "the unit has an [Install] section (for systemctl enable)" grep -qx 'WantedBy=multi-user.target' "$unit"
check_payload "$ext" /usr/sbin/damon-tierd "$want_version"

# --- maintainer scripts, with stubs ----------------------------------------
stubs=$tmp/stubs
fake=$tmp/fake
calls=$tmp/calls
mkdir -p "$stubs" "$tmp/scripts"
# The stubs log their arguments.  deb-systemd-helper answers
# "debian-installed" and "was-enabled" from STUB_INSTALLED/STUB_ENABLED
# (0 yes, 1 no), as the real one would from its state files.
for cmd in deb-systemd-helper deb-systemd-invoke systemctl; do
	cat >"$stubs/$cmd" <<EOF
#!/bin/sh
echo "$cmd \$*" >>"$calls"
for a in "\$@"; do
	case \$a in
	debian-installed) exit \${STUB_INSTALLED:-1} ;;
	was-enabled) exit \${STUB_ENABLED:-1} ;;
	esac
done
exit 0
EOF
	chmod +x "$stubs/$cmd"
done

# These scripts run on this machine.  writes_outside FILE PREFIX prints the
# lines of FILE that would write (rm, mv, cp, ln, mkdir, touch, chmod, chown,
# tee, a redirection) to an absolute path not under PREFIX (an ERE); a script
# with one is not run.
writes_outside() {
	grep -nE '(\b(rm|mv|cp|ln|mkdir|touch|chmod|chown|tee)\b|>)' "$1" |
		sed -E -e "s#$2[^ \"']*##g" -e 's#/dev/null##g' | grep -E '[ "'\''>=]/[A-Za-z]'
}
scripts_safe=true
for s in preinst postinst prerm postrm; do
	[[ -e $tmp/ctl/$s ]] || continue
	check "$s is valid sh" sh -n "$tmp/ctl/$s"
	sed -e "s#/run/#$fake/run/#g" -e "s#/usr/bin/deb-systemd-helper#$stubs/deb-systemd-helper#g" \
		"$tmp/ctl/$s" >"$tmp/scripts/$s"
	# The dpkg --root cycle below runs the scripts as shipped, with
	# DPKG_ROOT set: there, only paths under $DPKG_ROOT are safe.
	if writes_outside "$tmp/scripts/$s" "$fake/" >"$tmp/unsafe" ||
		writes_outside "$tmp/ctl/$s" '\$\{?DPKG_ROOT(:-)?\}?/' >"$tmp/unsafe"; then
		bad "$s writes outside the test harness, not run: $(paste -sd';' "$tmp/unsafe")"
		: >"$tmp/scripts/$s"
		scripts_safe=false
	fi
done
check "postinst and prerm exist" test -s "$tmp/scripts/postinst" -a -s "$tmp/scripts/prerm"

# run SCRIPT ARGS...: runs a maintainer script with the stubs first in PATH;
# fresh calls log; stderr in $tmp/stderr.  Env settings go before "run".
run() {
	local s=$1
	shift
	: >"$calls"
	if [[ ! -e $tmp/scripts/$s ]]; then return 0; fi
	env PATH="$stubs:/usr/sbin:/usr/bin:/sbin:/bin" sh -e "$tmp/scripts/$s" "$@" 2>"$tmp/stderr"
}
called() { grep -qx "$1" "$calls"; }
not_called() { ! grep -qE "$1" "$calls"; }

systemd_up() { mkdir -p "$fake/run/systemd/system"; }
systemd_down() { rm -rf "$fake/run/systemd"; }
svc_re="'?damon-tierd.service'?"

systemd_up
check "fresh install: postinst configure succeeds" run postinst configure
check "fresh install: nothing enables the unit" not_called "(^| )enable( |$)"
check "fresh install: nothing starts the unit" not_called "^deb-systemd-invoke|^systemctl .*(start|restart)"
check "fresh install: the unit's state is recorded (for purge)" \
	grep -qE "^deb-systemd-helper update-state $svc_re$" "$calls"

STUB_INSTALLED=0 STUB_ENABLED=0 check "upgrade, enabled: postinst configure 0.0.9 succeeds" \
	run postinst configure 0.0.9
check "upgrade, enabled: try-restart (restarts only a running service)" \
	grep -qE "^deb-systemd-invoke try-restart $svc_re$" "$calls"
check "upgrade, enabled: no plain start or restart" not_called "^deb-systemd-invoke (start|restart) "
check "upgrade, enabled: the operator's enablement is kept" \
	grep -qE "^deb-systemd-helper enable $svc_re$" "$calls"

STUB_INSTALLED=0 STUB_ENABLED=1 run postinst configure 0.0.9 || true
check "upgrade, disabled: stays disabled" not_called "^deb-systemd-helper enable "
check "upgrade, disabled: at most try-restart" not_called "^deb-systemd-invoke (start|restart) "

systemd_down
check "without systemd: postinst configure succeeds" run postinst configure 0.0.9
check "without systemd: no systemctl, no deb-systemd-invoke" not_called "^(systemctl|deb-systemd-invoke) "
systemd_up

check "preinst upgrade (if any) succeeds" run preinst upgrade 0.0.9
check "preinst upgrade stops nothing" not_called "^deb-systemd-invoke "

check "remove: prerm remove succeeds" run prerm remove
check "remove: prerm stops the service" grep -qE "^deb-systemd-invoke stop $svc_re$" "$calls"
check "remove, clean daemon: prerm prints nothing" test ! -s "$tmp/stderr"
mkdir -p "$fake/run/damon-tierd"
printf 'first=0\ncount=2\n' >"$fake/run/damon-tierd/owner"
run prerm remove || true
check "remove, ownership record left: prerm warns" grep -q "warning: .*/run/damon-tierd/owner remains" "$tmp/stderr"
check "upgrade: prerm upgrade succeeds" run prerm upgrade 0.1.1
check "upgrade: prerm stops nothing (postinst try-restarts)" not_called "^deb-systemd-invoke "
DPKG_ROOT=$tmp/dpkgroot check "DPKG_ROOT: prerm remove succeeds" run prerm remove
check "DPKG_ROOT: prerm touches no running system" not_called "^(systemctl|deb-systemd-invoke) "

check "remove: postrm remove succeeds" run postrm remove
check "remove: postrm reloads systemd" called "systemctl --system daemon-reload"
check "remove: the state directory stays" test -e "$fake/run/damon-tierd/owner"
check "purge: postrm purge succeeds" run postrm purge
check "purge: the state directory is gone" test ! -e "$fake/run/damon-tierd"
check "purge: deb-systemd-helper purge" grep -qE "^deb-systemd-helper purge $svc_re$" "$calls"

# --- a real dpkg cycle in a scratch root -------------------------------------
# --force-script-chrootless: the root has no /bin/sh; the scripts run here
# with DPKG_ROOT set, the stubs first in PATH.  --force-depends: the root has
# no libc6 and friends.
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: >"$root/var/lib/dpkg/status"
wrap=()
[[ $(id -u) -eq 0 ]] || wrap=(fakeroot --)
dpkg_root() {
	env PATH="$stubs:/usr/sbin:/usr/bin:/sbin:/bin" "${wrap[@]}" dpkg --root="$root" \
		--log="$tmp/dpkg.log" --force-script-chrootless --force-depends --force-not-root "$@" \
		>>"$tmp/dpkg.out" 2>&1
}
if ! $scripts_safe; then
	bad "dpkg --root cycle not run: a maintainer script writes outside the root"
elif [[ $(id -u) -ne 0 ]] && ! command -v fakeroot >/dev/null; then
	echo "SKIP: dpkg --root cycle (not root and no fakeroot)"
else
	: >"$calls"
	if dpkg_root -i "$deb"; then
		ok "dpkg -i into a scratch root"
	else
		bad "dpkg -i into a scratch root: $(tail -5 "$tmp/dpkg.out")"
	fi
	check "installed: /etc/damon-tierd.conf and /usr/sbin/damon-tierd" \
		test -f "$root/etc/damon-tierd.conf" -a -x "$root/usr/sbin/damon-tierd"
	check "installed: no enablement link" \
		test -z "$(find "$root/etc" -path '*systemd*' -name damon-tierd.service 2>/dev/null)"
	check "installed: nothing started or enabled" not_called "^deb-systemd-invoke |(^| )enable( |$)"
	check "dpkg -r" dpkg_root -r damon-tierd
	check "removed: the binary is gone" test ! -e "$root/usr/sbin/damon-tierd"
	check "removed: the conffile stays" test -f "$root/etc/damon-tierd.conf"
	check "dpkg --purge" dpkg_root --purge damon-tierd
	check "purged: the conffile is gone" test ! -e "$root/etc/damon-tierd.conf"
	check "purged: dpkg knows no damon-tierd" \
		test -z "$(dpkg --root="$root" -l damon-tierd 2>/dev/null | grep '^[a-z][a-z] ')"
fi

# --- lintian -------------------------------------------------------------------
if command -v lintian >/dev/null; then
	lintian_wrap=()
	# lintian refuses nothing as root but says so; as nobody, where possible.
	if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
		chmod -R a+rX "$tmp"
		lintian_wrap=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp")
	fi
	if [[ $deb != "$tmp"/* ]]; then
		cp "$deb" "$tmp/lint.deb"
		chmod a+r "$tmp/lint.deb"
		lint=$tmp/lint.deb
	else
		lint=$deb
	fi
	if "${lintian_wrap[@]}" lintian --fail-on error,warning "$lint" >"$tmp/lintian.out" 2>&1; then
		ok "lintian: no error or warning"
	else
		bad "lintian: $(grep -E '^[EW]:' "$tmp/lintian.out" | paste -sd';' - || cat "$tmp/lintian.out")"
	fi
else
	echo "SKIP: lintian is not installed"
fi

echo "test-deb: $((SECONDS - t0))s in all"
finish
