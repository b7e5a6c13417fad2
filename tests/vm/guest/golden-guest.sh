#!/bin/sh
# Guest body that captures the golden DAMON sysfs data of tests/golden/damon-sysfs
# (read by tests/unit/test-fake-golden.c).  Run it on the host with
#   flock /tmp/vm.lock tests/vm/smoke.sh --kernel 6.12 --info-only \
#       --guest tests/vm/guest/golden-guest.sh --notes tests/golden/damon-sysfs
# which writes each @@BEGIN x/@@END x section below to x-<major.minor>.txt.
#
# It gives one kdamond one of everything: every nr_* file of the staging tree
# (kdamonds, contexts, targets, regions, schemes, goals, dests, probes and each
# filters directory) is raised from 0 to 1 until none is left at 0.  Then:
#   tree:     every path below /sys/kernel/mm/damon, one a line:
#             "d PATH" for a directory, "ro PATH" / "rw PATH" / "wo PATH" for a
#             file (its owner permission bits: what the kernel lets a write do)
#   values:   "PATH=VALUE" for every readable file, newlines as a literal \n
#   keywords: "PATH WORD RESULT" for every keyword file (operations, action,
#             type, target_metric, metric, goal_tuner) and every candidate
#             word: RESULT is "ok" or the error text of the write ("Invalid
#             argument"); the file's value is put back after each file
#   modules:  "MODULE/parameters/NAME" for every damon_* module parameter,
#             with "=VALUE" for enabled only (others hold live measurements
#             such as damon_stat's, which would differ on every capture)
# Paths are relative to /sys/kernel/mm/damon (/sys/module for modules), sorted.
# Each section starts with a "# uname -r" line.
# Only this throwaway guest's DAMON staging files are written; no kdamond is
# started.  Self-contained on purpose: busybox sh, no shared guest library.
# Exit status: 0 when the capture is complete.

D=/sys/kernel/mm/damon
K=$D/admin/kdamonds
kver=$(uname -r)

if [ ! -f "$K/nr_kdamonds" ]; then
	echo "golden: no $K/nr_kdamonds in $kver (CONFIG_DAMON_SYSFS?)"
	exit 1
fi
if [ "$(cat "$K/nr_kdamonds")" != 0 ]; then
	echo "golden: nr_kdamonds is not 0 at boot; the defaults would not be defaults"
	exit 1
fi

# Raise every staging nr_* file from 0 to 1; a raise creates new nr_* files
# below it, so repeat until a pass finds none.  Stats files such as
# stats/nr_tried and weights/nr_accesses_permil are not counts of children,
# hence the explicit names.
pass=0
while :; do
	raised=0
	for f in $(find "$D" -type f \( -name nr_kdamonds -o -name nr_contexts \
		-o -name nr_targets -o -name nr_regions -o -name nr_schemes \
		-o -name nr_goals -o -name nr_filters -o -name nr_dests \
		-o -name nr_probes \) | sort); do
		[ "$(cat "$f")" = 0 ] || continue
		if ! echo 1 >"$f"; then
			echo "golden: cannot raise $f"
			exit 1
		fi
		raised=1
	done
	[ "$raised" = 1 ] || break
	pass=$((pass + 1))
	if [ "$pass" -gt 10 ]; then
		echo "golden: nr_* files still at 0 after 10 passes"
		exit 1
	fi
done

# rel PATH: PATH below /sys/kernel/mm/damon
rel() { echo "${1#"$D"/}"; }

# perm FILE: ro, rw or wo from the owner bits of its mode (root may write
# anything, so test -w cannot tell)
perm() {
	case $(stat -c %A "$1" | cut -c2-3) in
	rw) echo rw ;;
	r-) echo ro ;;
	-w) echo wo ;;
	*) echo "??" ;;
	esac
}

# value FILE: the content, newlines as a literal \n
value() {
	awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }' "$1" 2>/dev/null || echo "?unreadable"
}

echo "@@BEGIN tree"
echo "# $kver"
find "$D" -mindepth 1 | sort | while read -r p; do
	if [ -d "$p" ]; then
		echo "d $(rel "$p")"
	else
		echo "$(perm "$p") $(rel "$p")"
	fi
done
echo "@@END tree"

echo "@@BEGIN values"
echo "# $kver"
find "$D" -type f | sort | while read -r p; do
	[ "$(perm "$p")" = wo ] && continue
	echo "$(rel "$p")=$(value "$p")"
done
echo "@@END values"

# Candidate words: everything any kernel of tests/vm has been seen to know,
# and one no kernel knows.
words() {
	case $1 in
	operations) echo vaddr fvaddr paddr ;;
	action)
		echo willneed cold pageout hugepage nohugepage collapse lru_prio \
			lru_deprio migrate_hot migrate_cold stat
		;;
	type)
		echo anon active memcg young hugepage_size unmapped addr target
		;;
	target_metric)
		echo user_input some_mem_psi_us node_mem_used_bp node_mem_free_bp \
			memcg_mem_used_bp memcg_mem_free_bp node_memcg_used_bp \
			node_memcg_free_bp active_mem_bp inactive_mem_bp node_eligible_mem_bp
		;;
	metric) echo none free_mem_rate ;;
	goal_tuner) echo consist temporal aggressive fixed ;;
	esac
	echo nonesuch
}

echo "@@BEGIN keywords"
echo "# $kver"
find "$D" -type f \( -name operations -o -name action -o -name type \
	-o -name target_metric -o -name metric -o -name goal_tuner \) | sort |
	while read -r p; do
		orig=$(cat "$p")
		for w in $(words "$(basename "$p")"); do
			if err=$( (echo "$w" >"$p") 2>&1); then
				echo "$(rel "$p") $w ok"
			else
				# busybox: "sh: write error: Invalid argument"
				echo "$(rel "$p") $w ${err##*: }"
			fi
		done
		echo "$orig" >"$p" 2>/dev/null
	done
echo "@@END keywords"

echo "@@BEGIN modules"
echo "# $kver"
for p in $(find /sys/module -maxdepth 3 -path '/sys/module/damon*/parameters/*' -type f | sort); do
	case $p in
	*/enabled) echo "${p#/sys/module/}=$(value "$p")" ;;
	*) echo "${p#/sys/module/}" ;;
	esac
done
echo "@@END modules"

echo "golden: capture complete"
exit 0
