#!/bin/sh
# Guest side of the vm-cgroup tests (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/cgroup-guest.sh \
#       --config tests/vm/cgroup.conf --kernel 7 (and 6.12)
# [cgroup] rules on a real kernel, four workloads in four cgroups on a fast
# node too small for all of them:
#   /svc    protect = yes, fast_share = 80%: 100 MiB of data on node 0 that
#           goes cold (--idle), among the coldest pages there;
#   /twin   no rule: the same as /svc, started right after it (what /svc
#           would lose without its rule);
#   /batch  promote = no: cold data filling node 0 down to 48 MiB free, and a
#           32 MiB hot set on node 1;
#   /other  no rule: a 96 MiB hot set on node 1, which promotion brings to
#           node 0 and demotion must make room for.
# Checks, from each workload's own pages (move_pages): /svc keeps >= 80% on
# node 0 while /twin and /batch lose cold data to node 1, /batch's hot set stays on
# node 1, /other's hot set reaches node 0.  From sysfs: the memcg filters
# ahead of the young filter and the fast_share goal (node_memcg_used_bp on
# 6.19 and later, a fed user_input goal before).  The cgroup lifecycle: /late
# is created after the start (its filter is committed, the kdamonds keep
# their pids) and removed again (its filter goes, no error).
# Prints "CGROUP PASS/FAIL: ..." lines; exits non-zero if any check failed.
set -u
TAG=CGROUP
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh

CG=/sys/fs/cgroup
KD=/sys/kernel/mm/damon/admin/kdamonds
DURATION=${CGROUP_DURATION:-80}

note "kernel $(uname -r)"
# The daemon measured alone: the kernel turns NUMA balancing on for a
# two-node machine, and it would move the hot sets to node 0 itself.
echo 0 >/proc/sys/kernel/numa_balancing || abort "cannot turn NUMA balancing off"
mount -t cgroup2 none $CG || abort "cannot mount cgroup2"
echo +memory >$CG/cgroup.subtree_control || abort "cannot enable the memory controller"
mkdir $CG/svc $CG/twin $CG/batch $CG/other

# run_in CGROUP NAME ARGS...: a workload in that cgroup, its log in
# /tmp/NAME.log, its pid in wpid.
run_in() {
	cg=$1 name=$2
	shift 2
	sh -c "echo \$\$ >$CG/$cg/cgroup.procs && exec /bin/workload $*" >/tmp/"$name".log 2>&1 &
	wpid=$!
}
started() { grep -q '^WORKLOAD START' /tmp/"$1".log; }

run_in svc svc --idle --hot 1 --cold 100 --duration "$((DURATION + 20))" --report-interval 5
pid_svc=$wpid
wait_alive "$pid_svc" 60 started svc || abort "the /svc workload did not start"
run_in twin twin --idle --hot 1 --cold 100 --duration "$((DURATION + 20))" --report-interval 5
pid_twin=$wpid
wait_alive "$pid_twin" 60 started twin || abort "the /twin workload did not start"
run_in batch batch --hot 32 --cold auto --duration "$((DURATION + 10))" --report-interval 5
pid_batch=$wpid
wait_alive "$pid_batch" 90 started batch || abort "the /batch workload did not start"
run_in other other --hot 96 --cold 1 --duration "$DURATION" --report-interval 5
pid_other=$wpid
wait_alive "$pid_other" 60 started other || abort "the /other workload did not start"
grep -h '^WORKLOAD START' /tmp/svc.log /tmp/twin.log /tmp/batch.log /tmp/other.log

start_daemon daemon /etc/damon-tierd.conf
wait_running 60 2 || { show_log; abort "the kdamonds did not start"; }
pids0=$(pids)

# The rules as written to sysfs.
fdir=ops_filters
[ -d $KD/0/contexts/0/schemes/0/ops_filters ] || fdir=filters
S=contexts/0/schemes
# The fast_share scheme is promotion's last: the ranked exchange's stat
# schemes, when on, sit between it and the migration scheme.
FS=$(($(cat $KD/1/$S/nr_schemes) - 1))
section_begin sysfs-filters
grep -r . $KD/0/$S/0/$fdir $KD/1/$S/0/$fdir $KD/1/$S/$FS/$fdir $KD/1/$S/$FS/quotas/goals 2>/dev/null
section_end sysfs-filters
# memcg_path and a goal's path answer EBUSY while the DAMON sysfs lock is
# held (the exchange's commands, the kernel's refresh): read with rd.
path_of() { rd "$KD/$1/$S/$2/$fdir/$3/memcg_path"; }
check "demotion's first filter is /svc's memcg filter" eq "$(path_of 0 0 0)" /svc
check "promotion's first filter is /batch's memcg filter" eq "$(path_of 1 0 0)" /batch
check "the young filter follows them" eq "$(cat $KD/0/$S/0/$fdir/1/type)" young
check "the fast_share scheme takes only /svc's pages" eq "$(path_of 1 $FS 0)" /svc
metric=$(cat $KD/1/$S/$FS/quotas/goals/0/target_metric)
if [ -e $KD/1/$S/$FS/quotas/goals/0/path ]; then
	check "fast_share: a node_memcg_used_bp goal for /svc" eq "$metric" node_memcg_used_bp
	check "fast_share goal's cgroup" eq "$(rd $KD/1/$S/$FS/quotas/goals/0/path)" /svc
	check "the log says the kernel measures it" has_log "node_memcg_used_bp goal on the fast node"
