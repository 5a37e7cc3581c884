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

With MEMCG, memcg's charge hook is inlined into kmem_cache_alloc: for an
accounted allocation it takes a reference on the current task's objcg
and drops it with a locked decrement if the charge fails.  That path is
memcg's, taken only by __GFP_ACCOUNT and SLAB_ACCOUNT allocations, and
upstream's kmem_cache_alloc has it too.  So the checks skip exactly the
instructions that the function's control flow graph (jumps, and static
key sites from __jump_table) reaches only through the call to
get_obj_cgroup_from_current(), and the listing marks them "memcg".
Every other instruction, reachable or not, is checked.

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
JUMP_ENTRY = struct.Struct("<iiq")   # struct jump_entry, relative, in 6.1
# Calls that start memcg's charge hook (memcg_slab_pre_alloc_hook()).
MEMCG_HOOK = re.compile(r"call\s+\S+\s+<get_obj_cgroup_from_current>")
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


def symbols(vmlinux, *names):
    """Addresses of the named symbols, None for one that is missing."""
    out = subprocess.run(["nm", vmlinux], check=True, capture_output=True,
                         text=True).stdout
    found = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in names:
            found[f[2]] = int(f[0], 16)
    return [found.get(name) for name in names]


def jump_labels(vmlinux):
    """Yield (site, target) of every static key site.  The table is in
    the kernel's data between __start___jump_table and
    __stop___jump_table, not a section of its own."""
    start, stop = symbols(vmlinux, "__start___jump_table",
                          "__stop___jump_table")
    # No table: no static keys (JUMP_LABEL off), only plain branches.  A
    # table that cannot be read would hide paths: refuse rather than guess.
    if start is None or stop is None:
        return
    for addr, off, size in sections(vmlinux).values():
        if addr and addr <= start and stop <= addr + size:
            break
    else:
        sys.exit("%s: the jump table is in no section" % vmlinux)
    with open(vmlinux, "rb") as f:
        f.seek(off + start - addr)
        data = f.read(stop - start)
    for i in range(0, len(data) - JUMP_ENTRY.size + 1, JUMP_ENTRY.size):
        code, target, _ = JUMP_ENTRY.unpack_from(data, i)
        yield start + i + code, start + i + 4 + target


def reachable(insns, labels, stop=None):
    """Addresses of insns reachable from the first one.  Edges: fall
    through, direct jumps inside the function, static key sites.  An
    instruction matching stop ends its path.  An indirect jump makes
    everything reachable."""
    index = {a: i for i, (a, _) in enumerate(insns)}
    seen = set()
    work = [0]
    while work:
        i = work.pop()
        if i in seen or i >= len(insns):
            continue
        seen.add(i)
        a, text = insns[i]
        if stop and stop.match(text):
            continue
        if a in labels:
            # A static key site is a jmp or a nop, patched at run time:
            # either way it may go on or jump.
            work += [index[t] for t in labels[a] if t in index]
            work.append(i + 1)
            continue
        m = re.match(r"(?:notrack\s+|bnd\s+)?(j[a-z]+)\s+(\*?)([0-9a-f]*)",
                     text)
        if m and m.group(2):
            return {a for a, _ in insns}
        if m:
            target = int(m.group(3), 16) if m.group(3) else None
            if target in index:
                work.append(index[target])
            if m.group(1) == "jmp":
                continue
        elif re.match(r"(ret|retq)\b", text):
            continue
        work.append(i + 1)
    return {insns[i][0] for i in seen}


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


def show(vmlinux, func, alts, labels):
    insns = disasm(vmlinux, func=func)
    if not insns:
        print("%s: not found in %s" % (func, vmlinux))
        return False
    ok = True
    gs_cx16 = 0
    preempt_inc = 0
    memcg = reachable(insns, labels) - reachable(insns, labels, MEMCG_HOOK)
    print("%s:" % func)
    for a, text in insns:
        if a in memcg:
            print("  %x  %-50s memcg" % (a, text))
            continue
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
    if memcg:
        locked = sum(1 for a, t in insns if a in memcg and t.startswith("lock"))
        print("  => %d instructions only on memcg's charge path (accounted "
              "allocations), %d of them lock-prefixed, not checked"
              % (len(memcg), locked))
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
    labels = {}
    for site, target in jump_labels(vmlinux):
        labels.setdefault(site, []).append(target)
    ok = True
    for func in funcs:
        ok = show(vmlinux, func, alts, labels) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
