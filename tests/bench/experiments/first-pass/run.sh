#!/usr/bin/env bash
# A measurement aid (not a test): does a new DAMOS scheme's first apply pass
# respect its quota?  One migrate_cold scheme over node 0 (quota Q bytes per
# 100 ms window, no filters), 300 MiB written once on node 0, in the two-node
# QEMU guest of tests/vm.  See docs/kernel-compat.md, "The first apply pass of a new scheme has no quota".
#   run.sh KERNEL_GLOB [Q]      e.g. run.sh '6.17*' 1
# Prints the guest's "FA ..." lines (migrated MiB, nr_applied, sz_applied and
# the effective quota each second) and "TR ..." (the first damos_before_apply
# and damos_esz events: on 6.12 and 6.17 one application on the whole node
# before the first esz).  All DAMON writes happen inside the guest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm=$here/../../../vm
glob=${1:?kernel glob}; q=${2:-1}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
kernel=$("$vm/fetch-kernel.sh" "$glob" | tail -n1)
cc -O2 -static -o "$work/hog" "$here/hog.c"
"$vm/mkinitramfs.sh" "$work/fa.gz" "$here/init.sh" "$work/hog" \
	"$here/../node0-cold-scheme.sh:/bin/node0-cold-scheme.sh" >/dev/null
"$vm/run-vm.sh" --kernel "$kernel" --initrd "$work/fa.gz" --timeout 120 \
	--append "Q=$q" | grep -E '^(FA|TR|HOG)'
