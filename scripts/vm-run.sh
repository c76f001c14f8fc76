#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a throwaway QEMU (TCG) VM that boots the Debian 6.1
# distribution kernel with this project's modules installed, and bring back
# its output, its exit status and optionally a directory it wrote.
#
# Usage: scripts/vm-run.sh [options] -- CMD [ARGS...]
#   --timeout SEC           kill the VM after SEC seconds (default 300)
#   --file HOST[:GUEST]     copy a file or directory into the VM (default
#                           GUEST: the same absolute path as on the host);
#                           ELF programs and libraries bring the shared
#                           libraries ldd reports. Repeatable.
#   --outdir DIR            bring the guest directory /out back into DIR
#   --ko PATH               install this module under extra/ (repeatable;
#                           default: every *.ko under driver/)
#   --module NAME           also install this distribution module and its
#                           dependencies (repeatable; drm is always there)
#   --console               stream the guest kernel console to stderr
#   --keep                  keep the work directory (initramfs, logs)
# CMD and ARGS are joined with spaces and run by /bin/sh (busybox) in the
# guest, as ssh does: `-- 'modprobe neuronprof_sim && ls /dev/dri'` works.
#
# The guest has busybox, a real kmod (modprobe, depmod, ...), devtmpfs,
# sysfs, proc, debugfs and tmpfs mounted, and depmod already run, so
# `modprobe neuronprof_sim` resolves its dependencies.
#
# Exit status: the command's status if the run was clean; 124 if the VM hit
# the timeout; 123 if the kernel log shows BUG:, a BUG_ON() ("kernel BUG
# at"), WARNING:, Oops, KASAN, UBSAN or a general protection fault
# (whatever the command returned; /out
# still comes back if the guest archived it);
# 122 if the guest died before reporting a status; 125 if the VM could not
# be prepared (a bad command line included). --help prints this text and
# exits 0.
#
# Environment: KVER (kernel version, default: scripts/kver.sh), VM_KERNEL
# (default /boot/vmlinuz-$KVER), VM_MODULES_ROOT (directory holding
# lib/modules/$KVER, default /), VM_MEM (default 1G), VM_SMP (default 2),
# VM_APPEND (more kernel command line, e.g. memmap= for the Trainium rig;
# it follows VM_CLOCK, so its clocksource= wins), VM_CLOCK (the guest's
# clock, default "tsc=reliable clocksource=tsc"; empty: the kernel's choice,
# QEMU's emulated HPET under TCG), VM_ICOUNT (empty, the default: the guest's
# clock is the host's; N: QEMU's -icount shift=N,sleep=on, the guest's
# clock counts the instructions it executed, 2^N ns each, and jumps over
# idle time, so what the guest sees of time does not depend on the host's
# load; with one CPU only (VM_SMP=1): QEMU's icount runs every CPU in one
# thread, and bringing up a second hangs the 6.1 kernel here),
# BUSYBOX (a static busybox, default /bin/busybox), QEMU (default
# qemu-system-x86_64).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

die() {
	echo "vm-run: $*" >&2
	exit 125
}

# usage STATUS: the usage text, on stdout for --help (status 0), else on
# stderr before failing with STATUS.
usage() {
	if [ "$1" -eq 0 ]; then
		sed -n '/^# Usage:/,/^# Environment:/p' "$0" | sed 's/^# \{0,1\}//'
		sed -n '/^# Environment:/,/^set /p' "$0" | sed '1d; $d; s/^# \{0,1\}//'
		exit 0
	fi
	sed -n '/^# Usage:/,/^# Exit status:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit "$1"
}

timeout=300
outdir=
console=0
keep=0
files=()
kos=()
kos_given=0
mods=(drm)

while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
	--file) files+=("${2:?--file needs HOST[:GUEST]}"); shift 2 ;;
	--outdir) outdir=${2:?--outdir needs a directory}; shift 2 ;;
	--ko) kos+=("${2:?--ko needs a path}"); kos_given=1; shift 2 ;;
	--module) mods+=("${2:?--module needs a name}"); shift 2 ;;
	--console) console=1; shift ;;
	--keep) keep=1; shift ;;
	--) shift; break ;;
	-h|--help) usage 0 ;;
	*) echo "vm-run: unknown argument '$1'" >&2; usage 125 ;;
	esac
