#!/usr/bin/env bash
# Hostile inputs from the command line: nothing hangs and nothing is
# silently misread.  FIFOs in place of the config, a drop-in or a kernel
# file; config text that inih alone would misread; broken sysfs/procfs
# fixtures whose fallbacks must be said.  Every run that could block is
# under timeout, so a regression fails here instead of hanging the suite.
# Never touches the real /sys.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

cli_test_setup
# A blocked open() would wait for ever: a few seconds is plenty.  A daemon
# stuck in open() has SIGTERM blocked (signalfd): -k kills it.
to=(timeout -k 5 10)

printf '[daemon]\nstate_dir = %s/state\n' "$tmp" >"$tmp/ok.conf"

# --- FIFOs ---------------------------------------------------------------------
mkfifo "$tmp/fifo.conf"
check_exit fifo-check-config 2 "${to[@]}" "$bin" --config "$tmp/fifo.conf" --check-config
expect_in fifo-check-config-msg "$tmp/err" "fifo.conf: not a regular file but a FIFO"
# ExecReload= runs this.
check_exit fifo-reload-check 2 "${to[@]}" "$bin" --config "$tmp/fifo.conf" --check-config --quiet
r=$(fixture_root vm-2node)
check_exit fifo-dry-run 2 "${to[@]}" "$bin" --config "$tmp/fifo.conf" --sysfs-root "$r" --dry-run
check_exit fifo-start 2 "${to[@]}" "$bin" --config "$tmp/fifo.conf" --sysfs-root "$r" --foreground
expect_in fifo-start-msg "$tmp/err" "not a regular file but a FIFO"

cp "$tmp/ok.conf" "$tmp/dropin.conf"
mkdir "$tmp/dropin.conf.d"
mkfifo "$tmp/dropin.conf.d/10-fifo.conf"
check_exit fifo-dropin 2 "${to[@]}" "$bin" --config "$tmp/dropin.conf" --check-config
expect_in fifo-dropin-msg "$tmp/err" "10-fifo.conf: not a regular file but a FIFO"

r=$(fixture_root vm-2node)
rm "$r/sys/devices/system/node/node1/meminfo"
mkfifo "$r/sys/devices/system/node/node1/meminfo"
check_exit fifo-meminfo 1 "${to[@]}" "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in fifo-meminfo-msg "$tmp/err" "/sys/devices/system/node/node1/meminfo: cannot read: not a regular file"

# A reload (SIGHUP) of a daemon whose config became a FIFO: refused, the
# daemon goes on and stops on SIGTERM.  A foreign kdamond keeps it blocked,
# so it writes nothing.
r=$(fixture_root vm-2node)
mkdir -p "$r/sys/kernel/mm/damon/admin/kdamonds/0"
echo 1 >"$r/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
echo on >"$r/sys/kernel/mm/damon/admin/kdamonds/0/state"
echo 4242 >"$r/sys/kernel/mm/damon/admin/kdamonds/0/pid"
cp "$tmp/ok.conf" "$tmp/reload.conf"
timeout -k 5 30 "$bin" --config "$tmp/reload.conf" --sysfs-root "$r" --foreground 2>"$tmp/daemon.err" &
daemon=$!
for _ in $(seq 100); do grep -q "not started by damon-tierd" "$tmp/daemon.err" && break; sleep 0.1; done
rm "$tmp/reload.conf"
mkfifo "$tmp/reload.conf"
kill -HUP "$daemon" 2>/dev/null || true
for _ in $(seq 100); do grep -q "reload.conf: not a regular file" "$tmp/daemon.err" && break; sleep 0.1; done
expect_in fifo-sighup "$tmp/daemon.err" "reload.conf: not a regular file but a FIFO"
kill -TERM "$daemon" 2>/dev/null || true
wait "$daemon" && st=0 || st=$?
if [[ $st == 0 ]]; then ok; else bad "fifo-sighup: daemon exit $st after SIGTERM (124: it hung)"; fi

# --- sysfs/procfs the daemon can do without: said, once ---------------------
# (Variants of the vm-2node fixture, made here; tests/fixtures/README.md.)
dry() { # name status root: a dry run of ok.conf against root
	check_exit "$1" "$2" "${to[@]}" "$bin" --config "$tmp/ok.conf" --sysfs-root "$3" --dry-run
}
r=$(fixture_root vm-2node)
rm "$r/proc/zoneinfo"
dry no-zoneinfo 0 "$r"
expect_in no-zoneinfo-msg "$tmp/err" "warning: node0: /proc/zoneinfo is missing: its auto goals leave out the zone high watermarks, so the free goal is 3."
echo garbage >"$r/proc/zoneinfo"
dry garbage-zoneinfo 0 "$r"
expect_in garbage-zoneinfo-msg "$tmp/err" "warning: node0: /proc/zoneinfo lists no zone of this node"
r=$(fixture_root two-node-no-tiers)
dry no-memory-tiering 0 "$r"
expect_in no-memory-tiering-msg "$tmp/err" "warning: /sys/devices/virtual/memory_tiering is missing: the tiers are taken from CPU-less nodes"
r=$(fixture_root vm-2node)
rm -r "$r"/sys/devices/virtual/memory_tiering/memory_tier*
dry empty-memory-tiering 0 "$r"
expect_in empty-memory-tiering-msg "$tmp/err" "warning: /sys/devices/virtual/memory_tiering has no memory_tierN"
r=$(fixture_root same-tier-cpuless)
dry one-kernel-tier 0 "$r"
expect_in one-kernel-tier-msg "$tmp/err" "(from CPU-less nodes and distances: the kernel puts every memory node into one memory tier)"
expect_not_in one-kernel-tier-no-warning "$tmp/err" "warning"
r=$(fixture_root vm-2node)
ln -s ../../memory/memory9 "$r/sys/devices/system/node/node1/memory9"
dry dangling-link 0 "$r"
expect_in dangling-link-msg "$tmp/err" "warning: /sys/devices/system/node/node1/memory9: dangling link (the memory block is gone): left out of node1's address ranges"
r=$(fixture_root vm-2node)
ln -s ../../memory/memory4 "$r/sys/devices/system/node/node0/memory4"
dry overlap 0 "$r"
expect_in overlap-msg "$tmp/err" "warning: /sys/devices/system/node/node0 and node1: both link the memory at [0x20000000, 0x28000000)"

