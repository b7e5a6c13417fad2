#!/bin/bash
# fetch-kernel.sh VERSION_GLOB [CACHE_DIR]
#
# Finds the newest Debian "linux-image-<VERSION_GLOB>*-cloud-amd64" package
# (signed image preferred, never -dbg) in the suites trixie, trixie-backports,
# trixie-security, bookworm and bookworm-security, downloads it (and, for 7.x
# kernels, the linux-binary-* package it depends on) with `apt-get download`,
# extracts it into the cache and prints the path of the extracted vmlinuz.
#
# The Debian mirror is read at run time from this machine's apt sources; a
# private apt configuration under CACHE_DIR/apt is used so the machine's own
# apt setup is never changed.
#
# Layout of the cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/damon-tierd/kernels):
#   apt/                       private apt lists/cache/sources
#   debs/                      downloaded .deb files
#   <pkg>_<version>/root/      full extracted package tree(s)
#   <pkg>_<version>/vmlinuz    -> root/.../vmlinuz
#   <pkg>_<version>/config     -> root/.../config-*
#   <pkg>_<version>/modules    -> root/.../lib/modules/<kver>
#   <pkg>_<version>/kver       kernel release string (uname -r)
#   resolved/<glob>            name of the <pkg>_<version> dir chosen for <glob>
#
# A glob that was resolved before is answered from the cache without network
# access. Set FETCH_KERNEL_REFRESH=1 (or pass --refresh first) to look for a
# newer package again.
#
# VERSION_GLOB matching: the version part of the package name (between
# "linux-image-" and "-cloud-amd64") must equal the glob or start with the glob
# followed by '.', '-' or '+'. So "6.1" matches 6.1.0-42 but not 6.12.x; shell
# glob characters are allowed ("6.1[27]").
set -euo pipefail

# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
PROG=fetch-kernel

usage() {
	echo "usage: $0 [--refresh] VERSION_GLOB [CACHE_DIR]" >&2
	exit 2
}

refresh=${FETCH_KERNEL_REFRESH:-0}
if [[ ${1:-} == --refresh ]]; then
	refresh=1
	shift
