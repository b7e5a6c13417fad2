#!/usr/bin/env bash
# Install what building and testing damon-tierd needs (Debian/Ubuntu).
# Idempotent: does nothing when everything is present.
set -euo pipefail

pkgs=(meson ninja-build pkg-config gcc clang libsystemd-dev libinih-dev
      libcmocka-dev valgrind qemu-system-x86 busybox-static cpio zstd xz-utils socat
      libclang-rt-14-dev gnuplot-nox debhelper dpkg-dev fakeroot lintian groff-base man-db
      systemd debootstrap e2fsprogs debian-archive-keyring shellcheck
      prometheus rpm)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps: installing ${missing[*]}"
	if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
