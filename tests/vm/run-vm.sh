#!/bin/bash
# run-vm.sh --kernel VMLINUZ --initrd INITRD [OPTIONS]
#
# Boots a TCG QEMU guest with NUMA nodes behind HMAT latencies and
# bandwidths.  --topology picks them:
#   2node (default)
#     node 0: both CPUs, DRAM-like  (HMAT latency 80 ns,  bandwidth 20G)
#     node 1: CPU-less, CXL-like    (HMAT latency 250 ns, bandwidth 5G)
#     -numa dist 10/20
#     so node 1 lands in a lower memory tier (memory_tier4 {0},
#     memory_tier56 {1} on Debian 6.12..7.x kernels).
#   3tier
#     node 0 (both CPUs, 80 ns, 20G), CPU-less node 1 (250 ns, 5G) and
#     CPU-less node 2 (500 ns, 2G); distances 0-1 20, 0-2 30, 1-2 30: three
#     memory tiers (memory_tier4 {0}, memory_tier56 {1}, memory_tier281 {2}).
#   2socket
#     nodes 0 and 1 with one CPU each (the two sockets), CPU-less node 2 near
#     socket 0 and CPU-less node 3 near socket 1.  Each CPU node is its own
#     HMAT initiator: local DRAM 80 ns/20G, the other socket's DRAM 130 ns/10G,
#     the own socket's CXL node 250 ns/5G, the other socket's 350 ns/3G;
#     distances 0-1 20, 0-2 and 1-3 20, 0-3 and 1-2 30, 2-3 40 (as the
#     two-sockets-cxl fixture).  Tiers: memory_tier4 {0,1}, memory_tier56
#     {2,3}; only the distances and initiators say which CXL node is whose.
#
# The guest's serial console is copied to stdout. The exit status is the rc in
# the guest's final "DAMON_TIERD_VM_RESULT=<rc>" line (printed by the /init of
# mkinitramfs.sh). No marker (crash, panic, timeout) is a failure:
#   124 timeout, 125 no result marker.
#
# Options:
#   --kernel PATH        kernel image (required)
#   --initrd PATH        initramfs (required)
#   --append EXTRA       extra kernel command line (repeatable, concatenated);
#                        key=value words become env of the test script
#   --timeout SEC        kill QEMU after SEC seconds (default 300)
#   --topology T         2node (default), 3tier or 2socket (above)
#   --mem-nodeN SIZE     node N's memory (N = 0..3; suffix M or G); defaults:
#                        2node 512M 512M, 3tier 384M 256M 384M,
#                        2socket 256M each
#   --smp N              CPUs, all on node 0 (default 2; 2socket: exactly 2,
#                        one per socket)
#   --maxmem SIZE        room for memory hotplug: "-m <total>,slots=N,maxmem=SIZE"
#                        (the two node backends stay as they are)
#   --slots N            hotplug slots (DIMMs) with --maxmem (default 2)
#   --monitor SOCK       QEMU human monitor on the unix socket SOCK (server,
#                        nowait), e.g. for object_add / device_add pc-dimm
#   --kaslr              keep KASLR (default: "nokaslr" is added, so that the
#                        kernel image always sits low in node 0 and the
#                        per-node free memory is the same on every boot)
#   --log FILE           also write the raw console to FILE
#   --qemu-arg ARG       extra QEMU argument (repeatable)
#   -h, --help
set -euo pipefail

# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
PROG=run-vm
DIE_STATUS=2

usage() {
	help_text >&2
	exit 2
}

kernel=""
initrd=""
append=""
timeout_s=300
topology=2node
mem=("" "" "" "")
smp=2
maxmem=""
slots=2
monitor=""
kaslr=0
log=""
qemu_extra=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) kernel=${2:?}; shift 2 ;;
	--initrd) initrd=${2:?}; shift 2 ;;
	--append) append="$append ${2?}"; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--topology) topology=${2:?}; shift 2 ;;
	--mem-node[0-3]) mem[${1#--mem-node}]=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--maxmem) maxmem=${2:?}; shift 2 ;;
	--slots) slots=${2:?}; shift 2 ;;
	--monitor) monitor=${2:?}; shift 2 ;;
	--kaslr) kaslr=1; shift ;;
	--log) log=${2:?}; shift 2 ;;
	--qemu-arg) qemu_extra+=("${2?}"); shift 2 ;;
	-h | --help) usage ;;
	*) echo "run-vm: unknown argument: $1" >&2; usage ;;
	esac
done
[[ -n $kernel && -n $initrd ]] || usage
[[ -r $kernel ]] || die "cannot read kernel $kernel"
[[ -r $initrd ]] || die "cannot read initrd $initrd"
[[ $timeout_s =~ ^[0-9]+$ ]] || die "bad --timeout $timeout_s"
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "bad --smp $smp"
[[ $slots =~ ^[1-9][0-9]*$ ]] || die "bad --slots $slots"

to_mib() {
	local s=$1
	if [[ $s =~ ^([0-9]+)[Mm]i?[Bb]?$ ]]; then
		echo "${BASH_REMATCH[1]}"
	elif [[ $s =~ ^([0-9]+)[Gg]i?[Bb]?$ ]]; then
		echo $((BASH_REMATCH[1] * 1024))
	elif [[ $s =~ ^[0-9]+$ ]]; then
		echo "$s"
	else
		die "bad memory size '$s' (use e.g. 512M or 1G)"
	fi
}
case $topology in
2node) defaults=(512M 512M) ;;
3tier) defaults=(384M 256M 384M) ;;
2socket)
	defaults=(256M 256M 256M 256M)
	[[ $smp == 2 ]] || die "--topology 2socket has exactly one CPU per socket: --smp 2"
	;;
