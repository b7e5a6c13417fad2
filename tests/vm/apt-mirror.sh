# shellcheck shell=bash
# Sourced by fetch-kernel.sh and mkrootfs.sh: find the machine's own Debian
# mirror in its apt sources (never a host name written into the repo).

# Print the URIs of the first apt source entry (deb822 or one-line format)
# whose suites contain exactly $1.
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
