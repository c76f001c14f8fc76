#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the extracted Debian linux-source-6.1 tree, extracting
# the tarball into the cache first if that has not been done yet.
#
# The tree is shared by the KUnit runner (which builds a UML kernel from it),
# checkpatch and the kselftest harness header. Extraction takes about a
# minute, so it happens once: into a temporary directory beside the final
# one, renamed into place only when complete, under an flock so that
# concurrent callers wait for the first one instead of extracting twice.
#
# Environment:
#   NPROF_CACHE           cache directory (default /var/cache/neuronprof)
#   LINUX_SOURCE_TARBALL  tarball (default /usr/src/linux-source-6.1.tar.xz)
set -euo pipefail

NPROF_CACHE=${NPROF_CACHE:-/var/cache/neuronprof}
LINUX_SOURCE_TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# The tarball has a single top-level directory named like the file.
name=$(basename "$LINUX_SOURCE_TARBALL" .tar.xz)
tree=$NPROF_CACHE/$name

if [ ! -f "$LINUX_SOURCE_TARBALL" ]; then
	echo "linux-src: $LINUX_SOURCE_TARBALL not found (install linux-source-6.1: make deps)" >&2
	exit 1
fi

# The marker is written last, so a tree without it is an interrupted run. It
# records the tarball's size and time, so a package upgrade that replaces
# the tarball causes a fresh extraction.
marker=$tree/.neuronprof-extracted
stamp=$(stat -c '%s %Y' "$LINUX_SOURCE_TARBALL")
# An empty marker predates the stamp; it was written for this tarball.
[ -f "$marker" ] && [ ! -s "$marker" ] && echo "$stamp" >"$marker"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ]; then
	echo "$tree"
	exit 0
fi

mkdir -p "$NPROF_CACHE"
exec 9>"$NPROF_CACHE/$name.lock"
flock 9

if [ ! -f "$marker" ] || [ "$(cat "$marker")" != "$stamp" ]; then
	echo "linux-src: extracting $LINUX_SOURCE_TARBALL into $NPROF_CACHE (once)" >&2
	rm -rf "$tree" "$tree.partial"
	mkdir "$tree.partial"
	tar -xJf "$LINUX_SOURCE_TARBALL" -C "$tree.partial"
	if [ ! -d "$tree.partial/$name" ]; then
		echo "linux-src: $LINUX_SOURCE_TARBALL has no top-level $name/ directory" >&2
		rm -rf "$tree.partial"
		exit 1
	fi
	mv "$tree.partial/$name" "$tree"
	rmdir "$tree.partial"
	echo "$stamp" >"$marker"
fi

echo "$tree"
