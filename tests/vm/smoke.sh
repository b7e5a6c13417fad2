#!/bin/bash
# smoke.sh [OPTIONS]
#
# Real-kernel smoke test: fetches a Debian cloud kernel (default 6.17), builds
# an initramfs with tests/vm/workload and tests/vm/guest/smoke-guest.sh,
# boots the two-node TCG guest and checks, inside the guest, the NUMA/tier
# layout and that the workload's placement reporting works with no DAMON and
# no NUMA balancing running (hot set stays on node 1, cold on node 0).
#
# Options:
#   --kernel GLOB      kernel version glob for fetch-kernel.sh (default 6.17)
#   --vmlinuz PATH     use this kernel image instead of fetching one
#   --info-only        print the info part only, skip the workload
#   --duration SEC     workload duration (default 20)
#   --dump             also print /proc/zoneinfo and the node/memory tree
#   --notes DIR        write the guest's @@BEGIN/@@END sections to
#                      DIR/<section>-<kernel version>.txt
#   --log FILE         keep the console log (default: in the work dir)
#   --timeout SEC      VM timeout (default 300)
#   --guest SCRIPT     guest test body (default guest/smoke-guest.sh); other
#                      scripts in guest/ reuse this driver
#   --append WORDS     extra kernel command line (key=value -> guest env)
# Env: WORKLOAD=path   use a prebuilt workload binary (e.g. from meson)
#      CC              compiler for the workload (default cc)
#      KERNEL_CACHE    cache dir for fetch-kernel.sh
#
# Exit status: the guest's (0 = all checks passed).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=smoke
DIE_STATUS=2

glob=6.17
vmlinuz=""
info_only=0
duration=20
dump=0
notes=""
log=""
timeout_s=300
guest="$here/guest/smoke-guest.sh"
extra_append=""
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--vmlinuz) vmlinuz=${2:?}; shift 2 ;;
	--info-only) info_only=1; shift ;;
	--duration) duration=${2:?}; shift 2 ;;
	--dump) dump=1; shift ;;
	--notes) notes=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--guest) guest=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	-h | --help) help_text; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z $vmlinuz ]]; then
	vmlinuz=$("$here/fetch-kernel.sh" "$glob" ${KERNEL_CACHE:+"$KERNEL_CACHE"})
fi
say "kernel $vmlinuz"

workload=${WORKLOAD:-}
if [[ -z $workload ]]; then
	workload="$work/workload"
	"${CC:-cc}" -O2 -Wall -Wextra -o "$workload" "$here/workload.c"
fi

"$here/mkinitramfs.sh" "$work/initrd.cpio.gz" "$guest" \
	"$workload:/bin/workload" >/dev/null

append=""
((info_only)) && append+=" SMOKE_INFO_ONLY=1"
((dump)) && append+=" SMOKE_DUMP=1"
append+=" SMOKE_DURATION=$duration$extra_append"

console=${log:-$work/console.log}
rc=0
"$here/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
	--timeout "$timeout_s" --append "$append" --log "$console" || rc=$?

if [[ -n $notes && -s $console ]]; then
	kver=$(tr -d '\r' <"$console" | sed -n 's/^.*DAMON_TIERD_VM_START kernel=\([^ ]*\).*/\1/p' | head -n1)
	kver=${kver:-unknown}
	# short version: 6.17.13+deb13-cloud-amd64 -> 6.17
	short=$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	split_sections "$console" "$notes" "-$short"
	say "sections written to $notes (*-$short.txt)"
fi
exit "$rc"
