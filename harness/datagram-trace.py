# SPDX-License-Identifier: GPL-2.0
"""gdb -batch -x datagram-trace.py: count, by function, the guest
instructions of one UDP datagram sent and received (harness/guest/
udpbench, one in flight), by single-stepping the guest through QEMU's
gdbstub from one udp_sendmsg() entry to the next; or, with START, from
one entry of that function to the next (__x64_sys_execve: one fork+exec
of the bench's shell loop).  Run by datagram-trace.sh, which passes
VMLINUX, OUT, PORT, SKIP (the calls to let pass first, past the
warm-up), START and LIMIT in the environment.  Writes "total N" and
then "function count" lines to OUT.
"""
import bisect
import collections
import os
import subprocess

import gdb  # pylint: disable=import-error

# Instructions at most; a datagram is about 6,000, a fork+exec 600,000.
LIMIT = int(os.environ.get("LIMIT") or 100000)


def symbols(vmlinux):
    out = subprocess.run(["nm", "-n", vmlinux], check=True,
                         capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16), f[2]))
    return syms


def main():
    syms = symbols(os.environ["VMLINUX"])
    addrs = [a for a, _ in syms]

    def function(pc):
        if pc < 0xffff800000000000:
            return "(user space)"
        i = bisect.bisect_right(addrs, pc) - 1
        return syms[i][1] if i >= 0 else "(unknown)"

    gdb.execute("set pagination off")
    gdb.execute("target remote :%s" % os.environ["PORT"])
    gdb.execute("hbreak %s" % (os.environ.get("START") or "udp_sendmsg"))
    gdb.execute("ignore 1 %s" % os.environ["SKIP"])
    gdb.execute("continue")
    start = int(gdb.parse_and_eval("$pc"))
    gdb.execute("delete")
    counts = collections.Counter()
    n = 0
    while n < LIMIT:
        gdb.execute("stepi", to_string=True)
        pc = int(gdb.parse_and_eval("$pc"))
        n += 1
        if pc == start:
            break
        counts[function(pc)] += 1
    with open(os.environ["OUT"], "w") as f:
        f.write("total %d\n" % (n if n < LIMIT else -1))
        for fn, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
            f.write("%s %d\n" % (fn, c))
    gdb.execute("kill")


main()
