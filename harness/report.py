#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a guest booted with harness.suite=report.

usage: report.py CONSOLE_LOG BASE_VERSION PROFILE CONFIG
"""
import re
import sys


def section(lines, name):
    out, on = [], False
    for line in lines:
        if line.startswith("== "):
            on = line[3:].strip() == name
            continue
        if line.startswith("HARNESS: report-end"):
            break
        if on:
            out.append(line)
    return out


def config_value(path, key):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + "="):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "n"


def main():
    log, version, profile, config = sys.argv[1:5]
    with open(log, errors="replace") as f:
        raw = [l.rstrip("\n") for l in f]
    lines = [re.sub(r"^\[\s*\d+\.\d+\]\s?", "", l) for l in raw]
    dmesg = section(lines, "dmesg")
    cmdline = " ".join(section(lines, "cmdline"))

    def grep(pat, src=dmesg):
        return [l for l in src if re.search(pat, l)]

    allocator = "unknown"
    if config_value(config, "CONFIG_SLUB") == "y":
        allocator = "SLUB"
    elif config_value(config, "CONFIG_SLAB") == "y":
        allocator = "SLAB"
    banner = grep(r"^(SLUB engine|SLUB|SLAB|slub|slab)[ :]")
    page = grep(r"slabreport: sizeof")
    memmap = grep(r"slabreport: present_pages")
    memory = grep(r"^Memory:")

    words = cmdline.split()
    policy = "merge (CONFIG_SLAB_MERGE_DEFAULT=%s)" % config_value(config, "CONFIG_SLAB_MERGE_DEFAULT")
    for w in words:
        if w in ("slab_nomerge", "slub_nomerge"):
            policy = "nomerge (%s)" % w
        elif w in ("slab_merge", "slub_merge"):
            policy = "merge (%s)" % w
        elif w.startswith("slab_nomerge="):
            policy = "merge, except %s" % w.split("=", 1)[1]
    if config_value(config, "CONFIG_SLAB_MERGE_DEFAULT") != "y" and policy.startswith("merge (CONFIG"):
        policy = "nomerge (CONFIG_SLAB_MERGE_DEFAULT=n)"

    sysfs = section(lines, "sysfs")
    caches = [l.split()[1] for l in sysfs if l.startswith("cache ")]
    aliases = [l.split()[1] for l in sysfs if l.startswith("alias ")]

    rows = []
    for l in section(lines, "slabinfo"):
        if l.startswith(("slabinfo", "#")):
            continue
        f = l.split()
        try:
            name, objsize, pps, slabs = f[0], int(f[3]), int(f[5]), int(f[f.index("slabdata") + 2])
            active, total = int(f[1]), int(f[2])
        except (ValueError, IndexError):
            continue
        rows.append((slabs * pps * 4, name, active, total, objsize))
    rows.sort(reverse=True)

    print("Slab report")
    print("  base kernel        Linux %s (profile %s)" % (version, profile))
    print("  allocator          %s%s" % (allocator, " (" + banner[0] + ")" if banner else ""))
    if config_value(config, "CONFIG_STRUCT_PAGE_INTERNAL_ALIGN") == "y":
        layout = "internal alignment (CONFIG_STRUCT_PAGE_INTERNAL_ALIGN)"
    elif config_value(config, "CONFIG_HAVE_ALIGNED_STRUCT_PAGE") == "y":
        layout = "aligned (CONFIG_HAVE_ALIGNED_STRUCT_PAGE)"
    else:
        layout = "unpadded (no CONFIG_HAVE_ALIGNED_STRUCT_PAGE)"
    print("  %-18s %s" % ("page layout", layout))
    # What MEMCG does to the 56-byte choice (the Kconfig help says it too).
    choice = any(config_value(config, "CONFIG_STRUCT_PAGE_" + c) == "y"
                 for c in ("INTERNAL_ALIGN", "ALIGNED"))
    if config_value(config, "CONFIG_MEMCG") == "y":
        print("  %-18s %s" % ("MEMCG", "on: memcg_data fills struct page's last word, so "
                              "struct page is 64 bytes"))
        if choice:
            print("  %-18s %s" % ("", "with either layout: the 56-byte choice saves nothing"))
    elif config_value(config, "CONFIG_STRUCT_PAGE_INTERNAL_ALIGN") == "y":
        print("  %-18s %s" % ("MEMCG", "off: struct page is 56 bytes, 8 bytes per 4 KiB page "
                              "(2 MiB per GiB) less than"))
        print("  %-18s %s" % ("", "the aligned layout; with MEMCG on both would be 64"))
    for l in page + memmap:
        print("  %-18s %s" % ("struct page" if "sizeof" in l else "memmap", l.split(": ", 1)[1]))
    print("  boot memory        %s" % (memory[0] if memory else "(no Memory: line)"))
    print("  merge policy       %s" % policy)
    print("  caches             %d in /proc/slabinfo, %d in /sys/kernel/slab, %d aliases"
          % (len(rows), len(caches), len(aliases)))
    # The array front end: objects per array, slot size and objects
    # cached (array_objects, "-" on kernels without it) per cache.
    arrays = []
    held = None
    for l in sysfs:
        f = l.split()
        if f[0] == "cache" and len(f) >= 4 and f[2].isdigit() and int(f[2]):
            arrays.append((int(f[2]), int(f[3])))
            if len(f) >= 5 and f[4].isdigit():
                held = (held or 0) + int(f[4]) * int(f[3])
    # The kernel's budget (mm/slub_array.c array_budget()), and the rule
    # that sizes arrays by it (array_slots_for()), to project the bound
    # to other cpu counts with this guest's caches and memory.
    m = grep(r"^SLUB: arrays of up to \d+ bytes")
    m = re.search(r"up to (\d+) bytes of objects \(at most (\d+), 1/(\d+) of the memory "
                  r"per cpu\), depots of (\d+) arrays, for (\d+) cpus, (\d+) nodes, (\d+) KiB",
                  m[0]) if m else None
    if arrays and m:
        budget, cap, frac, depot, cpus, nodes, kib = (int(x) for x in m.groups())
        fixed = re.search(r"(?:^| )slub_array_size=(\d+)(?: |$)", cmdline)

        def slots(size, nbytes):
            want = nbytes // max(size, 1)
            for n in (125, 61, 29, 13, 5):
                if n <= want:
                    return n
            return 4

        def rule(c, mem=kib):
            return min(cap, max(8, (mem << 10) // c // frac))

        def bound(c, mem=kib):
            nbytes = rule(c, mem)
            total = 0
            for n, size in arrays:
                if not fixed and n == slots(size, budget):
                    n = slots(size, nbytes)
                total += n * size * (2 * c + depot * nodes)
            return total // 1024, nbytes

        odd = [1 for n, size in arrays if not fixed and n != slots(size, budget)]
        if rule(cpus) != budget:
            print("  report: error: the kernel's budget of %d bytes differs from the rule's %d"
                  % (budget, rule(cpus)))
        worst = sum(n * size * (2 * cpus + depot * nodes) for n, size in arrays) // 1024
        print("  array front end    %d caches with arrays; at most %d KiB of objects in"
              % (len(arrays), worst))
        print("                     arrays (2 per cpu + %d per node depot, each of array_size;"
              % depot)
        print("                     arrays of up to %d bytes of objects, %d of array_size set apart)"
              % (budget, len(odd)))
        # The same caches on bigger machines with this memory (same node
        # count): the budget per array falls as the cpus grow.
        mem = [l for l in section(lines, "meminfo") if l.startswith("MemTotal:")]
        total_kb = int(mem[0].split()[1]) if mem else 0
        for c in (2, 16, 128, 512):
            at, nbytes = bound(c)
            share = " (%.1f%% of this guest's MemTotal)" % (100.0 * at / total_kb) if total_kb else ""
            print("                     at %3d cpus, %d node%s: %d KiB%s; %d-byte arrays, depot %d"
                  % (c, nodes, "" if nodes == 1 else "s", at, share, nbytes, depot))
        # And with this guest's memory per cpu: the floor of 4 objects
        # above is what outgrows memory when it is not scaled.
        if total_kb:
            scaled = ["%d: %.1f%%" % (c, 100.0 * bound(c, kib * c // cpus)[0] / (total_kb * c / cpus))
                      for c in (2, 16, 128, 512)]
            print("                     with this guest's memory per cpu, at %s of MemTotal"
                  % ", ".join(scaled))
        if total_kb:
            pct = 100.0 * worst / total_kb
            print("                     goal: at most 3%% of MemTotal at this guest's %d cpus: %s (%.1f%%)"
                  % (cpus, "met" if pct <= 3.0 else "MISSED", pct))
        slab = [l for l in section(lines, "meminfo") if l.startswith("Slab:")]
        if held is not None and slab:
            slab_kb = int(slab[0].split()[1])
            print("                     now %d KiB of objects in arrays and depots (array_objects),"
                  % (held // 1024))
            pct = 100.0 * held / 1024 / slab_kb
            print("                     %.1f%% of Slab: %d kB; goal: at most 8%% after boot: %s"
                  % (pct, slab_kb, "met" if pct <= 8.0 else "MISSED"))
    elif arrays:
        print("  array front end    %d caches with arrays (no \"SLUB: arrays of up to\" line in the log)"
              % len(arrays))
    elif sysfs and any(len(l.split()) >= 4 for l in sysfs):
        print("  array front end    none (slub_frontend=freelist)")
    mi = section(lines, "meminfo")
    for l in mi:
        if l.startswith(("Slab:", "MemTotal:")):
            print("  %-18s %s" % (l.split(":")[0], " ".join(l.split()[1:])))
    print("  top caches by memory:")
    print("    %-24s %8s %10s %10s %8s" % ("cache", "KiB", "active", "total", "objsize"))
    for kib, name, active, total, objsize in rows[:10]:
        print("    %-24s %8d %10d %10d %8d" % (name, kib, active, total, objsize))


if __name__ == "__main__":
    main()
