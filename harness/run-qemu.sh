#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one kernel under QEMU (TCG) and wait for the guest's "HARNESS: done".
#
# usage: run-qemu.sh PROFILE LOG [options]
#   -s N        vCPUs (default 2)
#   -m SIZE     guest memory (default 512M)
#   -f          back the guest memory with a sparse file under build/
#               rather than anonymous memory; the default from 64G up,
#               which plain -m cannot map here ("cannot set up guest
#               memory").  The guest writes only what it touches, about
#               its memmap (4 GiB at 256G): that plus 2 GiB must be free.
#   -n N        fake NUMA nodes through numa=fake=N (default: none)
#   -a ARGS     extra kernel command line
#   -u SUITE    harness.suite= value (default check)
#   -t SECONDS  hard timeout (default 600)
#   -i          icount mode: -icount shift=0,sleep=off (needs -s 1): one
#               guest ns per instruction, and idle time skipped rather
#               than slept, and the RTC on the guest clock from a fixed
#               date, so that a run does not depend on host time
#   -I          interactive: console on the terminal, no log parsing
#   -g PORT     QEMU's gdbstub on 127.0.0.1:PORT (make datagram-trace)
#   -P FILE     load the slabcost TCG plugin (harness/plugin/slabcost.c,
#               built into build/plugin/ when older than its source), which
#               writes the counts of the guest's marked windows to FILE;
#               one vCPU only
#   -C FILE     with -P: also count, per window, the runs of the
#               instructions FILE names ("ADDRESS NAME" lines: the entry
#               of a function, from System.map), the plugin's "call" lines
# Exit 0 when the guest finished its suite; non-zero on a panic, a hang or
# a boot that never reached userspace, after printing the last console lines.
set -eu
STAGE=qemu
. "$(dirname "$0")/lib.sh"

profile=${1:?usage: run-qemu.sh PROFILE LOG [options]}
clog=${2:?usage: run-qemu.sh PROFILE LOG [options]}
shift 2
smp=2 mem=512M numa= extra= suite=check tmo=600 icount= interactive= memfile= gdb= plugin=
calls=
while getopts "s:m:n:a:u:t:g:P:C:fiI" o; do
	case $o in
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	n) numa=$OPTARG ;;
	a) extra=$OPTARG ;;
	u) suite=$OPTARG ;;
	t) tmo=$OPTARG ;;
	f) memfile=1 ;;
	i) icount="-icount shift=0,sleep=off -rtc base=2022-12-11T00:00:00,clock=vm" ;;
	I) interactive=1 ;;
	g) gdb="-gdb tcp:127.0.0.1:$OPTARG" ;;
	P) plugin=$OPTARG ;;
	C) calls=$OPTARG ;;
	*) die "bad option" ;;
	esac
done

key=$(profile_key "$profile")
kernel=$(profile_out "$profile")/arch/x86/boot/bzImage
initrd=$BUILD/initramfs/$key.cpio.gz
[ -f "$kernel" ] || die "$kernel missing: build profile $key first"
[ -f "$initrd" ] || die "$initrd missing: run initramfs.sh $profile first${BASE_GIVEN:+ (with BASE=$BASE)}"
case $mem in
*[Tt]) mib=$((${mem%?} * 1024 * 1024)) ;;
*[Gg]) mib=$((${mem%?} * 1024)) ;;
*[Mm]) mib=${mem%?} ;;
*) mib=$mem ;;
esac
[ "$mib" -ge $((64 * 1024)) ] && memfile=1

# loglevel=5: warnings reach the console too, where the splat scanner
# looks for them (WARN and lockdep reports are KERN_WARNING).
# no_timer_check: under TCG on a busy host the IO-APIC timer check at boot
# can miss its ticks and panic with "IO-APIC + timer doesn't work!" before
# any test runs (it cost CI the pristine boot of stop 19); kvmclock sets
# the same flag for KVM guests, for the same reason.
append="console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check harness.suite=$suite"
[ -n "$numa" ] && append="$append numa=fake=$numa"
[ -n "$extra" ] && append="$append $extra"

# qemu64's 40 physical address bits end at 1 TiB, and a 1T guest's RAM
# above 4 GiB, its PCI hole and the 64-bit PCI window go past it ("phys-bits
# too low (40)"): from 512G up the guest CPU gets 42.
cpu=qemu64,+cx16
[ "$mib" -ge $((512 * 1024)) ] && cpu=$cpu,phys-bits=42
qemu=(qemu-system-x86_64 -machine q35 -cpu "$cpu" -m "$mem" -smp "$smp"
	-kernel "$kernel" -initrd "$initrd" -nographic -no-reboot)
# shellcheck disable=SC2206
[ -n "$icount" ] && qemu+=($icount)
# shellcheck disable=SC2206
[ -n "$gdb" ] && qemu+=($gdb)
if [ -n "$plugin" ]; then
	so=$BUILD/plugin/slabcost.so
	src=$REPO/harness/plugin/slabcost.c
	if [ ! "$so" -nt "$src" ] || [ ! "$so" -nt "${src%/*}/qemu-plugin-v1.h" ]; then
		mkdir -p "$BUILD/plugin"
		gcc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$so.tmp" "$src" ||
			die "harness/plugin/slabcost.c does not build"
		mv "$so.tmp" "$so"
	fi
	mkdir -p "$(dirname "$plugin")"
	rm -f "$plugin"
	qemu+=(-plugin "file=$so,out=$plugin${calls:+,calls=$calls}")
fi
if [ -n "$memfile" ]; then
	# mem-path is a directory: QEMU creates its sparse file there and
	# unlinks it at once, so the file goes with QEMU however it ends.
	memdir=$BUILD/qemu-mem
	mkdir -p "$memdir"
	need=$((mib / 64 + 2048))
	avail=$(($(df -Pk "$memdir" | awk 'NR == 2 { print $4 }') / 1024))
	[ "$avail" -ge "$need" ] ||
		die "a $mem guest needs $need MiB free under $memdir for its memory file; there are $avail MiB"
	qemu+=(-object "memory-backend-file,id=mem0,size=$mem,mem-path=$memdir,share=on"
		-machine memory-backend=mem0)
fi

if [ -n "$interactive" ]; then
	# Ctrl-A X leaves QEMU; the console log is not kept.
	exec "${qemu[@]}" -append "${append/suite=$suite/suite=shell}"
fi
qemu+=(-monitor none -append "$append")

mkdir -p "$(dirname "$clog")"
echo "# ${qemu[*]}" >"$clog"
rc=0
timeout --kill-after=10 "$tmo" "${qemu[@]}" </dev/null >>"$clog" 2>&1 || rc=$?
# The serial console ends lines with CR LF.
sed -i 's/\r$//' "$clog"

why=
if [ $rc = 124 ] || [ $rc = 137 ]; then
	why="timeout after ${tmo}s"
elif grep -q '^HARNESS: done' "$clog"; then
	exit 0
elif grep -q 'Kernel panic' "$clog"; then
	why="kernel panic"
elif ! grep -q '^HARNESS: boot ok' "$clog"; then
	why="the guest never reached userspace (qemu exit $rc)"
else
	why="the guest stopped before finishing its suite (qemu exit $rc)"
fi
echo "$profile: boot failed: $why; last 50 console lines of ${clog#$REPO/}:" >&2
tail -n 50 "$clog" | sed 's/^/    /' >&2
exit 1
