#!/bin/bash
# demo.sh: try damon-tierd for real on any x86-64 Debian machine.  Installs
# the build dependencies, builds into build/, boots Debian's 6.17 cloud kernel
# in QEMU with an emulated CXL tier (CPU-less node 1 behind HMAT latencies),
# runs damon-tierd with its defaults and shows the hot set moving to node 0.
#   --kernel GLOB     another kernel (e.g. 7.3)
#   --duration SEC    how long the workload runs (default 60)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
args=(--duration 60)
while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel | --duration) args+=("$1" "${2:?}"); shift 2 ;;
	*) echo "demo: unknown argument $1" >&2; exit 2 ;;
	esac
done
"$top/tests/deps.sh"
[[ -f $top/build/build.ninja ]] || meson setup "$top/build" >/dev/null
meson compile -C "$top/build" damon-tierd tests/vm/workload >/dev/null
DAMON_TIERD=$top/build/damon-tierd WORKLOAD=$top/build/tests/vm/workload \
	exec "$here/e2e.sh" --demo "${args[@]}"
