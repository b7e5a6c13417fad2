#!/bin/bash
# e2e.sh [--kernel GLOB] [--duration SEC] [--timeout SEC] [--demo]
#
# The real-kernel end-to-end test: boots a Debian cloud kernel (default 6.17)
# in the two-node TCG guest (node 1 CPU-less, in a lower memory tier), runs
# damon-tierd with its default configuration, then a workload whose hot set
# starts on node 1 while its cold data fills node 0, and checks from the
# workload's own pages (move_pages) that >= 90% of the hot set ends on node 0
# and cold data was demoted, that the kdamonds read back from sysfs match the
# daemon's plan, and that after SIGTERM none of ours run and damon_stat is as
# it was found.  --demo shows the same run as a live chart instead of a test.
#
# --guest SCRIPT runs another guest body (tests/vm/guest/*.sh) with the same
# binaries; --append WORDS adds kernel command line words (key=value words
# become the guest script's environment).
# --topology T boots run-vm.sh's topology T (2node, 3tier, 2socket).
# --config FILE runs with another config (for measurements; the test itself
# uses the shipped defaults).
# Env: DAMON_TIERD, WORKLOAD  binaries to put in the guest (default: build/)
#      EXTRA_BINS="SRC:DEST ..."  more files for the guest (mkinitramfs.sh
#                                 syntax), e.g. tierload for soak.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
PROG=e2e
DIE_STATUS=2
glob=6.17
duration=""
timeout_s=900
mode="test"
config=""
guest=$here/guest/e2e-guest.sh
extra_append=""
topology=2node
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--demo) mode=demo; shift ;;
	--config) config=${2:?}; shift 2 ;;
	--guest) guest=${2:?}; shift 2 ;;
	--append) extra_append+=" ${2?}"; shift 2 ;;
	--topology) topology=${2:?}; shift 2 ;;
	-h | --help) help_text; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done

vm_binaries

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT

vmlinuz=$("$here/fetch-kernel.sh" "$glob")
say "kernel $vmlinuz"

# The shipped config, unchanged, except a shorter status interval (or
# --config FILE).
tierd_conf "$work/damon-tierd.conf" "$config"

read -r -a extra_bins <<<"${EXTRA_BINS:-}"
"$here/mkinitramfs.sh" "$work/initrd.cpio.gz" "$guest" \
	"$daemon:/bin/damon-tierd" "$workload:/bin/workload" \
	"$work/damon-tierd.conf:/etc/damon-tierd.conf" ${extra_bins[@]+"${extra_bins[@]}"} >/dev/null

append="E2E_MODE=$mode$extra_append"
[[ -n $duration ]] && append+=" E2E_DURATION=$duration"
# TCG occasionally crashes the guest kernel during early boot (before our
# /init runs: no DAMON_TIERD_VM_START marker).  That is the emulator, not the
# test: boot again, once.
boot_crashed() {
	[[ $1 == 125 ]] && ! grep -q "DAMON_TIERD_VM_START" "$work/console.log" 2>/dev/null
}
rc=0
if [[ $mode == demo ]]; then
	"$here/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
		--timeout "$timeout_s" --append "$append" --log "$work/console.log" --topology "$topology" |
		"$here/demo-chart.sh" || rc=$?
	rc=${PIPESTATUS[0]}
else
	for attempt in 1 2; do
		rc=0
		"$here/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
			--timeout "$timeout_s" --append "$append" --log "$work/console.log" --topology "$topology" || rc=$?
		if [[ $attempt == 2 ]] || ! boot_crashed "$rc"; then break; fi
		say "the guest kernel crashed before the test started (TCG); booting again"
	done
fi
exit "$rc"