# --- the right cause and exit status ------------------------------------------
r=$(fixture_root vm-2node)
echo zz >"$r/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
dry garbage-nr-kdamonds 1 "$r"
expect_in garbage-nr-kdamonds-msg "$tmp/err" "error: cannot read /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds: unexpected content, not what the kernel writes there"
expect_not_in garbage-nr-kdamonds-no-retry "$tmp/err" "retrying"
# A foreign kdamond blocks --once: status 4, and no retry announced.
r=$(fixture_root vm-2node)
mkdir -p "$r/sys/kernel/mm/damon/admin/kdamonds/0"
echo 1 >"$r/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
echo on >"$r/sys/kernel/mm/damon/admin/kdamonds/0/state"
echo 4242 >"$r/sys/kernel/mm/damon/admin/kdamonds/0/pid"
check_exit once-blocked 4 "${to[@]}" "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --once
expect_in once-blocked-msg "$tmp/err" "error: kdamond 0 (pid 4242) is running"
expect_not_in once-blocked-no-retry "$tmp/err" "retrying"
r=$(fixture_root vm-2node)
rm "$r"/sys/devices/system/node/node1/memory[0-9]*
dry no-block-links 1 "$r"
expect_in no-block-links-msg "$tmp/err" "node1 has memory but no memory block links (memoryN) under /sys/devices/system/node/node1"
r=$(fixture_root vm-2node)
for b in 4 5 6 7; do echo offline >"$r/sys/devices/system/memory/memory$b/state"; done
dry blocks-offline 1 "$r"
expect_in blocks-offline-msg "$tmp/err" "node1: none of its 4 memory blocks (/sys/devices/system/node/node1/memoryN) is online (4 offline, 0 dangling links)"
expect_not_in blocks-offline-not-hotplug "$tmp/err" "CONFIG_MEMORY_HOTPLUG"
r=$(fixture_root vm-2node)
rm -r "$r/sys/devices/system/memory" "$r"/sys/devices/system/node/node*/memory[0-9]*
dry no-memory-blocks 3 "$r"
expect_in no-memory-blocks-msg "$tmp/err" "this kernel has no memory block devices (/sys/devices/system/memory), which give each node's physical address ranges: build it with CONFIG_MEMORY_HOTPLUG"

# --- config text that inih alone misreads ------------------------------------
# Each was accepted as "valid" with every key at its default.
printf '[daemon]\rinterval = 10s\rstatus_interval = 2min\r' >"$tmp/cr.conf"
check_exit cr-only 2 "$bin" --config "$tmp/cr.conf" --check-config
expect_in cr-only-msg "$tmp/err" "cr.conf:1: carriage return inside a line"
printf '[daemon] interval = 10s\n' >"$tmp/oneline.conf"
check_exit header-and-key 2 "$bin" --config "$tmp/oneline.conf" --check-config
expect_in header-and-key-msg "$tmp/err" 'oneline.conf:1: [daemon]: text after the section header (got "interval = 10s")'
printf '[quota]\nsize = 1G\n[daemon] junk\n' >"$tmp/junk.conf"
check_exit header-junk 2 "$bin" --config "$tmp/junk.conf" --check-config --quiet
expect_in header-junk-msg "$tmp/err" 'junk.conf:3: [daemon]: text after the section header (got "junk")'
# CR LF is fine.
printf '[daemon]\r\ninterval = 10s\r\n' >"$tmp/crlf.conf"
check_exit crlf 0 "$bin" --config "$tmp/crlf.conf" --check-config
expect_in crlf-value "$tmp/out" "daemon.interval = 10s"

# Lines longer than inih's 200-byte buffer: a long comment is fine, a long
# state_dir gets its own message.
{
	printf '[daemon]\n# %s\n' "$(printf '%0400d' 0)"
	printf 'interval = 10s ; %s\n' "$(printf '%0400d' 0)"
} >"$tmp/longcomment.conf"
check_exit long-comment 0 "$bin" --config "$tmp/longcomment.conf" --check-config
expect_in long-comment-value "$tmp/out" "daemon.interval = 10s"
printf '[daemon]\nstate_dir = /%s\n' "$(printf '%0300d' 0)" >"$tmp/longpath.conf"
check_exit long-state-dir 2 "$bin" --config "$tmp/longpath.conf" --check-config
expect_in long-state-dir-msg "$tmp/err" "longpath.conf:2: [daemon] state_dir: path too long (301 bytes"

finish
