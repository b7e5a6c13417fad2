#!/bin/bash
# run-fuzz.sh [SECONDS]: fuzz every harness with libFuzzer (clang, ASan+UBSan)
# for SECONDS each (default 600), growing the corpus in a scratch copy.
# A crash, leak or UB report fails the run and leaves the reproducer in the
# printed directory.  Not part of .ci/run (too long); see README.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
secs=${1:-600}
out=${FUZZ_BUILD:-$top/build-fuzz}
"$top/tests/deps.sh"
[[ -f $out/build.ninja ]] || CC=clang meson setup "$out" -Dfuzz=true -Db_sanitize=address,undefined \
	-Db_lundef=false >/dev/null
meson compile -C "$out"
for h in parse config btf; do
	# The seeds of btf include real kernel BTF, trimmed, of up to 10 KB.
	max_len=8192
	[[ $h == btf ]] && max_len=16384
	work=$(mktemp -d)
	cp -r "$top/tests/fuzz/corpus/$h/." "$work/"
	echo "fuzz-$h: $secs s (corpus in $work)"
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$out/tests/fuzz/fuzz-$h" -max_total_time="$secs" -max_len="$max_len" -print_final_stats=1 \
		-artifact_prefix="$work/" "$work"
done