done
[ $# -gt 0 ] || { echo "vm-run: no command given" >&2; usage 125; }
case $timeout in
'' | *[!0-9]*) die "--timeout must be a whole number of seconds, not '$timeout'" ;;
esac

KVER=${KVER:-$(bash "$here/kver.sh")} || die "cannot determine the kernel version"
VM_KERNEL=${VM_KERNEL:-/boot/vmlinuz-$KVER}
VM_MODULES_ROOT=${VM_MODULES_ROOT:-/}
VM_MEM=${VM_MEM:-1G}
VM_SMP=${VM_SMP:-2}
# The guest keeps time with the TSC, as a host with a constant, nonstop TSC
# does: under TCG it would otherwise find the emulated CPUs' TSCs
# unsynchronised and read QEMU's emulated HPET, about a microsecond per
# clock_gettime(), so every timestamp a test takes costs emulation time
# (Documentation/design.rst, "Test rigs").
VM_CLOCK=${VM_CLOCK-tsc=reliable clocksource=tsc}
VM_ICOUNT=${VM_ICOUNT:-}
icount=()
if [ -n "$VM_ICOUNT" ]; then
	[[ $VM_ICOUNT =~ ^[0-9]$ ]] || die "VM_ICOUNT=$VM_ICOUNT: expected a shift of 0 to 9"
	[ "$VM_SMP" = 1 ] || die "VM_ICOUNT needs VM_SMP=1 (got $VM_SMP)"
	icount=(-icount "shift=$VM_ICOUNT,sleep=on")
fi
BUSYBOX=${BUSYBOX:-/bin/busybox}
QEMU=${QEMU:-qemu-system-x86_64}
moddir=$VM_MODULES_ROOT/lib/modules/$KVER

[ -r "$VM_KERNEL" ] || die "kernel $VM_KERNEL not found (install linux-image-amd64: make deps)"
[ -d "$moddir" ] || die "module tree $moddir not found (install linux-image-amd64: make deps)"
command -v "$QEMU" >/dev/null || die "$QEMU not found (install qemu-system-x86: make deps)"
command -v cpio >/dev/null || die "cpio not found (make deps)"
[ -x "$BUSYBOX" ] || die "busybox $BUSYBOX not found (install busybox-static: make deps)"
kmod_bin=$(command -v kmod) || die "kmod not found (make deps)"
kmod_bin=$(readlink -f "$kmod_bin")

if [ "$kos_given" -eq 0 ] && [ -d "$repo/driver" ]; then
	while IFS= read -r -d '' ko; do
		kos+=("$ko")
	done < <(find "$repo/driver" -name '*.ko' -print0 | sort -z)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vm-run.XXXXXX") || die "cannot create a work directory"
