#!/usr/bin/env bash
# The config search path and drop-ins from the command line: systemd's
# precedence and masking, provenance in --check-config, errors naming the
# drop-in, --config FILE with FILE.d/.  Everything lives under a temporary
# --config-root; the real /etc is never read and /sys never touched
# (--dry-run runs against a fixture tree).  "/etc" of the search path is
# the build's sysconfdir ($SYSCONFDIR: /usr/local/etc with meson's default
# prefix, /etc with --prefix=/usr); --help must say which.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"

cli_test_setup
# The line of key in --check-config output, with its origin comment.
expect_key() { # name, key, value, origin
	local line
	line=$(grep -E "^$2 = " "$tmp/out" || true)
	if [[ $line =~ ^"$2 = $3"\ +"# $4"$ ]]; then
		ok
	else
		bad "$1: expected '$2 = $3  # $4', got '$line'"
	fi
}
put() { # root-relative path, printf format, arguments...
	mkdir -p "$(dirname "$cr/$1")"
	# shellcheck disable=SC2059
	printf "$2" "${@:3}" >"$cr/$1"
}

sysconfdir=${SYSCONFDIR:?}
etc=${sysconfdir#/}
cr=$tmp/root
mkdir -p "$cr"

# --help names the search path, the build's sysconfdir first.
check_exit help 0 "$bin" --help
expect_in help-sysconfdir "$tmp/out" "Configuration search path: the first found of"
check "help: the search path is $sysconfdir, /run, /usr/local/lib, /usr/lib" \
	test "$(sed -n '/^Configuration search path/,/^then/{s/^  //p}' "$tmp/out" | paste -sd' ')" = \
	"$sysconfdir/damon-tierd.conf /run/damon-tierd.conf /usr/local/lib/damon-tierd.conf /usr/lib/damon-tierd.conf"

# A build for another sysconfdir does not read /etc: the sysconfdir takes
# its place (as in systemd), so what "meson install" put there is what is read.
if [[ $sysconfdir != /etc ]]; then
	put etc/damon-tierd.conf '[quota]\nsize = 3G\n'
	put etc/damon-tierd.conf.d/10-quota.conf '[quota]\nsize = 3G\n'
	check_exit not-etc 0 "$bin" --config-root "$cr" --check-config
	expect_key not-etc-size quota.size 200MiB default
	expect_in not-etc-count "$tmp/err" "no main file + 0 drop-ins"
	rm -r "${cr:?}/etc"
fi

# Nothing anywhere: all defaults.
check_exit empty 0 "$bin" --config-root "$cr" --check-config
expect_key empty-size quota.size 200MiB default
expect_key empty-goal promote.used_goal auto default
expect_in empty-valid "$tmp/err" "configuration is valid"
expect_in empty-count "$tmp/err" "no main file + 0 drop-ins"

# The vendor main file, drop-ins from every level.
put usr/lib/damon-tierd.conf '[daemon]\nstate_dir = %s/state\n[quota]\nsize = 1G\n' "$tmp"
check_exit vendor 0 "$bin" --config-root "$cr" --check-config
expect_key vendor-size quota.size 1GiB "$cr/usr/lib/damon-tierd.conf:4"

# /etc/damon-tierd.conf replaces the vendor file as a whole.
put "$etc"/damon-tierd.conf '[daemon]\nstate_dir = %s/state\n' "$tmp"
check_exit etc-main 0 "$bin" --config-root "$cr" --check-config
expect_key etc-main-size quota.size 200MiB default
expect_key etc-main-state daemon.state_dir "$tmp/state" "$cr/$etc/damon-tierd.conf:2"
expect_in etc-main-named "$tmp/err" "$cr/$etc/damon-tierd.conf + 0 drop-ins"

# Lexical order across directories: /usr/lib's 90- comes after /etc's 10-.
put "$etc"/damon-tierd.conf.d/10-quota.conf '[quota]\nsize = 2G\nweight_age = 50\n'
put usr/lib/damon-tierd.conf.d/90-vendor.conf '[quota]\nsize = 3G\n'
check_exit order 0 "$bin" --config-root "$cr" --check-config
expect_key order-size quota.size 3GiB "$cr/usr/lib/damon-tierd.conf.d/90-vendor.conf:2"
expect_key order-age quota.weight_age 50 "$cr/$etc/damon-tierd.conf.d/10-quota.conf:3"
expect_in order-count "$tmp/err" "+ 2 drop-ins"

# The same name higher up replaces it; a symlink to /dev/null masks it.
put run/damon-tierd.conf.d/90-vendor.conf '[quota]\nsize = 4G\n'
check_exit run-over-usr 0 "$bin" --config-root "$cr" --check-config
expect_key run-over-usr-size quota.size 4GiB "$cr/run/damon-tierd.conf.d/90-vendor.conf:2"
ln -s /dev/null "$cr/$etc/damon-tierd.conf.d/90-vendor.conf"
check_exit masked 0 "$bin" --config-root "$cr" --check-config
expect_key masked-size quota.size 2GiB "$cr/$etc/damon-tierd.conf.d/10-quota.conf:2"
expect_in masked-count "$tmp/err" "+ 1 drop-in:"

# Not drop-ins: hidden files, backups, other suffixes.
put "$etc"/damon-tierd.conf.d/.20-hidden.conf '[quota]\nsize = 5G\n'
put "$etc"/damon-tierd.conf.d/10-quota.conf~ '[quota]\nsize = 5G\n'
put "$etc"/damon-tierd.conf.d/10-quota.conf.dpkg-old '[quota]\nsize = 5G\n'
check_exit ignored 0 "$bin" --config-root "$cr" --check-config
expect_key ignored-size quota.size 2GiB "$cr/$etc/damon-tierd.conf.d/10-quota.conf:2"

# The merged config is what the daemon plans with: a pinned quota is
# written as is with the kernel tuner (fixture sysfs tree, nothing written).
sys=$tmp/sys-root
cp -a "$fix/vm-2node" "$sys"
mkdir -p "$sys/sys/kernel/mm/damon/admin/kdamonds"
echo 0 >"$sys/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
put run/damon-tierd.conf.d/50-pin.conf '[quota]\nreset_interval = 1s\ntuner = kernel\n'
check_exit dry-run 0 "$bin" --config-root "$cr" --sysfs-root "$sys" --dry-run
expect_in dry-run-quota "$tmp/out" "schemes/0/quotas/bytes 2147483648"
expect_in dry-run-reset "$tmp/out" "schemes/0/quotas/reset_interval_ms 1000"
rm "$cr/run/damon-tierd.conf.d/50-pin.conf"

# A bad drop-in fails the whole load, named with file:line.
put run/damon-tierd.conf.d/20-bad.conf '[quota]\n\nsize = 200 parsecs\n'
check_exit bad-dropin 2 "$bin" --config-root "$cr" --check-config
expect_in bad-dropin-line "$tmp/err" "$cr/run/damon-tierd.conf.d/20-bad.conf:3: [quota] size: not a size"
put run/damon-tierd.conf.d/20-bad.conf '[quota]\nsize = 1G\nsize = 2G\n'
check_exit dup-in-dropin 2 "$bin" --config-root "$cr" --check-config
expect_in dup-in-dropin-line "$tmp/err" "20-bad.conf:3: [quota] size: duplicate key (first set on line 2"
# A cross-key conflict between two files points at the later one.
put run/damon-tierd.conf.d/20-bad.conf '[quota]\nweight_accesses = 0\n'
put usr/lib/damon-tierd.conf.d/30-age.conf '[quota]\nweight_age = 0\n'
check_exit cross-files 2 "$bin" --config-root "$cr" --check-config
expect_in cross-files-line "$tmp/err" "$cr/usr/lib/damon-tierd.conf.d/30-age.conf:2: [quota] weight_accesses = 0 ($cr/run/damon-tierd.conf.d/20-bad.conf:2) and [quota] weight_age = 0 (line 2) cannot both be 0"
rm "$cr/run/damon-tierd.conf.d/20-bad.conf" "$cr/usr/lib/damon-tierd.conf.d/30-age.conf"
mkdir "$cr/$etc/damon-tierd.conf.d/30-dir.conf"
check_exit dir-dropin 2 "$bin" --config-root "$cr" --check-config
expect_in dir-dropin-msg "$tmp/err" "30-dir.conf: not a regular file but a directory"
rmdir "$cr/$etc/damon-tierd.conf.d/30-dir.conf"
check_exit recovered 0 "$bin" --config-root "$cr" --check-config

# --config FILE: FILE and FILE.d/ only; the search path is not read.
mkdir -p "$tmp/alt"
printf '[daemon]\nstate_dir = %s/state\n[quota]\nsize = 8G\n' "$tmp" >"$tmp/alt/my.conf"
check_exit explicit 0 "$bin" --config "$tmp/alt/my.conf" --check-config
expect_key explicit-size quota.size 8GiB "$tmp/alt/my.conf:4"
expect_key explicit-age quota.weight_age 100 default
mkdir -p "$tmp/alt/my.conf.d"
printf '[quota]\nsize = 16G\n' >"$tmp/alt/my.conf.d/10-more.conf"
check_exit explicit-d 0 "$bin" --config "$tmp/alt/my.conf" --check-config
expect_key explicit-d-size quota.size 16GiB "$tmp/alt/my.conf.d/10-more.conf:2"
expect_in explicit-d-count "$tmp/err" "$tmp/alt/my.conf + 1 drop-in:"
rm "$tmp/alt/my.conf"
check_exit explicit-missing 2 "$bin" --config "$tmp/alt/my.conf" --check-config
expect_in explicit-missing-msg "$tmp/err" "$tmp/alt/my.conf: no such file"

# --config-root is a test aid: not with --config, not for a daemon that
# would reload from the real search path (fixture sysfs in case it starts).
check_exit root-and-config 2 "$bin" --config-root "$cr" --config "$tmp/alt/my.conf" --check-config
expect_in root-and-config-msg "$tmp/err" "--config-root"
check_exit root-daemon 2 timeout 20 "$bin" --config-root "$cr" --sysfs-root "$sys" --foreground
expect_in root-daemon-msg "$tmp/err" "--config-root is for tests"
"$bin" --help >"$tmp/out"
expect_not_in help-hidden "$tmp/out" "--config-root"
expect_in help-dropins "$tmp/out" "FILE.d/"

finish
