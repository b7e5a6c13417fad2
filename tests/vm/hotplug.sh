#!/bin/bash
# hotplug.sh [--kernel GLOB] [--timeout SEC] [--guest SCRIPT] [--append WORDS]
#            [--config FILE] [--maxmem SIZE] [--slots N]
#
# The real-kernel memory hotplug test: boots the two-node TCG guest with room
# for DIMMs (run-vm.sh --maxmem/--slots) and a QEMU monitor socket, runs
# damon-tierd and a guest script (default guest/hotplug-guest.sh), and plugs
# memory when the guest asks for it.  The guest asks on its console:
#   HOTPLUG_REQUEST id=ID size=SIZE node=N   object_add memory-backend-ram,
#                                            id=mem-ID,size=SIZE; device_add
#                                            pc-dimm,id=ID,memdev=mem-ID,node=N
#   HOTUNPLUG_REQUEST id=ID                  device_del ID (the guest offlines
#                                            the blocks first)
# Each request is served once; the monitor's answer is copied to our output as
# "hotplug: ..." lines.  The guest then waits for the new memory blocks itself.
# The kernel boots with memhp_default_state=offline so that the guest decides
# how new blocks are onlined (online_movable, which can be offlined again).
# The exit status is the guest's (see run-vm.sh).
#
# Env: DAMON_TIERD, WORKLOAD  binaries to put in the guest (default: build/)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=hotplug
DIE_STATUS=2
glob=6.17
timeout_s=600
guest=$here/guest/hotplug-guest.sh
extra_append=""
config=""
maxmem=2G
slots=2
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--guest) guest=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	--config) config=${2:?}; shift 2 ;;
	--maxmem) maxmem=${2:?}; shift 2 ;;
	--slots) slots=${2:?}; shift 2 ;;
	-h | --help) help_text; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done

command -v socat >/dev/null || die "socat not found (tests/deps.sh installs it)"
vm_binaries

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-hotplug.XXXXXX")
vmpid=""
tailpid=""
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	[[ -n $vmpid ]] && kill "$vmpid" 2>/dev/null
	[[ -n $tailpid ]] && kill "$tailpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

vmlinuz=$("$here/fetch-kernel.sh" "$glob")
say "kernel $vmlinuz"

tierd_conf "$work/damon-tierd.conf" "$config"
"$here/mkinitramfs.sh" "$work/initrd.cpio.gz" "$guest" \
	"$daemon:/bin/damon-tierd" "$workload:/bin/workload" \
	"$work/damon-tierd.conf:/etc/damon-tierd.conf" >/dev/null

mon=$work/monitor.sock
out=$work/console
: >"$out"
"$here/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
	--timeout "$timeout_s" --maxmem "$maxmem" --slots "$slots" --monitor "$mon" \
	--append "memhp_default_state=offline$extra_append" >"$out" 2>&1 &
vmpid=$!
tail -n +1 -f --pid="$vmpid" "$out" &
tailpid=$!

# hmp COMMAND: one human-monitor command; its answer, without the banner,
# prompts and echo, goes to our output.  Fails if QEMU reports an error.
hmp() {
	local reply
	reply=$(printf '%s\n' "$1" | socat -t 2 - "UNIX-CONNECT:$mon" 2>&1 | tr -d '\r' |
		sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e '/^QEMU .* monitor/d' -e '/^(qemu)/d' -e '/^$/d') || true
	echo "hotplug: (qemu) $1${reply:+ -> $reply}"
	[[ $reply != *rror* ]]
}

# word KEY LINE: the value of KEY=... in LINE.
word() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<" $2"; }

declare -A served=()
while kill -0 "$vmpid" 2>/dev/null; do
	while IFS= read -r line; do
		line=${line%$'\r'}
		key=$line
		[[ -n ${served[$key]:-} ]] && continue
		served[$key]=1
		id=$(word id "$line")
		case $line in
		*HOTPLUG_REQUEST*)
			size=$(word size "$line")
			node=$(word node "$line")
			if [[ -z $id || -z $size || -z $node ]]; then
				echo "hotplug: malformed request: $line" >&2
				continue
			fi
			hmp "object_add memory-backend-ram,id=mem-$id,size=$size" &&
				hmp "device_add pc-dimm,id=$id,memdev=mem-$id,node=$node" ||
				echo "hotplug: plugging $id failed" >&2
			;;
		*HOTUNPLUG_REQUEST*)
			[[ -n $id ]] && { hmp "device_del $id" || echo "hotplug: unplugging $id failed" >&2; }
			;;
		esac
	done < <(grep -a -E '^(HOTPLUG|HOTUNPLUG)_REQUEST ' "$out" | tr -d '\r')
	sleep 0.5
done
rc=0
wait "$vmpid" || rc=$?
vmpid=""
wait "$tailpid" 2>/dev/null || true
tailpid=""
exit "$rc"