else
	check "fast_share: a user_input goal" eq "$metric" user_input
	check "the log says the daemon feeds it" has_log "user_input goal the daemon feeds from memory.numa_stat"
	fed() { [ "$(cat $KD/1/$S/$FS/quotas/goals/0/current_value)" -gt 0 ]; }
	check "the daemon fed the goal" wait_alive "$dpid" 30 fed
fi
check "/late not found at start: a warning" has_log "cgroup /late: not found"

# /late comes and goes while the kdamonds run.
sleep 10
mkdir $CG/late
check "/late appeared: committed" wait_log "cgroup /late appeared at /late" 30
late_filter() { [ "$(path_of 0 0 1)" = /late ]; }
check "/late's memcg filter is on demotion" wait_alive "$dpid" 15 late_filter
# The files show the filter as soon as they are staged; the kernel takes it
# at the commit, up to an aggregation interval later, and resolves the path
# then.  Removing /late in between makes that commit fail, which before 6.14
# also stops the kdamond (a restart, tested in test-decide.c: "a kdamond
# found off").  Remove it once the daemon has seen its commit land.
check "/late's commit landed" wait_log "cgroup change: committed new parameters to kdamond 0" 15
rmdir $CG/late
check "/late gone: its filter removed" wait_log "cgroup /late is gone" 30
no_late() { [ "$(path_of 0 0 1)" != /late ]; }
check "/late's memcg filter is off again" wait_alive "$dpid" 15 no_late
check "the kdamonds kept their pids ($pids0)" eq "$(pids)" "$pids0"

wait "$pid_other"
wait "$pid_batch"
wait "$pid_svc"
wait "$pid_twin"
section_begin status
/bin/damon-tierd status --json 2>&1 | head -c 6000
section_end status
stop_daemon
show_log
for w in svc twin batch other; do
	grep '^WORKLOAD' /tmp/$w.log | sed -n "s/^\(WORKLOAD [^ ]*\) \(hot_on_node0=[^ ]*\) \(cold_on_node1=[^ ]*\).*/CGROUP $w \1 \2 \3/p"
done
final() { sed -n "s/^WORKLOAD FINAL.* $2=\([0-9.]*\).*/\1/p" /tmp/"$1".log; }

verdict "damon-tierd exited 0 on SIGTERM" "damon-tierd exited $drc" eq "$drc" 0
check "no error in the log" not grep -q "error:" "$log"
# final_check WORKLOAD FIELD CMP LIMIT WHAT: a verdict on the workload's
# final FIELD (CMP: at_most or at_least).
final_check() {
	_fc=$(final "$1" "$2")
	verdict "$5: $_fc ($3 $4)" "$5: $_fc (not $3 $4)" "$3" "$_fc" "$4"
}
final_check svc cold_on_node1 at_most 0.20 "/svc (protect, fast_share 80%): its share on node 1"
final_check twin cold_on_node1 at_least 0.10 "/twin (the same data, no rule) lost to node 1"
# Demotion may take /twin's or /batch's cold data (both idle, DAMON picks):
# together they must have given up what /svc kept.
others=$(awk -v tf="$(final twin cold_on_node1)" -v tp="$(final twin cold_pages)" \
	-v bf="$(final batch cold_on_node1)" -v bp="$(final batch cold_pages)" \
	'BEGIN { if (tp + bp > 0) printf "%.4f", (tf * tp + bf * bp) / (tp + bp) }')
verdict "/twin's and /batch's cold data demoted instead: on node 1: $others (at_least 0.10)" \
	"/twin's and /batch's cold data demoted instead: on node 1: $others (not at_least 0.10)" \
	at_least "$others" 0.10
final_check batch hot_on_node0 at_most 0.05 "/batch (promote = no): its hot set on node 0"
final_check other hot_on_node0 at_least 0.50 "/other's hot set promoted: on node 0"
finish
