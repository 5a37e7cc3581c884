#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cost model of make bench: the slabcost plugin's counts, per operation,
and the cycles harness/costmodel.conf gives them.

usage: model-report.py [--base=V] [--tsv=FILE] INDEX COSTS OUT.md [RESULTS.tsv]

--base=V: the kernels of base V (bench.sh's BASE): after 6.1, no SLAB.
--tsv=FILE: also write the counts per operation of every window, with
their modelled cycles, and the calls of the counted functions, as rows
"variant pass group key counter value" (counter "cycles" is the model's;
"call:FN" a function's calls per operation; a counter that is 0 is left
out, but for insn), and the checks' totals as
rows "- - check - NAME value": the results that harness/results.py
renders into docs/results/ once committed.

INDEX (bench.sh's build/bench/model/index.tsv) lists one boot a line:
measure (icount, or dave for Dave Hansen's dd), variant, pass, console log,
the plugin's counts file and the kernel's System.map, which names the
functions of the plugin's per-instruction lines (measure fwd: IP
forwarding, whose table takes its packets per second from bench.sh's
RESULTS.tsv, the fwdtcg rows).  The console says
what each window measured and over how many operations ("... window=W
ops=N"); the counts file has the plugin's counters per window.

Checks, each a failure (exit 1) when it does not hold:
- every window the guest announced has its counts, the plugin reported
  no error, and the console has no error line of the guest ("BENCH:
  error ...", "slab_bench: error ...", "slab_bench: end ret=" other than
  0);
- every boot ends with each modelcal window of MODELCAL_WANT once, and has
  at least one measured window: a boot that checked or measured nothing
  fails;
- the modelcal windows count exactly what their code executes (the
  "modelcal NAME window=W counter=expected ..." lines, "call:FN=N" for
  the plugin's call counters): the model sees what it claims to;
- two passes of the same kernel give the same counts in every window,
  the forwarding windows included (their NIC, modules/fwdnic, is guest
  code: no device emulation decides what one NAPI poll finds).

Prints "model: E of N modelcal windows exact; S of T windows identical
between passes" (make check's detail of its model:slabcost row).

The shell's windows (fork+exec, dd, forwarding) hold the two marker
processes and the clock reads besides their case: the latest "shell
null" window before them in the same boot, which holds only those, is
taken off them (the forwarding runs have their own, after the warm-up
run, so that what is taken off finds the caches as the runs do).
"""
import bisect
import re
import statistics
import sys
from collections import defaultdict

KERNELS = ["ours-aligned", "ours-internal", "slub", "slub56", "slab"]
LABEL = {"ours-aligned": "ours aligned", "ours-internal": "ours internal",
         "slub": "SLUB", "slub56": "SLUB 56 B", "slab": "SLAB"}
OURS = "ours-internal"
STRATEGIES = ["ours-internal", "ours-internal+irqoff", "ours-internal+bitlock",
              "ours-internal+irqoff-bitlock", "ours-internal+freelist",
              "ours-internal+freelist-irqoff", "ours-internal+freelist-bitlock", "slub", "slub56"]
EVENTS = ["locked", "cx16l", "cx16", "pushf", "popf", "cli", "sti"]
GROUPS = [
    ("fast", "kmem_cache_alloc + kmem_cache_free, per pair", "object size"),
    ("kmalloc", "kmalloc + kfree, per pair", "size"),
    ("allocn", "alloc N then free N, per object", "N"),
    ("bulk", "kmem_cache_alloc_bulk + free_bulk, per object", "objects"),
    ("bulkm", "bulk on a mergeable cache, per object", "objects"),
    ("many", "one object from each of 64 caches, per pair", "caches"),
    ("net", "UDP over loopback, per datagram", "case"),
    ("shell", "from the shell (null window taken off), per op", "case"),
]
# The targets of make bench that single-CPU figures judge, on the same
# rows: (name, group, keys or None for all, peers, bound).
TARGETS = [
    ("fastpath pair kmem_cache", "fast", None, ("slub", "slub56"), 0.85),
    ("fastpath pair kmalloc", "kmalloc", None, ("slub", "slub56"), 0.85),
    ("alloc N / free N", "allocn", None, ("slab",), 1.0),
    ("bulk >= 16", "bulk", lambda k: int(k) >= 16, ("slub", "slub56"), 0.8),
    ("bulk 250", "bulk", lambda k: k == "250", ("slab",), 1.0),
    ("many caches", "many", None, ("slub", "slub56"), 1.0),
    ("fork+exec", "shell", lambda k: k == "forkexec", ("slub", "slub56"), 1.0),
]

PC_TOP = 40     # the per-instruction lines of a window (slabcost.c)
# What a modelcal line may state besides the plugin's counters: facts of
# the boot, printed for the reader, not compared.  "call:FN=N" compares
# with the plugin's call counters of the window.
MODELCAL_INFO = {"struct_page"}
# The modelcal windows every boot under the plugin ends with (the guest
# runs slab_bench cases=modelcal last): each must be there once, exact.
MODELCAL_WANT = ("cold", "hot", "l2", "l3", "store", "storecold", "lock", "xchg", "cx16l",
                 "cx16", "uplock", "irq", "vmemmap", "calls")
WINDOW_RE = re.compile(r"^BENCH: (?:slab_bench: )?(?:net )?(model|modelcal) (.*?) ?window=(\d+)(.*)$")
# A line of the guest that says a measure failed: bench.sh's own boots
# fail on it too.
ERROR_RE = re.compile(r"^BENCH: (?:error|slab_bench: error)\b|^BENCH: slab_bench: end ret=(?!0\b)")


def load_costs(path):
    costs, sources, cpu = {}, {}, "?"
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, value, source = (line.split(None, 2) + ["", ""])[:3]
            if name == "cpu":
                cpu = source
                continue
            costs[name] = float(value)
            sources[name] = source
    return cpu, costs, sources


def parse_counts(path, problems, where, pcs, calls):
    """The counters per window; pcs[window] gets the per-instruction lines,
    calls[window] the calls of the functions the plugin was given."""
    windows, end = {}, None
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if parts[:1] == ["pc"] and len(parts) > 3:
                    pcs[int(parts[1])].append((int(parts[2], 16), {k: int(v) for k, v in
                                                                   (x.split("=") for x in parts[3:])}))
                elif parts[:1] == ["call"] and len(parts) > 2:
                    calls[int(parts[1])] = {k: int(v) for k, v in
                                            (x.split("=") for x in parts[2:])}
                elif parts[:1] == ["window"]:
                    windows[int(parts[1])] = {k: int(v) for k, v in
                                              (p.split("=") for p in parts[2:])}
                elif line.startswith("slabcost: end"):
                    end = dict(p.split("=") for p in parts[2:])
                elif line.startswith("slabcost: error"):
                    problems.append(f"{where}: {line.strip()}")
    except OSError as e:
        problems.append(f"{where}: no plugin counts ({e})")
        return windows
    if end is None:
        problems.append(f"{where}: the plugin's counts end without its end line")
    elif end.get("errors") != "0":
        problems.append(f"{where}: the plugin reports {end.get('errors')} error(s)")
    # An access whose physical address QEMU could not give the plugin is
    # simulated at its virtual address: never silently.
    elif end.get("nohw") != "0":
        problems.append(f"{where}: {end.get('nohw', 'an unknown number of')} accesses without "
                        "a physical address (simulated at their virtual address)")
    for w, c in windows.items():
        if c.get("nohw") != 0:
            problems.append(f"{where}: window {w}: nohw={c.get('nohw')}, not 0")
    return windows


def parse_console(path, problems, where):
    """[(kind, label, window, ops or expectations)]"""
    out = []
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        problems.append(f"{where}: no console log ({e})")
        return out
    for line in lines:
        if ERROR_RE.match(line):
            problems.append(f"{where}: the guest says: {line.strip()}")
            continue
        m = WINDOW_RE.match(line.rstrip())
        if not m:
            continue
        kind, label, w, rest = m.group(1), m.group(2), int(m.group(3)), m.group(4)
        fields = dict(p.split("=", 1) for p in rest.split() if "=" in p)
        if kind == "modelcal":
            out.append(("modelcal", label, w, fields))
            continue
        if label == "warmup":
            out.append(("warmup", label, w, 0))
            continue
        if label.startswith("shell "):
            group, key = "shell", label.split()[1]
        elif " " in label:
            group, key = label.split()
        else:
            group, key = "net", label
        ops = int(fields.get("ops") or fields.get("packets") or 0)
        out.append(("model", (group, key), w, ops))
    return out


def cycles(c, costs):
    v = c["insn"] * costs["insn"]
    for e in EVENTS:
        v += c[e] * costs[e]
    l1m, l2m, l3m = c["l1m"], c["l2m"], c["l3m"]
    return v + (l1m - l2m) * costs["l2_hit"] + (l2m - l3m) * costs["l3_hit"] + l3m * costs["dram"]


def fmt(v, d=1):
    return "n/a" if v is None else f"{v:,.{d}f}"


def clock_ghz(cpu):
    """The modelled CPU's clock, from costmodel.conf's "cpu" line."""
    m = re.search(r"([\d.]+) GHz", cpu)
    return float(m.group(1)) if m else None


# The sensitivity of the modelled cycles to the constants that no public
# figure fixes here (harness/costmodel.conf says which): every combination
# of these, the other constants as configured.
SENS_INSN = (1, 0.7, 0.4)       # cycles an instruction
SENS_CX16 = (11, 20, 30)        # cycles a cmpxchg16b at one cycle an instruction
SENS_PUSHF = (0, 3)             # extra cycles a pushf
# The headline comparisons: (what, group, key); group "fwd" is the median
# of the forwarding runs (fwd_figures()).
SENS_CASES = [
    ("kmem_cache_alloc + free pair, 256 B", "fast", "256"),
    ("kmalloc + kfree pair, 256 B", "kmalloc", "256"),
    ("alloc 256 then free 256, per object", "allocn", "256"),
    ("bulk alloc + free of 16, per object", "bulk", "16"),
    ("bulk alloc + free of 64, per object", "bulk", "64"),
    ("one object of each of 64 caches, per pair", "many", "64"),
    ("fork + exec of busybox", "shell", "forkexec"),
    ("UDP datagram over loopback, 64 B", "net", "64x1"),
    ("IP forwarding, per packet", "fwd", None),
]


def vary(costs, insn=None, cx16=None, pushf=None):
    """costs with some of the sensitivity constants changed: a cmpxchg16b
    costs cx16 cycles at one cycle an instruction (cx16 - 1 beyond it), and
    with LOCK no less than any other locked instruction."""
    c = dict(costs)
    if insn is not None:
        c["insn"] = insn
    if cx16 is not None:
        c["cx16"] = cx16 - 1
        c["cx16l"] = max(costs["locked"], cx16 - 1)
    if pushf is not None:
        c["pushf"] = pushf
    return c


def sens_settings():
    return [(i, x, f) for i in SENS_INSN for x in SENS_CX16 for f in SENS_PUSHF]


def sensitivity(price, ours, peers, costs):
    """price(kernel, group, key, costs): cycles per operation, or None.
    [(what, {kernel: cycles as configured}, {setting: {kernel: cycles}})]
    for the cases with figures of ours and of a peer."""
    out = []
    for what, group, key in SENS_CASES:
        base = {k: price(k, group, key, costs) for k in [ours] + list(peers)}
        base = {k: v for k, v in base.items() if v is not None}
        if ours not in base or len(base) < 2:
            continue
        grid = {s: {k: price(k, group, key, vary(costs, *s)) for k in base}
                for s in sens_settings()}
        out.append((what, group, key, base, grid))
    return out


def flips(base, grid, ours, peer):
    """(ours cheaper as configured, the settings at which the order of ours
    and peer is the other one, named; "insn I, cmpxchg16b X" stands for
    every pushf cost)."""
    cheaper = base[ours] < base[peer]
    bad = {s for s, v in grid.items() if (v[ours] < v[peer]) != cheaper}
    names = []
    for i in SENS_INSN:
        for x in SENS_CX16:
            fs = [f for f in SENS_PUSHF if (i, x, f) in bad]
            if len(fs) == len(SENS_PUSHF):
                names.append(f"insn {i:g}, cmpxchg16b {x:g}")
            else:
                names += [f"insn {i:g}, cmpxchg16b {x:g}, pushf {f:g}" for f in fs]
    return cheaper, len(bad), names


def sensitivity_tables(price, ours, peers, costs, label, cycles_table=True):
    """The sensitivity section, as Markdown lines: with cycles_table, the
    cycles per operation with one constant changed at a time; then ours
    against each peer at every setting, and where their order flips."""
    rows = sensitivity(price, ours, peers, costs)
    if not rows:
        return []
    n = len(sens_settings())
    out = ["## Sensitivity of the modelled cycles", "",
           "Three constants of the model are assumed (harness/costmodel.conf): the cycles an "
           "instruction (" + ", ".join(f"{i:g}" for i in SENS_INSN) + "; a Haswell issues up "
           "to four instructions a cycle), the cycles a cmpxchg16b costs in all at one cycle an "
           "instruction (" + ", ".join(f"{x:g}" for x in SENS_CX16) + "; with LOCK never less "
           "than another locked instruction) and the extra cycles of a pushf (" +
           ", ".join(f"{f:g}" for f in SENS_PUSHF) + f").  The {n} combinations, the other "
           "constants as configured, price the same counts; an order of ours and a peer that "
           "changes among them is not a conclusion of the model.", ""]
    if cycles_table:
        one = [("as configured", {})] + \
            [(f"insn {i:g}", {"insn": i}) for i in SENS_INSN if i != costs["insn"]] + \
            [(f"cmpxchg16b {x:g}", {"cx16": x}) for x in SENS_CX16 if x != costs["cx16"] + 1] + \
            [(f"pushf {f:g}", {"pushf": f}) for f in SENS_PUSHF if f != costs["pushf"]]
        out += ["Modelled cycles per operation, one constant changed at a time:", "",
                "| case | kernel | " + " | ".join(name for name, _ in one) + " |",
                "|" + " --- |" * (len(one) + 2)]
        for what, group, key, base, _ in rows:
            for k in base:
                out.append(f"| {what} | {label(k)} | " + " | ".join(
                    fmt(price(k, group, key, vary(costs, **kw))) for _, kw in one) + " |")
        out.append("")
    out += [f"Ours against each peer over the {n} settings: the ratio of modelled cycles as "
            "configured, its lowest and highest, and the settings at which the order flips.", "",
            "| case | peer | ours / peer | lowest – highest | order |",
            "| --- | --- | --- | --- | --- |"]
    for what, group, key, base, grid in rows:
        for k in base:
            if k == ours:
                continue
            r = [v[ours] / v[k] for v in grid.values()]
            cheaper, nbad, names = flips(base, grid, ours, k)
            order = ("ours cheaper" if cheaper else "ours dearer") + (
                f" at all {n}" if not nbad else
                f"; {'dearer' if cheaper else 'cheaper'} at {nbad} of {n}: " + "; ".join(names))
            out.append(f"| {what} | {label(k)} | {base[ours] / base[k]:.3f} | "
                       f"{min(r):.3f} – {max(r):.3f} | {order} |")
    out.append("")
    return out


def dd_note(costs, ghz, counts):
    """What the dd tables say, and why they give no share of dd time:
    counts per 4 KiB page of the kernels that have them."""
    ns = costs["dram"] / ghz if ghz else None
    l3m = statistics.median(c["l3m"] for c in counts)
    cyc = statistics.median(cycles(c, costs) for c in counts)
    mbs = 4096 * ghz * 1e9 / cyc / 1e6 if ghz else None
    return ("Per 4 KiB page written, counted: instructions, vmemmap accesses, the distinct "
            "struct page lines touched (each line once per run) and the misses at each level.  "
            "Modelled, the last column: each of those struct page lines priced at the DRAM "
            f"latency, {costs['dram']:g} cycles" +
            (f", {ns:.0f} ns at {ghz:.1f} GHz" if ns else "") +
            " (assumed: a line not used since boot misses every level in a run that streams "
            "many times the 8 MiB L3; the plugin counts lines, not their misses), a sum of "
            "latencies, not a time: a CPU overlaps misses, the model does not.  The dd itself "
            f"is not priced: the model charges each of the about {l3m:,.0f} L3 misses of a page "
            "(the copy and the clearing of its data) the full DRAM latency, with no prefetcher "
            f"and no bandwidth limit, {cyc:,.0f} cycles a page" +
            (f", {mbs:,.0f} MB/s" if mbs else "") + ", far below what a dd to ramfs "
            "streams at, so it gives no share of dd time.")


class Symbols:
    """Function names from a System.map, by address."""
    def __init__(self, path):
        self.addr, self.name = [], []
        try:
            with open(path) as f:
                rows = [line.split() for line in f]
        except OSError:
            rows = []
        self.etext = max([int(r[0], 16) for r in rows if len(r) >= 3 and r[2] == "_etext"],
                         default=None)
        rows = sorted((int(a, 16), n) for a, t, n, *_ in (r + [""] for r in rows if len(r) >= 3)
                      if t in "tTwW")
        self.addr = [a for a, _ in rows]
        self.name = [n for _, n in rows]

    def __call__(self, pc):
        i = bisect.bisect_right(self.addr, pc) - 1
        if pc < 0xffffffff00000000:
            return "(user space)"
        if self.etext is not None and pc >= self.etext:
            return "(a module)"     # slab_bench's loops: not in System.map
        return self.name[i] if i >= 0 else hex(pc)


class Model:
    def __init__(self, index, costs):
        self.costs = costs
        self.problems = []
        self.missed = []                 # target rows missed on insn or cycles
        self.judged = 0                  # target rows judged (insn, cycles, forwarding)
        self.cal = defaultdict(list)     # variant -> [(pass, name, ok, detail)]
        self.raw = {}                    # (measure, variant, pass) -> {window: counters}
        self.per_op = {}                 # (variant, pass, group, key) -> counters per op
        self.funcs = {}                  # (measure, variant, group, key) -> {function: counters}
        self.calls = {}                  # (variant, pass, group, key) -> calls per op
        with open(index) as f:
            for line in f:
                measure, v, run, console, counts, sysmap = line.rstrip("\n").split("\t")
                self.boot(measure, v, int(run), console, counts, Symbols(sysmap))
        self.same, self.differ = self.determinism()
        self.cal_total = sum(len(x) for x in self.cal.values())
        self.cal_exact = sum(ok for x in self.cal.values() for _, _, ok, _ in x)

    def boot(self, measure, v, run, console, counts, sym):
        where = f"{measure} {v} pass {run}"
        pcs, calls = defaultdict(list), {}
        wins = parse_counts(counts, self.problems, where, pcs, calls)
        ann = parse_console(console, self.problems, where)
        self.raw[(measure, v, run)] = wins
        if len(ann) != len(wins):
            self.problems.append(f"{where}: the guest announced {len(ann)} windows, "
                                 f"the plugin counted {len(wins)}")
        # Nothing judged is not a pass: the boot's checks, and at least
        # one window that measures something.
        cal = [label for kind, label, _, _ in ann if kind == "modelcal"]
        for name in MODELCAL_WANT:
            if cal.count(name) != 1:
                self.problems.append(f"{where}: modelcal {name}: {cal.count(name)} windows "
                                     "(expected 1)")
        if not any(kind == "model" for kind, _, _, _ in ann):
            self.problems.append(f"{where}: no measured window")
        null = null_calls = None
        for kind, label, w, extra in ann:
            name = label if kind in ("modelcal", "warmup") else " ".join(label)
            if w not in wins:
                self.problems.append(f"{where}: window {w} ({name}) has no counts")
                continue
            c = wins[w]
            if kind == "warmup":
                continue
            if kind == "modelcal":
                got = dict(c, **{"call:" + k: n for k, n in calls.get(w, {}).items()})
                bad = [f"{k}={got.get(k)} (expected {e})" for k, e in extra.items()
                       if k not in MODELCAL_INFO and got.get(k) != int(e)]
                self.cal[v].append((run, label, not bad, ", ".join(bad)))
                if bad:
                    self.problems.append(f"{where}: modelcal {label}: " + ", ".join(bad))
                continue
            cw = calls.get(w, {})
            if label == ("shell", "null"):
                null, null_calls = c, cw
                continue
            if label[0] == "shell":
                if null is None:
                    self.problems.append(f"{where}: shell window {label[1]} before the null window")
                    continue
                c = {k: c[k] - null[k] for k in c}
                cw = {k: n - null_calls.get(k, 0) for k, n in cw.items()}
            if extra:
                group = label[0] if measure == "icount" else measure
                self.per_op[(v, run, group, label[1])] = {k: c[k] / extra for k in c}
                self.calls[(v, run, group, label[1])] = {k: n / extra for k, n in cw.items()}
                f = defaultdict(lambda: defaultdict(int))
                for pc, n in pcs.get(w, []):
                    for k, x in n.items():
                        f[sym(pc)][k] += x
                self.funcs[(measure, v, group, label[1])] = (f, extra)

    def get(self, v, group, key, run=1):
        return self.per_op.get((v, run, group, key))

    def determinism(self):
        same = diff = 0
        for (measure, v, run), wins in self.raw.items():
            other = self.raw.get((measure, v, 2)) if run == 1 else None
            if other is None:
                continue
            for w, c in wins.items():
                if other.get(w) == c:
                    same += 1
                else:
                    diff += 1
                    o = other.get(w) or {}
                    self.problems.append(f"{v}: window {w} differs between passes: " + ", ".join(
                        f"{k} {c[k]} against {o.get(k)}" for k in c if c[k] != o.get(k)))
        return same, diff

    def keys(self, group):
        ks = {k for (_, _, g, k) in self.per_op if g == group}
        return sorted(ks, key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))


def functions(m, p, measure, group, key, per, top=12):
    """The functions with the most L1 misses and struct page accesses in
    one case's window, per operation over @per (256: per 4 KiB page of a
    MiB), on each kernel.  From the plugin's top instructions of the
    window."""
    rows = {}
    for k in KERNELS:
        got = m.funcs.get((measure, k, group, key))
        if got:
            f, ops = got
            rows[k] = {fn: {x: n / ops / per for x, n in c.items()} for fn, c in f.items()}
    if not rows:
        return
    names = sorted({fn for r in rows.values() for fn in r},
                   key=lambda fn: (-max(r.get(fn, {}).get("l1m", 0) + r.get(fn, {}).get("vmm", 0)
                                        for r in rows.values()), fn))[:top]
    p("Where the misses and the struct page accesses are, by function (the plugin's "
      f"{PC_TOP} busiest instructions of the window; L1 misses / vmemmap accesses / struct page "
      f"lines first touched, per {'page' if per == 256 else 'operation'}):")
    p("")
    p("| function | " + " | ".join(LABEL[k] for k in rows) + " |")
    p("|" + " --- |" * (len(rows) + 1))
    for fn in names:
        cells = []
        for k in rows:
            c = rows[k].get(fn)
            cells.append("–" if not c else f"{c.get('l1m', 0):.2f} / {c.get('vmm', 0):.2f} / "
                         f"{c.get('vmml', 0):.3f}")
        p(f"| {fn} | " + " | ".join(cells) + " |")
    p("")


FWD_KERNELS = ["slub", "slab", "slub56", "ours-aligned", "ours-internal",
               "ours-aligned+freelist", "ours-internal+freelist"]
FWD_LABEL = dict(LABEL, **{"ours-aligned+freelist": "ours aligned, freelist front end",
                           "ours-internal+freelist": "ours internal, freelist front end"})
FWD_CALLS = ["ip_forward", "__napi_alloc_skb", "kmem_cache_alloc_bulk", "kmem_cache_free_bulk",
             "kmem_cache_alloc", "kmem_cache_alloc_node", "kmem_cache_free", "napi_consume_skb",
             "__kmalloc_node_track_caller", "kfree"]
# fwdnic's modes (harness/guest/init, bench_fwd), the first a run has the
# headline one: the forwarding table and its target are that mode's.  A
# window "fwd.RUN", from before the modes, is napi-k1's.
FWD_MODES = ["napi", "napi-k1", "nobulk", "pages"]
FWD_MODE_LABEL = {"napi": "napi_alloc_skb(), moderated TX completion",
                  "napi-k1": "napi_alloc_skb(), TX completion after every receive poll",
                  "nobulk": "netdev_alloc_skb() and dev_consume_skb_any(), no bulk API",
                  "pages": "napi_build_skb() over recycled half pages"}


def fwd_mode(key):
    """The mode of a forwarding window's key, or None for another window."""
    parts = key.split(".")
    if parts[0] != "fwd":
        return None
    return parts[1] if len(parts) == 3 else "napi-k1"


def fwd_headline(m):
    """The headline mode of a run: the first of FWD_MODES it has."""
    have = {fwd_mode(key) for (_, _, group, key) in m.per_op if group == "fwd"}
    return next((x for x in FWD_MODES if x in have), FWD_MODES[0])


def load_fwd_pps(path):
    """(what, mode) -> variant -> [one value a boot]: the packets per second
    of the fwdtcg boots (what "pps") and the frames per TX completion of
    the fwd boots ("batch"), bench.sh's rows "fwd pps.MODE" and
    "fwd batch.MODE" (a run from before the modes: "fwd pps", napi-k1)."""
    pps = defaultdict(lambda: defaultdict(list))
    if not path:
        return pps
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 6 or parts[3] != "fwd":
                continue
            what, _, mode = parts[4].partition(".")
            if (what, parts[0]) in (("pps", "fwdtcg"), ("batch", "fwd")):
                pps[(what, mode or "napi-k1")][parts[1]].append(float(parts[5]))
    return pps


def fwd_figures(m, v, costs, mode=None):
    """Per forwarded packet in MODE (default the headline one), (insn,
    cycles, spread of the runs' insn, calls, events): the median over the
    boot's runs and passes, the shell's null window taken off each; None
    without windows."""
    mode = mode or fwd_headline(m)
    runs = [(c, m.calls.get((var, run, group, key), {}))
            for (var, run, group, key), c in m.per_op.items()
            if var == v and group == "fwd" and fwd_mode(key) == mode]
    if not runs:
        return None
    med = statistics.median
    fi = [c["insn"] for c, _ in runs]
    spread = (max(fi) - min(fi)) / med(fi)
    calls = {k: med(x.get(k, 0) for _, x in runs) for k in FWD_CALLS}
    events = {e: med(c[e] for c, _ in runs) for e in EVENTS + ["l1m", "l2m", "l3m"]}
    return med(fi), med(cycles(c, costs) for c, _ in runs), spread, calls, events


def fwd_table(p, figs, cols, field, digits):
    """One row per kernel (default boot) of fwd_figures()'s dict at index field."""
    p("| allocator | " + " | ".join(cols) + " |")
    p("|" + " --- |" * (len(cols) + 1))
    for k in FWD_KERNELS:
        f = figs.get(k)
        if f:
            p(f"| {FWD_LABEL[k]} | " + " | ".join(f"{f[field][c]:.{digits}f}" for c in cols) + " |")
    p("")


def fwd_all(m, costs):
    """fwd_figures() of every forwarding variant, by variant."""
    return {v: fwd_figures(m, v, costs) for k in FWD_KERNELS for v in (k, k + "+nomerge")}


def model_price(m):
    """sensitivity()'s price function over this run's counts (pass 1)."""
    def price(k, group, key, costs):
        if group == "fwd":
            f = fwd_figures(m, k, costs)
            return f[1] if f else None
        c = m.get(k, group, key)
        return cycles(c, costs) if c else None
    return price


def fwd_modes(m, p, costs, pps):
    """fwdnic's modes side by side: what the forwarding table's figures
    owe to how the module receives and completes."""
    med = statistics.median
    modes = [x for x in FWD_MODES if any(fwd_figures(m, k, costs, x) for k in FWD_KERNELS)]
    if len(modes) < 2:
        return
    ks = [k for k in FWD_KERNELS if "+" not in k and any(
        fwd_figures(m, k, costs, x) for x in modes)]
    figs = {(k, x): fwd_figures(m, k, costs, x) for k in ks for x in modes}
    p("Across fwdnic's modes (default boots): instructions per forwarded packet, ours "
      "against SLUB in instructions and modelled cycles, the frames each TX completion "
      "freed, and SLUB's calls of the allocator per packet, which say how many of the "
      "heads go through the bulk calls.  Not in the module's path (harness/modules/fwdnic "
      "says): DMA mapping, descriptor rings in device memory, the interrupt, device and "
      "wire time, page_pool, XDP, completions on another CPU.")
    p("")
    calls = ["kmem_cache_alloc_bulk", "kmem_cache_free_bulk", "kmem_cache_alloc",
             "kmem_cache_alloc_node", "__kmalloc_node_track_caller", "kmem_cache_free", "kfree"]
    p("| mode | " + " | ".join(FWD_LABEL[k] for k in ks) + " | ours − SLUB: insn | cycles | "
      "frames / completion | " + " | ".join(calls) + " |")
    p("|" + " --- |" * (len(ks) + 4 + len(calls)))
    diffs = []
    for x in modes:
        o, b = figs.get((OURS, x)), figs.get(("slub", x))
        d = [o[i] - b[i] for i in (0, 1)] if o and b else None
        if d:
            diffs.append(d)
        batch = pps.get(("batch", x), {}).get("slub")
        p(f"| {x} | " + " | ".join(fmt(figs[(k, x)][0]) if figs[(k, x)] else "n/a"
                                  for k in ks) + " | " +
          (f"{d[0]:+,.1f} | {d[1]:+,.1f}" if d else "n/a | n/a") + " | " +
          (f"{med(batch):.1f}" if batch else "n/a") + " | " +
          " | ".join(f"{b[3][c]:.3f}" if b else "n/a" for c in calls) + " |")
    p("")
    p("The modes: " + "; ".join(f"{x}, {FWD_MODE_LABEL[x]}" for x in modes) + ".")
    p("")
    if diffs:
        p(f"Ours − SLUB across the {len(modes)} modes: {min(d[0] for d in diffs):+,.1f} to "
          f"{max(d[0] for d in diffs):+,.1f} instructions, {min(d[1] for d in diffs):+,.1f} to "
          f"{max(d[1] for d in diffs):+,.1f} modelled cycles per packet.")
        p("")


def forwarding(m, p, costs, pps, figs):
    if not any(figs.values()):
        return
    med = statistics.median
    mode = fwd_headline(m)
    p("## Jesper Brouer's IP forwarding, one CPU, one UDP flow")
    p("")
    p("fwdrx, a NIC in guest memory (harness/modules/fwdnic), receives 60-byte UDP frames "
      "(64 on the wire) through its NAPI poll; the IP stack forwards them out of fwdtx, whose "
      "TX completion NAPI frees them.  This table is fwdnic's mode "
      f"{mode}: {FWD_MODE_LABEL[mode]}; the modes are compared below it. "
      "Per forwarded packet: the icount instructions and modelled cycles of the whole path "
      "(the driver's receive, the stack, the TX completion), medians of every run of the "
      "passes, the shell's null window taken off each; the TCG packets per second, median "
      "(min–max) of the interleaved rounds, and the ns per packet they imply.  Laid out as Brouer's "
      "table: each allocator against SLUB.")
    p("")
    base = figs.get("slub")
    tcg = pps.get(("pps", mode), {})
    base_pps = med(tcg["slub"]) if tcg.get("slub") else None
    p("| allocator | insn / packet | cycles / packet | spread of runs | TCG pps | "
      "vs SLUB: insn | cycles | pps | ns |")
    p("|" + " --- |" * 9)
    for k in FWD_KERNELS:
        for v in (k, k + "+nomerge"):
            f = figs.get(v)
            if not f:
                continue
            q = tcg.get(v)
            cell = (f"{med(q):,.0f} ({min(q):,.0f}–{max(q):,.0f})" if q else "n/a")
            vs = ["–"] * 4
            if base and v != "slub":
                vs[0] = f"{f[0] - base[0]:+,.1f}"
                vs[1] = f"{f[1] - base[1]:+,.1f}"
            if q and base_pps and v != "slub":
                vs[2] = f"{med(q) - base_pps:+,.0f}"
                vs[3] = f"{1e9 / med(q) - 1e9 / base_pps:+,.2f}"
            name = FWD_LABEL[k] + (", slab_nomerge" if v != k else "")
            p(f"| {name} | {fmt(f[0])} | {fmt(f[1])} | {100 * f[2]:.2f}% | {cell} | " +
              " | ".join(vs) + " |")
    p("")
    fwd_modes(m, p, costs, pps)
    p("Calls per forwarded packet (the plugin counts each function's first instruction), "
      f"mode {mode}: the NAPI skb cache refills from "
      "kmem_cache_alloc_bulk() and, when full, flushes half of itself with "
      "kmem_cache_free_bulk().")
    p("")
    fwd_table(p, figs, FWD_CALLS, 3, 3)
    p("Events per forwarded packet:")
    p("")
    fwd_table(p, figs, EVENTS + ["l1m", "l2m", "l3m"], 4, 2)
    slab, slub = figs.get("slab"), figs.get("slub")
    if slab and slub:
        p("Target: ours ahead of SLAB per packet by at least as much as SLAB is ahead of SLUB "
          "(SLUB − SLAB ≤ SLAB − ours).")
        p("")
        p("| kernel | measure | SLUB − SLAB | SLAB − ours | met |")
        p("| --- | --- | --- | --- | --- |")
        for k in FWD_KERNELS[3:]:
            for v in (k, k + "+nomerge"):
                o = figs.get(v)
                ref = figs.get("slab+nomerge" if v != k else "slab")
                ref_slub = figs.get("slub+nomerge" if v != k else "slub")
                if not o or not ref or not ref_slub:
                    continue
                for i, what in ((0, "insn"), (1, "cycles")):
                    need, got = ref_slub[i] - ref[i], ref[i] - o[i]
                    p(f"| {FWD_LABEL[k]}{', slab_nomerge' if v != k else ''} | {what} | "
                      f"{need:+,.1f} | {got:+,.1f} | {'yes' if got >= need else '**NO**'} |")
                    m.judged += 1
                    if got < need:
                        m.missed.append(f"forwarding, {v}, {what}: SLAB − ours {got:+,.1f} "
                                        f"against SLUB − SLAB {need:+,.1f} per packet")
        p("")


def report(m, cpu, costs, sources, pps=None):
    out = []
    p = out.append
    p("# make bench: the cost model")
    p("")
    p("The counts are exact: the slabcost TCG plugin (harness/plugin/slabcost.c) counted them "
      "in the last repetition of each single-CPU case of the icount boots.  The cycles are a "
      f"**model**, for one named CPU ({cpu}): every instruction one cycle, plus the extra "
      "cycles below per event, and each data cache miss the full latency of the level that "
      "serves it, as if nothing overlapped.  Instruction fetch, TLBs, prefetchers, branch "
      "prediction and out-of-order overlap are not modelled.  Where the two columns disagree, "
      "the counts say why.")
    p("")
    p("| event | extra cycles | source |")
    p("| --- | --- | --- |")
    for k, v in costs.items():
        p(f"| {k} | {v:g} | {sources[k]} |")
    p("")
    bad = [(v, r, n, d) for v, lst in m.cal.items() for r, n, ok, d in lst if not ok]
    p(f"**The model's own checks**, the last windows of every boot, when the simulated "
      f"caches have run for the whole boot (cases=modelcal: 4096 loads of lines no level "
      f"holds, 256 of lines L1 holds, 2048 that only L2 holds, 16384 that only L3 holds, "
      f"256 stores to lines L1 holds and 4096 to lines no level holds, 1000 each of lock "
      f"incl, xchg, lock cmpxchg16b, cmpxchg16b, "
      f"DS-prefixed incl and cmpxchg16b (a one-CPU boot's LOCK_PREFIX), "
      f"pushf/cli/popf/sti, the first word of 1024 struct pages, and 100 calls each of "
      f"kmem_cache_alloc and kmem_cache_free): {m.cal_exact} of "
      f"{m.cal_total} windows exact" + ("." if not bad else ": " + "; ".join(
          f"{v} pass {r} {n}: {d}" for v, r, n, d in bad) + "."))
    p("")
    p(f"**Determinism**: {m.same} of {m.same + m.differ} windows identical in every counter "
      "between the two passes." if m.same + m.differ else
      "**Determinism**: one pass only, not checked.")
    figs = fwd_all(m, costs)
    spreads = [f[2] for f in figs.values() if f]
    if spreads:
        p("")
        p("The forwarding windows are in that check; the runs of one boot (the same "
          "count of frames, one after the other) spread by "
          f"{100 * min(spreads):.2f}–{100 * max(spreads):.2f}% (max − min over median), "
          "per kernel in the forwarding table.")
    p("")
    for group, title, keyname in GROUPS:
        keys = m.keys(group)
        if not keys:
            continue
        p(f"## {title}")
        p("")
        p("Instructions / modelled cycles per operation.")
        p("")
        p("| " + keyname + " | " + " | ".join(LABEL[k] for k in KERNELS) +
          " | ours / SLUB best, insn | cycles |")
        p("|" + " --- |" * (len(KERNELS) + 3))
        for key in keys:
            row, vals = [key], {}
            for k in KERNELS:
                c = m.get(k, group, key)
                vals[k] = c and (c["insn"], cycles(c, costs))
                row.append("n/a" if not c else f"{fmt(c['insn'])} / {fmt(vals[k][1])}")
            peers = [vals[k] for k in ("slub", "slub56") if vals.get(k)]
            if vals.get(OURS) and peers:
                row.append(f"{vals[OURS][0] / min(x[0] for x in peers):.3f}")
                row.append(f"{vals[OURS][1] / min(x[1] for x in peers):.3f}")
            else:
                row += ["n/a", "n/a"]
            p("| " + " | ".join(row) + " |")
        p("")
        if group == "many":
            functions(m, p, "icount", "many", "64", 1)
    p("## Events per operation")
    p("")
    p("The counts behind the cycles, for one size of each case, per kernel and boot-time "
      "strategy of ours: Andrew Morton's question, what the double cmpxchg buys, on this model.")
    p("")
    picks = [("fast", "256"), ("kmalloc", "256"), ("allocn", "256"), ("bulk", "16"),
             ("bulk", "64"), ("net", "64x1")]
    cols = ["insn", "cycles"] + EVENTS + ["l1m", "l2m", "l3m", "vmm", "vmml"]
    p("| case | kernel | " + " | ".join(cols) + " |")
    p("|" + " --- |" * (len(cols) + 2))
    for group, key in picks:
        for k in STRATEGIES + [k for k in ("ours-aligned", "slab")
                               if k in KERNELS and k not in STRATEGIES]:
            c = m.get(k, group, key)
            if not c:
                continue
            vals = [fmt(c["insn"]), fmt(cycles(c, costs))] + \
                [fmt(c[e], 2) for e in cols[2:]]
            p(f"| {group} {key} | {k} | " + " | ".join(vals) + " |")
    p("")
    for group, key, title in (("shell", "dd", "dd of 128 MiB to ramfs (bs=1M), 512 MiB guest"),
                              ("dave", "dd", "Dave Hansen's dd: 4 GiB to ramfs (bs=1G), 8 GiB guest")):
        dd = [(k, m.get(k, group, key)) for k in KERNELS]
        if not any(c for _, c in dd):
            continue
        ghz = clock_ghz(cpu)
        pages = {k: {x: n / 256 for x, n in c.items()} for k, c in dd if c}  # per MiB -> per page
        p(f"## {title}, per 4 KiB page")
        p("")
        p(dd_note(costs, ghz, list(pages.values())))
        p("")
        p("| kernel | insn | vmemmap accesses | struct page lines | L1 misses | L2 misses | L3 misses "
          "| struct page lines at DRAM latency, ns |")
        p("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for k, q in pages.items():
            ns = q["vmml"] * costs["dram"] / ghz if ghz else None
            p(f"| {LABEL[k]} | {fmt(q['insn'])} | {fmt(q['vmm'], 2)} | {fmt(q['vmml'], 3)} | "
              f"{fmt(q['l1m'], 2)} | {fmt(q['l2m'], 2)} | {fmt(q['l3m'], 2)} | {fmt(ns)} |")
        p("")
        functions(m, p, "dave" if group == "dave" else "icount", group, key, 256)
    forwarding(m, p, costs, pps or {}, figs)
    p("## The targets on instructions and on modelled cycles")
    p("")
    p("| target | row | ours / reference, insn | cycles | met on insn | met on cycles |")
    p("| --- | --- | --- | --- | --- | --- |")
    disagree = []
    for name, group, pick, peers, bound in TARGETS:
        for key in m.keys(group):
            if pick and not pick(key):
                continue
            o = m.get(OURS, group, key)
            ref = [m.get(k, group, key) for k in peers]
            ref = [r for r in ref if r]
            if not o or not ref:
                continue
            ri = o["insn"] / min(r["insn"] for r in ref)
            rc = cycles(o, costs) / min(cycles(r, costs) for r in ref)
            oki, okc = ri <= bound, rc <= bound
            m.judged += 2
            m.missed += [f"{name} {key}: ours / reference {r:.3f} in {what} (bound {bound:g})"
                         for ok, r, what in ((oki, ri, "instructions"), (okc, rc, "cycles"))
                         if not ok]
            if oki != okc:
                disagree.append(f"{name} {key}")
            p(f"| {name} (≤ {bound:g}× {'/'.join(LABEL[k] for k in peers)}) | {key} | {ri:.3f} | "
              f"{rc:.3f} | {'yes' if oki else '**NO**'} | {'yes' if okc else '**NO**'} |")
    p("")
    p("Instructions and modelled cycles disagree on: " + (", ".join(disagree) if disagree
                                                          else "no row") + ".")
    p("")
    out += sensitivity_tables(model_price(m), OURS,
                              [k for k in KERNELS if not k.startswith("ours")], costs, LABEL.get)
    if m.problems:
        p("## Errors")
        p("")
        for x in m.problems:
            p(f"- {x}")
        p("")
    return "\n".join(out) + "\n"


def configure_base(base):
    """A base after 6.1 has no SLAB (bench-report.py, configure_base)."""
    global KERNELS, TARGETS
    if base == "6.1":
        return
    KERNELS = ["ours-aligned", "ours-internal", "slub", "slub56"]
    TARGETS = [t for t in TARGETS if "slab" not in t[3]]


def write_tsv(m, costs, path):
    """The per-operation counts of every window (see the usage above)."""
    with open(path, "w") as f:
        for (v, run, group, key), c in sorted(m.per_op.items()):
            for counter in sorted(k for k in c if c[k] or k == "insn"):
                f.write(f"{v}\t{run}\t{group}\t{key}\t{counter}\t{c[counter]:.4f}\n")
            f.write(f"{v}\t{run}\t{group}\t{key}\tcycles\t{cycles(c, costs):.4f}\n")
            for fn, n in sorted(x for x in m.calls.get((v, run, group, key), {}).items() if x[1]):
                f.write(f"{v}\t{run}\t{group}\t{key}\tcall:{fn}\t{n:.4f}\n")
        for name, value in (("modelcal_exact", m.cal_exact), ("modelcal_total", m.cal_total),
                            ("windows_same", m.same), ("windows_differ", m.differ),
                            ("problems", len(m.problems))):
            f.write(f"-\t-\tcheck\t-\t{name}\t{value}\n")


def verdict(m):
    """model.md's first lines: the checks, then what was met and not."""
    if m.problems:
        return (f"**Verdict: not judged.**  {len(m.problems)} problems with the counts, "
                "listed under Errors.\n\n")
    text = (f"**Verdict:** the model's checks hold ({m.cal_exact} of {m.cal_total} modelcal "
            f"windows exact, {m.same} of {m.same + m.differ} windows identical between passes); ")
    if not m.judged:
        return text + "no target judged (the run lacks the kernels a target compares).\n\n"
    if m.missed:
        return text + (f"{len(m.missed)} of {m.judged} target rows missed: " +
                       "; ".join(m.missed) + ".\n\n")
    return text + (f"all {m.judged} target rows met, on instructions, modelled cycles and "
                   "forwarding.\n\n")


def main():
    tsv = None
    while len(sys.argv) > 1 and sys.argv[1].startswith(("--base=", "--tsv=")):
        opt, val = sys.argv.pop(1).split("=", 1)
        if opt == "--base":
            configure_base(val)
        else:
            tsv = val
    if len(sys.argv) not in (4, 5):
        print(next(x for x in __doc__.splitlines() if x.startswith("usage:")), file=sys.stderr)
        return 2
    cpu, costs, sources = load_costs(sys.argv[2])
    m = Model(sys.argv[1], costs)
    text = report(m, cpu, costs, sources, load_fwd_pps(sys.argv[4] if len(sys.argv) == 5 else None))
    head, rest = text.split("\n", 1)
    text = head + "\n\n" + verdict(m) + rest.lstrip("\n")
    with open(sys.argv[3], "w") as f:
        f.write(text)
    if tsv:
        write_tsv(m, costs, tsv)
    print(f"model: {m.cal_exact} of {m.cal_total} modelcal windows exact; {m.same} of "
          f"{m.same + m.differ} windows identical between passes")
    for x in m.problems:
        print(f"error: {x}", file=sys.stderr)
    if m.problems:
        return 1
    # A target missed on instructions or on modelled cycles, or the
    # forwarding target, fails the run too (exit 3: bench.sh tells it
    # from an error).
    for x in m.missed:
        print(f"missed: {x}", file=sys.stderr)
    return 3 if m.missed else 0


if __name__ == "__main__":
    sys.exit(main())
