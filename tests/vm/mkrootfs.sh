#!/bin/bash
# mkrootfs.sh [--refresh] [--suite SUITE] [--include PKG,...] [CACHE_DIR]
#
# Builds (once) a minimal Debian root file system with systemd as PID 1 for
# the systemd VM test, and prints the path of the cached tarball:
#   CACHE_DIR/rootfs-<suite>.tar           the tree (numeric owners)
#   CACHE_DIR/rootfs-<suite>.tar.packages  layout version and package list
#   CACHE_DIR/debs-<suite>/                debootstrap's .deb cache
# CACHE_DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/damon-tierd.
#
# The tree is `debootstrap --variant=minbase` plus systemd, systemd-sysv,
# udev, kmod, procps and libinih1 (damon-tierd links libinih and libsystemd;
# libsystemd0 comes with systemd).  A cached tarball built with the same
# package list is reused without network access; --refresh (or
# MKROOTFS_REFRESH=1) builds it again.  --include adds packages.
#
# The image is generic: nothing of damon-tierd is in it and no unit is
# enabled or masked.  /etc/machine-id is left empty: whoever makes a bootable
# disk from the tree must write one (systemd would otherwise treat the boot
# as a first boot and systemd-firstboot would prompt on the console).
#
# The Debian mirror is read at run time from this machine's apt sources
# (deb822 *.sources or one-line *.list, first "deb" entry for bookworm or
# trixie); the archive is verified with
# /usr/share/keyrings/debian-archive-keyring.gpg.
#
# Needs root (debootstrap chroots and mounts /proc in the target) and the
# host packages debootstrap and debian-archive-keyring.
set -euo pipefail

# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
PROG=mkrootfs

usage() {
	help_text >&2
	exit 2
}

refresh=${MKROOTFS_REFRESH:-0}
suite=trixie
extra=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--refresh) refresh=1; shift ;;
	--suite) suite=${2:?}; shift 2 ;;
	--include) extra+=",${2:?}"; shift 2 ;;
	-h | --help) usage ;;
	-*) say "unknown argument: $1"; usage ;;
	*) break ;;
	esac
done
[[ $# -le 1 ]] || usage
[[ $suite =~ ^[a-z]+$ ]] || die "bad suite '$suite'"
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/damon-tierd}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

packages="systemd,systemd-sysv,udev,kmod,procps,libinih1$extra"
tarball="$cache/rootfs-$suite.tar"
# Bump when the post-debootstrap tweaks change; older tarballs are rebuilt.
stamp="layout-2 $packages"

exec 9>"$cache/.rootfs-$suite.lock"
flock 9

if [[ $refresh != 1 && -s $tarball && $(cat "$tarball.packages" 2>/dev/null) == "$stamp" ]]; then
	echo "$tarball"
	exit 0
fi

[[ $(id -u) == 0 ]] || die "debootstrap needs root; run as root (or warm the cache $tarball as root once)"
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || die "missing $keyring (package debian-archive-keyring)"

mirror=""
for s in "$suite" trixie bookworm; do
	mirror=$(mirror_for_suite "$s" | head -n1)
	[[ -n $mirror ]] && break
done
[[ -n $mirror ]] || die "no Debian apt source found in /etc/apt (looked for suites $suite, trixie, bookworm)"
mirror=${mirror%/}

tmp=$(mktemp -d "$cache/.rootfs-$suite.XXXXXX")
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	# debootstrap mounts /proc and /sys in the target; never rm through them.
	local m
	for m in proc sys dev/pts dev; do
		mountpoint -q "$tmp/root/$m" 2>/dev/null && umount -l "$tmp/root/$m"
	done
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/root" "$cache/debs-$suite"

say "debootstrap $suite from $mirror (packages: $packages)"
if ! debootstrap --variant=minbase --include="$packages" --keyring="$keyring" \
	--cache-dir="$cache/debs-$suite" "$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
	tail -n 30 "$tmp/debootstrap.log" >&2
	[[ -f $tmp/root/debootstrap/debootstrap.log ]] && tail -n 30 "$tmp/root/debootstrap/debootstrap.log" >&2
	die "debootstrap failed (log above)"
fi

root=$tmp/root
echo damon-tierd-vm >"$root/etc/hostname"
printf '# root is mounted read-write by the initramfs (tests/vm/guest/systemd-initrd.sh)\n' >"$root/etc/fstab"
: >"$root/etc/machine-id"
# Smaller, and no stale package lists in the guest.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/*.log
rm -f "$root"/var/cache/apt/*.bin
# Mark /etc and /var as up to date with /usr (what systemd-update-done does
# on the first boot), so every boot of a fresh image skips ldconfig.service
# and the journal catalog rebuild (ConditionNeedsUpdate=).
touch -r "$root/usr" "$root/etc/.updated" "$root/var/.updated"

tar --numeric-owner -C "$root" -cf "$tmp/rootfs.tar" .
mv -f "$tmp/rootfs.tar" "$tarball"
echo "$stamp" >"$tarball.packages"
say "cached $(du -h "$tarball" | cut -f1) in $tarball"
echo "$tarball"
