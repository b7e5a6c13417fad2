#!/bin/bash
# mkinitramfs.sh [OPTIONS] OUT.cpio.gz INIT_SCRIPT [FILES...]
#
# Builds a small initramfs for QEMU tests:
#   /bin/busybox (static, from busybox-static) and a symlink per applet,
#   /init            a busybox sh script that mounts proc, sysfs, devtmpfs,
#                    debugfs (/sys/kernel/debug) and tracefs
#                    (/sys/kernel/tracing), loads the requested kernel
#                    modules, runs /test/init-script (INIT_SCRIPT) with
#                    busybox sh, prints "DAMON_TIERD_VM_RESULT=<rc>" on the
#                    console and powers off (poweroff -f),
#   FILES            host files, each with the shared libraries and the ELF
#                    loader it needs (found with ldd),
#   /usr/local/lib/damon-tierd-tests/guest.sh
#                    tests/lib/guest.sh, the helpers every guest script
#                    sources (always there),
#   /bin/tlbtick     tests/vm/tlbtick.c, built here (static); /init starts it
#                    before the test so that accessed bits come back as on
#                    hardware (why: tlbtick.c). TLBTICK_US=N on the kernel
#                    command line sets its period, TLBTICK_US=0 leaves it off.
#
# FILES: "SRC" puts SRC at /bin/<basename>; "SRC:DEST" puts it at DEST (an
# absolute path in the initramfs). A directory SRC is copied recursively.
#
# Options:
#   --modules-dir DIR   a kernel modules directory (lib/modules/<kver>, as
#                       extracted by fetch-kernel.sh); needed for --module
#   --module NAME       load kernel module NAME (and the modules it depends
#                       on, read from its .modinfo) before the test;
#                       repeatable. Compressed modules are decompressed on
#                       the host. Built-in modules are skipped.
#
# The test script runs with cwd /, PATH=/bin:/sbin:/usr/bin:/usr/sbin, and
# with every "key=value" of the kernel command line that the kernel passes to
# init as environment (e.g. run-vm.sh --append "TIERD_DURATION=30").
# Its stdout/stderr go to the console (ttyS0 with run-vm.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=mkinitramfs
# Where every guest script finds the guest helper library.
guest_lib=/usr/local/lib/damon-tierd-tests/guest.sh

usage() {
	echo "usage: $0 [--modules-dir DIR] [--module NAME]... OUT.cpio.gz INIT_SCRIPT [FILES...]" >&2
	exit 2
}

modules_dir=""
modules=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--modules-dir)
		[[ $# -ge 2 ]] || usage
		modules_dir=$2
		shift 2
		;;
	--module)
		[[ $# -ge 2 ]] || usage
		modules+=("$2")
		shift 2
		;;
	--)
		shift
		break
		;;
	-*) usage ;;
	*) break ;;
	esac
