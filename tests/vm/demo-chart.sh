#!/bin/bash
# demo-chart.sh: reads the e2e guest console on stdin and draws the hot set's
# placement as a live text chart, one row per workload report.
set -uo pipefail

bar() { # fraction width -> "#####....."
	awk -v f="$1" -v w="$2" 'BEGIN { n = int(f * w + 0.5); s = ""; for (i = 0; i < w; i++) s = s (i < n ? "#" : "."); print s }'
}

echo "damon-tierd demo: a 64 MiB hot set starts on the slow node (node1); cold data fills node0."
echo
while IFS= read -r line; do
	line=${line//$'\r'/}
	case $line in
	*"WORKLOAD t="* | *"WORKLOAD FINAL"*)
		t=$(sed -n 's/.*t=\([0-9.]*\).*/\1/p' <<<"$line")
		hot=$(sed -n 's/.*hot_on_node0=\([0-9.]*\).*/\1/p' <<<"$line")
		cold=$(sed -n 's/.*cold_on_node1=\([0-9.]*\).*/\1/p' <<<"$line")
		printf 't=%5.0fs  hot set on fast node0 |%s| %3.0f%%   cold data on slow node1 |%s| %3.0f%%\n' \
			"$t" "$(bar "$hot" 30)" "$(awk -v f="$hot" 'BEGIN{print f*100}')" \
			"$(bar "$cold" 15)" "$(awk -v f="$cold" 'BEGIN{print f*100}')"
		;;
	*"DAEMON: damon-tierd: started kdamond"* | *"DAEMON: damon-tierd: found"* | *"goals: free"*)
		echo "  ${line#*DAEMON: }"
		;;
	*"E2E PASS"* | *"E2E FAIL"* | *"E2E esz"*)
		echo "  ${line#*E2E }"
		;;
	esac
done
