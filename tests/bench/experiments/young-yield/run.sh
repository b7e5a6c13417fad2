#!/usr/bin/env bash
# A measurement aid (not a test): how much of a buffer touched RATE times per
# page per second one migrate_cold scheme with the daemon's quota (14.5 MiB per
# 100 ms window), weights (0/100/100) and young filter demotes from node 0 in
# DUR seconds, on one kernel, in the two-node QEMU guest of tests/vm.
#   run.sh KERNEL_GLOB [RATE] [DUR] [DISARM]   e.g. run.sh '7.3*' 0.3 30
# DISARM=1 starts the scheme matching nothing and arms it after 1 s, as the
# daemon does (docs/kernel-compat.md, "The first apply pass of a new scheme has no quota").
# Prints the guest's "YT ..." (scheme stats) and "TOUCHER ..." (pages of the
# buffer on node 1) lines.  All DAMON writes happen inside the guest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm=$here/../../../vm
glob=${1:?kernel glob}; rate=${2:-3}; dur=${3:-30}; disarm=${4:-0}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
kernel=$("$vm/fetch-kernel.sh" "$glob" | tail -n1)
cc -O2 -static -o "$work/toucher" "$here/toucher.c"
"$vm/mkinitramfs.sh" "$work/yt.gz" "$here/init.sh" "$work/toucher" \
	"$here/../node0-cold-scheme.sh:/bin/node0-cold-scheme.sh" >/dev/null
"$vm/run-vm.sh" --kernel "$kernel" --initrd "$work/yt.gz" --timeout $((dur + 170)) \
	--append "RATE=$rate DUR=$dur DISARM=$disarm" | grep -E '^(YT|TOUCHER rc)'
