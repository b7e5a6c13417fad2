#!/bin/bash
# systemd.sh [--kernel GLOB] [--suite SUITE] [--timeout SEC] [--deb FILE]
#            [--unit FILE] [--notes DIR] [--log FILE] [--append WORDS]
#
# The real-systemd VM test: the damon-tierd Debian package installed in a
# Debian guest, and driven by systemctl, journalctl and dpkg with systemd as
# PID 1 (tests/vm/guest/systemd-test.sh lists the checks).
#
#  1. fetch-kernel.sh GLOB (default 6.17) and mkrootfs.sh SUITE (default
#     trixie: a cached debootstrap minbase tree with systemd; the first run
#     needs root and the network, later runs neither).
#  2. The .deb: --deb FILE, or else built from the working tree as it is now
#     by tests/pkg/build-deb.sh --nocheck (about 30 to 50 s; needs dpkg-dev,
#     debhelper and the Build-Depends).
#  3. A fresh ext4 image per run (mke2fs -d from the cached tree) with the
#     package installed by "dpkg --root --force-script-chrootless -i" (its
#     maintainer scripts run on this host with DPKG_ROOT set, and enable
#     nothing; dpkg checks its Depends against the tree), plus the test unit
#     damon-tierd-vmtest.service and its script
#     (/usr/local/libexec/damon-tierd-vmtest), not enabled either, and the
#     guest helper library (/usr/local/lib/damon-tierd-tests/guest.sh).
#  4. An initramfs (mkinitramfs.sh --module virtio_blk, which the cloud
#     kernels build as a module) whose PID 1 is guest/systemd-initrd.sh
#     (rdinit=): it loads virtio_blk, mounts /dev/vda read-write and
#     switch_roots to systemd.  The kernel command line pulls the test unit
#     in with systemd.wants= and masks the serial getty; the test unit prints
#     to the console and powers off.
#  5. run-vm.sh boots the two-node guest with the image as a virtio-blk disk;
#     the exit status is the guest's number of failed checks (124 timeout,
#     125 no result marker).
#
# --unit FILE replaces the package's /usr/lib/systemd/system/damon-tierd.service
# with FILE after the install (to try a changed unit without a rebuild);
# --notes DIR writes each @@BEGIN x/@@END x section of the guest output
# (systemctl status, journal, the operator transcript systemd-operator, ...)
# to DIR/x.txt.
# The image is built under fakeroot when not run as root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=systemd-vm
DIE_STATUS=2
glob=6.17
suite=trixie
timeout_s=600
unit=""
deb=""
notes=""
log=""
extra_append=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--suite) suite=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--unit) unit=${2:?}; shift 2 ;;
	--deb) deb=${2:?}; shift 2 ;;
	--notes) notes=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	-h | --help) help_text; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done

[[ -z $unit || -r $unit ]] || die "cannot read unit file $unit"
[[ -z $deb || -r $deb ]] || die "cannot read $deb"
command -v mke2fs >/dev/null || die "mke2fs not found (install e2fsprogs)"
command -v dpkg >/dev/null || die "dpkg not found: it installs the package into the image"
wrap=()
if [[ $(id -u) != 0 ]]; then
	command -v fakeroot >/dev/null || die "not root and no fakeroot: cannot build the image with root-owned files"
	wrap=(fakeroot --)
fi

t_start=$SECONDS
vmlinuz=$("$here/fetch-kernel.sh" "$glob")
# The cache entry of the kernel: the directory above vmlinuz with a "modules" link.
kdir=$(dirname "$vmlinuz")
while [[ $kdir != / && ! ( -e $kdir/modules && -f $kdir/kver ) ]]; do
	kdir=$(dirname "$kdir")
done
[[ -d $kdir/modules/kernel ]] || die "no modules directory next to $vmlinuz"
say "kernel $(cat "$kdir/kver") ($vmlinuz)"
tarball=$("$here/mkrootfs.sh" --suite "$suite")
say "rootfs $tarball"

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-systemd.XXXXXX")
trap 'rm -rf "$work"' EXIT
# dpkg --force-script-chrootless cannot run the maintainer scripts of a
# relative --root.
work=$(cd "$work" && pwd)

if [[ -z $deb ]]; then
	t_deb=$SECONDS
	deb=$("$top/tests/pkg/build-deb.sh" --nocheck "$work/deb") ||
		die "tests/pkg/build-deb.sh failed (its log is above); or pass --deb FILE"
	say "built $(basename "$deb") from the working tree in $((SECONDS - t_deb)) s"
