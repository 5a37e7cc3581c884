#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tell a boot that QEMU's TCG broke from one the kernel broke.

usage: stale-int3.py CONSOLE_LOG

x86 patches live kernel text (static keys, tracepoints, alternatives)
with text_poke_bp(): an int3 goes over the first byte of the
instruction, every CPU is synchronised, the rest of the instruction is
written, every CPU is synchronised again, and the int3 is replaced; a
CPU that hits the int3 meanwhile is sent past it.  Under multi-threaded
TCG a vCPU now and then executes a translation of that int3 after the
patch is complete (seen in this project since issue 4: after static key
flips under load, 1 boot in about 30; on 6.12 from the sched_clock key at
boot), and the kernel dies with "int3" at an address where there is no
int3 any more.

The oops proves which case it is.  An int3 is a trap: the saved RIP is
the byte after it, and the oops's "Code:" line dumps the text around RIP
as it is in memory when the oops is printed, the byte at RIP in <>.  If
the byte before it is not 0xcc, the CPU trapped on an int3 that memory no
longer holds: the emulator ran stale code.  A real stray breakpoint (a
kprobe, a bad patch) still shows 0xcc there.

Exit 0 and print one line naming the function when the first oops of the
log is such a stale int3; exit 1 otherwise (no oops, another oops, an int3
still in memory, or no Code: line to tell by).
"""
import re
import sys

# The first oops of a boot (oops=panic: the one that ended it), and
# whether it is an int3: "int3: 0000 [#1]" (6.1), "Oops: int3: ..." (6.12).
FIRST = re.compile(r"\b(\S+): [0-9a-f]{4} \[#1\]")
RIP = re.compile(r"RIP: 0010:(\S+)")
CODE = re.compile(r"Code: ((?:[0-9a-f]{2} |<[0-9a-f]{2}> ?)+)")


def verdict(lines):
    """(True, where) for a stale int3, (False, why) otherwise."""
    for i, line in enumerate(lines):
        m = FIRST.search(line)
        if m:
            break
    else:
        return False, "no oops"
    if m.group(1) != "int3":
        return False, "the oops is not an int3 (%s)" % m.group(1)
    rip = code = None
    for line in lines[i:i + 40]:
        m = RIP.search(line)
        if m and rip is None:
            rip = m.group(1)
        m = CODE.search(line)
        if m and code is None:
            code = m.group(1).split()
    if not code:
        return False, "the int3 oops has no Code: line"
    marked = [k for k, b in enumerate(code) if b.startswith("<")]
    if len(marked) != 1 or marked[0] == 0:
        return False, "the Code: line does not mark the byte after the int3"
    before = code[marked[0] - 1]
    if before == "cc":
        return False, "memory still holds the int3 at %s" % rip
    return True, "int3 at %s, where memory holds %s" % (rip, before)


def main():
    with open(sys.argv[1], errors="replace") as f:
        lines = f.read().splitlines()
    stale, why = verdict(lines)
    print(why)
    sys.exit(0 if stale else 1)


if __name__ == "__main__":
    main()
