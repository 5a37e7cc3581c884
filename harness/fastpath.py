#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Show and check the allocator fastpaths of a built vmlinux.

usage: fastpath.py VMLINUX [--rt] [--compare OTHER_VMLINUX] [FUNCTION ...]
       fastpath.py VMLINUX --save-listing FILE [FUNCTION ...]
       fastpath.py VMLINUX --listing FILE [FUNCTION ...]

For each function (default: kmem_cache_alloc, kmem_cache_free,
__kmalloc, kmalloc_trace and kfree) print its disassembly with every
boot-time ALTERNATIVE inside it resolved: the bytes that replace the
site when the CPU has the feature.  Then check what the fastpaths
promise.  The freelist front end: a cmpxchg16b with a %gs prefix and no
lock prefix among the replacements.  The array front end (behind a
static key in the same function): preemption disabled by an increment
of the per-cpu preempt count.  Both: nothing that locks or turns
interrupts off.  --rt, for a PREEMPT_RT kernel: the freelist front end
takes its cpu's lock there (slub_fastpath_locked()), so its fast path
must have no cmpxchg16b at all; the array front end's checks stay.
Exit status 1 if a check fails.

What is checked, in the function and in the functions it calls:
 - every instruction (but memcg's, below) and every alternative's
   replacement: no cli, sti, pushf or popf, no lock prefix, no xchg with
   a memory operand (locked without a prefix), no call through pv_ops
   (a PARAVIRT kernel's local_irq_save() is "call *pv_ops+..." with
   pushf/cli in its replacement), and no call to a function that locks
   or turns interrupts off (IRQ_CALLS: _raw_spin_lock_irqsave(),
   native_irq_disable(), trace_hardirqs_off(), ...);
 - the fast path: the instructions reachable from the entry along the
   control flow graph (jumps, static key sites from __jump_table) that
   does not go past a call to a slow path (SLOW_CALLS: the freelist or
   the array empty or full, slub_fastpath=irqoff, large kmalloc, double
   free and WARN reports, the preempt_enable() reschedule, the non-CX16
   fallback that the CX16 alternative replaces, memcg's hook).  A direct
   call or tail jump on the fast path to any other function is followed,
   MAX_DEPTH calls deep, and that function is checked the same way; an
   indirect call there, which cannot be followed, fails the check.
The counts of the cmpxchg16b and of the preempt count increments are
those of the function and of the functions followed: kfree's fastpath is
in the function it calls.

With MEMCG, memcg's charge hook is inlined into kmem_cache_alloc: for an
accounted allocation it takes a reference on the current task's objcg
and drops it with a locked decrement if the charge fails.  That path is
memcg's, taken only by __GFP_ACCOUNT and SLAB_ACCOUNT allocations, and
upstream's kmem_cache_alloc has it too.  So the checks skip exactly the
instructions that the function's control flow graph reaches only
through the call to get_obj_cgroup_from_current(), and the listing marks
them "memcg".  Every other instruction, reachable or not, is checked.
6.1 inlines memcg's post-alloc hook too, after the object is taken: it
runs only for the objcg that get_obj_cgroup_from_current() returned,
which the function keeps in a callee-saved register and zeroes on the
paths that charge nothing.  Along those paths the graph knows the
register is 0, and a "test" of it followed by je or jne goes one way
only, so the hook's body is memcg's as well; a path that does not zero
the register reaches it and has it checked.  6.1's free hook,
memcg_slab_free_hook(), is out of line: it is a slow call, as 6.12's
__memcg_slab_free_hook() is (what it does for an object never charged,
read the slab's objcgs vector and return, is not checked).

With --compare, print instead whether the two kernels' functions are the
same instruction for instruction once addresses are stripped, and the
differences when they are not.

--save-listing writes the objdump listing of every function the check
disassembled to FILE; --listing reads the functions from such a file
instead of the vmlinux (alternatives and static keys still come from
the vmlinux), so that an edited copy shows that the checks can fail.
"""
import difflib
import os
import re
import struct
import subprocess
import sys

X86_FEATURE_CX16 = 4 * 32 + 13      # arch/x86/include/asm/cpufeatures.h
# struct alt_instr: 6.1's (cpuid u16), and from 6.7 on (6.12's) a u32
# of cpuid:16 and flags:16.
ALT_ENTRY = struct.Struct("<iiHBB")
ALT_ENTRY_FT = struct.Struct("<iiIBB")
JUMP_ENTRY = struct.Struct("<iiq")   # struct jump_entry, relative, in 6.1
# Calls that start memcg's charge hook: 6.1's memcg_slab_pre_alloc_hook()
# takes the objcg first; 6.12 charges after the objects are taken.
MEMCG_HOOK = re.compile(r"call\s+\S+\s+<(?:get_obj_cgroup_from_current|"
                        r"__memcg_slab_post_alloc_hook)>")
# Where 6.1 keeps that objcg: the move of its return value to a
# callee-saved register, among the first instructions after the call.
OBJCG_KEPT = re.compile(r"mov\s+%rax,%(rbx|rbp|r1[2-5])$")
FORBIDDEN = re.compile(r"\b(cli|sti|pushf|pushfq|popf|popfq)\b")
# A lock prefix (after any segment or size prefix), or xchg with a memory
# operand, which the CPU locks without one.  xchg %ax,%ax is a nop.
LOCKED = re.compile(r"(?:(?:[c-gs]s|data16|addr32)\s+)*(?:lock\s|xchg[bwlq]?\s.*\()")
# local_irq_save() of a PARAVIRT kernel, before alternatives patch it.
PV_CALL = re.compile(r"call\s+\*.*<pv_ops[+>]")
# Functions that take a lock or turn interrupts off (and their clones).
IRQ_CALLS = re.compile(
    r"(?:call|jmp)\s+\S+\s+<(?:_raw_(?:spin|read|write)_(?:try)?lock\w*"
    r"|queued_(?:spin|read|write)_lock_slowpath|__raw_callee_save_\w*irq\w*"
    r"|native_(?:save_fl|restore_fl|irq_disable|irq_enable)"
    r"|\w*local_irq_\w+|pv_native_\w+|xen_\w*irq\w*"
    r"|trace_hardirqs_\w+|lockdep_hardirqs_\w+|mutex_lock\w*)(?:\.\w+)*>")
# Calls the fast path makes only when it is not fast: not followed, and
# the end of a fast path in the control flow graph.
SLOW_CALLS = {
    "alloc_slowpath": "the cpu freelist is empty",
    "slab_alloc_miss": "the array is empty or cannot be used",
    "cache_free_slowpath": "an object of another cache, or the tracepoint on",
    "array_alloc_slowpath": "the array is empty",
    "free_slowpath": "the object is not of the cpu slab",
    "array_free_slowpath": "the array is full",
    "free_double_slowpath": "a double free found",
    "array_double_free": "a double free found",
    "fp_double_free_drop": "a double free found",
    "cpu_free_irqoff": "slub_fastpath=irqoff, behind a static key",
    "__kmalloc_large_node": "kmalloc beyond the largest cache",
    "kmalloc_large_slowpath": "kmalloc beyond the largest cache (6.12)",
    "slub_debug_kmalloc_size": "a debug cache's kmalloc red zone, behind a static key",
    "free_large_kmalloc": "kfree of a large kmalloc",
    "__warn_printk": "a WARN",
    "print_tracking": "a WARN's report",
    r"preempt_schedule(?:_notrace)?_thunk": "preempt_enable() found a reschedule due",
    "this_cpu_cmpxchg16b_emu": "no CX16: the CX16 alternative replaces it",
    "get_obj_cgroup_from_current": "memcg's charge hook",
    "__memcg_slab_post_alloc_hook": "memcg's charge hook (6.12)",
    "__memcg_slab_free_hook": "memcg's uncharge of a charged object (6.12)",
    "memcg_slab_free_hook": "memcg's uncharge hook, out of line (6.1)",
    "obj_alloc_abort": "memcg refused the charge (6.12)",
    "alloc_slab_obj_exts": "a slab's first tagged or charged object (6.12)",
    # The debug configurations' hooks, not the allocator's fastpath.
    "fs_reclaim_acquire": "lockdep's might_alloc() annotation",
    "fs_reclaim_release": "lockdep's might_alloc() annotation",
    "__should_failslab": "CONFIG_FAILSLAB's fault injection",
    "should_failslab": "CONFIG_FAILSLAB's fault injection (6.12)",
    r"__kasan_\w+": "KASAN's hooks",
    r"kmemleak_\w+": "kmemleak's hooks",
    r"lock_acquire|lock_release|lock_is_held_type|debug_check_no_locks_freed":
        "lockdep's bookkeeping",
    r"debug_smp_processor_id|__this_cpu_preempt_check": "DEBUG_PREEMPT's checks",
    r"__SCT__tp_func_\w+": "a tracepoint, behind its static key",
    # What a distribution config adds (the distro profiles): KFENCE's
    # sampled allocation, once its gate opens (one allocation per
    # sample interval), and the stack protector's report of a smashed
    # canary.
    "__kfence_alloc": "KFENCE takes this allocation as its sample",
    "__stack_chk_fail": "the stack protector found its canary overwritten",
}
SLOW = re.compile(r"(?:call|jmp)\s+\S+\s+<(?:%s)(?:\.\w+)*>"
                  % "|".join(SLOW_CALLS))
DIRECT = re.compile(r"(call|j[a-z]+)\s+([0-9a-f]+)\s+<([^+>]+)>")
MAX_DEPTH = 3
LISTING = {}                         # --listing: function -> instructions
SAVED = {}                           # --save-listing: function -> lines


def sections(vmlinux):
    out = subprocess.run(["readelf", "-SW", vmlinux], check=True,
                         capture_output=True, text=True).stdout
    secs = {}
    for line in out.splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[0].startswith("[") and f[0] != "[Nr]":
            secs[f[1]] = (int(f[3], 16), int(f[4], 16), int(f[5], 16))
    return secs


def kernel_version(vmlinux):
    """(major, minor) of the kernel, from the .config beside vmlinux."""
    config = os.path.join(os.path.dirname(os.path.abspath(vmlinux)), ".config")
    with open(config) as f:
        for line in f:
            m = re.match(r"# Linux/\S+ (\d+)\.(\d+)", line)
            if m:
                return int(m.group(1)), int(m.group(2))
    sys.exit("%s: no kernel version in its header" % config)


def alternatives(vmlinux):
    """Yield (site, site_len, feature, repl_addr, repl_len)."""
    secs = sections(vmlinux)
    addr, off, size = secs[".altinstructions"]
    entry = ALT_ENTRY if kernel_version(vmlinux) < (6, 7) else ALT_ENTRY_FT
    with open(vmlinux, "rb") as f:
        f.seek(off)
        data = f.read(size)
    for i in range(0, size - entry.size + 1, entry.size):
        ioff, roff, feat, ilen, rlen = entry.unpack_from(data, i)
        yield addr + i + ioff, ilen, feat & 0xffff, addr + i + 4 + roff, rlen


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


# The names of a 64-bit register and of its lower parts.
REG_PARTS = {"rbx": "rbx|ebx|bx|bl", "rbp": "rbp|ebp|bp|bpl"}
for _n in range(12, 16):
    REG_PARTS["r%d" % _n] = "r%d|r%dd|r%dw|r%db" % (_n, _n, _n, _n)


def objcg_register(insns):
    """The register that keeps the objcg of memcg's charge hook (6.1's
    inlined memcg_slab_pre_alloc_hook()), or None."""
    for i, (_, text) in enumerate(insns):
        if not MEMCG_HOOK.match(text):
            continue
        for _, after in insns[i + 1:i + 4]:
            m = OBJCG_KEPT.match(after)
            if m:
                return m.group(1)
            if DIRECT.match(after) or (re.search(r"%[re]ax$", after) and
                                       not re.match(r"(test|cmp|push)", after)):
                break
        return None
    return None


def reg_state(text, reg, null):
    """Whether reg is known to be 0 after text, given null before it."""
    parts = REG_PARTS[reg]
    if re.match(r"(?:xor|sub)[lq]?\s+%%(%s),%%\1$" % parts, text) or \
       re.match(r"mov[lq]?\s+\$0x0,%%(?:%s)$" % parts, text):
        return True
    # AT&T: a register as the last operand is written, but by a test, a
    # compare, a push or a call; xchg writes both.
    if re.match(r"(?:test|cmp|bt|push|call|j[a-z]+)\b", text):
        return null
    if re.search(r"%%(?:%s)$" % parts, text) or \
       re.match(r"xchg\w*\s+%%(?:%s)," % parts, text):
        return False
    return null


def reachable(insns, labels, stop=None, null_reg=None):
    """Addresses of insns reachable from the first one.  Edges: fall
    through, direct jumps inside the function, static key sites.  An
    instruction matching stop ends its path.  An indirect jump makes
    everything reachable.  With null_reg, each path knows whether that
    register is 0 (zeroed on the path and not written since): a je or
    jne right after "test %null_reg,%null_reg" then goes only the way
    that 0 takes."""
    index = {a: i for i, (a, _) in enumerate(insns)}
    test = None
    if null_reg:
        test = re.compile(r"test[lq]?\s+%%(%s),%%\1$" % REG_PARTS[null_reg])
    seen = set()
    work = [(0, False, False)]
    while work:
        i, null, tested = work.pop()
        if (i, null, tested) in seen or i >= len(insns):
            continue
        seen.add((i, null, tested))
        a, text = insns[i]
        if stop and stop.match(text):
            continue
        after = reg_state(text, null_reg, null) if null_reg else False
        now_tested = bool(test and test.match(text))
        if a in labels:
            # A static key site is a jmp or a nop, patched at run time:
            # either way it may go on or jump.
            work += [(index[t], after, False) for t in labels[a] if t in index]
            work.append((i + 1, after, False))
            continue
        m = re.match(r"(?:notrack\s+|bnd\s+)?(j[a-z]+)\s+(\*?)([0-9a-f]*)",
                     text)
        if m and m.group(2):
            return {a for a, _ in insns}
        if m:
            target = int(m.group(3), 16) if m.group(3) else None
            if null and tested and m.group(1) in ("je", "jz"):
                if target in index:
                    work.append((index[target], after, False))
                continue
            if null and tested and m.group(1) in ("jne", "jnz"):
                work.append((i + 1, after, False))
                continue
            if target in index:
                work.append((index[target], after, False))
            if m.group(1) == "jmp":
                continue
        elif re.match(r"(ret|retq)\b", text):
            continue
        work.append((i + 1, after, now_tested))
    return {insns[i][0] for i, _, _ in seen}


def disasm(vmlinux, start=None, stop=None, func=None):
    if func and LISTING:
        return LISTING.get(func, [])
    cmd = ["objdump", "-d", "--no-show-raw-insn", vmlinux]
    if func:
        cmd.insert(2, "--disassemble=" + func)
    else:
        cmd[2:2] = ["--start-address=%#x" % start, "--stop-address=%#x" % stop]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    insns = parse(out)
    if func:
        SAVED[func] = ["%016x <%s>:" % (insns[0][0], func)] if insns else []
        SAVED[func] += ["%x:\t%s" % (a, t) for a, t in insns]
    return insns


def parse(text):
    insns = []
    for line in text.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2).strip()))
    return insns


def read_listing(path):
    """The functions of an objdump -d listing: "<name>:" lines head them."""
    funcs, name = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line.strip())
            if m:
                name = m.group(1)
                funcs[name] = []
            elif name:
                funcs[name] += parse(line)
    return funcs


def normalise(text):
    text = re.sub(r"\s+#.*$", "", text)
    text = re.sub(r"\b[0-9a-f]{16}\s+<", "<", text)
    return re.sub(r"\s+", " ", text)


def problem(text):
    """Why one instruction may not be on a fastpath, or None."""
    if FORBIDDEN.search(text):
        return "forbidden on the fastpath"
    if LOCKED.match(text):
        return "locked instruction on the fastpath"
    if PV_CALL.search(text):
        return "call through pv_ops (a paravirt irq op) on the fastpath"
    if IRQ_CALLS.match(text):
        return "call to a function that locks or disables interrupts"
    return None


def show(vmlinux, func, alts, labels, depth=0, seen=None):
    """Print and check func and, MAX_DEPTH calls deep, the functions its
    fast path calls.  Returns (ok, %gs cmpxchg16b, preempt count
    increments, functions checked)."""
    seen = set() if seen is None else seen
    seen.add(func)
    pad = "  " * (depth + 1)
    insns = disasm(vmlinux, func=func)
    if not insns:
        print("%s%s: not found in %s" % (pad, func, vmlinux))
        return False, 0, 0, 1
    ok = True
    gs_cx16 = 0
    preempt_inc = 0
    memcg = reachable(insns, labels) - reachable(insns, labels, MEMCG_HOOK,
                                                 objcg_register(insns))
    fast = reachable(insns, labels, SLOW)
    callees = []
    print("%s%s:" % (pad[2:], func) if not depth else
          "%s-> %s, called on the fast path (%d deep):" % (pad[2:], func, depth))
    for a, text in insns:
        if a in memcg:
            print("%s%x  %-50s memcg" % (pad, a, text))
            continue
        print("%s%x  %s%s" % (pad, a, text, "" if a in fast else "   (slow)"))
        why = problem(text)
        if why:
            print("%s^^^ %s" % (pad, why))
            ok = False
        # DEBUG_PREEMPT kernels call preempt_count_add() instead; from
        # 6.2 on the count is a field of pcpu_hot.
        if re.match(r"(incl\s+%gs:.*<(__preempt_count|pcpu_hot\+0x8)>|"
                    r"call\s+\S+\s+<preempt_count_add>)", text):
            preempt_inc += 1
        for site, ilen, feat, ra, rlen in alts:
            if site != a:
                continue
            for _, r in disasm(vmlinux, ra, ra + rlen) if rlen else []:
                print("%s%*s  | alt feature %d: %s" % (pad, len("%x" % a), "", feat, r))
                if feat == X86_FEATURE_CX16 and r.startswith("cmpxchg16b %gs:"):
                    gs_cx16 += 1
                why = problem(r)
                if why:
                    print("%s^^^ %s, in an alternative" % (pad, why))
                    ok = False
        if a not in fast or SLOW.match(text) or why:
            continue
        if re.match(r"(?:notrack\s+)?(?:call|jmp)\s+\*|call\s+\S+\s+<__x86_indirect_thunk",
                    text):
            print("%s^^^ indirect call on the fast path: cannot be followed" % pad)
            ok = False
        m = DIRECT.match(text)
        if m and m.group(3) not in callees:
            callees.append(m.group(3))
    if memcg:
        locked = sum(1 for a, t in insns if a in memcg and LOCKED.match(t))
        print("%s=> %d instructions only on memcg's charge path (accounted "
              "allocations), %d of them locked, not checked"
              % (pad, len(memcg), locked))
    n = 1
    for callee in callees:
        if callee in seen:
            continue
        if depth == MAX_DEPTH:
            print("%s-> %s not followed: %d calls deep" % (pad, callee, depth + 1))
            continue
        c_ok, c_cx16, c_inc, c_n = show(vmlinux, callee, alts, labels,
                                        depth + 1, seen)
        ok, gs_cx16, preempt_inc, n = (ok and c_ok, gs_cx16 + c_cx16,
                                       preempt_inc + c_inc, n + c_n)
    return ok, gs_cx16, preempt_inc, n


def check(vmlinux, func, alts, labels, rt=False):
    ok, gs_cx16, preempt_inc, n = show(vmlinux, func, alts, labels)
    print("  => %d per-cpu cmpxchg16b (%%gs, CX16 alternative%s), array path "
          "%s, %s" % (gs_cx16, ", none wanted on PREEMPT_RT" if rt else "",
                      "with preemption off" if preempt_inc else "MISSING",
                      "no lock, xchg, cli/sti/pushf/popf nor irq-off call on "
                      "the fast path of %d function%s" % (n, "s"[:n > 1])
                      if ok else "CHECK FAILED"))
    return ok and (gs_cx16 == 0 if rt else gs_cx16 >= 1) and preempt_inc >= 1


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
    rt = "--rt" in argv
    argv = [a for a in argv if a != "--rt"]
    other = save = None
    if argv[:1] == ["--compare"]:
        other, argv = argv[1], argv[2:]
    elif argv[:1] == ["--save-listing"]:
        save, argv = argv[1], argv[2:]
    elif argv[:1] == ["--listing"]:
        LISTING.update(read_listing(argv[1]))
        argv = argv[2:]
    funcs = argv or ["kmem_cache_alloc", "kmem_cache_free", "__kmalloc",
                     "kmalloc_trace", "kfree"]
    if other:
        return 0 if compare(vmlinux, other, funcs) else 1
    alts = list(alternatives(vmlinux))
    labels = {}
    for site, target in jump_labels(vmlinux):
        labels.setdefault(site, []).append(target)
    ok = True
    for func in funcs:
        ok = check(vmlinux, func, alts, labels, rt) and ok
    if save:
        with open(save, "w") as f:
            f.writelines(line + "\n" for lines in SAVED.values() for line in lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