done
[[ $# -ge 2 ]] || usage
out=$1
init_script=$2
shift 2

[[ -f $init_script ]] || die "no such init script: $init_script"
if ((${#modules[@]})); then
	[[ -n $modules_dir && -d $modules_dir/kernel ]] ||
		die "--module needs --modules-dir (a lib/modules/<kver> directory)"
	modules_dir=$(cd "$modules_dir" && pwd -P)
fi

busybox=""
for c in /bin/busybox /usr/bin/busybox; do
	if [[ -x $c ]]; then
		busybox=$c
		break
	fi
done
[[ -n $busybox ]] || die "busybox not found (install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static"
fi

outdir=$(dirname "$out")
mkdir -p "$outdir"
stage=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,run,etc,test,lib/modules}
ln -s bin "$root/sbin"
mkdir -p "$root/usr"
ln -s ../bin "$root/usr/bin"
ln -s ../bin "$root/usr/sbin"
chmod 1777 "$root/tmp"

install -m 0755 "$busybox" "$root/bin/busybox"
"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -Werror -static -o "$root/bin/tlbtick" "$here/tlbtick.c" ||
	die "cannot build $here/tlbtick.c"
while read -r applet; do
	[[ -n $applet && $applet != busybox ]] || continue
	ln -sf busybox "$root/bin/$applet"
done < <("$busybox" --list)

# Copy a library (or the loader) to the same path in the initramfs,
# dereferencing symlinks.
copy_lib() {
	local src=$1
	[[ -e $root$src ]] && return 0
	mkdir -p "$root$(dirname "$src")"
	cp -L "$src" "$root$src"
}

# Copy one host file with its shared libraries.
copy_elf_deps() {
	local f=$1 line lib
	# Not an ELF or static: ldd fails or prints "not a dynamic executable".
	ldd "$f" >/dev/null 2>&1 || return 0
	while read -r line; do
		lib=""
		case $line in
		*"=> not found"*) die "$f: missing library: $line" ;;
		*"=> /"*)
			lib=${line#*=> }
			lib=${lib%% (*}
			;;
		/*)
			lib=${line%% (*}
			;;
		esac
		[[ -n $lib ]] || continue
		copy_lib "$lib"
		# Keep the loader reachable under its canonical name too.
		if [[ $lib == */ld-linux*.so* ]]; then
			mkdir -p "$root/lib64"
			[[ -e $root/lib64/$(basename "$lib") ]] ||
				cp -L "$lib" "$root/lib64/$(basename "$lib")"
		fi
	done < <(ldd "$f")
}

for spec in "$@"; do
	src=${spec%%:*}
	if [[ $spec == *:* ]]; then
		dest=${spec#*:}
	else
		dest=/bin/$(basename "$src")
	fi
	[[ $dest == /* ]] || die "destination must be absolute: $spec"
	[[ -e $src ]] || die "no such file: $src"
	mkdir -p "$root$(dirname "$dest")"
	if [[ -d $src ]]; then
		rm -rf "${root:?}$dest"
		cp -rL "$src" "$root$dest"
		while IFS= read -r -d '' f; do
			copy_elf_deps "$f"
		done < <(find "$root$dest" -type f -perm -u+x -print0)
	else
		rm -f "${root:?}$dest"
		cp -L "$src" "$root$dest"
		copy_elf_deps "$src"
	fi
done

# Kernel modules, in dependency order (deps first). Debian's packages ship no
# modules.dep (depmod runs at install time), so the dependencies are read from
# each module's own .modinfo "depends=" entry; no kmod tools are needed.
: >"$root/etc/modules.order"
if ((${#modules[@]})); then
	kver=$(basename "$(readlink -f "$modules_dir")")
	kmroot="$root/lib/modules/$kver"
	mkdir -p "$kmroot"
	declare -A modpath=() seen=()
	while IFS= read -r -d '' f; do
		n=${f##*/}
		n=${n%.xz}
		n=${n%.zst}
		n=${n%.gz}
		n=${n%.ko}
		modpath[${n//-/_}]=$f
	done < <(find "$modules_dir/" \( -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz' \) -print0)
	is_builtin() {
		[[ -f $modules_dir/modules.builtin ]] || return 1
		sed -e 's|.*/||' -e 's|\.ko$||' -e 's|-|_|g' "$modules_dir/modules.builtin" | grep -qx "$1"
	}
	add_module() {
		local name=${1//-/_} src rel dst deps d
		[[ -n ${seen[$name]:-} ]] && return 0
		seen[$name]=1
		src=${modpath[$name]:-}
		if [[ -z $src ]]; then
			is_builtin "$name" && {
				echo "mkinitramfs: $name is built in, nothing to load" >&2
				return 0
			}
			die "module $name not found under $modules_dir"
		fi
		rel=${src#"$modules_dir"/}
		rel=${rel%.xz}
		rel=${rel%.zst}
		rel=${rel%.gz}
		dst="$kmroot/$rel"
		mkdir -p "$(dirname "$dst")"
		case $src in
		*.xz) xz -dc "$src" >"$dst" ;;
		*.zst) zstd -qdc "$src" >"$dst" ;;
		*.gz) gzip -dc "$src" >"$dst" ;;
		*) cp "$src" "$dst" ;;
		esac
		deps=$(tr '\0' '\n' <"$dst" | sed -n 's/^depends=//p' | head -n1)
		IFS=',' read -ra deps <<<"$deps"
		for d in "${deps[@]}"; do
			[[ -n $d ]] && add_module "$d"
		done
		echo "/lib/modules/$kver/$rel" >>"$root/etc/modules.order"
	}
	for m in "${modules[@]}"; do
		add_module "$m"
	done
fi

install -m 0755 "$init_script" "$root/test/init-script"
install -D -m 0644 "$here/../lib/guest.sh" "$root$guest_lib"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# Generated by tests/vm/mkinitramfs.sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -d /sys/kernel/tracing ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
fi
while read -r m; do
	[ -n "$m" ] || continue
	insmod "$m" || echo "init: insmod $m failed" >&2
done </etc/modules.order
cd /
# TCG keeps accessed bits clear on a vCPU no other process runs on: tlbtick.c.
if [ "${TLBTICK_US:-1000}" != 0 ]; then
	/bin/tlbtick --period-us "${TLBTICK_US:-1000}" &
fi
echo "DAMON_TIERD_VM_START kernel=$(uname -r) tlbtick=${TLBTICK_US:-1000}us"
sh /test/init-script </dev/null
rc=$?
sync
echo "DAMON_TIERD_VM_RESULT=$rc"
poweroff -f
# not reached unless poweroff failed
sleep 5
echo o >/proc/sysrq-trigger
EOF
chmod 0755 "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -n -6 >"$stage/out.cpio.gz"
mv -f "$stage/out.cpio.gz" "$out"
echo "$out"