qemu_pid=
tail_pids=()
cleanup() {
	[ -n "$qemu_pid" ] && kill -9 "$qemu_pid" 2>/dev/null
	for p in "${tail_pids[@]}"; do kill "$p" 2>/dev/null; done
	if [ "$keep" -eq 1 ]; then
		echo "vm-run: work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

root=$work/root

# The guest tree mirrors Debian's merged /usr, so library paths that ldd
# reports on the host are valid inside as they are.
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{etc,proc,sys,dev,tmp,out,root,run} ||
	die "cannot create $root"
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$root/$d"
done

is_elf() {
	[ "$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' ')" = 7f454c46 ]
}

# add_libs FILE: copy the shared libraries and the loader FILE needs.
add_libs() {
	local lib
	is_elf "$1" || return 0
	# ldd fails on static programs ("not a dynamic executable"): no libs.
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")" &&
			cp -L "$lib" "$root$lib" || die "cannot copy library $lib"
	done < <(ldd "$1" 2>/dev/null | awk '
		$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }')
}

# add_file HOST GUEST: copy a file or directory tree and its libraries.
add_file() {
	local src=$1 dst=$2 f
	[ -e "$src" ] || die "--file $src: no such file or directory"
	case $dst in
	/*) ;;
	*) die "--file $src:$dst: the guest path must be absolute" ;;
	esac
	mkdir -p "$root$(dirname "$dst")" || die "cannot create $(dirname "$dst") in the guest tree"
	if [ -d "$src" ]; then
		mkdir -p "$root$dst" && cp -a "$src/." "$root$dst/" ||
			die "cannot copy directory $src"
		while IFS= read -r -d '' f; do
			add_libs "$f"
		done < <(find "$src" -type f -print0)
	else
		cp -L "$src" "$root$dst" || die "cannot copy $src"
		add_libs "$src"
	fi
}

# busybox provides the shell and the applets; kmod replaces busybox's
# module utilities, because depmod output and module signatures are only
# fully understood by the real one.
cp "$BUSYBOX" "$root/usr/bin/busybox" || die "cannot copy $BUSYBOX"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked; a static busybox is needed (busybox-static)"
fi
while read -r applet; do
	[ -e "$root/$applet" ] || [ -L "$root/$applet" ] || ln -s /usr/bin/busybox "$root/$applet"
done < <("$BUSYBOX" --list-full)
add_file "$kmod_bin" /usr/bin/kmod
for t in modprobe insmod rmmod lsmod depmod modinfo; do
	rm -f "$root/usr/bin/$t" "$root/usr/sbin/$t"
	ln -s /usr/bin/kmod "$root/usr/sbin/$t"
done

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
video:x:44:
render:x:105:
nogroup:x:65534:
EOF

# Modules: ours under extra/, the distribution modules they and --module
# name need, resolved through the kernel's own modules.dep.
guest_moddir=$root/lib/modules/$KVER
mkdir -p "$guest_moddir/extra" || die "cannot create $guest_moddir"
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$moddir/$f" ] && cp "$moddir/$f" "$guest_moddir/"
done
own_names=()
for ko in "${kos[@]}"; do
	[ -f "$ko" ] || die "--ko $ko: no such file"
	vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null) || die "$ko is not a kernel module"
	case $vermagic in
	"$KVER "*) ;;
	*) die "$ko was built for '${vermagic%% *}', the VM runs $KVER (rebuild: make modules)" ;;
	esac
	cp "$ko" "$guest_moddir/extra/" || die "cannot copy $ko"
	own_names+=("$(basename "$ko" | sed 's/\.ko.*$//; s/-/_/g')")
	IFS=, read -r -a deps <<<"$(modinfo -F depends "$ko")"
	mods+=("${deps[@]}")
done
for m in "${mods[@]}"; do
	[ -n "$m" ] || continue
	m=${m//-/_}
	for own in "${own_names[@]}"; do
		[ "$m" = "$own" ] && continue 2
	done
	deplist=$(modprobe -S "$KVER" -d "$VM_MODULES_ROOT" --show-depends "$m" 2>&1) ||
		die "cannot resolve module $m for $KVER: $deplist"
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		rel=${path#"$VM_MODULES_ROOT"}
		rel=/${rel#/}
		[ -e "$root$rel" ] && continue
		mkdir -p "$root$(dirname "$rel")" && cp "$path" "$root$rel" ||
			die "cannot copy module $path"
	done <<<"$deplist"
done
depmod -b "$root" "$KVER" 2>"$work/depmod.log" ||
	die "depmod failed for the guest module tree: $(cat "$work/depmod.log")"

for spec in "${files[@]}"; do
	host=${spec%%:*}
	guest=
	[ "$host" != "$spec" ] && guest=${spec#*:}
	[ -n "$guest" ] || guest=$(readlink -f "$host")
	add_file "$host" "$guest"
done

# The command, joined like ssh does.
printf '%s\n' "$*" >"$root/cmd.sh"
want_out=0
[ -n "$outdir" ] && want_out=1

# The initramfs root is already writable memory, so /tmp gets no tmpfs of
# its own: one would hide files copied there with --file.
# ttyS0 is the kernel console; the command's stdout and stderr stream to
# ttyS1 and ttyS2 through FIFOs (so the command does not see a terminal);
# ttyS3 carries the exit status and the /out archive between markers.
cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd
hostname neuronprof-vm
for t in 1 2 3; do stty -F /dev/ttyS\$t raw -echo 2>/dev/null; done
mkfifo /tmp/.stdout /tmp/.stderr
cat /tmp/.stdout >/dev/ttyS1 &
o=\$!
cat /tmp/.stderr >/dev/ttyS2 &
e=\$!
cd /root
/bin/sh /cmd.sh >/tmp/.stdout 2>/tmp/.stderr </dev/null
rc=\$?
wait \$o \$e
{
	echo "NPROF-VM-EXIT \$rc"
	if [ $want_out -eq 1 ]; then
		echo NPROF-VM-OUT-BEGIN
		tar -c -C /out . | gzip -1 | base64
		echo "NPROF-VM-OUT-END \$?"
	fi
	echo NPROF-VM-DONE
} >/dev/ttyS3
sync
poweroff -f
EOF
chmod +x "$root/init" || die "cannot write $root/init"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$work/initramfs.cpio" ||
	die "cannot build the initramfs"

: >"$work/console.log"
: >"$work/stdout"
: >"$work/stderr"
: >"$work/ctl"

"$QEMU" -accel tcg -cpu max -m "$VM_MEM" -smp "$VM_SMP" "${icount[@]}" -nographic -no-reboot \
	-nodefaults -monitor none \
	-kernel "$VM_KERNEL" -initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 8250.nr_uarts=4 rdinit=/init${VM_CLOCK:+ $VM_CLOCK}${VM_APPEND:+ $VM_APPEND}" \
	-serial "file:$work/console.log" -serial "file:$work/stdout" \
	-serial "file:$work/stderr" -serial "file:$work/ctl" \
	</dev/null >"$work/qemu.log" 2>&1 &
qemu_pid=$!

# Stream the command's output while it runs.
tail -s 0.2 -n +1 -f --pid="$qemu_pid" "$work/stdout" &
tail_pids+=($!)
tail -s 0.2 -n +1 -f --pid="$qemu_pid" "$work/stderr" >&2 &
tail_pids+=($!)
if [ "$console" -eq 1 ]; then
	tail -s 0.2 -n +1 -f --pid="$qemu_pid" "$work/console.log" >&2 &
	tail_pids+=($!)
fi

timed_out=0
deadline=$((SECONDS + timeout))
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		timed_out=1
		kill -9 "$qemu_pid" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$qemu_pid" 2>/dev/null
qemu_rc=$?
qemu_pid=
# Let the tails print what qemu wrote last, then stop them.
for p in "${tail_pids[@]}"; do wait "$p" 2>/dev/null; done
tail_pids=()

show_console() {
	echo "vm-run: last lines of the guest console:" >&2
	tail -n 40 "$work/console.log" | sed 's/^/  | /' >&2
}

if [ "$timed_out" -eq 1 ]; then
	echo "vm-run: timed out after ${timeout}s; VM killed" >&2
	show_console
	exit 124
fi

status=$(sed -n 's/^NPROF-VM-EXIT \([0-9]*\)\r*$/\1/p' "$work/ctl" | head -n 1)

# unpack_out: the guest's /out into --outdir, if it archived one.
unpack_out() {
	[ -n "$outdir" ] && grep -q '^NPROF-VM-OUT-END 0' "$work/ctl" || return 1
	mkdir -p "$outdir" || die "cannot create --outdir $outdir"
	sed -n '/^NPROF-VM-OUT-BEGIN/,/^NPROF-VM-OUT-END/{/^NPROF-VM-/d;p}' "$work/ctl" |
		tr -d '\r' | base64 -d | tar -xz -C "$outdir"
}

pattern='BUG:|kernel BUG at|WARNING:|Oops|KASAN|UBSAN|general protection'
if grep -Eq "$pattern" "$work/console.log"; then
	# What the guest wrote still comes back, to show what led there.
	unpack_out
	echo "vm-run: the guest kernel log shows a problem:" >&2
	grep -E -B2 -A30 "$pattern" "$work/console.log" | head -n 120 | sed 's/^/  | /' >&2
	echo "vm-run: (the command exited with ${status:-no status})" >&2
	exit 123
fi

if [ -z "$status" ]; then
	echo "vm-run: the guest stopped without reporting the command's exit status (qemu exit $qemu_rc)" >&2
	[ -s "$work/qemu.log" ] && sed 's/^/  qemu: /' "$work/qemu.log" >&2
	show_console
	exit 122
fi

if [ -n "$outdir" ]; then
	mkdir -p "$outdir" || die "cannot create --outdir $outdir"
	if ! grep -q '^NPROF-VM-OUT-END 0' "$work/ctl"; then
		echo "vm-run: the guest could not archive /out" >&2
		show_console
		exit 122
	fi
	if ! unpack_out; then
		echo "vm-run: cannot unpack the guest's /out into $outdir" >&2
		exit 122
	fi
fi

exit "$status"
