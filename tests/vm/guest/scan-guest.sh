#!/bin/sh
# Guest side of vm-scan-6.17 (busybox sh), run with
#   tests/vm/e2e.sh --guest tests/vm/guest/scan-guest.sh --kernel 6.17
# and EXTRA_BINS naming the tierload binary (tests/bench/tierload).
#
# A backup or GC walk must not drag cold data into the fast tier:
# tierload's scan mode (the bench's scan).  Cold data fills node 0 and half
# as much again lies on node 1; the hot set starts on node 1; every 20 s a
# sequential pass reads every cold page once.  Under the daemon's shipped
# defaults, from the workload's own pages (move_pages):
#   - the hot set ends >= 90% on node 0 (tiering works at all, so that the
#     next check means something);
#   - the scanned data is not promoted: of the cold data that was on node 1
#     at t = 0, at most 5% is on node 0 at the end.  5% of it is about 9 MiB
#     on the 512 MiB guest: below the free memory the daemon keeps on node 0
#     (its zone high watermarks plus a promotion quota), which a policy that
#     took the passes' pages for hot data fills with them at every pass, and
#     room for the few MiB of cold pages that DAMON's region-granular
#     sampling may carry along with the hot set's (and that the workload
#     cannot tell from a pass's doing).
# The scanned bytes seen moving from node 1 to node 0 over the run are
# printed (not checked: demoting and promoting the same cold pages again is
# churn, not placement, and a sample every 2 s does not see all of it).
# Prints "SCAN PASS/FAIL: ..." lines; exits non-zero if any check failed.
# SCAN_DURATION (kernel command line) sets the workload's seconds.
set -u
TAG=SCAN
RD_TRIES=20
# shellcheck source=SCRIPTDIR/../../lib/guest.sh
. /usr/local/lib/damon-tierd-tests/guest.sh
DUR=${SCAN_DURATION:-120}
BOUND=0.05

note "kernel $(uname -r), scan for ${DUR} s"
[ -x /bin/tierload ] || abort "no /bin/tierload in the guest (pass it with EXTRA_BINS)"
tierload_under_daemon /tmp/wl.log --mode scan --duration "$DUR" --report-interval 2
verdict "damon-tierd exited 0 on SIGTERM" "damon-tierd exited $drc" eq "$drc" 0

last=$(grep '^BENCH SAMPLE' /tmp/wl.log | tail -n 1)
grep -q '^BENCH FINAL' /tmp/wl.log || abort "the workload did not finish"
note "last sample: $last"
hot=$(field hot_fast "$last")
up=$(field scan_slow0_fast "$last")
passes=$(field scan_passes "$last")
note "scan passes: $passes; scanned bytes seen promoted: $(field scan_promoted_bytes "$last")"
verdict "at least one scan pass ran ($passes)" "no scan pass ran" at_least "${passes:-0}" 1
verdict "hot set on node 0 at the end: $hot >= 0.90" "hot set on node 0 at the end: $hot < 0.90" \
	at_least "$hot" 0.90
verdict "scanned data not promoted: $up of what was on node 1 is on node 0 (<= $BOUND)" \
	"scanned data promoted: $up of what was on node 1 is on node 0 (> $BOUND)" \
	at_most "$up" "$BOUND"
finish
