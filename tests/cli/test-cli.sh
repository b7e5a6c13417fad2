#!/usr/bin/env bash
# Command-line behaviour: options, exit codes, --check-config, --dry-run
# against fixture trees (and a golden plan).  Never touches the real /sys.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

cli_test_setup
golden_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/golden

printf '[daemon]\nstate_dir = %s/state\n' "$tmp" >"$tmp/ok.conf"

check_exit help 0 "$bin" --help
expect_in help "$tmp/out" "--sysfs-root DIR"
expect_in help-exit "$tmp/out" "77 nothing to tier"
check_exit version 0 "$bin" --version
expect_in version "$tmp/out" "damon-tierd "
check_exit version-short 0 "$bin" -V
expect_in version-short-out "$tmp/out" "damon-tierd "
check_exit bad-option 2 "$bin" --frobnicate
# One prefix for every message: the program's name, not argv[0]'s path.
expect_in bad-option-msg "$tmp/err" "damon-tierd: unknown option '--frobnicate'; try 'damon-tierd --help'."
check_exit bad-option-short 2 "$bin" -fx
expect_in bad-option-short-msg "$tmp/err" "damon-tierd: unknown option '-x'"
check_exit option-without-value 2 "$bin" --config
expect_in option-without-value-msg "$tmp/err" "damon-tierd: --config needs a value"
check_exit option-with-value 2 "$bin" --once=yes
expect_in option-with-value-msg "$tmp/err" "damon-tierd: --once takes no value (got '--once=yes')"
check_exit stray-arg 2 "$bin" stray
check_exit empty-config 2 "$bin" --config= --check-config
expect_in empty-config-msg "$tmp/err" "damon-tierd: --config needs a file name (got an empty one)"
check_exit empty-config-short 2 "$bin" -c "" --check-config
check_exit empty-sysfs-root 2 "$bin" --config "$tmp/ok.conf" --sysfs-root= --dry-run
expect_in empty-sysfs-root-msg "$tmp/err" "--sysfs-root needs a directory"
# The one-shot modes exclude each other.  (A root that does not exist, so
# that a regression cannot reach this machine's /sys.)
nowhere=(--config "$tmp/ok.conf" --sysfs-root "$tmp/does-not-exist")
check_exit check-config-dry-run 2 "$bin" "${nowhere[@]}" --check-config --dry-run
expect_in check-config-dry-run-msg "$tmp/err" "damon-tierd: --check-config and --dry-run cannot be combined"
check_exit check-config-once 2 "$bin" "${nowhere[@]}" --check-config --once
expect_in check-config-once-msg "$tmp/err" "--check-config and --once cannot be combined"
check_exit once-dry-run 2 "$bin" "${nowhere[@]}" --once --dry-run
expect_in once-dry-run-msg "$tmp/err" "--dry-run and --once cannot be combined"

check_exit check-config 0 "$bin" --config "$tmp/ok.conf" --check-config
expect_in check-config "$tmp/out" "promote.used_goal = auto"
expect_in check-config-valid "$tmp/err" "damon-tierd: $tmp/ok.conf + 0 drop-ins: configuration is valid"

printf '[quota]\nsize = 200 parsecs\n' >"$tmp/bad.conf"
check_exit bad-config 2 "$bin" --config "$tmp/bad.conf" --check-config
expect_in bad-config-line "$tmp/err" "bad.conf:2"
# --quiet (ExecReload=): silent when valid, the error alone when not.
check_exit check-config-quiet 0 "$bin" --config "$tmp/ok.conf" --check-config --quiet
cat "$tmp/out" "$tmp/err" >"$tmp/quiet.out"
check_exit check-config-quiet-silent 0 test ! -s "$tmp/quiet.out"
check_exit check-config-quiet-bad 2 "$bin" --config "$tmp/bad.conf" --check-config -q
expect_in check-config-quiet-bad-line "$tmp/err" "bad.conf:2"
cp "$tmp/out" "$tmp/quiet.out"
check_exit check-config-quiet-bad-no-dump 0 test ! -s "$tmp/quiet.out"
check_exit quiet-needs-check-config 2 "$bin" --quiet --dry-run
expect_in quiet-needs-check-config-msg "$tmp/err" "--quiet applies to --check-config only"
printf '[promote]\nused_goal = 10001\n' >"$tmp/range.conf"
check_exit goal-range 2 "$bin" --config "$tmp/range.conf" --check-config
expect_in goal-range-line "$tmp/err" "range.conf:2"
check_exit missing-explicit-config 2 "$bin" --config "$tmp/nope.conf" --check-config
expect_in missing-config "$tmp/err" "nope.conf"

