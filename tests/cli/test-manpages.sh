#!/usr/bin/env bash
# The man pages cannot drift from the program: every option and exit code of
# --help is in damon-tierd(8), every key of the shipped config is in its
# section of damon-tierd.conf(5) with the same default, and groff renders
# both without warnings.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$here/../lib/host.sh"
bin=${DAMON_TIERD:-}
man8=$top/man/damon-tierd.8
man5=$top/man/damon-tierd.conf.5
conf=$top/conf/damon-tierd.conf

if [[ -z $bin || ! -x $bin ]]; then
	echo "FAIL: \$DAMON_TIERD must name the built binary (got '${bin}'); meson test sets it," \
	     "by hand: meson setup /tmp/bm && ninja -C /tmp/bm && DAMON_TIERD=/tmp/bm/damon-tierd $0"
	exit 1
fi
for f in "$man8" "$man5" "$conf"; do
	[[ -r $f ]] || { echo "FAIL: cannot read $f"; exit 1; }
done

# The roff source with escapes undone, so that "\-\-dry\-run" reads
# "--dry-run" and "\fBsize\fP" reads "size".
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\&//g' -e 's/\\(em/--/g' "$1"
}
# The lines of one .SH section ("EXIT STATUS", "\"[quota] SECTION\"").
section() { # file, heading as written after .SH
	plain "$1" | awk -v h=".SH $2" '$0 == h { on = 1; next } /^\.SH / { on = 0 } on'
}

help=$("$bin" --help)

# --- options ----------------------------------------------------------------
mapfile -t longopts < <(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u)
mapfile -t shortopts < <(grep -oE -- '(^|[ ,])-[a-zA-Z]([ ,]|$)' <<<"$help" | tr -d ' ,' | sort -u)
if ((${#longopts[@]} < 5)); then
	bad "options: found only ${#longopts[@]} long options in --help: ${longopts[*]}"
fi
options=$(section "$man8" OPTIONS)
for o in "${longopts[@]}" "${shortopts[@]}"; do
	# As an entry of OPTIONS: ".BR -c ", " --config =FILE", ".B --once".
	if grep -qE -- "^\.(B|BR) (|.*[ \"])$o([ \"=]|$)" <<<"$options"; then
		ok
	else
		bad "option $o (from --help) has no entry in OPTIONS of $man8"
	fi
done

# --- exit codes ---------------------------------------------------------------
mapfile -t codes < <(sed -n '/^Exit status:/,$p' <<<"$help" | grep -oE '(^|[ ,:])[0-9]+ [a-z]' |
		     grep -oE '[0-9]+' | sort -un)
if ((${#codes[@]} < 3)); then
	bad "exit codes: found only ${#codes[@]} in the 'Exit status:' part of --help: ${codes[*]}"
fi
exits=$(section "$man8" "EXIT STATUS")
for c in "${codes[@]}"; do
	if grep -qx "\.B $c" <<<"$exits"; then
		ok
	else
		bad "exit code $c (from --help) has no entry in EXIT STATUS of $man8"
	fi
done

# --- config keys and their defaults -----------------------------------------
nkeys=0
while read -r sect key value; do
	nkeys=$((nkeys + 1))
	body=$(section "$man5" "\"[$sect] SECTION\"")
	if [[ -z $body ]]; then
		bad "key [$sect] $key: no section '[$sect] SECTION' in $man5"
		continue
	fi
	# The entry line: .BR key " = " <type> " (default " value )
	entry=$(grep -E "^\.BR $key \" = \"" <<<"$body" || true)
	if [[ -z $entry ]]; then
		bad "key [$sect] $key (from $conf) has no entry in '[$sect] SECTION' of $man5"
		continue
	fi
	ok
	if grep -qF "(default \" $value )" <<<"$entry"; then
		ok
	else
		bad "key [$sect] $key: $conf says '$value', $man5 says: $entry"
	fi
done < <(awk '
	/^\[[a-z]+\]/ { s = substr($1, 2, length($1) - 2); next }
	s != "" && /^#[a-z_]+ = / { v = $0; sub(/^#[a-z_]+ = /, "", v); print s, substr($1, 2), v }
' "$conf")
if ((nkeys < 20)); then
	bad "config keys: found only $nkeys '#key = value' lines under [section] in $conf"
fi

# --- rendering ----------------------------------------------------------------
if command -v groff >/dev/null; then
	for f in "$man8" "$man5"; do
		out=$(groff -man -Tutf8 -ww -z "$f" 2>&1) && st=0 || st=$?
		if [[ $st == 0 && -z $out ]]; then
			ok
		else
			bad "groff -man -ww $f: exit $st"
			head -20 <<<"$out" | sed 's/^/  /'
		fi
	done
else
	echo "SKIP rendering: groff is not installed (apt-get install groff-base)"
fi

finish
