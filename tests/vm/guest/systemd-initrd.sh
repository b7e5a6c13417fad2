#!/bin/sh
# PID 1 of the initramfs of the systemd VM test (tests/vm/systemd.sh), busybox
# sh.  The kernel runs it with "rdinit=/systemd-initrd" instead of the /init of
# mkinitramfs.sh: it must be PID 1 itself to hand PID 1 over to systemd.
#
# virtio_blk is a module in the Debian cloud kernels, so the root disk needs
# an initramfs: load the modules listed in /etc/modules.order (mkinitramfs.sh
# --module virtio_blk), mount root= (default /dev/vda, ext4, read-write) on
# /newroot and switch_root to its /sbin/init (systemd).  Any failure prints
# the result marker run-vm.sh looks for and powers off, so a broken image
# fails at once instead of timing out.
export PATH=/bin:/sbin
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh

die() {
	echo "systemd-initrd: error: $*"
	echo "DAMON_TIERD_VM_RESULT=1"
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev || die "cannot mount devtmpfs"

root=/dev/vda
init=/sbin/init
read -r cmdline </proc/cmdline
for w in $cmdline; do
	case $w in
	root=*) root=${w#root=} ;;
	init=*) init=${w#init=} ;;
	esac
done

while read -r m; do
	[ -n "$m" ] || continue
	insmod "$m" || die "insmod $m failed"
done </etc/modules.order

# The probe runs in insmod's context, but give the block layer a moment.
wait_until 5 test -b "$root" || die "no block device $root (attached with -drive if=virtio?)"

mkdir -p /newroot
mount -t ext4 -o rw "$root" /newroot || die "cannot mount $root on /newroot"
[ -x "/newroot$init" ] || [ -L "/newroot$init" ] || die "no $init in $root"

# systemd mounts its own /proc, /sys and /dev.
umount /proc /sys /dev 2>/dev/null
exec switch_root /newroot "$init"
