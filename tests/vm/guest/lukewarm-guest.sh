#!/bin/sh
# Guest side of vm-lukewarm-6.17 (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/lukewarm-guest.sh --kernel 6.17
# and EXTRA_BINS naming the tierload binary (tests/bench/tierload).
#
# Cold data that is not cold: tierload's lukewarm mode at 10% (the bench's
# lukewarm10).  Its cold data fills node 0 and receives 10% of the accesses,
# spread over its pages; the hot set (the other 90%) starts on node 1 and
# shifts to another region on node 1 at half the run.  Under the daemon's
# shipped defaults, from the workload's own pages (move_pages):
#   - the hot set ends >= 90% on node 0;
#   - lukewarm data was demoted to make room: the bytes of data outside the
#     hot set seen moving from node 0 to node 1 are at least what 90% of the
#     first hot set needed beyond node 0's free memory at the start (above
#     its zone high watermarks).  Node 0 holds nothing else that could give
#     way, so without that much demotion no 90% of a hot set was ever there.
# Prints "LUKEWARM PASS/FAIL: ..." lines; exits non-zero if any check failed.
# LUKEWARM_DURATION (kernel command line) sets the workload's seconds.
set -u
TAG=LUKEWARM
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
DUR=${LUKEWARM_DURATION:-120}

note "kernel $(uname -r), lukewarm 10% for ${DUR} s"
[ -x /bin/tierload ] || abort "no /bin/tierload in the guest (pass it with EXTRA_BINS)"
tierload_under_daemon /tmp/wl.log --mode lukewarm --cold-share 0.1 --duration "$DUR" --report-interval 2
verdict "damon-tierd exited 0 on SIGTERM" "damon-tierd exited $drc" eq "$drc" 0

start=$(grep '^BENCH EVENT n=0 ' /tmp/wl.log)
last=$(grep '^BENCH SAMPLE' /tmp/wl.log | tail -n 1)
grep -q '^BENCH FINAL' /tmp/wl.log || abort "the workload did not finish"
note "last sample: $last"
hot=$(field hot_fast "$last")
demoted=$(field cold_demoted_bytes "$last")
# What 90% of the first hot set needed beyond node 0's free room at t = 0.
need=$(awk -v p="$(field hot_pages "$start")" -v kb="$(field headroom_kb "$start")" \
	'BEGIN { n = 0.9 * p * 4096 - kb * 1024; print (n > 0) ? int(n) : 0 }')
note "lukewarm data on node 0 at the end: $(field cold_fast "$last")"
verdict "hot set on node 0 at the end: $hot >= 0.90" "hot set on node 0 at the end: $hot < 0.90" \
	at_least "$hot" 0.90
verdict "lukewarm data demoted to make room: $demoted bytes >= $need" \
	"lukewarm data demoted: $demoted bytes < $need (what 90% of the hot set needed beyond node 0's free memory)" \
	at_least "$demoted" "$need"
finish