# --dry-run: the full plan, against a golden one, and nothing written: for
# the VM's two nodes, three tiers and two sockets with a CXL node each (the
# topologies of run-vm.sh): every lower node promotes straight into its
# nearest top-tier node and demotes one tier down.
for fx in vm-2node three-tiers two-sockets-cxl; do
	r=$(fixture_root "$fx")
	before=$(cd "$r" && find . -type f -exec md5sum {} + | sort)
	check_exit "dry-run-$fx" 0 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
	after=$(cd "$r" && find . -type f -exec md5sum {} + | sort)
	if [[ "$before" == "$after" ]]; then ok; else bad "dry-run ($fx) wrote files"; fi
	grep '^write ' "$tmp/out" >"$tmp/plan-$fx"
	# UPDATE_GOLDEN=1 rewrites the golden plans from this build (review the diff).
	[[ -n ${UPDATE_GOLDEN:-} ]] && cp "$tmp/plan-$fx" "$golden_dir/$fx.dryrun"
	if diff -u "$golden_dir/$fx.dryrun" "$tmp/plan-$fx" >"$tmp/diff"; then
		ok
	else
		bad "dry-run differs from the golden plan (tests/cli/golden/$fx.dryrun):"
		head -40 "$tmp/diff"
	fi
	cp "$tmp/err" "$tmp/err-$fx"
done
expect_in dry-run-state "$tmp/plan-vm-2node" "write /sys/kernel/mm/damon/admin/kdamonds/1/state on"
expect_in dry-run-3tier-promote-2 "$tmp/err-three-tiers" "kdamond 3: promote node2 -> node0"
expect_in dry-run-3tier-demote-1 "$tmp/err-three-tiers" "kdamond 1: demote node1 -> node2"
expect_in dry-run-sockets-promote-3 "$tmp/err-two-sockets-cxl" "kdamond 3: promote node3 -> node1"
expect_in dry-run-sockets-demote-1 "$tmp/err-two-sockets-cxl" "kdamond 1: demote node1 -> node3"
expect_in dry-run-btf "$tmp/err-vm-2node" "DAMON features (read from the kernel's BTF"
# The kernel's features decide the files: 6.12 has filters/ without allow.
r=$(fixture_root vm-2node 6.12)
check_exit dry-run-612 0 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in dry-run-612-filter "$tmp/out" "schemes/0/filters/0/matching N"
cp "$tmp/out" "$tmp/plan612"
check_exit dry-run-612-no-ops-filters 1 grep -q ops_filters "$tmp/plan612"
# No BTF: the features are assumed, and the dry run warns.
r=$(fixture_root vm-2node)
rm "$r/sys/kernel/btf/vmlinux"
check_exit dry-run-no-btf 0 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in dry-run-no-btf-warns "$tmp/err" "warning: DAMON features (assumed"