fi
[[ $# -ge 1 && $# -le 2 ]] || usage
glob=$1
[[ -n $glob && $glob != */* ]] || usage
cache=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/damon-tierd/kernels}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)


# Serialise concurrent callers sharing one cache.
exec 9>"$cache/.lock"
flock 9

# Bump when the extracted layout changes; older cache entries are redone.
layout="layout-2"
resolved_file="$cache/resolved/$glob"

if [[ $refresh != 1 && -f $resolved_file ]]; then
	dir="$cache/$(cat "$resolved_file")"
	if [[ -e $dir/vmlinuz && $(cat "$dir/.complete" 2>/dev/null) == "$layout" ]]; then
		readlink -f "$dir/vmlinuz"
		exit 0
	fi
fi

# ---------------------------------------------------------------------------
# Private apt configuration.
# ---------------------------------------------------------------------------


main_uri=$(mirror_for_suite bookworm | head -n1)
[[ -n $main_uri ]] || die "no apt source with suite 'bookworm' found in /etc/apt"
sec_uri=$(mirror_for_suite bookworm-security | head -n1)
main_uri=${main_uri%/}
sec_uri=${sec_uri%/}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || die "missing $keyring (package debian-archive-keyring)"

aptdir="$cache/apt"
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/etc/preferences.d"
srclist="$aptdir/sources.list"
{
	echo "deb [signed-by=$keyring] $main_uri trixie main"
	echo "deb [signed-by=$keyring] $main_uri trixie-backports main"
	echo "deb [signed-by=$keyring] $main_uri bookworm main"
	if [[ -n $sec_uri ]]; then
		echo "deb [signed-by=$keyring] $sec_uri trixie-security main"
		echo "deb [signed-by=$keyring] $sec_uri bookworm-security main"
	fi
} >"$srclist.new"
mv "$srclist.new" "$srclist"

apt_opts=(
	-o "Dir::Etc::SourceList=$srclist"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Etc::Preferences=/dev/null"
	-o "Dir::Etc::PreferencesParts=$aptdir/etc/preferences.d"
	-o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::Cache=$aptdir/cache"
	-o "Dir::Cache::pkgcache=$aptdir/cache/pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=$aptdir/cache/srcpkgcache.bin"
	-o "APT::Architecture=amd64"
	-o "APT::Architectures=amd64"
	-o "Acquire::Languages=none"
	-o "APT::Get::List-Cleanup=1"
	-o "Debug::NoLocking=1"
)
# apt drops privileges to _apt for downloads; the cache may live in a
# directory _apt cannot write to, so download as the current user.
if [[ $(id -u) == 0 ]]; then
	apt_opts+=(-o "APT::Sandbox::User=root")
fi

say "updating private apt lists ($aptdir)"
apt-get "${apt_opts[@]}" -q update >"$aptdir/update.log" 2>&1 ||
	die "apt-get update failed, see $aptdir/update.log"

# ---------------------------------------------------------------------------
# Find the package.
# ---------------------------------------------------------------------------
matches_glob() {
	local v=$1
	# shellcheck disable=SC2053  # $glob is a pattern on purpose
	[[ $v == $glob || $v == ${glob}[.+-]* ]]
}

mapfile -t names < <(apt-cache "${apt_opts[@]}" pkgnames linux-image- 2>/dev/null | sort -u)
signed=()
unsigned=()
for n in "${names[@]}"; do
	case $n in
	*-dbg | *-dbgsym) continue ;;
	linux-image-*-cloud-amd64)
		v=${n#linux-image-}
		v=${v%-cloud-amd64}
		matches_glob "$v" && signed+=("$n")
		;;
	linux-image-*-cloud-amd64-unsigned)
		v=${n#linux-image-}
		v=${v%-cloud-amd64-unsigned}
		matches_glob "$v" && unsigned+=("$n")
		;;
	esac
done

# candidate version of a package in the private apt view
cand_version() {
	apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}

pick_newest() {
	local best="" bestv="" n v
	for n in "$@"; do
		v=$(cand_version "$n")
		[[ -n $v && $v != "(none)" ]] || continue
		if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$bestv"; then
			best=$n
			bestv=$v
		fi
	done
	[[ -n $best ]] && echo "$best $bestv"
}

choice=""
if ((${#signed[@]})); then
	choice=$(pick_newest "${signed[@]}" || true)
fi
if [[ -z $choice ]] && ((${#unsigned[@]})); then
	choice=$(pick_newest "${unsigned[@]}" || true)
fi
[[ -n $choice ]] || die "no linux-image-${glob}*-cloud-amd64 package found"
pkg=${choice%% *}
ver=${choice#* }
say "chose $pkg $ver"

dirname="${pkg}_${ver}"
dir="$cache/$dirname"
mkdir -p "$cache/resolved"
if [[ -e $dir/vmlinuz && $(cat "$dir/.complete" 2>/dev/null) == "$layout" ]]; then
	echo "$dirname" >"$resolved_file"
	readlink -f "$dir/vmlinuz"
	exit 0
fi

# ---------------------------------------------------------------------------
# Download the image package and the split packages it depends on.
# ---------------------------------------------------------------------------
debs="$cache/debs"
mkdir -p "$debs"
# Follow the Depends of the image package (and of what it pulls in) to the
# kernel's own split packages: 7.x ships the kernel in linux-binary-*, the
# modules in linux-modules-* and config/System.map in linux-base-*.
want=()
queue=("$pkg")
while ((${#queue[@]})); do
	p=${queue[0]}
	queue=("${queue[@]:1}")
	[[ " ${want[*]} " == *" $p "* ]] && continue
	want+=("$p")
	deps=$(apt-cache "${apt_opts[@]}" show "$p=$(cand_version "$p")" 2>/dev/null |
		awk -F': ' '/^Depends:/ { print $2; exit }')
	IFS=',' read -ra deparr <<<"$deps"
	for d in "${deparr[@]}"; do
		d=${d%%|*}
		d=$(echo "$d" | sed -e 's/([^)]*)//g' -e 's/:any//' | tr -d ' ')
		case $d in
		linux-binary-* | linux-modules-* | linux-base-*) queue+=("$d") ;;
		esac
	done
done

files=()
for p in "${want[@]}"; do
	pv=$(cand_version "$p")
	[[ -n $pv && $pv != "(none)" ]] || die "no candidate for $p"
	# apt-get download names files <name>_<version with : as %3a>_<arch>.deb
	fn="${p}_${pv//:/%3a}_amd64.deb"
	if [[ ! -s $debs/$fn ]]; then
		say "downloading $p $pv"
		(cd "$debs" && apt-get "${apt_opts[@]}" -q download "$p=$pv" >&2)
	fi
	[[ -s $debs/$fn ]] || die "download of $p produced no $fn"
	files+=("$debs/$fn")
done

tmp="$dir.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/root"
trap 'rm -rf "$tmp"' EXIT
for f in "${files[@]}"; do
	say "extracting $(basename "$f")"
	dpkg-deb -x "$f" "$tmp/root"
done

root="$tmp/root"
vmlinuz=""
for c in "$root"/boot/vmlinuz-* "$root"/usr/lib/modules/*/vmlinuz "$root"/lib/modules/*/vmlinuz; do
	[[ -f $c ]] && {
		vmlinuz=$c
		break
	}
done
[[ -n $vmlinuz ]] || die "no vmlinuz in ${files[*]}"
config=""
for c in "$root"/boot/config-* "$root"/usr/lib/modules/*/config "$root"/lib/modules/*/config; do
	[[ -f $c ]] && {
		config=$c
		break
	}
done
moddir=""
for c in "$root"/usr/lib/modules/* "$root"/lib/modules/*; do
	[[ -d $c/kernel ]] && {
		moddir=$c
		break
	}
done
[[ -n $moddir ]] || say "warning: no modules directory found"
kver=""
[[ -n $moddir ]] && kver=$(basename "$moddir")
[[ -z $kver && $vmlinuz == */boot/vmlinuz-* ]] && kver=${vmlinuz##*/vmlinuz-}

rel() { echo "root/${1#"$root"/}"; }
ln -sfn "$(rel "$vmlinuz")" "$tmp/vmlinuz"
[[ -n $config ]] && ln -sfn "$(rel "$config")" "$tmp/config"
[[ -n $moddir ]] && ln -sfn "$(rel "$moddir")" "$tmp/modules"
echo "$kver" >"$tmp/kver"
echo "$pkg $ver" >"$tmp/package"
printf '%s\n' "${want[@]}" >"$tmp/packages"
echo "$layout" >"$tmp/.complete"

rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dirname" >"$resolved_file"
readlink -f "$dir/vmlinuz"
