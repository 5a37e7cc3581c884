#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Show and check the allocator fastpaths of a built vmlinux.

usage: fastpath.py VMLINUX [--compare OTHER_VMLINUX] [FUNCTION ...]

For each function (default: kmem_cache_alloc and kmem_cache_free) print
its disassembly with every boot-time ALTERNATIVE inside it resolved: the
bytes that replace the site when the CPU has the feature.  Then check
what the fastpaths promise.  The freelist front end: a cmpxchg16b with a
%gs prefix and no lock prefix among the replacements.  The array front
end (behind a static key in the same function): preemption disabled by
an increment of the per-cpu preempt count, and no lock prefix anywhere.
Both: no cli, sti, pushf or popf anywhere in the function.  Exit status
1 if a check fails.

With --compare, print instead whether the two kernels' functions are the
same instruction for instruction once addresses are stripped, and the
differences when they are not.
"""
import difflib
import re
import struct
import subprocess
import sys

X86_FEATURE_CX16 = 4 * 32 + 13      # arch/x86/include/asm/cpufeatures.h
ALT_ENTRY = struct.Struct("<iiHBB")  # struct alt_instr in 6.1
FORBIDDEN = re.compile(r"\b(cli|sti|pushf|pushfq|popf|popfq)\b")


def sections(vmlinux):
    out = subprocess.run(["readelf", "-SW", vmlinux], check=True,
                         capture_output=True, text=True).stdout
    secs = {}
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[0].startswith("[") and f[0] != "[Nr]":
            secs[f[1]] = (int(f[3], 16), int(f[4], 16), int(f[5], 16))
    return secs


def alternatives(vmlinux):
    """Yield (site, site_len, feature, repl_addr, repl_len)."""
    secs = sections(vmlinux)
    addr, off, size = secs[".altinstructions"]
    with open(vmlinux, "rb") as f:
        f.seek(off)
        data = f.read(size)
    for i in range(0, size - ALT_ENTRY.size + 1, ALT_ENTRY.size):
        ioff, roff, feat, ilen, rlen = ALT_ENTRY.unpack_from(data, i)
        yield addr + i + ioff, ilen, feat, addr + i + 4 + roff, rlen


def disasm(vmlinux, start=None, stop=None, func=None):
    cmd = ["objdump", "-d", "--no-show-raw-insn", vmlinux]
    if func:
        cmd.insert(2, "--disassemble=" + func)
    else:
        cmd[2:2] = ["--start-address=%#x" % start, "--stop-address=%#x" % stop]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2).strip()))
    return insns


def normalise(text):
    text = re.sub(r"\s+#.*$", "", text)
    text = re.sub(r"\b[0-9a-f]{16}\s+<", "<", text)
    return re.sub(r"\s+", " ", text)


def show(vmlinux, func, alts):
    insns = disasm(vmlinux, func=func)
    if not insns:
        print("%s: not found in %s" % (func, vmlinux))
        return False
    lo, hi = insns[0][0], insns[-1][0] + 16
    ok = True
    gs_cx16 = 0
    preempt_inc = 0
    print("%s:" % func)
    for a, text in insns:
        print("  %x  %s" % (a, text))
        if FORBIDDEN.search(text):
            print("  ^^^ forbidden on the fastpath")
            ok = False
        if text.startswith("lock"):
            print("  ^^^ lock prefix on the fastpath")
            ok = False
        # DEBUG_PREEMPT kernels call preempt_count_add() instead.
        if re.match(r"(incl\s+%gs:.*<__preempt_count>|call\s+\S+\s+<preempt_count_add>)",
                    text):
            preempt_inc += 1
        for site, ilen, feat, ra, rlen in alts:
            if site != a:
                continue
            for _, r in disasm(vmlinux, ra, ra + rlen):
                print("  %*s  | alt feature %d: %s" % (len("%x" % a), "", feat, r))
                if feat == X86_FEATURE_CX16 and r.startswith("cmpxchg16b %gs:"):
                    gs_cx16 += 1
                if r.startswith("lock"):
                    print("  ^^^ lock prefix in a per-cpu commit")
                    ok = False
    print("  => %d per-cpu cmpxchg16b (%%gs, CX16 alternative), array path "
          "%s, %s" % (gs_cx16,
                      "with preemption off" if preempt_inc else "MISSING",
                      "no lock prefix nor cli/sti/pushf/popf" if ok else "CHECK FAILED"))
    return ok and gs_cx16 >= 1 and preempt_inc >= 1


def compare(a, b, funcs):
    same = True
    for func in funcs:
        ia = [normalise(t) for _, t in disasm(a, func=func)]
        ib = [normalise(t) for _, t in disasm(b, func=func)]
        if ia == ib:
            print("%s: identical, %d instructions" % (func, len(ia)))
            continue
        same = False
        print("%s: differs (%d vs %d instructions)" % (func, len(ia), len(ib)))
        for line in difflib.unified_diff(ia, ib, a, b, n=1, lineterm=""):
            print("  " + line)
    return same


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__.strip())
    vmlinux, argv = argv[0], argv[1:]
    other = None
    if argv[:1] == ["--compare"]:
        other, argv = argv[1], argv[2:]
    funcs = argv or ["kmem_cache_alloc", "kmem_cache_free"]
    if other:
        return 0 if compare(vmlinux, other, funcs) else 1
    alts = list(alternatives(vmlinux))
    ok = True
    for func in funcs:
        ok = show(vmlinux, func, alts) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
