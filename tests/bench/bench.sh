#!/bin/bash
# bench.sh [--kernel GLOB] [--workloads LIST] [--configs LIST] [--duration SEC]
#          [--interval SEC] [--out DIR] [--reuse] [--report-only]
#          [--tierd-config FILE] [--tierd-hook FILE] [--timeout SEC] [--smoke]
#          [--topology 2node|3tier]
#
# The tiering benchmark: every (configuration, workload) pair runs in a fresh
# two-node TCG guest (tests/vm/run-vm.sh: node 0 with the CPUs, CPU-less
# node 1 in a lower memory tier, 512 MiB each) on the same kernel, and the
# results are written to DIR/results.md, DIR/results.csv and
# DIR/fast-ratio.png (and the Markdown table is printed).
#
# Configurations (LIST is comma-separated; default all five):
#   none   no tiering: numa_balancing=0, damon_stat left as booted, no daemon
#   numab  the kernel's NUMA-balancing tiering: numa_balancing=2 and
#          /sys/kernel/mm/numa/demotion_enabled=true, set in the guest
#   seed   samples/damon/mtier.c's exact parameters written through DAMON
#          sysfs by tests/bench/guest/seed-mtier.sh (numa_balancing=0)
#   tierd  damon-tierd with its shipped defaults, numa_balancing=0 so that
#          it is measured alone (only [daemon] status_interval = 10s is set,
#          for the log)
#   ideal  no migration by the kernel: the workload puts its known hot set
#          on node 0 itself (tierload --ideal): the upper limit
# Workloads (tests/bench/tierload/; default all seven):
#   gups   random updates to a hot set that starts on node 1 while cold data
#          fills node 0; at half the run the hot set moves to another region,
#          also on node 1
#   grow   the resident set grows past node 0 in --chunks steps, accesses
#          skewed to the newest allocation
#   zipf   Zipf(0.99) key-value accesses over a table on both nodes
#   lukewarmN  gups whose data outside the hot set receives N% of the
#          accesses (N = 1..99; the matrix runs lukewarm2, lukewarm10 and
#          lukewarm20)
#   scan   a hot set on node 1, cold data filling node 0 and more of it on
#          node 1, and every 20 s a sequential pass that reads every cold
#          page once, which must not drag the scanned data into node 0
#
# Times are guest (VM) time from the workload's own clock; other VMs on the
# machine slow the guest down, so nothing here asserts a time threshold.
#
# Options:
#   --kernel GLOB       kernel for tests/vm/fetch-kernel.sh (default 6.17)
#   --duration SEC      workload duration (default 240)
#   --interval SEC      sample interval (default 2)
#   --out DIR           results directory (default ./bench-results); the
#                       console logs go to DIR/logs/CONFIG-WORKLOAD.log and the
#                       time series to DIR/series/CONFIG-WORKLOAD.dat
#   --reuse             keep the complete logs already in DIR/logs (a run is
#                       complete when its log ends with BENCH DONE) and boot
#                       only the missing pairs
#   --report-only       boot nothing: rebuild the results from DIR/logs
#   --tierd-config FILE run damon-tierd with FILE instead (a measurement aid;
#                       the default is the shipped defaults)
#   --tierd-hook FILE   a busybox sh script run in the guest once damon-tierd's
#                       kdamonds are on (a measurement aid for experiments that
#                       the daemon cannot express yet, e.g.
#                       tests/bench/experiments/promote-sweep.sh)
#   --timeout SEC       per-VM timeout (default duration + 900)
#   --topology T        the guest's NUMA topology (tests/vm/run-vm.sh):
#                       2node (default), or 3tier: node 0 with the CPUs,
#                       CPU-less nodes 1 (250 ns) and 2 (500 ns) in two lower
#                       tiers, with the workload's slow node (where its hot
#                       set starts and its overflow lives) node 2; seed then
#                       runs its two-node parameters on nodes 0 and 2
#                       (node 1 is left to nothing but the daemon)
#   --smoke             CI mode: gups with none and tierd, 40 s; exits 0 when
#                       both rows made it into the table (no performance
#                       thresholds)
# Env: DAMON_TIERD (default build/damon-tierd), CC (default cc), BENCH_LOAD
# (a prebuilt tierload binary), BENCH_TREE (the source revision to name in
# results.md; default git describe of this tree).
# Exit status: 0 all runs produced results, 1 a run failed (its row says so),
# 2 bad usage or missing prerequisites.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
vm=$top/tests/vm
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$top/tests/lib/host.sh"
PROG=bench
DIE_STATUS=2

