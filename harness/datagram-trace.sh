#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make datagram-trace: where the instructions of one UDP datagram go, by
# function, on each bench kernel.
#
# Boots each kernel of KERNELS (bench profiles; default the five of make
# bench) under -icount on one vCPU with QEMU's gdbstub, lets udpbench
# (CASE, one datagram in flight: 64x1 or 1400x1) send SKIP datagrams,
# then single-steps the guest from one udp_sendmsg() entry to the next:
# one datagram sent and received, system calls and user space included.
# The total is make bench's icount figure for the case to the
# instruction.  CASE=forkexec instead runs the bench's fork+exec loop
# (harness.bench_forkexec=200) and steps from one execve() entry to the
# next, SKIP (default 100) in: one pass of the shell's loop, fork, exec,
# exit and wait.  Prints the functions whose counts differ between the
# kernels, with the totals; per-kernel counts in build/bench/trace/
# (BASE=6.12: the three bench kernels of 6.12, build/bench@6.12/trace/).
set -eu
STAGE=trace
. "$(dirname "$0")/lib.sh"

kernels=${KERNELS:-$(for k in $(bench_kernels); do printf '%s ' "${k#*:}"; done)}
case=${CASE:-64x1}
case $case in
*x1)
	skip=${SKIP:-1500} start=udp_sendmsg limit=100000 tmo=900 what="$case datagram"
	args="harness.bench_net=$case harness.bench_net_packets=512 harness.bench_net_reps=7" ;;
forkexec)
	skip=${SKIP:-100} start=__x64_sys_execve limit=2000000 tmo=3600 what="fork+exec"
	args="harness.bench_forkexec=200" ;;
*) die "CASE=$case: one datagram in flight only (64x1, 1400x1), so that one udp_sendmsg() to the next is one datagram; or forkexec" ;;
esac
out=$BUILD/bench$(base_suffix)/trace
mkdir -p "$out"

"$REPO/harness/deps.sh" trace
port=$((20000 + $$ % 10000))
for p in $kernels; do
	"$REPO/harness/build.sh" "$p"
	"$REPO/harness/initramfs.sh" "$p"
	log "$p: tracing one $what after $skip"
	rm -f "$out/$p-$case.txt"
	# The boot of make bench's icount measure, with the gdbstub; gdb's
	# kill ends it, so run-qemu.sh's verdict is not wanted.
	"$REPO/harness/run-qemu.sh" "$p" "$LOGS/console-trace-$p.log" \
		-i -s 1 -m 512M -u bench -t $tmo -g "$port" \
		-a "harness.bench_mode=icount harness.bench_cases=calib $args" \
		>/dev/null 2>&1 &
	qpid=$!
	sleep 1
	VMLINUX=$(profile_out "$p")/vmlinux OUT=$out/$p-$case.txt PORT=$port SKIP=$skip \
		START=$start LIMIT=$limit \
		timeout $tmo gdb -batch -nx -x "$REPO/harness/datagram-trace.py" \
		"$(profile_out "$p")/vmlinux" >"$LOGS/trace-$(profile_key "$p").log" 2>&1 || true
	# gdb's kill has ended QEMU unless gdb failed.
	pkill -f "tcp:127.0.0.1:$port" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	if [ ! -s "$out/$p-$case.txt" ] || grep -q '^total -1' "$out/$p-$case.txt"; then
		die "$p: no $what traced; see ${LOGS#"$REPO"/}/trace-$p.log"
	fi
	port=$((port + 1))
done

python3 - "$out" "$case" "$what" $kernels <<'PY'
import sys
out, case, what, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
counts = {}
for k in kernels:
    with open("%s/%s-%s.txt" % (out, k, case)) as f:
        d = dict(line.rsplit(" ", 1) for line in f.read().splitlines())
    counts[k] = {fn: int(c) for fn, c in d.items()}
funcs = sorted({fn for k in kernels for fn in counts[k]} - {"total"})
differ = [fn for fn in funcs
          if len({counts[k].get(fn, 0) for k in kernels}) > 1]
w = max([len(fn) for fn in differ] + [8])
print("instructions of one %s, by function (only those that differ)" % what)
print("%-*s %s" % (w, "", " ".join("%15s" % k for k in kernels)))
for fn in differ:
    print("%-*s %s" % (w, fn, " ".join("%15d" % counts[k].get(fn, 0)
                                       for k in kernels)))
print("%-*s %s" % (w, "total", " ".join("%15d" % counts[k]["total"]
                                        for k in kernels)))
PY
