#!/bin/sh
# Guest side of the vm-hotplug test (busybox sh), run by
#   tests/vm/hotplug.sh --kernel 6.17
# which boots with memhp_default_state=offline, room for two DIMMs and a QEMU
# monitor, and plugs a DIMM when this script prints "HOTPLUG_REQUEST ...".
#   1. 256M plugged into node 1 (CPU-less, lower tier), onlined by hand as
#      online_movable: the daemon re-plans online, the promote kdamond's
#      regions cover the new blocks, no kdamond is restarted.
#   2. Bonus: a hot set placed in the new memory (mbind node 1 takes the
#      Movable zone first) is promoted to node 0.
#   3. The new blocks offlined: the plan shrinks back, without errors; then
#      the DIMM is unplugged (device_del).
#   4. Auto-online (auto_online_blocks = online, the Debian kernel's default):
#      a 128M DIMM comes online by itself and the daemon re-plans; offlining
#      it is tried and reported.
# Time bounds are in reconcile periods ([daemon] interval = 2s), measured with
# /proc/uptime.  Prints "HOTPLUG PASS/FAIL/SKIP: ..."; exits non-zero if any
# check failed.
set -u
TAG=HOTPLUG
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
MEM=/sys/devices/system/memory
NODE=/sys/devices/system/node
STATE_DIR=/run/damon-tierd
PERIOD_CS=200

# The staged regions of kdamond K, "start-end" (hex) separated by spaces.
regions_of() {
	r=$ADMIN/$1/contexts/0/targets/0/regions
	i=0
	out=""
	nr=$(rd "$r/nr_regions")
	while [ $i -lt "$nr" ]; do
		out="$out$(printf '%x-%x' "$(rd "$r/$i/start")" "$(rd "$r/$i/end")") "
		i=$((i + 1))
	done
	echo "${out% }"
}
BS=$(block_size)
# The online memory blocks of node N merged into ranges, as regions_of prints them.
node_ranges() {
	out=""
	first=-1
	last=-2
	for id in $(for b in "$NODE/node$1"/memory[0-9]*; do
		[ "$(cat "$b/state" 2>/dev/null)" = online ] && echo "${b##*/memory}"
	done | sort -n); do
		if [ "$id" -ne $((last + 1)) ]; then
			[ "$first" -ge 0 ] && out="$out$(printf '%x-%x' $((first * BS)) $(((last + 1) * BS))) "
			first=$id
		fi
		last=$id
	done
	[ "$first" -ge 0 ] && out="$out$(printf '%x-%x' $((first * BS)) $(((last + 1) * BS))) "
	echo "${out% }"
}
blocks() { for b in "$MEM"/memory[0-9]*; do [ -e "$b" ] && echo "${b##*/memory}"; done | sort -n | tr '\n' ' '; }
bstate() { cat "$MEM/memory$1/state"; }
# blocks_gone "BLOCK...": none of these memory blocks exists any more.
blocks_gone() {
	for b in $1; do [ ! -e "$MEM/memory$b" ] || return 1; done
}
# blocks_online "BLOCK...": all of them are online.
blocks_online() {
	for b in $1; do [ "$(bstate "$b")" = online ] || return 1; done
}
bzones() { cat "$MEM/memory$1/valid_zones"; }
# bset BLOCK VALUE: writes the block's state file.
bset() { echo "$2" >"$MEM/memory$1/state"; }
memtotal() { awk '/MemTotal/ { print $4 }' "$NODE/node$1/meminfo"; }
# zone_anon NID ZONE: anon pages (LRU) of that zone, from /proc/zoneinfo.
zone_anon() {
	awk -v node="$1," -v zone="$2" '/^Node/ { z = ($2 == node && $4 == zone) }
	     z && /nr_zone_(in)?active_anon/ { s += $2 } END { print s + 0 }' /proc/zoneinfo
}
# zone_free NID ZONE: free pages of that zone.
zone_free() {
	awk -v node="$1," -v zone="$2" '/^Node/ { z = ($2 == node && $4 == zone) }
	     z && $1 == "pages" && $2 == "free" { print $3; exit }' /proc/zoneinfo
}
# wait_new_blocks BEFORE CENTISECONDS: until a block not in BEFORE exists; prints them.
wait_new_blocks() {
	end=$(($(now_cs) + $2))
	while [ "$(now_cs)" -le $end ]; do
		new=""
		for b in $(blocks); do
			case " $1 " in *" $b "*) ;; *) new="$new $b" ;; esac
		done
		[ -n "$new" ] && { echo "$new"; return 0; }
		sleep 0.5
	done
	return 1
}
# replan_check WHAT N: the Nth re-plan is logged within 5 periods of now, the
# promote kdamond's regions then match node 1's online blocks, same pids.
replan_check() {
	t=$(now_cs)
	ok=0
	while [ "$(now_cs)" -le $((t + 5 * PERIOD_CS)) ]; do
		if [ "$(count_log "node memory changed (memory hotplug); re-planning")" -ge "$2" ] &&
			[ "$(count_log "memory hotplug: committed new parameters to kdamond $P")" -ge "$2" ]; then
			ok=1
			break
		fi
		alive || break
		sleep 0.2
	done
	dt=$(($(now_cs) - t))
	check "$1: re-plan logged and committed to the promote kdamond $P within 5 periods (after ${dt}cs)" eq $ok 1
	want=$(node_ranges 1)
	got=$(regions_of "$P")
	check "$1: promote kdamond $P regions = node1's online blocks ($got, want $want)" eq "$got" "$want"
	check "$1: demote kdamond $D regions unchanged ($(regions_of "$D"))" eq "$(regions_of "$D")" "$d_regions"
	check "$1: no restart (pids $pp -> $(pids)), both on" \
		sh -c "[ '$(pids)' = '$pp' ] && [ '$(rd $ADMIN/0/state) $(rd $ADMIN/1/state)' = 'on on' ]"
	check "$1: no error, drift or restart logged" \
		sh -c "! grep -qE 'error|cannot|rejected|drifted|found off|restarting ours' $log"
}