glob=6.17
workloads=gups,grow,zipf,lukewarm2,lukewarm10,lukewarm20,scan
configs=none,numab,seed,tierd,ideal
duration=240
interval=2
out=$PWD/bench-results
reuse=0
report_only=0
smoke=0
tierd_config=""
tierd_hook=""
timeout_s=""
topology=2node

usage() {
	help_text
	exit "${1:-0}"
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--kernel) glob=${2:?}; shift 2 ;;
	--workloads) workloads=${2:?}; shift 2 ;;
	--configs) configs=${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--interval) interval=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--reuse) reuse=1; shift ;;
	--report-only) report_only=1; shift ;;
	--tierd-config) tierd_config=${2:?}; shift 2 ;;
	--tierd-hook) tierd_hook=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--topology) topology=${2:?}; shift 2 ;;
	--smoke) smoke=1; workloads=gups; configs=none,tierd; duration=40; shift ;;
	-h | --help) usage 0 ;;
	*) echo "bench: unknown argument $1" >&2; usage 2 >&2 ;;
	esac
done
[[ $duration =~ ^[0-9]+$ && $duration -ge 10 ]] || die "--duration must be a whole number of seconds >= 10"
[[ $interval =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad --interval $interval"
timeout_s=${timeout_s:-$((duration + 900))}
case $topology in
2node) slow_node=1 ;;
3tier) slow_node=2 ;;
*) die "unknown --topology '$topology' (2node or 3tier)" ;;
esac
IFS=, read -ra WLS <<<"$workloads"
IFS=, read -ra CFGS <<<"$configs"
for w in "${WLS[@]}"; do
	case $w in
	gups | grow | zipf | scan | lukewarm[1-9] | lukewarm[1-9][0-9]) ;;
	*) die "unknown workload '$w' (gups, grow, zipf, lukewarmN with N = 1..99, scan)" ;;
	esac
done
for c in "${CFGS[@]}"; do
	case $c in none | numab | seed | tierd | ideal) ;; *) die "unknown configuration '$c' (none, numab, seed, tierd, ideal)" ;; esac
