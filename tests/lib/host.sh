# shellcheck shell=bash
# tests/lib/host.sh: the helpers the host-side test scripts share (bash).
# A script sources it relative to itself, e.g. from tests/vm:
#   # shellcheck source=SCRIPTDIR/../lib/host.sh
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
# and sets PROG (the name its messages start with) and, where an error is
# not exit status 1, DIE_STATUS.  The guests have their own library,
# tests/lib/guest.sh.

# --- messages ------------------------------------------------------------------
say() { echo "${PROG:-${0##*/}}: $*" >&2; }
die() {
	say "error: $*"
	exit "${DIE_STATUS:-1}"
}
# help_text: the script's header comment (from line 2 up to "set -euo"),
# without the comment marks: its usage.
help_text() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

# --- PASS/FAIL counting (tests/cli, tests/pkg) ------------------------------------
# Counts in pass and fail; finish prints "N passed, M failed" and fails when
# one did.
pass=0 fail=0
# ok [MESSAGE]: a passed check ("PASS: MESSAGE" when given).
ok() {
	pass=$((pass + 1))
	(($# == 0)) || echo "PASS: $*"
}
# bad MESSAGE: a failed check, "FAIL: MESSAGE".
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
# check DESCRIPTION COMMAND...: ok or bad by COMMAND's status.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "$pass passed, $fail failed"
	((fail == 0))
}
# check_exit NAME STATUS COMMAND...: COMMAND exits with STATUS; its stdout
# and stderr stay in $tmp/out and $tmp/err (tmp: the test's temporary
# directory) for expect_in.
check_exit() {
	local name=$1 want=$2 got=0
	shift 2
	"$@" >"${tmp:?}/out" 2>"$tmp/err" || got=$?
	if [[ $got == "$want" ]]; then
		ok
	else
		bad "$name: exit $got, expected $want"
		sed 's/^/  out: /' "$tmp/out" | head -40
		sed 's/^/  err: /' "$tmp/err" | head -20
	fi
}
# expect_in NAME FILE TEXT: FILE has the fixed string TEXT.
expect_in() {
	if grep -qF -- "$3" "$2"; then
		ok
	else
		bad "$1: '$3' not in $2:"
		sed 's/^/  /' "$2" | head -40
	fi
}
# expect_not_in NAME FILE TEXT: FILE does not have TEXT.
expect_not_in() {
	if ! grep -qF -- "$3" "$2"; then
		ok
	else
		bad "$1: '$3' unexpectedly in $2"
	fi
}

# cli_test_setup: what every tests/cli script starts with: bin, the daemon
# ($DAMON_TIERD), fix, the fixtures ($FIXTURES_DIR), and tmp, a directory
# removed at exit.
cli_test_setup() {
	# shellcheck disable=SC2034  # bin is the sourcing script's
	bin=${DAMON_TIERD:?}
	fix=${FIXTURES_DIR:?}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# fixture_root FIXTURE [KERNEL]: a fresh copy of tests/fixtures/FIXTURE (from
# $fix) under $tmp, with an empty DAMON admin directory and KERNEL's BTF
# (default 6.17), for --sysfs-root; prints its path.
fixture_root() {
	local d=${tmp:?}/root-$1
	rm -rf "$d"
	cp -a "${fix:?}/$1" "$d"
	mkdir -p "$d/sys/kernel/mm/damon/admin/kdamonds" "$d/sys/kernel/btf"
	echo 0 >"$d/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
	cp "$fix/btf/${2:-6.17}.btf" "$d/sys/kernel/btf/vmlinux"
	echo "$d"
}

# skip_without TOOL HINT: exit 77 (meson's skip) where TOOL is not on PATH,
# saying what installs it.
skip_without() {
	if ! command -v "$1" >/dev/null; then
		echo "SKIP: $1 is not installed ($2)"
		exit 77
	fi
}

# --- packages (tests/pkg) --------------------------------------------------------
# copy_tree TOP DEST: the tree at TOP as it is on disk (committed or not)
# into DEST, without .git, build directories and the leftovers of an
# in-tree package build.
copy_tree() {
	tar -C "$1" -cf - \
		--exclude=./.git --exclude='./build*' --exclude='./obj-*' \
		--exclude=./debian/.debhelper --exclude=./debian/damon-tierd \
		--exclude=./debian/files --exclude='./debian/*.substvars' \
		--exclude='./debian/*.debhelper' --exclude='./debian/*.debhelper.log' \
		--exclude=./debian/debhelper-build-stamp \
		. | tar -C "$2" -xf -
}
# out_dir NAME [DIR]: prints DIR (created) as an absolute path, or a new
# directory NAME.XXXXXX under ${TMPDIR:-/tmp}.
out_dir() {
	if [[ $# -eq 2 ]]; then
		mkdir -p "$2" && (cd "$2" && pwd)
	else
		mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX"
	fi
}
# check_file_list EXPECTED ACTUAL: the package's file list (sorted, one path
# a line) is EXPECTED, or the missing and unexpected paths.
check_file_list() {
	if [[ $2 == "$1" ]]; then
		ok "file list is the expected $(wc -l <<<"$1") files"
	else
		bad "file list differs: $(diff <(echo "$1") <(echo "$2") | grep '^[<>]' |
			sed -e 's/^</missing/' -e 's/^>/unexpected/' | paste -sd, -)"
	fi
}
# check_payload ROOT BIN VERSION: the package unpacked at ROOT, its daemon at
# ROOT/BIN: every Exec*= program of the unit is shipped, --version prints
# VERSION, the search path starts at /etc (a --prefix=/usr build), and the
# shipped config passes --check-config.  Needs $tmp.
check_payload() {
	local root=$1 bin=$1$2 version=$3 prog progs_ok=true
	local unit=$root/usr/lib/systemd/system/damon-tierd.service
	while read -r prog; do
		[[ $prog == /bin/kill || -x $root$prog ]] || { echo "  unit runs $prog, not in the package"; progs_ok=false; }
	done < <(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit")
	check "every Exec*= program of the unit is in the package" $progs_ok
	check "damon-tierd --version prints $version" test "$("$bin" --version 2>&1)" = "damon-tierd $version"
	check "damon-tierd --help: the search path starts at /etc/damon-tierd.conf (--prefix=/usr)" \
		test "$("$bin" --help | sed -n '/^Configuration search path/{n;p;}')" = '  /etc/damon-tierd.conf'
	if "$bin" --config-root "$root" --check-config >/dev/null 2>"${tmp:?}/cc.err" &&
		grep -q "$root/etc/damon-tierd.conf" "$tmp/cc.err"; then
		ok "the shipped binary accepts the shipped config ($(tail -1 "$tmp/cc.err"))"
	else
		bad "the shipped binary rejects the shipped config: $(cat "$tmp/cc.err")"
	fi
}

# --- VM tests (tests/vm, tests/bench) ------------------------------------------
# vm_binaries: sets daemon and workload, the binaries the guests run:
# $DAMON_TIERD and $WORKLOAD, by default from build/ under $top.
vm_binaries() {
	daemon=${DAMON_TIERD:-$top/build/damon-tierd}
	workload=${WORKLOAD:-$top/build/tests/vm/workload}
	[[ -x $daemon ]] || die "no damon-tierd binary at $daemon (build first, or set DAMON_TIERD)"
	[[ -x $workload ]] || die "no workload binary at $workload (set WORKLOAD)"
}
# tierd_conf DEST [FILE]: the daemon's config for a guest: a copy of FILE, or
# the shipped defaults with only a shorter status interval, so that the log
# shows progress (logging only; no tiering parameter is touched).
tierd_conf() {
	if [[ -n ${2:-} ]]; then
		cp "$2" "$1"
	else
		printf '[daemon]\nstatus_interval = 10s\n' >"$1"
	fi
}
# split_sections CONSOLE DIR [SUFFIX]: writes each "@@BEGIN x" ... "@@END x"
# section of a guest's console log to DIR/xSUFFIX.txt.
split_sections() {
	mkdir -p "$2"
	tr -d '\r' <"$1" | awk -v dir="$2" -v sfx="${3:-}" '
		/@@BEGIN / { sub(/.*@@BEGIN /, ""); name = $1; file = dir "/" name sfx ".txt"; printf "" > file; next }
		/@@END / { close(file); name = ""; next }
		name != "" { print >> file }
	'
}

# --- the Debian mirror (fetch-kernel.sh, mkrootfs.sh) ------------------------------
# mirror_for_suite SUITE: the URI of the first apt source entry of this
# machine (deb822 or one-line format) whose suites contain exactly SUITE:
# never a host name written into the repository.
mirror_for_suite() {
	local want=$1 f
	local -a files=()
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	if ((${#files[@]})); then
		awk -v want="$want" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && uris != "" && (" " suites " ") ~ (" " want " ") && !done) {
					split(uris, u, " "); print u[1]; done = 1
				}
				types = ""; uris = ""; suites = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			{
				line = $0; sub(/^[ \t]+/, "", line)
				key = tolower(line); sub(/:.*/, "", key)
				val = line; sub(/^[^:]*:[ \t]*/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
			}
			END { flush() }
		' "${files[@]}" | head -n1
	fi
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] || continue
		awk -v want="$want" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == want) { print $i; exit }
			}
		' "$f"
	done | head -n1
}