note "kernel $(uname -r)"
stat_boot=$(stat_enabled)
note "boot: auto_online_blocks=$(cat $MEM/auto_online_blocks) block size $BS, blocks $(blocks)," \
	"node1 MemTotal $(memtotal 1) kB, node1 ranges $(node_ranges 1)"
printf '[daemon]\nstate_dir = %s\ninterval = 2s\nstatus_interval = 10s\n' $STATE_DIR >/tmp/hp.conf
start_daemon daemon /tmp/hp.conf
wait_running 90 2
sed 's/^/DAEMON: /' "$log"
if [ "$n" != 2 ] || [ "$on" != 2 ]; then
	abort "the daemon did not start its two kdamonds"
fi
P=$(kdamond_of migrate_hot)
D=$(kdamond_of migrate_cold)
pp=$(pids)
p_regions=$(regions_of "$P")
d_regions=$(regions_of "$D")
pass "daemon started 2 kdamonds (pids $pp); promote $P regions $p_regions, demote $D regions $d_regions"
check "before: promote regions = node1's online blocks" eq "$p_regions" "$(node_ranges 1)"

# ---------------------------------------------------------------------------
note "=== 1) 256M into node 1, onlined by hand (online_movable)"
before=$(blocks)
mt_before=$(memtotal 1)
echo "HOTPLUG_REQUEST id=dimm0 size=256M node=1"
new=$(wait_new_blocks "$before" 6000)
check "1: new memory blocks appeared:$new" test -n "$new"
if [ -z "$new" ]; then
	finish
	exit 1
fi
for b in $new; do
	nd=$(for l in "$MEM/memory$b"/node[0-9]*; do echo "${l##*/node}"; done)
	note "memory$b: node $nd, state $(bstate "$b"), valid zones $(bzones "$b")"
done
check "1: the new blocks are on node 1" sh -c "for b in $new; do [ -e $MEM/memory\$b/node1 ] || exit 1; done"
check "1: not onlined by the kernel (memhp_default_state=offline)" \
	sh -c "for b in $new; do [ \$(cat $MEM/memory\$b/state) = offline ] || exit 1; done"
# Offline blocks are no memory yet: no re-plan.
sleep 4
check "1: no re-plan while the blocks are offline" sh -c "! grep -qF 'memory hotplug' $log"
for b in $new; do
	bset "$b" online_movable || fail "1: online_movable memory$b"
done
note "onlined:$(for b in $new; do printf ' memory%s=%s/%s' "$b" "$(bstate "$b")" "$(bzones "$b")"; done);" \
	"node1 MemTotal $mt_before -> $(memtotal 1) kB"
replan_check 1 1
check "1: the regions now differ from before ($p_regions)" sh -c "[ '$(regions_of "$P")' != '$p_regions' ]"

# ---------------------------------------------------------------------------
note "=== 2) bonus: hot pages in the new memory are promoted"
# Node 1's boot memory is its DMA32 zone, the new blocks are its Movable
# zone.  The hot set is bound to node 1 (MPOL_BIND) while it is first
# touched; if node 1's boot zone gave (almost) none of its pages, they came
# from the new blocks.  (The promote kdamond already moves some of them to
# node 0 while the rest is still being touched: counting pages in the
# Movable zone itself would race with it.)
o0=$(zone_free 1 DMA32)
f0=$(zone_free 1 Movable)
/bin/workload --hot 64 --cold 0 --duration 150 --report-interval 5 >/tmp/workload.log 2>&1 &
wl=$!
wait_until 60 grep -q '^WORKLOAD t=' /tmp/workload.log
o1=$(zone_free 1 DMA32)
f1=$(zone_free 1 Movable)
hot_pages=16384
first=$(grep '^WORKLOAD t=' /tmp/workload.log | head -n 1)
n0=$(echo "$first" | sed -n 's/.* hot_n0=\([0-9]*\).*/\1/p')
n1=$(echo "$first" | sed -n 's/.* hot_n1=\([0-9]*\).*/\1/p')
note "placed: node1 DMA32 free pages $o0 -> $o1, Movable free pages $f0 -> $f1; at t=0 hot_n0=$n0 hot_n1=$n1"
# The workload touches every page before its first report; a page that
# move_pages finds on no node then is one the promote kdamond is migrating
# at that instant (a migration entry), so a few may be in flight.
check "2: the hot set is faulted in at t=0 (hot_n0 + hot_n1 = $((n0 + n1)) of $hot_pages, the rest under migration)" \
	sh -c "[ $((n0 + n1)) -ge $((hot_pages * 9 / 10)) ]"
