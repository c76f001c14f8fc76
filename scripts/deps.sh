#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything `make check`, `make demo` and the benchmarks need on a
# Debian 12 (bookworm) machine, from Debian's archive only. Idempotent: when
# every package is already present it does nothing and touches no network.
set -euo pipefail

PKGS=(
	build-essential gcc-multilib g++ g++-multilib clang llvm lld libclang-rt-14-dev make bc bison flex
	libelf-dev libssl-dev dwarves kmod pkg-config python3 python3-protobuf
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	qemu-system-x86 qemu-user busybox-static cpio xz-utils file
	libdrm-dev libkmod-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
	dkms man-db libsqlite3-dev sqlite3 chromium fonts-dejavu-core
	debhelper dh-dkms dpkg-dev fakeroot lintian rpm
	libmicrohttpd-dev prometheus prometheus-node-exporter curl libzstd-dev
	python3-pandas python3-distributed universal-ctags
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run as root (or install them with apt-get) and retry" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
