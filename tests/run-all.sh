#!/usr/bin/env bash
# The one test command: install dependencies, build with -Werror, run the
# unit and CLI tests, the same under ASan+UBSan, and the real-kernel QEMU
# tests.  Used by .ci/run.  Set DAMON_TIERD_SKIP_VM=1 to leave out the VM tests.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${DAMON_TIERD_BUILD:-$top/build-test}
cd "$top"

tests/deps.sh

vm=true
[[ ${DAMON_TIERD_SKIP_VM:-0} == 1 ]] && vm=false

rm -rf "$out" "$out-asan"
meson setup "$out" -Dwerror=true -Dvm_tests="$vm" >/dev/null
meson compile -C "$out"
meson test -C "$out" --print-errorlogs --suite unit --suite cli

meson test -C "$out" --print-errorlogs --suite pkg

meson setup "$out-asan" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
meson compile -C "$out-asan"
meson test -C "$out-asan" --setup asan --print-errorlogs --suite unit --suite cli

if $vm; then
	meson test -C "$out" --print-errorlogs --suite vm --num-processes 1 -t 1
fi
echo "run-all: all tests passed"