check "2: node1's boot memory (DMA32 zone) gave $((o0 - o1)) of them (< 10%): the hot set was placed in the new blocks" \
	sh -c "[ $((o0 - o1)) -lt $((hot_pages / 10)) ] && [ $((f0 - f1)) -gt 0 ]"
m1=$(zone_anon 1 Movable)
t=$(now_cs)
# Until 90% of it is on node 0 (at most 150 s of workload).
while kill -0 $wl 2>/dev/null; do
	h=$(grep '^WORKLOAD t=' /tmp/workload.log | tail -n 1 | sed -n 's/.*hot_on_node0=\([0-9.]*\).*/\1/p')
	at_least "$h" 0.90 && break
	sleep 1
done
m2=$(zone_anon 1 Movable)
kill -TERM $wl 2>/dev/null
wait $wl
grep '^WORKLOAD' /tmp/workload.log | tail -n 4
final=$(grep '^WORKLOAD FINAL' /tmp/workload.log)
hot=$(echo "$final" | sed -n 's/.*hot_on_node0=\([0-9.]*\).*/\1/p')
note "hot set on node0 $hot after $((($(now_cs) - t) / 100)) s; node1 Movable anon pages $m1 -> $m2"
check "2: hot set promoted: hot_on_node0=$hot >= 0.90" at_least "${hot:-0}" 0.90
check "2: no hot page left in the new memory (Movable anon $m1 -> $m2)" sh -c "[ $m2 -lt $((hot_pages / 10)) ]"

# ---------------------------------------------------------------------------
note "=== 3) the new blocks offlined, then unplugged"
for b in $new; do
	bset "$b" offline || fail "3: offline memory$b"
done
note "offlined:$(for b in $new; do printf ' memory%s=%s' "$b" "$(bstate "$b")"; done); node1 MemTotal $(memtotal 1) kB"
replan_check 3 2
check "3: the promote regions are back to the boot ones ($p_regions)" eq "$(regions_of "$P")" "$p_regions"
echo "HOTUNPLUG_REQUEST id=dimm0"
gone=0
wait_until 60 blocks_gone "$new" && gone=1
check "3: the DIMM's blocks are gone after device_del (blocks $(blocks))" eq "$gone" 1
sleep 4
check "3: nothing re-planned or logged as an error after the unplug" \
	sh -c "[ $(count_log 'node memory changed') = 2 ] && ! grep -qE 'error|cannot|rejected|drifted|found off' $log"
check "3: regions still the boot ones, same pids" sh -c "[ '$(regions_of "$P")' = '$p_regions' ] && [ '$(pids)' = '$pp' ]"

# ---------------------------------------------------------------------------
note "=== 4) auto-online (auto_online_blocks = online)"
echo online >$MEM/auto_online_blocks
before=$(blocks)
echo "HOTPLUG_REQUEST id=dimm1 size=128M node=1"
new=$(wait_new_blocks "$before" 6000)
check "4: new memory blocks appeared:$new" test -n "$new"
if [ -n "$new" ]; then
	offl=1
	wait_until 10 blocks_online "$new" && offl=0
	zones=$(for b in $new; do printf 'memory%s=%s/%s ' "$b" "$(bstate "$b")" "$(bzones "$b")"; done)
	check "4: the kernel onlined them by itself ($zones)" eq "$offl" 0
	replan_check 4 3
	ok=1
	for b in $new; do bset "$b" offline 2>/tmp/offline.err || ok=0; done
	if [ $ok = 1 ]; then
		replan_check "4/offline" 4
		check "4/offline: the promote regions are back to the boot ones" eq "$(regions_of "$P")" "$p_regions"
	else
		skip "4/offline: the auto-onlined blocks ($zones) cannot be offlined: $(cat /tmp/offline.err)"
	fi
fi

# ---------------------------------------------------------------------------
stop_daemon
grep -E 'hotplug|re-planning|committed|error|warning|stopp|turned off' "$log" | sed 's/^/DAEMON: /'
check "exit 0 on SIGTERM (rc $drc)" eq $drc 0
count_on
check "no kdamond of ours on after SIGTERM" eq "$on" 0
wait_until 5 stat_is "$stat_boot"
check "damon_stat back to $stat_boot" eq "$(stat_enabled)" "$stat_boot"
finish
