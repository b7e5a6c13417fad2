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
#                    loader it needs (found with ldd).
#
# FILES: "SRC" puts SRC at /bin/<basename>; "SRC:DEST" puts it at DEST (an
# absolute path in the initramfs). A directory SRC is copied recursively.
#
# Options:
#   --modules-dir DIR   a kernel modules directory (lib/modules/<kver>, as
#                       extracted by fetch-kernel.sh); needed for --module
#   --module NAME       load kernel module NAME (and its dependencies, from
#                       modules.dep) before the test; repeatable. Compressed
#                       modules are decompressed on the host.
#
# The test script runs with cwd /, PATH=/bin:/sbin:/usr/bin:/usr/sbin, and
# with every "key=value" of the kernel command line that the kernel passes to
# init as environment (e.g. run-vm.sh --append "TIERD_DURATION=30").
# Its stdout/stderr go to the console (ttyS0 with run-vm.sh).
set -euo pipefail

usage() {
	echo "usage: $0 [--modules-dir DIR] [--module NAME]... OUT.cpio.gz INIT_SCRIPT [FILES...]" >&2
	exit 2
}
die() {
	echo "mkinitramfs: error: $*" >&2
	exit 1
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
	[[ -n $modules_dir && -f $modules_dir/modules.dep ]] ||
		die "--module needs --modules-dir with a modules.dep"
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

# Kernel modules, in dependency order (deps first).
: >"$root/etc/modules.order"
if ((${#modules[@]})); then
	kver=$(basename "$(readlink -f "$modules_dir")")
	kmroot="$root/lib/modules/$kver"
	mkdir -p "$kmroot"
	declare -A seen=()
	# modules.dep lines: "kernel/x/y.ko.xz: kernel/a.ko.xz kernel/b.ko.xz"
	# (dependencies listed in load-reverse order: the last one first).
	dep_of() { awk -v m="$1" -F': ?' '$1 == m { print $2; exit }' "$modules_dir/modules.dep"; }
	path_of() {
		local name=${1//-/_} p
		p=$(awk -F: -v n="$name" '{
			f = $1; sub(/.*\//, "", f); sub(/\.ko(\.(xz|gz|zst))?$/, "", f); gsub(/-/, "_", f)
			if (f == n) { print $1; exit }
		}' "$modules_dir/modules.dep")
		echo "$p"
	}
	add_module() {
		local rel=$1 deps=() i
		[[ -n ${seen[$rel]:-} ]] && return 0
		seen[$rel]=1
		read -ra deps <<<"$(dep_of "$rel")"
		for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
			add_module "${deps[i]}"
		done
		local src="$modules_dir/$rel" base dst
		base=$(basename "$rel")
		mkdir -p "$kmroot/$(dirname "$rel")"
		case $base in
		*.ko.xz)
			dst="$kmroot/${rel%.xz}"
			xz -dc "$src" >"$dst"
			;;
		*.ko.zst)
			dst="$kmroot/${rel%.zst}"
			zstd -qdc "$src" >"$dst"
			;;
		*.ko.gz)
			dst="$kmroot/${rel%.gz}"
			gzip -dc "$src" >"$dst"
			;;
		*)
			dst="$kmroot/$rel"
			cp "$src" "$dst"
			;;
		esac
		echo "/lib/modules/$kver/${dst#"$kmroot"/}" >>"$root/etc/modules.order"
	}
	for m in "${modules[@]}"; do
		if grep -qE "(^|/)${m//-/[-_]}\.ko" "$modules_dir/modules.builtin" 2>/dev/null; then
			echo "mkinitramfs: $m is built in, nothing to load" >&2
			continue
		fi
		rel=$(path_of "$m")
		[[ -n $rel ]] || die "module $m not found in $modules_dir/modules.dep"
		add_module "$rel"
	done
fi

install -m 0755 "$init_script" "$root/test/init-script"

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
echo "DAMON_TIERD_VM_START kernel=$(uname -r)"
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