# [cgroup] rules: what each becomes, in --check-config (any kernel) and in
# a dry run (this kernel, with the cgroups as found: /svc exists, the unit
# does not).
printf '[cgroup /svc]\nprotect = yes\nfast_share = 80%%\n[cgroup batch.slice]\npromote = no\n' >"$tmp/cg.conf"
check_exit cgroup-check 0 "$bin" --config "$tmp/cg.conf" --check-config
expect_in cgroup-check-key "$tmp/out" "cgroup[/svc].fast_share = 80.00%  # $tmp/cg.conf:3"
expect_in cgroup-check-rule "$tmp/out" "# cgroup /svc: protect: a memcg filter rejecting its pages on every demotion scheme"
expect_in cgroup-check-goal "$tmp/out" "a node_memcg_used_bp goal (6.19 and later) or a user_input goal the daemon feeds"
r=$(fixture_root vm-2node 7.3)
mkdir -p "$r/sys/fs/cgroup/svc"
echo "cpu memory" >"$r/sys/fs/cgroup/cgroup.controllers"
printf 'anon N0=104857600 N1=0\nfile N0=0 N1=0\n' >"$r/sys/fs/cgroup/svc/memory.numa_stat"
check_exit cgroup-dry-run 0 "$bin" --config "$tmp/cg.conf" --sysfs-root "$r" --dry-run
expect_in cgroup-dry-run-filter "$tmp/out" "kdamonds/0/contexts/0/schemes/0/ops_filters/0/memcg_path /svc"
# The cgroup scheme follows the migration scheme and the exchange's 8 stat
# schemes ([quota] exchange = yes, the default).
expect_in cgroup-dry-run-goal "$tmp/out" "kdamonds/1/contexts/0/schemes/9/quotas/goals/0/target_metric node_memcg_used_bp"
expect_in cgroup-dry-run-says "$tmp/err" "node_memcg_used_bp goal on the fast node (the kernel measures the cgroup)"
expect_in cgroup-dry-run-waits "$tmp/err" "warning: cgroup batch.slice: not found"

r=$(fixture_root one-node)
check_exit one-node 77 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in one-node-msg "$tmp/err" "nothing to tier"

r=$(fixture_root vm-2node)
rm -rf "$r/sys/kernel/mm/damon"
check_exit no-damon 3 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in no-damon-msg "$tmp/err" "CONFIG_DAMON_SYSFS"

r=$(fixture_root broken-meminfo)
check_exit broken-topology 1 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in broken-topology-msg "$tmp/err" "meminfo"

check_exit bad-root 2 "$bin" --config "$tmp/ok.conf" --sysfs-root "$tmp/does-not-exist" --dry-run

# --dry-run never waits: a blocked start is reported with status 4.
r=$(fixture_root vm-2node)
mkdir -p "$r/sys/kernel/mm/damon/admin/kdamonds/0"
echo 1 >"$r/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
echo on >"$r/sys/kernel/mm/damon/admin/kdamonds/0/state"
echo 4242 >"$r/sys/kernel/mm/damon/admin/kdamonds/0/pid"
check_exit dry-run-blocked 4 timeout 20 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --dry-run
expect_in dry-run-blocked-msg "$tmp/err" "kdamond 0 (pid 4242) is running"
check_exit short-c-missing 2 "$bin" -c"$tmp/nope.conf" --check-config

# A second instance is refused by the lock (the first holds it while blocked).
r=$(fixture_root vm-2node)
mkdir -p "$r/sys/kernel/mm/damon/admin/kdamonds/0"
echo 1 >"$r/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
echo on >"$r/sys/kernel/mm/damon/admin/kdamonds/0/state"
echo 4242 >"$r/sys/kernel/mm/damon/admin/kdamonds/0/pid"
"$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --foreground 2>"$tmp/first.err" &
first=$!
for _ in $(seq 100); do grep -q "not started by damon-tierd" "$tmp/first.err" && break; sleep 0.1; done
expect_in foreign-kdamond "$tmp/first.err" "kdamond 0 (pid 4242) is running and was not started by damon-tierd"
check_exit second-instance 5 "$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --foreground
expect_in second-instance-msg "$tmp/err" "another damon-tierd is running"
# "damon-tierd status" reads the published status files, no root or sysfs needed.
check_exit status-running 0 "$bin" status --config "$tmp/ok.conf"
expect_in status-state "$tmp/out" "): blocked: kdamond 0 (pid 4242) is running"
expect_in status-fresh "$tmp/out" "updated "
check_exit status-json 0 "$bin" status --json --config "$tmp/ok.conf"
expect_in status-json-state "$tmp/out" '"state":"blocked"'
check_exit status-bad-arg 2 "$bin" status --frobnicate
kill -TERM "$first"
wait "$first" && st=0 || st=$?
if [[ $st == 0 ]]; then ok; else bad "sigterm exit $st"; fi
expect_in foreign-untouched "$r/sys/kernel/mm/damon/admin/kdamonds/0/state" "on"
check_exit status-stopped 1 "$bin" status --config "$tmp/ok.conf"
expect_in status-stopped-msg "$tmp/out" "damon-tierd is not running"

finish
