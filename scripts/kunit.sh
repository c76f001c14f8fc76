#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the driver's KUnit suites in a UML kernel built from the Debian
# linux-source-6.1 package.
#
# The source tree and the UML build directory live in the cache
# ($NPROF_CACHE, default /var/cache/neuronprof), outside this repository, so
# the tarball is extracted once and later runs rebuild only what changed.
# Each run refreshes a copy of driver/ and uapi/ at
# drivers/gpu/drm/neuronprof/{driver,uapi} in that tree, hooks it into the
# DRM Kconfig and Makefile, and calls kunit.py. Runs are serialised with an
# flock on the cache because they share the tree and the build directory.
#
# Usage: scripts/kunit.sh [--kunitconfig PATH] [--build-dir DIR]
#                         [--timeout SEC] [-- KUNIT_PY_ARGS...]
#   --kunitconfig  .kunitconfig file or directory, absolute or relative to
#                  the kernel tree (default: the driver's tests)
#   --build-dir    UML build directory (default $NPROF_CACHE/kunit-build)
#   --timeout      seconds the UML kernel may run (default 900)
#   KUNIT_PY_ARGS  passed to `kunit.py run`, e.g. a suite filter glob
#
# Prints kunit.py's per-test output, a per-suite summary, any kernel-log
# problem (BUG, WARNING, KASAN, lockdep, ...), and ends with
# `N passed, N failed[, N skipped]`. Exits non-zero if a test failed, the
# build failed, the kernel crashed or the kernel log shows a problem.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
NPROF_CACHE=${NPROF_CACHE:-/var/cache/neuronprof}

kunitconfig=drivers/gpu/drm/neuronprof/driver/tests
build_dir=$NPROF_CACHE/kunit-build
timeout=900
jobs=${KUNIT_JOBS:-2}

usage() {
	sed -n '/^# Usage:/,/^# Prints/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kunitconfig) kunitconfig=${2:?--kunitconfig needs a path}; shift 2 ;;
	--build-dir) build_dir=${2:?--build-dir needs a directory}; shift 2 ;;
	--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "kunit: unknown argument '$1'" >&2; usage ;;
	esac
done

# fail MESSAGE: a run that could not produce test results still ends with
# the result line, counting itself as one failure.
fail() {
	echo "kunit: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

src=$(bash "$here/linux-src.sh") || fail "cannot extract the kernel source (see above)"

mkdir -p "$NPROF_CACHE" || fail "cannot create cache directory $NPROF_CACHE"
exec 8>"$NPROF_CACHE/kunit.lock"
if ! flock -n 8; then
	echo "kunit: waiting for another KUnit run to finish (lock $NPROF_CACHE/kunit.lock)" >&2
	flock 8
fi

# Refresh the in-tree copy. Build products of an out-of-tree module build in
# the repository must not leak into the kernel tree: an object file in the
# source directory would shadow the one the O= build has to produce. The
# copies get the current time (tar -m), not the clone's: the build directory
# is shared, and an object another clone built later than this clone's
# sources were written would otherwise be taken as up to date.
dest=$src/drivers/gpu/drm/neuronprof
rm -rf "$dest"
mkdir -p "$dest"
(cd "$repo" && tar -cf - \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude='*.a' --exclude='modules.order' \
	--exclude='Module.symvers' --exclude='.*.d' \
	driver uapi) | tar -xmf - -C "$dest" ||
	fail "cannot copy driver/ and uapi/ into $dest"

# The driver's Kbuild files add -I$(src)/../../uapi and -I$(src)/..: $(src)
# is absolute in an M= build, but relative to the source tree in an in-tree
# build, and kunit.py builds with O=, where relative include paths resolve
# against the build directory and miss. A glue Kbuild one level up gives the
# same two directories as absolute paths to everything below it.
cat >"$dest/Kbuild" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Written by scripts/kunit.sh: the project's include paths for an O= build.
subdir-ccflags-y += -I$(srctree)/$(src)/uapi -I$(srctree)/$(src)/driver
obj-y += driver/
EOF

# Hook the driver into the DRM build, once.
kconfig_line='source "drivers/gpu/drm/neuronprof/driver/Kconfig"'
make_line='obj-$(CONFIG_DRM_NEURONPROF) += neuronprof/'
drm=$src/drivers/gpu/drm
grep -qxF "$kconfig_line" "$drm/Kconfig" ||
	printf '\n%s\n' "$kconfig_line" >>"$drm/Kconfig"
if ! grep -qxF "$make_line" "$drm/Makefile"; then
	# Drop a hook an older version of this script wrote.
	sed -i '/neuronprof\//d' "$drm/Makefile"
	printf '%s\n' "$make_line" >>"$drm/Makefile"
fi

case $kunitconfig in
/*) kc_path=$kunitconfig ;;
*) kc_path=$src/$kunitconfig ;;
esac
[ -d "$kc_path" ] && kc_path=$kc_path/.kunitconfig
[ -f "$kc_path" ] || fail "no kunitconfig at $kc_path"

mkdir -p "$build_dir" || fail "cannot create build directory $build_dir"
json=$build_dir/neuronprof-results.json
rm -f "$json" "$build_dir/test.log"

echo "kunit: tree $src, build $build_dir, kunitconfig $kunitconfig"
# UML only: the arch config kunit.py adds enables PCI over virtio (DRM needs
# the DMA emulation it selects) without a device id, and um_pci_init() then
# WARNs at every boot, which the kernel-log check below would count as a
# failure. Any id stops that; no such virtio device exists in the run.
# kunit.py calls `stty sane` on exit; with no terminal that only complains.
(cd "$src" && python3 tools/testing/kunit/kunit.py run \
	--kunitconfig "$kunitconfig" --build_dir "$build_dir" --jobs "$jobs" \
	--kconfig_add CONFIG_UML_PCI_OVER_VIRTIO_DEVICE_ID=1234 \
	--timeout "$timeout" --json="$json" "$@") </dev/null
kunit_rc=$?

if [ ! -s "$json" ]; then
	fail "kunit.py exited with $kunit_rc before producing results (build or config error above)"
fi

counts=$(python3 "$here/kunit_summary.py" "$json") || fail "cannot read $json"
sed '$d' <<<"$counts"
read -r passed failed skipped <<<"$(tail -n 1 <<<"$counts")"

# The kernel log can show a problem no test assertion saw: a lockdep splat,
# a KASAN report outside a test, a WARN in a workqueue.
log=$build_dir/test.log
pattern='(BUG:|WARNING:|Oops|general protection|KASAN:|UBSAN:|Kernel panic|possible (circular|recursive) locking|suspicious RCU usage)'
if [ -f "$log" ] && grep -Eq "$pattern" "$log"; then
	echo "kunit: the kernel log shows problems (full log: $log):" >&2
	grep -E -m 20 "$pattern" "$log" | sed 's/^/  /' >&2
	failed=$((failed + 1))
fi

if [ "$kunit_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "kunit: kunit.py exited with $kunit_rc (crash, timeout or parse error; see above)" >&2
	failed=1
fi
if [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "kunit: no test ran" >&2
	failed=1
fi

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
