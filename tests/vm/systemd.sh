#!/bin/bash
# systemd.sh [--kernel GLOB] [--suite SUITE] [--timeout SEC] [--unit FILE]
#            [--notes DIR] [--log FILE] [--append WORDS]
#
# The real-systemd VM test: damon-tierd installed in a Debian guest the way a
# package installs it, and driven by systemctl and journalctl with systemd as
# PID 1 (tests/vm/guest/systemd-test.sh lists the checks).
#
#  1. fetch-kernel.sh GLOB (default 6.17) and mkrootfs.sh SUITE (default
#     trixie: a cached debootstrap minbase tree with systemd; the first run
#     needs root and the network, later runs neither).
#  2. A fresh ext4 image per run (mke2fs -d from the cached tree) with
#       /usr/sbin/damon-tierd                      $DAMON_TIERD
#       /usr/lib/systemd/system/damon-tierd.service systemd/damon-tierd.service
#                                                  (or --unit FILE)
#       /etc/damon-tierd.conf                      conf/damon-tierd.conf
#     not enabled; plus the test unit damon-tierd-vmtest.service and its
#     script (/usr/local/libexec/damon-tierd-vmtest), also not enabled.
#  3. An initramfs (mkinitramfs.sh --module virtio_blk, which the cloud
#     kernels build as a module) whose PID 1 is guest/systemd-initrd.sh
#     (rdinit=): it loads virtio_blk, mounts /dev/vda read-write and
#     switch_roots to systemd.  The kernel command line pulls the test unit
#     in with systemd.wants= and masks the serial getty; the test unit prints
#     to the console and powers off.
#  4. run-vm.sh boots the two-node guest with the image as a virtio-blk disk;
#     the exit status is the guest's number of failed checks (124 timeout,
#     125 no result marker).
#
# --unit FILE installs FILE instead of systemd/damon-tierd.service (to try a
# changed unit); --notes DIR writes each @@BEGIN x/@@END x section of the
# guest output (systemctl status, journal, ...) to DIR/x.txt.
# Env: DAMON_TIERD  the binary (default build/damon-tierd).
# The image is built under fakeroot when not run as root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
glob=6.17
suite=trixie
timeout_s=600
unit=$top/systemd/damon-tierd.service
notes=""
log=""
extra_append=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--suite) suite=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--unit) unit=${2:?}; shift 2 ;;
	--notes) notes=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "systemd-vm: unknown argument $1" >&2; exit 2 ;;
	esac
done

say() { echo "systemd-vm: $*" >&2; }
die() {
	say "error: $*"
	exit 2
}

daemon=${DAMON_TIERD:-$top/build/damon-tierd}
conf=$top/conf/damon-tierd.conf
[[ -x $daemon ]] || die "no damon-tierd binary at $daemon (build first, or set DAMON_TIERD)"
[[ -r $unit ]] || die "cannot read unit file $unit"
[[ -r $conf ]] || die "cannot read $conf"
command -v mke2fs >/dev/null || die "mke2fs not found (install e2fsprogs)"
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

# The binary's libraries must be in the guest (damon-tierd links libsystemd
# and libinih); checked here so a missing one is a clear error, not a boot
# that fails later.
if command -v readelf >/dev/null; then
	tar -tf "$tarball" >"$work/rootfs.list"
	while read -r lib; do
		[[ -n $lib ]] || continue
		if ! grep -qE "/(usr/)?lib(64)?/(x86_64-linux-gnu/)?$lib\$" "$work/rootfs.list"; then
			die "$daemon needs $lib, which is not in $tarball (add its package with mkrootfs.sh --include)"
		fi
	done < <(readelf -d "$daemon" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
fi

# The image, built in one (fake)root session so owners and modes survive.
img=$work/root.img
# shellcheck disable=SC2016  # expanded by the inner bash
"${wrap[@]}" bash -euo pipefail -c '
	stage=$1 tarball=$2 img=$3 daemon=$4 unit=$5 conf=$6 guest=$7
	mkdir "$stage"
	tar --numeric-owner -xpf "$tarball" -C "$stage"
	# The way a package installs it; nothing is enabled.
	install -D -m 0755 "$daemon" "$stage/usr/sbin/damon-tierd"
	install -D -m 0644 "$unit" "$stage/usr/lib/systemd/system/damon-tierd.service"
	install -D -m 0644 "$conf" "$stage/etc/damon-tierd.conf"
	# The test unit, pulled in by systemd.wants= on the kernel command line.
	install -D -m 0644 "$guest/systemd-vmtest.service" \
		"$stage/usr/lib/systemd/system/damon-tierd-vmtest.service"
	install -D -m 0755 "$guest/systemd-test.sh" "$stage/usr/local/libexec/damon-tierd-vmtest"
	# A machine id, so that the boot is not a first boot (no firstboot prompt).
	od -An -tx1 -N16 /dev/urandom | tr -d " \n" >"$stage/etc/machine-id"
	echo >>"$stage/etc/machine-id"
	truncate -s 1G "$img"
	mke2fs -q -F -t ext4 -L damon-tierd-root -d "$stage" "$img"
' image "$work/root" "$tarball" "$img" "$daemon" "$unit" "$conf" "$here/guest"
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
	mkdir -p "$notes"
	tr -d '\r' <"$work/console.log" | awk -v dir="$notes" '
		/@@BEGIN / { sub(/.*@@BEGIN /, ""); name = $1; file = dir "/" name ".txt"; printf "" > file; next }
		/@@END / { close(file); name = ""; next }
		name != "" { print > file }
	'
	say "sections written to $notes"
fi
exit "$rc"