*) die "unknown --topology '$topology' (2node, 3tier or 2socket)" ;;
esac
nodes=${#defaults[@]}
mib=()
total=0
for ((n = 0; n < 4; n++)); do
	if ((n >= nodes)); then
		[[ -z ${mem[n]} ]] || die "--mem-node$n: --topology $topology has $nodes nodes"
		continue
	fi
	mib[n]=$(to_mib "${mem[n]:-${defaults[n]}}")
	total=$((total + mib[n]))
done
mem_opt="${total}M"
if [[ -n $maxmem ]]; then
	mx=$(to_mib "$maxmem")
	((mx > total)) || die "--maxmem $maxmem must be above the boot memory (${total}M)"
	mem_opt+=",slots=$slots,maxmem=${mx}M"
fi

qemu=${QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || die "$qemu not found (install qemu-system-x86)"

cmdline="console=ttyS0 panic=-1 quiet"
((kaslr)) || cmdline+=" nokaslr"
cmdline+=$append

# shellcheck disable=SC2054  # commas belong to QEMU option values
args=(
	-accel tcg -cpu max -smp "$smp" -m "$mem_opt"
	-machine q35,hmat=on
	-nographic -no-reboot -nic none
)
for ((n = 0; n < nodes; n++)); do
	args+=(-object "memory-backend-ram,id=mem$n,size=${mib[n]}M")
done
# numa_node ID CPUS INITIATOR: one node (CPUS "" for a CPU-less one).
numa_node() {
	args+=(-numa "node,nodeid=$1,memdev=mem$1${2:+,cpus=$2},initiator=$3")
}
# numa_dist A B D: the SLIT distance, both ways.
numa_dist() {
	args+=(-numa "dist,src=$1,dst=$2,val=$3" -numa "dist,src=$2,dst=$1,val=$3")
}
# numa_perf INITIATOR TARGET LATENCY_NS BANDWIDTH: HMAT access latency and bandwidth.
numa_perf() {
	args+=(-numa "hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-latency,latency=$3"
		-numa "hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-bandwidth,bandwidth=$4")
}
case $topology in
2node)
	numa_node 0 "0-$((smp - 1))" 0
	numa_node 1 "" 0
	numa_dist 0 1 20
	numa_perf 0 0 80 20G
	numa_perf 0 1 250 5G
	;;
3tier)
	numa_node 0 "0-$((smp - 1))" 0
	numa_node 1 "" 0
	numa_node 2 "" 0
	numa_dist 0 1 20
	numa_dist 0 2 30
	numa_dist 1 2 30
	numa_perf 0 0 80 20G
	numa_perf 0 1 250 5G
	numa_perf 0 2 500 2G
	;;
2socket)
	numa_node 0 0 0
	numa_node 1 1 1
	numa_node 2 "" 0
	numa_node 3 "" 1
	numa_dist 0 1 20
	numa_dist 0 2 20
	numa_dist 1 3 20
	numa_dist 0 3 30
	numa_dist 1 2 30
	numa_dist 2 3 40
	for i in 0 1; do
		o=$((1 - i))
		numa_perf "$i" "$i" 80 20G
		numa_perf "$i" "$o" 130 10G
		numa_perf "$i" $((i + 2)) 250 5G
		numa_perf "$i" $((o + 2)) 350 3G
	done
	;;
esac
args+=(
	-kernel "$kernel" -initrd "$initrd"
	-append "$cmdline"
	"${qemu_extra[@]}"
)
[[ -n $monitor ]] && args+=(-monitor "unix:$monitor,server,nowait")

work=$(mktemp -d "${TMPDIR:-/tmp}/run-vm.XXXXXX")
qpid=""
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
	if [[ -n $qpid ]] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

console="$work/console"
[[ -n $log ]] && mkdir -p "$(dirname "$log")"

# QEMU writes the serial console to stdout; read nothing from our stdin.
# Create the file first so that tail never races the redirection.
: >"$console"
"$qemu" "${args[@]}" </dev/null >"$console" 2>"$work/qemu.err" &
qpid=$!
tail -n +1 -f --pid="$qpid" "$console" &
tpid=$!

timed_out=0
deadline=$((SECONDS + timeout_s))
while kill -0 "$qpid" 2>/dev/null; do
	if ((SECONDS >= deadline)); then
		timed_out=1
		kill "$qpid" 2>/dev/null || true
		sleep 1
		kill -9 "$qpid" 2>/dev/null || true
		break
	fi
	sleep 0.2
done
qrc=0
wait "$qpid" || qrc=$?
qpid=""
wait "$tpid" 2>/dev/null || true
[[ -n $log ]] && cp "$console" "$log"

if [[ -s $work/qemu.err ]]; then
	sed 's/^/run-vm: qemu: /' "$work/qemu.err" >&2
fi
if ((timed_out)); then
	echo "run-vm: timeout after ${timeout_s}s, QEMU killed" >&2
	exit 124
fi
rc=$(tr -d '\r' <"$console" | sed -n 's/^.*DAMON_TIERD_VM_RESULT=\([0-9][0-9]*\).*$/\1/p' | tail -n1)
if [[ -z $rc ]]; then
	echo "run-vm: no DAMON_TIERD_VM_RESULT marker in the console (qemu rc $qrc)" >&2
	exit 125
fi
echo "run-vm: guest result $rc" >&2
exit "$rc"