done
mkdir -p "$out/logs" "$out/series"
out=$(cd "$out" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/damon-tierd-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- one VM per (configuration, workload) ------------------------------------

complete() { [[ -f $1 ]] && tr -d '\r' <"$1" | grep -q '^BENCH DONE'; }

if ((!report_only)); then
	need_tierd=0
	for c in "${CFGS[@]}"; do [[ $c == tierd ]] && need_tierd=1; done
	daemon=${DAMON_TIERD:-$top/build/damon-tierd}
	if ((need_tierd)); then
		[[ -x $daemon ]] || die "no damon-tierd binary at $daemon (build it, or set DAMON_TIERD)"
	fi
	if [[ -n ${BENCH_LOAD:-} ]]; then
		load=$BENCH_LOAD
	else
		load=$work/tierload
		"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -o "$load" "$here"/tierload/*.c -lm ||
			die "cannot build tests/bench/tierload/*.c"
	fi
	[[ -x $load ]] || die "no tierload binary at $load"
	vmlinuz=$("$vm/fetch-kernel.sh" "$glob")
	kver=$(basename "$vmlinuz")
	echo "bench: kernel $vmlinuz" >&2

	# The shipped defaults; the status interval is for the log only.
	tierd_conf "$work/damon-tierd.conf" "$tierd_config"
	: >"$work/tierd-hook.sh"
	if [[ -n $tierd_hook ]]; then
		[[ -f $tierd_hook ]] || die "no such --tierd-hook script: $tierd_hook"
		cp "$tierd_hook" "$work/tierd-hook.sh"
	fi
	files=("$load:/bin/tierload" "$here/guest/seed-mtier.sh:/bin/seed-mtier.sh"
	       "$work/damon-tierd.conf:/etc/damon-tierd.conf" "$work/tierd-hook.sh:/bin/tierd-hook.sh")
	if [[ -x $daemon ]]; then
		files+=("$daemon:/bin/damon-tierd")
		# What was measured, for the results page.
		{
			echo "$("$daemon" --version 2>/dev/null | head -n1), sha256 $(sha256sum "$daemon" | cut -c1-12)"
			echo "tree ${BENCH_TREE:-$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)}"
		} >"$out/logs/daemon-version.txt"
	fi
	"$vm/mkinitramfs.sh" "$work/initrd.cpio.gz" "$here/guest/bench-guest.sh" "${files[@]}" >/dev/null

	for w in "${WLS[@]}"; do
		for c in "${CFGS[@]}"; do
			log=$out/logs/$c-$w.log
			if ((reuse)) && complete "$log"; then
				echo "bench: $c/$w: reusing $log" >&2
				continue
			fi
			# A VM that dies before the guest finishes (no BENCH DONE) is
			# booted once more; its console log and run-vm's messages stay
			# in DIR/logs.
			for attempt in 1 2; do
				echo "bench: $c/$w: booting ($kver, ${duration}s workload, attempt $attempt)" >&2
				start=$SECONDS
				rc=0
				"$vm/run-vm.sh" --kernel "$vmlinuz" --initrd "$work/initrd.cpio.gz" \
					--timeout "$timeout_s" --log "$log" --topology "$topology" \
					--append "BENCH_CONFIG=$c BENCH_WORKLOAD=$w BENCH_DURATION=$duration BENCH_INTERVAL=$interval BENCH_SLOW_NODE=$slow_node" \
					2>"$out/logs/$c-$w.err" |
					tr -d '\r' | grep --line-buffered -E '^BENCH (EVENT|T90|FINAL|ERROR|GUEST tiering)' |
					sed -u "s|^|bench: $c/$w: |" >&2 || rc=${PIPESTATUS[0]}
				sed "s|^|bench: $c/$w: |" "$out/logs/$c-$w.err" >&2
				echo "bench: $c/$w: guest rc $rc after $((SECONDS - start)) s host time" >&2
				complete "$log" && break
			done
		done
	done
fi

# ---- results ------------------------------------------------------------------

# One CSV row (without the ×ideal column) and the time series of one log.
parse() {
	local cfg=$1 wl=$2 log=$3 dat=$4
	tr -d '\r' <"$log" | awk -v cfg="$cfg" -v wl="$wl" -v dat="$dat" '
		function kv(line, key,    a, n, i) {
			n = split(line, a, /[ ]+/)
			for (i = 1; i <= n; i++)
				if (index(a[i], key "=") == 1)
					return substr(a[i], length(key) + 2)
			return ""
		}
		/^BENCH GUEST kernel=/ { kernel = kv($0, "kernel") }
		/^BENCH SAMPLE/ {
			printf "%s %s %s\n", kv($0, "t"), kv($0, "fast_ratio"), kv($0, "hot_fast") > dat
			# The last sample: scan and lukewarm report what happened to their cold data.
			scan_s0f = kv($0, "scan_slow0_fast"); scan_pro = kv($0, "scan_promoted_bytes")
			cold_dem = kv($0, "cold_demoted_bytes")
		}
		/^BENCH T90/ {
			n = kv($0, "n") + 0; v = kv($0, "t90")
			s = (v == "NA") ? ">" kv($0, "window") : v
			if (n == 0) { t90s = s }
			else {
				shifts++
				if (v == "NA") { censored = 1; cw = (cw == "" || kv($0, "window") + 0 < cw + 0) ? kv($0, "window") : cw }
				else { reached++; if (worst == "" || v + 0 > worst + 0) worst = v }
			}
		}
		/^BENCH FINAL/ { mean = kv($0, "mean_fast_ratio"); need = kv($0, "need_bytes"); dur = kv($0, "t") }
		/^BENCH RESULT/ {
			for (i = 3; i <= NF; i++) { split($i, p, "="); r[p[1]] = p[2] }
		}
		/^BENCH ERROR/ { err = 1 }
		/^BENCH DONE/ { done = 1 }
		END {
			status = done && mean != "" ? "ok" : "failed"
			t90sh = ""
			if (shifts) t90sh = censored ? ">" cw : worst
			el = r["elapsed_s"] + 0
			cpu_d = (el > 0 && ("daemon_ticks" in r)) ? sprintf("%.3f", r["daemon_ticks"] / el) : ""
			cpu_k = (el > 0 && ("kdamond_ticks" in r)) ? sprintf("%.2f", r["kdamond_ticks"] / el) : ""
			cpu_s = (el > 0 && ("kswapd_ticks" in r)) ? sprintf("%.2f", r["kswapd_ticks"] / el) : ""
			# The kdamonds and the daemon together, where either ran.
			cpu_kd = (cpu_d != "" || cpu_k != "") ? sprintf("%.2f", cpu_d + cpu_k) : ""
			mn = (need + 0 > 0 && r["migrated_bytes"] != "") ? sprintf("%.2f", r["migrated_bytes"] / need) : ""
			printf "%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
				kernel, cfg, wl, dur, mean, t90s, t90sh, shifts, reached,
				r["migrated_bytes"], need, mn, r["damon_promoted_bytes"], r["damon_demoted_bytes"],
				r["pgpromote"], r["pgdemote"], r["numa_pages_migrated"],
				cpu_d, cpu_k, cpu_kd, cpu_s, r["daemon_vmhwm_kb"], scan_s0f, scan_pro, cold_dem, status
		}'
}

csv=$out/results.csv
hdr="kernel,config,workload,duration_s,mean_fast_ratio,x_ideal,t90_start_s,t90_shift_worst_s,shifts,shifts_reached_90,migrated_bytes,need_bytes,migrated_over_need,damon_promoted_bytes,damon_demoted_bytes,pgpromote,pgdemote,numa_pages_migrated,daemon_cpu_pct,kdamond_cpu_pct,kdamonds_daemon_cpu_pct,kswapd_cpu_pct,daemon_vmhwm_kb,scan_slow0_fast,scan_promoted_bytes,cold_demoted_bytes,status"
rows=$work/rows
: >"$rows"
failed=0
for w in "${WLS[@]}"; do
	for c in "${CFGS[@]}"; do
		log=$out/logs/$c-$w.log
		dat=$out/series/$c-$w.dat
		if [[ -f $log ]]; then
			: >"$dat"
			parse "$c" "$w" "$log" "$dat" >>"$rows"
		else
			echo ",$c,$w,,,,,0,0,,,,,,,,,,,,,,,,,missing" >>"$rows"
		fi
	done
done
# The ×ideal column: each mean over the same workload's ideal mean.
awk -F, -v OFS=, -v hdr="$hdr" '
	{ line[NR] = $0; if ($2 == "ideal" && $5 != "") ideal[$3] = $5 }
	END {
		print hdr
		for (i = 1; i <= NR; i++) {
			n = split(line[i], f, ",")
			x = (f[3] in ideal && f[5] != "" && ideal[f[3]] > 0) ? sprintf("%.3f", f[5] / ideal[f[3]]) : ""
			s = f[1] OFS f[2] OFS f[3] OFS f[4] OFS f[5] OFS x
			for (j = 6; j <= n; j++) s = s OFS f[j]
			print s
		}
	}' "$rows" >"$csv"
grep -q ',ok$' "$csv" || true
if grep -qE ',(failed|missing)$' "$csv"; then failed=1; fi

kernel=$(awk -F, 'NR > 1 && $1 != "" { print $1; exit }' "$csv")
md=$out/results.md
{
	echo "# Tiering benchmark: ${kernel:-kernel $glob}"
	echo
	if [[ $topology == 3tier ]]; then
		echo "Three-tier TCG guest (tests/vm/run-vm.sh --topology 3tier): node 0 with both CPUs (384 MiB),"
		echo "CPU-less node 1 (256 MiB, 250 ns) and node 2 (384 MiB, 500 ns) in two lower memory tiers. The"
		echo "workload's slow node is node 2: its hot set starts there, node 1 starts empty. \`seed\` runs"
		echo "its two-node parameters on nodes 0 and 2. One fresh VM per row. Workload duration ${duration} s"
		echo "of guest time, samples every ${interval} s. Generated by \`tests/bench/bench.sh --topology 3tier\`;"
		echo "columns are explained below (\"node 1\" there is the slow node, node 2 here)."
	else
		echo "Two-node TCG guest (tests/vm/run-vm.sh): node 0 with both CPUs, CPU-less node 1 in a lower"
		echo "memory tier, 512 MiB each. One fresh VM per row. Workload duration ${duration} s of guest time,"
		echo "samples every ${interval} s. Generated by \`tests/bench/bench.sh\`; columns are explained below."
	fi
	if [[ -f $out/logs/daemon-version.txt ]]; then
		echo
		sed 's/^/Measured: /; s/$/  /' "$out/logs/daemon-version.txt"
	fi
	echo
	echo "| workload | config | mean fast ratio | × ideal | t90 start (s) | t90 shift (s) | migrated MiB | had to move MiB | migrated / had to move | DAMON promoted / demoted MiB | damon-tierd CPU % | kdamond CPU % | kdamonds + daemon CPU % | damon-tierd VmHWM MiB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	# Columns by their CSV header names.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	function v(name) { return $(c[name]) }
	function or_dash(x) { return x != "" ? x : "–" }
	{
		if (v("status") != "ok") { printf "| %s | %s | %s | | | | | | | | | | | |\n", v("workload"), v("config"), v("status"); next }
		mig = v("migrated_bytes"); need = v("need_bytes"); pro = v("damon_promoted_bytes"); dem = v("damon_demoted_bytes")
		m = (mig != "") ? sprintf("%.0f", mig / 1048576) : ""
		nd = (need != "" && need > 0) ? sprintf("%.0f", need / 1048576) : "0"
		dm = (pro != "" || dem != "") ? sprintf("%.0f / %.0f", pro / 1048576, dem / 1048576) : "–"
		sh = (v("shifts") > 0) ? v("t90_shift_worst_s") ((v("shifts") > 1) ? " (worst of " v("shifts") ")" : "") : "–"
		hw = (v("daemon_vmhwm_kb") != "") ? sprintf("%.1f", v("daemon_vmhwm_kb") / 1024) : "–"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			v("workload"), v("config"), v("mean_fast_ratio"), or_dash(v("x_ideal")), v("t90_start_s"), sh,
			m, nd, or_dash(v("migrated_over_need")), dm, or_dash(v("daemon_cpu_pct")),
			or_dash(v("kdamond_cpu_pct")), or_dash(v("kdamonds_daemon_cpu_pct")), hw
	}' "$csv"
	echo
	# The scan workload: what the passes dragged into node 0.
	if grep -q '^[^,]*,[^,]*,scan,.*,ok$' "$csv"; then
		echo "| scan: config | scanned data that started on node 1, share on node 0 at the end | scanned data seen promoted, MiB |"
		echo "|---|---|---|"
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["workload"]) == "scan" && $(c["status"]) == "ok" {
			printf "| %s | %s | %.0f |\n", $(c["config"]), $(c["scan_slow0_fast"]), $(c["scan_promoted_bytes"]) / 1048576
		}' "$csv"
		echo
	fi
	cat <<'EOF'
- **mean fast ratio**: time-weighted mean over the run of the share of the workload's accesses that
  hit node-0 pages, computed by the workload from its own access distribution and the placement of
  its pages (`move_pages`). **× ideal**: that mean over the `ideal` row's mean for the workload.
- **t90**: guest seconds from the start (t = 0, when the tiering policy is already set up) or from a
  shift (a new hot set) until 90% of the hot set is on node 0; `>N` = not reached within the N
  seconds before the next shift or the end. For grow, the worst over its growth steps.
- **migrated**: guest `/proc/vmstat` `pgmigrate_success` delta × 4 KiB (every migration: DAMON, NUMA
  balancing, kswapd demotion, the ideal workload's own `move_pages`). **had to move**: per hot-set
  change, its bytes on node 1 plus the bytes that had to leave node 0 to make room (beyond node 0's
  free memory above its zone high watermarks), summed by the workload.
  **DAMON promoted / demoted**: the schemes' `sz_applied`.
- **CPU %**: `/proc/PID/stat` utime+stime over the run, in % of one guest CPU (damon-tierd, and the
  kdamonds listed in `/sys/kernel/mm/damon/admin/kdamonds/*/pid`); **kdamonds + daemon**: the two
  summed, the whole cost of DAMON-based tiering. **VmHWM**: damon-tierd's peak RSS.
- **scan** (its own table): of the cold data that was on node 1 at t = 0, the share on node 0 at the
  end, and the scanned bytes seen moving from node 1 to node 0 between two samples, summed over the
  run. Every pass reads all of it, so a policy that promotes recently touched pages drags it in.
- Configurations: `none` no tiering (numa_balancing 0, damon_stat as booted); `numab`
  numa_balancing=2 + demotion_enabled=true; `seed` samples/damon/mtier.c's parameters written by
  `tests/bench/guest/seed-mtier.sh`; `tierd` damon-tierd's shipped defaults with numa_balancing=0
  (measured alone); `ideal` the workload places its hot set on node 0 itself.
- Guest time under TCG, on a machine shared with other VMs: compare rows, not absolute speeds.
EOF
} >"$md"

# ---- plot ---------------------------------------------------------------------

png=$out/fast-ratio.png
if command -v gnuplot >/dev/null; then
	gp=$work/plot.gp
	nw=${#WLS[@]}
	{
		echo "set terminal pngcairo size 1100,$((330 * nw + 40)) font 'sans,10'"
		echo "set output '$png'"
		echo "set multiplot layout $nw,1 title 'Fast-tier (node 0) access ratio over time, ${kernel:-$glob}'"
		echo "set yrange [0:1.05]; set xrange [0:*]; set autoscale xfix"
		echo "set ylabel 'fast ratio'; set grid; set key outside right top"
		echo "set xlabel 'guest seconds since start'"
		for w in "${WLS[@]}"; do
			echo "unset arrow"
			# The hot-set changes (and scan passes), from the first log of this
			# workload that has them.
			for c in "${CFGS[@]}"; do
				log=$out/logs/$c-$w.log
				[[ -f $log ]] || continue
				tr -d '\r' <"$log" | awk '
					/^BENCH EVENT/ && / kind=shift / { style = "dashtype 2 lc rgb \"gray40\"" }
					/^BENCH SCAN/ && / kind=start / { style = "dashtype 3 lc rgb \"#9467bd\"" }
					/^BENCH (EVENT|SCAN)/ && / kind=(shift|start) / && style != "" {
						for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { sub(/^t=/, "", $i); printf "set arrow from %s, graph 0 to %s, graph 1 nohead %s\n", $i, $i, style }
						style = ""
					}'
				break
			done
			case $w in
			zipf) echo "set title '$w'" ;;
			scan) echo "set title '$w (dotted: scan passes)'" ;;
			*) echo "set title '$w (dashed: hot-set shifts)'" ;;
			esac
			plot="plot"
			sep=""
			for c in "${CFGS[@]}"; do
				dat=$out/series/$c-$w.dat
				[[ -s $dat ]] || continue
				case $c in
				none) style="lw 2 lc rgb '#808080'" ;;
				numab) style="lw 2 lc rgb '#1f77b4'" ;;
				seed) style="lw 2 lc rgb '#ff7f0e'" ;;
				tierd) style="lw 3 lc rgb '#d62728'" ;;
				ideal) style="lw 2 dt 3 lc rgb '#2ca02c'" ;;
				esac
				plot+="$sep '$dat' using 1:2 with lines $style title '$c'"
				sep=","
			done
			if [[ $plot == plot ]]; then
				echo "set label 1 'no data' at graph 0.45, graph 0.5; plot 2 notitle; unset label 1"
			else
				echo "$plot"
			fi
		done
		echo "unset multiplot"
	} >"$gp"
	gnuplot "$gp" || echo "bench: gnuplot failed; no $png" >&2
else
	echo "bench: gnuplot not found (apt-get install gnuplot-nox): no $png" >&2
fi

cat "$md"
echo "bench: wrote $md, $csv, $png" >&2

if ((smoke)); then
	for c in "${CFGS[@]}"; do
		grep -qE "^\| gups \| $c \| [0-9.]+ \|" "$md" || {
			echo "bench: smoke: no result row for $c/gups" >&2
			exit 1
		}
	done
	echo "bench: smoke: table has rows for ${CFGS[*]}" >&2
fi
exit "$failed"