fi
[[ $(dpkg-deb -f "$deb" Package 2>/dev/null) == damon-tierd ]] || die "$deb is not a damon-tierd .deb"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
say "package $deb ($(dpkg-deb -f "$deb" Version))"

# The image, built in one (fake)root session so owners and modes survive.
img=$work/root.img
# shellcheck disable=SC2016  # expanded by the inner bash
"${wrap[@]}" bash -euo pipefail -c '
	stage=$1 tarball=$2 img=$3 deb=$4 unit=$5 guest=$6 dpkglog=$7 guestlib=$8
	mkdir "$stage"
	tar --numeric-owner -xpf "$tarball" -C "$stage"
	# dpkg wants ldconfig and start-stop-daemon on PATH.
	PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
	# The package as apt would install it: dpkg checks the Depends against
	# the trees database, the maintainer scripts run here with DPKG_ROOT set
	# (deb-systemd-helper honours it; nothing is enabled or started).
	if ! dpkg --root="$stage" --force-script-chrootless --log=/dev/null -i "$deb" >"$dpkglog" 2>&1; then
		cat "$dpkglog" >&2
		echo "systemd-vm: error: dpkg -i $deb into the tree failed (a Depends missing" \
			"from the tree: add its package with mkrootfs.sh --include)" >&2
		exit 1
	fi
	status=$(dpkg-query --admindir="$stage/var/lib/dpkg" -W -f="\${Status}" damon-tierd)
	if [[ $status != "install ok installed" ]]; then
		cat "$dpkglog" >&2
		echo "systemd-vm: error: damon-tierd is \"$status\" in the tree after dpkg -i" >&2
		exit 1
	fi
	if [[ -n $unit ]]; then
		install -m 0644 "$unit" "$stage/usr/lib/systemd/system/damon-tierd.service"
		# For the guest: dpkg -V will flag the unit file.
		install -D -m 0644 /dev/null "$stage/usr/local/share/damon-tierd-vmtest/unit-replaced"
	fi
	# The test unit, pulled in by systemd.wants= on the kernel command line.
	install -D -m 0644 "$guest/systemd-vmtest.service" \
		"$stage/usr/lib/systemd/system/damon-tierd-vmtest.service"
	install -D -m 0755 "$guest/systemd-test.sh" "$stage/usr/local/libexec/damon-tierd-vmtest"
	# The helpers it sources, where every guest has them (as in mkinitramfs.sh).
	install -D -m 0644 "$guestlib" "$stage/usr/local/lib/damon-tierd-tests/guest.sh"
	# A machine id, so that the boot is not a first boot (no firstboot prompt).
	od -An -tx1 -N16 /dev/urandom | tr -d " \n" >"$stage/etc/machine-id"
	echo >>"$stage/etc/machine-id"
	truncate -s 1G "$img"
	mke2fs -q -F -t ext4 -L damon-tierd-root -d "$stage" "$img"
' image "$work/root" "$tarball" "$img" "$deb" "$unit" "$here/guest" "$work/dpkg.log" \
	"$here/../lib/guest.sh"
rm -rf "$work/root"

# PID 1 of the initramfs must be executable whatever mode the checkout has.
install -m 0755 "$here/guest/systemd-initrd.sh" "$work/systemd-initrd"
"$here/mkinitramfs.sh" --modules-dir "$kdir/modules" --module virtio_blk \
	"$work/initrd.cpio.gz" "$work/systemd-initrd" "$work/systemd-initrd:/systemd-initrd" >/dev/null
say "image and initramfs ready after $((SECONDS - t_start)) s"

append="rdinit=/systemd-initrd root=/dev/vda"
append+=" systemd.wants=damon-tierd-vmtest.service systemd.mask=serial-getty@ttyS0.service"
append+=" systemd.firstboot=off$extra_append"
rc=0
t_boot=$SECONDS
# shellcheck disable=SC2054  # commas belong to QEMU option values
"$here/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
	--timeout "$timeout_s" --append "$append" --log "$work/console.log" \
	--qemu-arg -drive --qemu-arg "file=$img,format=raw,if=virtio,cache=unsafe" || rc=$?
say "guest ran $((SECONDS - t_boot)) s (total $((SECONDS - t_start)) s), rc $rc"

if [[ -n $log && -f $work/console.log ]]; then
	mkdir -p "$(dirname "$log")"
	cp "$work/console.log" "$log"
fi
if [[ -n $notes && -s $work/console.log ]]; then
	split_sections "$work/console.log" "$notes"
	say "sections written to $notes"
fi
exit "$rc"
