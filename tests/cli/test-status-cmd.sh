#!/usr/bin/env bash
# "damon-tierd status" as an operator meets it when something is wrong: a
# broken, missing or unreadable config (the report still shows, the error
# names file:line, exit 2), a stopped daemon ("running": false, exit 1),
# non-files in the state directory (no hang), --watch off a terminal (no
# escape sequences, one report per refresh), and the explanations per
# boundary.  The daemon runs blocked against a fixture tree whose foreign
# kdamond stops it: nothing touches the real /sys.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

bin=${DAMON_TIERD:?}
fix=${FIXTURES_DIR:?}
tmp=$(mktemp -d)
daemon=""
cleanup() {
	[[ -z $daemon ]] || kill -TERM "$daemon" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
state=$tmp/state
esc=$(printf '\033')

# The VM's two nodes, and kdamond 0 running for someone else.
r=$tmp/root
cp -a "$fix/vm-2node" "$r"
k=$r/sys/kernel/mm/damon/admin/kdamonds
mkdir -p "$k/0" "$r/sys/kernel/btf"
cp "$fix/btf/6.17.btf" "$r/sys/kernel/btf/vmlinux"
echo 1 >"$k/nr_kdamonds"
echo on >"$k/0/state"
echo 4242 >"$k/0/pid"

printf '[daemon]\nstate_dir = %s\ninterval = 1s\n' "$state" >"$tmp/ok.conf"
printf '[daemon]\nstate_dir = %s\n[quota]\nsize = 200 parsecs\n' "$state" >"$tmp/bad.conf"

# No daemon, no report: says so, exit 1, JSON with "running": false.
check_exit no-report 1 "$bin" status --config "$tmp/ok.conf"
expect_in no-report-msg "$tmp/out" "damon-tierd is not running; no status report: cannot read $state/status.txt"
check_exit no-report-json 1 "$bin" status --json --config "$tmp/ok.conf"
expect_in no-report-json "$tmp/out" '{"schema":1,"running":false,"stale":true,"age_s":null,'
expect_in no-report-json-error "$tmp/out" "\"error\":\"cannot read $state/status.json"

"$bin" --config "$tmp/ok.conf" --sysfs-root "$r" --foreground 2>"$tmp/daemon.err" &
daemon=$!
for _ in $(seq 100); do [[ -s $state/status.json ]] && break; sleep 0.1; done
expect_in daemon-blocked "$tmp/daemon.err" "kdamond 0 (pid 4242) is running and was not started by damon-tierd"

# Running, valid config: exit 0, and each side of the boundary says why.
check_exit running 0 "$bin" status --config "$tmp/ok.conf"
expect_in running-why-promote "$tmp/out" "  why: promotion blocked: kdamond 0 (pid 4242) is not damon-tierd's"
expect_in running-why-demote "$tmp/out" "  why: demotion blocked: kdamond 0 (pid 4242) is not damon-tierd's"
check_exit running-json 0 "$bin" status --json --config "$tmp/ok.conf"
expect_in running-json-head "$tmp/out" '{"schema":1,"running":true,"stale":false,"age_s":'
expect_in running-json-config "$tmp/out" '"config":{"valid":true,"error":null,"file":null,"line":null}'
expect_in running-json-daemon "$tmp/out" ',"pid":'"$daemon"',"interval_us":1000000,"state":"blocked"'
expect_in running-json-why "$tmp/out" '"explain":{"promote":{"activity":"blocked","reason":"blocked_foreign_kdamond"'
expect_not_in running-json-one-schema "$tmp/out" '"schema":1,"pid"'

# A broken config: the report all the same, the error with file:line, exit 2.
check_exit bad-config 2 "$bin" status --config "$tmp/bad.conf" --state-dir "$state"
expect_in bad-config-error "$tmp/out" "configuration: invalid: $tmp/bad.conf:4: [quota] size"
expect_in bad-config-keeps "$tmp/out" "the running daemon keeps the configuration it loaded"
expect_in bad-config-report "$tmp/out" "): blocked: kdamond 0 (pid 4242)"
check_exit bad-config-json 2 "$bin" status --json --config "$tmp/bad.conf" --state-dir "$state"
expect_in bad-config-json "$tmp/out" '"running":true,'
expect_in bad-config-json-where "$tmp/out" "\"config\":{\"valid\":false,\"error\":\"$tmp/bad.conf:4: [quota] size"
expect_in bad-config-json-line "$tmp/out" "\"file\":\"$tmp/bad.conf\",\"line\":4}"
# Without --state-dir it reads the default state directory, and says so.
check_exit bad-config-default-dir 1 "$bin" status --config "$tmp/bad.conf"
expect_in bad-config-default-dir "$tmp/out" "the default state directory (--state-dir DIR"
check_exit bad-config-default-dir-json 1 "$bin" status --json --config "$tmp/bad.conf"
expect_in bad-config-default-dir-json "$tmp/out" '"state_dir_default":true'
# Missing, or not a file: the same.
check_exit missing-config 2 "$bin" status --config "$tmp/nope.conf" --state-dir "$state"
expect_in missing-config "$tmp/out" "configuration: invalid: $tmp/nope.conf"
check_exit dir-config 2 timeout 10 "$bin" status --config "$tmp" --state-dir "$state"
expect_in dir-config "$tmp/out" "configuration: invalid: "

# --watch off a terminal: no escape sequences; JSON one object per line,
# text one report per refresh, each ending with an empty line.
check_exit watch-json 124 timeout -s INT 2 "$bin" status --watch --json --config "$tmp/ok.conf"
expect_not_in watch-json-no-escapes "$tmp/out" "$esc"
if [[ -s $tmp/out ]] && ! grep -qv '^{"schema":1,.*}$' "$tmp/out"; then ok; else bad "watch-json: not one object per line"; fi
check_exit watch-text 124 timeout -s INT 2 "$bin" status --watch --config "$tmp/ok.conf"
expect_not_in watch-text-no-escapes "$tmp/out" "$esc"
expect_in watch-text-report "$tmp/out" "why: promotion blocked"
if [[ -z $(tail -n 1 "$tmp/out") ]]; then ok; else bad "watch-text: a report does not end with an empty line"; fi

# Stopped: the last report reads "running": false, exit 1.
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
check_exit stopped 1 "$bin" status --config "$tmp/ok.conf"
expect_in stopped-msg "$tmp/out" "damon-tierd is not running (no process holds $state/lock); its last report:"
expect_in stopped-why "$tmp/out" "why: promotion stopped: damon-tierd has stopped"
check_exit stopped-json 1 "$bin" status --json --config "$tmp/ok.conf"
expect_in stopped-json "$tmp/out" '{"schema":1,"running":false,"stale":true,'
expect_in stopped-json-state "$tmp/out" '"state":"done"'

# Neither a FIFO for a report nor one for the lock makes it hang.
fifo=$tmp/fifo-state
mkdir "$fifo"
mkfifo "$fifo/status.json" "$fifo/status.txt" "$fifo/lock"
check_exit fifo 1 timeout 10 "$bin" status --config "$tmp/ok.conf" --state-dir "$fifo"
expect_in fifo-msg "$tmp/out" "$fifo/status.txt: not a regular file"
check_exit fifo-json 1 timeout 10 "$bin" status --json --config "$tmp/ok.conf" --state-dir "$fifo"
expect_in fifo-json "$tmp/out" "$fifo/status.json: not a regular file"

# Usage.
check_exit help 0 "$bin" status --help
expect_in help-state-dir "$tmp/out" "--state-dir DIR"
expect_in help-exit "$tmp/out" "2 bad usage, or an invalid or"
# Every refusal is one line with the program's name, never getopt's argv[0].
check_exit bad-arg 2 "$bin" status --frobnicate
check "bad-arg-msg" test "$(cat "$tmp/err")" = "damon-tierd: unknown option '--frobnicate'; try 'damon-tierd status --help'."
check_exit empty-state-dir 2 "$bin" status --state-dir ""
expect_in empty-state-dir-msg "$tmp/err" "damon-tierd: status: --state-dir needs a directory"
check_exit state-dir-no-value 2 "$bin" status --state-dir
check "state-dir-no-value-msg" test "$(cat "$tmp/err")" = "damon-tierd: --state-dir needs a value; try 'damon-tierd status --help'."
check_exit extra-arg 2 "$bin" status extra
check "extra-arg-msg" test "$(cat "$tmp/err")" = "damon-tierd: status: unexpected argument 'extra'; try 'damon-tierd status --help'."

finish
