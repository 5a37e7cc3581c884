#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make results: every published figure of make bench, from committed results.

docs/results/<base>/ holds one make bench run of that base as committed:
  results.tsv  bench.sh's rows (harness/bench-report.py reads them)
  model.tsv    the cost model's counts per operation (model-report.py --tsv)
  run.conf     the run: commit, date, command, machine, bench.sh's options
From those alone this script renders
  docs/results/<base>.md                   the page of that run;
  docs/results/<base>/*.dat, *.png         its plots (gnuplot);
  the generated blocks of README.md, docs/*.md and the cover letters
  (series/cover-letter.txt, base/V/series/cover-letter.txt), between
  their markers: in Markdown "<!-- results.py KIND [BASE] -->" up to
  "<!-- results.py end -->", in a cover letter "#results.py KIND [BASE]"
  up to "#results.py end" (harness/series.py drops those two lines).
Kinds: glance BASE (the table at a glance), cover BASE (a cover letter's
measured figures), arrays BASE and layout BASE (the figures of the array
and layout patches' messages), dave BASE (Dave Hansen's dd, for
docs/experiments.md), sensitivity BASE (what the cost model's
sensitivity table concludes, for docs/cost-model.md), size (the lines
the series adds, counted in this repo).  Modelled cycles are the
committed counts priced with harness/costmodel.conf as it is in the
tree.

usage: results.py import BASE DIR  take DIR (make bench's output of BASE,
                                   build/bench@6.12) as BASE's committed run
       results.py update           write every page, plot and block
       results.py check            render all of it in memory and compare
                                   with the files (make check's docs:results)

check also fails when README.md grows past 250 lines, and reads the
cover letters and the patch messages (series/msg/, base/V/series/msg/)
outside their generated blocks: a figure with a unit of measurement there (instructions, cycles, ns, KiB,
%, x, passed, ...) must be one that harness/figure-sources.conf gives a
source for, or the check fails naming it.
"""
import glob
import importlib.util
import os
import re
import shutil
import statistics
import sys
import tempfile
from types import SimpleNamespace

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "docs", "results")
BASES = ["6.12", "6.1"]
# Files that hold generated blocks.
BLOCK_FILES = ["README.md", "docs/*.md", "series/cover-letter.txt",
               "base/*/series/cover-letter.txt", "series/msg/*.txt",
               "base/*/series/msg/*.txt"]
SOURCES = os.path.join(REPO, "harness", "figure-sources.conf")
RUN_KEYS = ["commit", "date", "command", "machine", "quick", "rounds", "passes", "dd",
            "mem_dd", "forkexec", "fwd_rounds", "version"]
PLOTS = ["bulk", "fastpath", "memory"]
README_LINES = 250
MD_BEGIN = re.compile(r"^<!-- results\.py (\w+)(?: (\S+))? -->$")
MD_END = "<!-- results.py end -->"
TXT_BEGIN = re.compile(r"^#results\.py (\w+)(?: (\S+))?$")
TXT_END = "#results.py end"
# A figure with a unit of measurement, in a cover letter's own text.
FIGURE = re.compile(r"\b\d[\d,.]*(?:\s|-)?(?:(?:instructions?|insns?|cycles?|ns|[KMG]iB|kB|"
                    r"[KMG]B|K|pps|passed|failed|skipped)\b|%)|\b\d+\.\d+\s?[x×]")


def fail(msg):
    print(f"results: error: {msg}", file=sys.stderr)
    sys.exit(1)


def bench_report():
    """A fresh instance of harness/bench-report.py (it keeps the base's
    kernels in module globals)."""
    spec = importlib.util.spec_from_file_location(
        "bench_report", os.path.join(REPO, "harness", "bench-report.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# bench-report.py's number format, for the tables of every base.
fmt = bench_report().fmt


def model_report():
    """harness/model-report.py, for its cost model: the committed counts
    are priced with harness/costmodel.conf as it is in the tree."""
    spec = importlib.util.spec_from_file_location(
        "model_report", os.path.join(REPO, "harness", "model-report.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MR = model_report()
CPU, COSTS, _ = MR.load_costs(os.path.join(REPO, "harness", "costmodel.conf"))
GHZ = MR.clock_ghz(CPU)


def priced(c, costs=COSTS):
    """The modelled cycles of one row of counts (model.tsv leaves out the
    counters that are 0)."""
    return MR.cycles({x: c.get(x, 0.0) for x in ["insn", "l1m", "l2m", "l3m"] + MR.EVENTS},
                     costs)


def read_run(base):
    path = os.path.join(RESULTS, base, "run.conf")
    run = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                key, _, value = line.partition("\t")
                run[key] = value
    missing = [k for k in RUN_KEYS if not run.get(k)]
    if missing:
        fail(f"{os.path.relpath(path, REPO)} lacks {', '.join(missing)}")
    return run


# fwdnic's modes, as model-report.py names them: the first a run has is
# its headline one; a window "fwd.RUN", from before the modes, is napi-k1's.
FWD_MODES = ["napi", "napi-k1", "nobulk", "pages"]
FWD_MODE_LABEL = {"napi": "`napi_alloc_skb()`, TX completion moderated",
                  "napi-k1": "`napi_alloc_skb()`, TX completion after every receive poll",
                  "nobulk": "`netdev_alloc_skb()` and `dev_consume_skb_any()`, no bulk API",
                  "pages": "`napi_build_skb()` over recycled half pages"}


def fwd_mode(key):
    """The mode of a forwarding window's key, or None for another window."""
    parts = key.split(".")
    if parts[0] != "fwd":
        return None
    return parts[1] if len(parts) == 3 else "napi-k1"


def read_model(base):
    """(variant, pass, group, key) -> {counter: value}; checks -> value."""
    per_op, checks = {}, {}
    path = os.path.join(RESULTS, base, "model.tsv")
    with open(path) as f:
        for line in f:
            v, run, group, key, counter, value = line.rstrip("\n").split("\t")
            if group == "check":
                checks[counter] = int(float(value))
                continue
            per_op.setdefault((v, int(run), group, key), {})[counter] = float(value)
    return per_op, checks


class Run:
    """One base's committed run, read and judged as make bench judged it."""

    def __init__(self, base):
        self.base = base
        self.dir = os.path.join(RESULTS, base)
        self.run = read_run(base)
        self.br = bench_report()
        r = self.run
        self.args = SimpleNamespace(quick=int(r["quick"]), rounds=int(r["rounds"]),
                                    passes=int(r["passes"]), dd=int(r["dd"]),
                                    mem_dd=int(r["mem_dd"]), forkexec=int(r["forkexec"]),
                                    base=base, machine=r["machine"])
        self.text, self.rep, self.problems, self.b = self.br.render(
            os.path.join(self.dir, "results.tsv"), self.args)
        self.model, self.checks = read_model(base)
        self.kernels = list(self.br.KERNELS)
        self.peers = list(self.br.PEERS)
        self.ours = self.br.OURS

    def fwd_modes(self):
        """fwdnic's modes the run has, headline first."""
        have = {fwd_mode(key) for (_, _, g, key) in self.model if g == "fwd"}
        return [m for m in FWD_MODES if m in have]

    def fwd(self, k, counter="insn", costs=COSTS, mode=None):
        """Per forwarded packet in MODE (default the headline one): the
        median over every run of pass 1 and 2 (counter "cycles": priced
        with costs)."""
        mode = mode or (self.fwd_modes() or [None])[0]
        vals = [priced(c, costs) if counter == "cycles" else c.get(counter, 0.0)
                for (v, _, g, key), c in self.model.items()
                if v == k and g == "fwd" and fwd_mode(key) == mode]
        return statistics.median(vals) if vals else None

    def fwd_batch(self, k, mode):
        """Frames per TX completion of the icount boots of k in MODE."""
        vals = [v for _, v in self.b.data.get(("fwd", k, "fwd", f"batch.{mode}"), [])]
        return statistics.median(vals) if vals else None

    def cycles(self, k, group, key, costs=COSTS):
        """Modelled cycles per operation, first pass; group "fwd": per
        packet (model-report.py's sensitivity() calls it so)."""
        if group == "fwd":
            return self.fwd(k, "cycles", costs)
        c = self.model.get((k, 1, group, str(key)))
        return priced(c, costs) if c else None

    def rows(self):
        """The glance: (case, unit, {kernel: value}, digits, goal bound,
        goal text).  A bound judges ours against the best SLUB kernel
        (and SLAB where the base has it); None shows the row unjudged."""
        b, n = self.b, self.args.forkexec
        slab = "slab" in self.kernels
        pair = "≤ 0.85× SLUB" + (" and ≤ SLAB" if slab else "")

        def ic(group, key):
            return {k: b.icount(k, group, key) for k in self.kernels}

        def tcg(group, key):
            return {k: (b.tcg(k, group, key) or (None,))[0] for k in self.kernels}

        fork = {k: (v / n if v is not None else None)
                for k, v in ic("forkexec", n).items()}
        return [
            ("kmem_cache_alloc + free pair, 256 B", "insns", ic("fast", 256), 0, 0.85, pair),
            ("kmalloc + kfree pair, 256 B", "insns", ic("kmalloc", 256), 0, 0.85, pair),
            ("bulk alloc + free of 16, per object", "insns", ic("bulk", 16), 1, 0.8,
             "≤ 0.8× SLUB"),
            ("bulk alloc + free of 64, per object", "insns", ic("bulk", 64), 1, 0.8,
             "≤ 0.8× SLUB"),
            ("one object of each of 64 caches, per pair", "insns", ic("many", 64), 1, 1.0,
             "≤ SLUB"),
            ("fork + exec of busybox", "insns", fork, 0, 1.0, "≤ SLUB"),
            ("remote free, per object", "ns, TCG", tcg("remote", 256), 0, 1.0, "≤ SLUB"),
            ("alloc + free on both vCPUs, per pair", "ns, TCG", tcg("mt", 2), 0, 1.0, "≤ SLUB"),
            ("UDP datagram over loopback, 64 B", "insns", ic("net", "64x1"), 0, None, ""),
            ("IP forwarding, per packet", "insns", {k: self.fwd(k) for k in self.kernels}, 1,
             None, ""),
            ("`Slab:` after boot, 8 GiB guest", "KiB",
             {k: b.mem(k, "memory", "slab_boot_kb") for k in self.kernels}, 0, 1.03,
             "≤ 1.03× SLUB"),
            ("memory reserved at boot, 8 GiB guest", "KiB",
             {k: b.mem(k, "memory", "reserved_kb") for k in self.kernels}, 0, None, ""),
        ]

    def judge(self, vals, bound):
        """(ratio to the best peer, met or None) of one glance row."""
        o = vals.get(self.ours)
        peers = [vals[p] for p in self.peers if vals.get(p) is not None]
        if o is None or not peers:
            return None, None
        r = o / min(peers)
        if bound is None:
            return r, None
        slub = min([vals[p] for p in ("slub", "slub56") if vals.get(p) is not None],
                   default=None)
        ok = slub is not None and o <= bound * slub
        if "slab" in self.kernels and bound == 0.85:
            ok = ok and vals.get("slab") is not None and o <= vals["slab"]
        return r, ok

    def targets_line(self):
        """One sentence on every target of the run."""
        rep = self.rep
        unjudged = {name for name, _, _ in rep.not_judged()}
        met, missed = [], []
        for name, _, _ in self.br.TARGETS:
            if name in unjudged:
                continue
            (met if all(ok for ok, _ in rep.targets.get(name, [])) else missed).append(name)
        total = len(self.br.TARGETS)
        broken = [p for p in self.problems if not p.startswith("target not judged")]
        s = ""
        if broken:
            boots = sorted({p.split(":")[0] for p in broken})
            s = (f"The run is incomplete: {len(boots)} of its boots ({'; '.join(boots)}) "
                 f"failed or lacked figures (the results page lists {'it' if len(boots) == 1 else 'them'}), so `make bench` "
                 "failed the run and judged no target; applying its goals to the figures "
                 "the run has: ")
        s += f"of the {total} targets that `make bench` judges, this run meets {len(met)}"
        if missed:
            s += f"; misses {len(missed)} ({'; '.join(missed)})"
        if unjudged:
            s += (f"; {len(unjudged)} are not judged, for want of figures the run did not "
                  f"take ({'; '.join(sorted(unjudged))})")
        return s[0].upper() + s[1:] + "."


def short(run, k):
    return {"ours-internal": "ours", "ours-aligned": "ours, 64 B page", "slub": "SLUB",
            "slub56": "SLUB 56 B", "slab": "SLAB"}[k]


def how_measured(run):
    r = run.run
    return (f"`make bench` at {r['commit']} ({r['date']}, `{r['command']}`) on Linux "
            f"{r['version']}: guest instructions per operation counted under QEMU `-icount` on "
            f"one vCPU (exact; two passes), ns as the median of {r['rounds']} interleaved rounds "
            "of plain TCG on two vCPUs (a timing of QEMU's emulation of atomics and memory, "
            "not of a CPU), memory counted in an 8 GiB guest; ours is the default "
            "build (array front end, 56-byte `struct page`), the peers upstream's SLUB from "
            "the same tree and config, as shipped and without the aligned `struct page` "
            "(SLUB 56 B)" + (", and SLAB" if "slab" in run.kernels else "") +
            f".  Every figure is from QEMU TCG guests on {r['machine']}, none from hardware.")


def glance(run, link=None):
    cols = [k for k in run.kernels if k != "ours-aligned"]
    head = ["case", "unit"] + [short(run, k) for k in cols] + ["ours / best peer", "goal", "met"]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for case, unit, vals, digits, bound, goal in run.rows():
        r, ok = run.judge(vals, bound)
        out.append("| " + " | ".join(
            [case, unit] + [fmt(vals.get(k), digits) for k in cols] +
            [fmt(r, 3 if r is not None and abs(r - 1) < 0.1 else 2) + "×"
             if r is not None else "n/a", goal or "—",
             "—" if ok is None else ("yes" if ok else "**no**")]) + " |")
    out += ["", how_measured(run) + "  " + run.targets_line() +
            (f"  Every row, with the plots: [docs/results/{run.base}.md]"
             f"(docs/results/{run.base}.md)." if link is None else link)]
    return "\n".join(out) + "\n"


def wrap(text, width=72, indent=""):
    words, lines, cur = text.split(), [], indent
    for w in words:
        if len(cur) + len(w) + (cur.strip() != "") > width:
            lines.append(cur.rstrip())
            cur = indent
        cur += (" " if cur.strip() else "") + w
    lines.append(cur.rstrip())
    return "\n".join(lines)


def cover(run):
    """A cover letter's measured figures, plain text."""
    r = run.run
    peers = [k for k in run.kernels if k not in ("ours-internal", "ours-aligned")]
    lines = [wrap(f"Measured with the repository's make bench at {r['commit']} "
                  f"({r['date']}) in QEMU TCG guests (host: {r['machine'].split(';')[0]}): "
                  "guest instructions per operation under QEMU -icount on one vCPU "
                  f"(exact), ns as TCG medians of {r['rounds']} interleaved rounds on two "
                  "vCPUs.  Ours is the default build (array front end, 56-byte struct page) "
                  "against upstream SLUB of the same tree and config, as shipped and "
                  "without the aligned struct page (SLUB 56 B)" +
                  (", and SLAB" if "slab" in peers else "") + ":"), ""]
    for case, unit, vals, digits, bound, goal in run.rows():
        o = vals.get(run.ours)
        if o is None:
            continue
        against = ", ".join(f"{short(run, p)} {fmt(vals.get(p), digits)}" for p in peers)
        lines.append(f"  {case.replace('`', '')} ({unit}):")
        lines.append(f"    {fmt(o, digits)} against {against}")
    lines += ["", wrap(run.targets_line().replace("`", "").replace(
        "the results page", f"docs/results/{run.base}.md of the repository"))]
    return "\n".join(lines) + "\n"


def arrays_msg(run):
    """The array patch's message: what the arrays change on one kernel."""
    b, r = run.b, run.run
    o, f = run.ours, run.ours + "+freelist"
    slub = [k for k in ("slub", "slub56") if k in run.kernels]

    def best(group, key):
        vals = [b.icount(k, group, key) for k in slub]
        return min([v for v in vals if v is not None], default=None)

    bulk = [b.icount(o, "bulk", n) / best("bulk", n) for n in run.br.BULK
            if n >= 16 and b.icount(o, "bulk", n) and best("bulk", n)]
    mem = [b.mem(k, "memory", "slab_boot_kb") for k in slub]
    mem = min([m for m in mem if m], default=None)
    slab = b.mem(o, "memory", "slab_boot_kb")
    text = (f"Under QEMU -icount (guest instructions per operation; make bench at "
            f"{r['commit']}, {r['date']}, the 56-byte struct page, freelist hardening "
            f"on), freelist front end -> arrays: kmem_cache_alloc+free "
            f"{fmt(b.icount(f, 'fast', 256), 0)} -> {fmt(b.icount(o, 'fast', 256), 0)}, "
            f"kmalloc+kfree {fmt(b.icount(f, 'kmalloc', 256), 0)} -> "
            f"{fmt(b.icount(o, 'kmalloc', 256), 0)} (upstream SLUB: "
            f"{fmt(best('fast', 256), 0)} and {fmt(best('kmalloc', 256), 0)}); bulk "
            "alloc+free of 16 to 250 objects costs " +
            (f"{min(bulk):.2f}x to {max(bulk):.2f}x" if bulk else "n/a") +
            " upstream's per object." +
            (f"  Slab: after boot of an 8 GiB guest is {slab / mem:.3f}x upstream's."
             if slab and mem else ""))
    return wrap(text) + "\n"


def layout_msg(run):
    """The layout patch's message: the reserved memory of both layouts."""
    b, r = run.b, run.run
    a = b.mem("ours-aligned", "memory", "reserved_kb")
    i = b.mem("ours-internal", "memory", "reserved_kb")
    if not a or not i:
        return "The committed run has no memory boots of both layouts.\n"
    text = (f"Measured on an 8 GiB QEMU guest (make bench at {r['commit']}, {r['date']}: "
            "two kernels that differ only in this choice), the boot \"Memory:\" line "
            f"reports {a:.0f}K reserved with the aligned layout and {i:.0f}K with "
            f"internal alignment: {a - i:.0f}K less, {(a - i) * 1024 / 8:,.0f} times the "
            "8 bytes of a struct page.")
    return wrap(text) + "\n"


def size():
    """The lines the series adds, by kind, per base: the files its plan
    ships (wc -l) and the added lines of its diffs to upstream files."""
    kinds = [("allocator (mm/, include/)", lambda p: p.startswith(("mm/", "include/"))
              and not p.endswith("_test.c")),
             ("tests (KUnit, test module, kselftests)", lambda p: p.endswith("_test.c") or
              p.startswith(("lib/test_", "tools/testing/"))),
             ("documentation", lambda p: p.startswith("Documentation/")),
             ("build glue and the rest", lambda p: True)]
    out = ["| | " + " | ".join(f"Linux {b}" for b in BASES) + " |",
           "|" + " --- |" * (len(BASES) + 1)]
    counts = {b: [0] * len(kinds) for b in BASES}
    patches = {}
    for b in BASES:
        layer = "" if b == "6.1" else os.path.join("base", b)
        plan = os.path.join(REPO, layer, "series", "plan")
        n = 0
        with open(plan) as f:
            for line in f:
                word, _, arg = line.strip().partition(" ")
                arg = arg.strip()
                if word == "patch":
                    n += 1
                elif word == "file":
                    for path in sorted(glob.glob(os.path.join(REPO, layer, arg)) or
                                       glob.glob(os.path.join(REPO, arg))):
                        rel = os.path.relpath(path, os.path.join(REPO, layer)) \
                            if layer and path.startswith(os.path.join(REPO, layer) + "/") \
                            else os.path.relpath(path, REPO)
                        with open(path, errors="replace") as f2:
                            lines = sum(1 for _ in f2)
                        i = next(i for i, (_, t) in enumerate(kinds) if t(rel))
                        counts[b][i] += lines
                elif word == "diff":
                    path = os.path.join(REPO, layer, "patches", arg)
                    if not os.path.exists(path):
                        path = os.path.join(REPO, "patches", arg)
                    cur = None
                    with open(path, errors="replace") as f2:
                        for dl in f2:
                            if dl.startswith("+++ "):
                                cur = dl[4:].strip().split("/", 1)[-1]
                            elif dl.startswith("+") and cur:
                                i = next(i for i, (_, t) in enumerate(kinds) if t(cur))
                                counts[b][i] += 1
        patches[b] = n
    for i, (name, _) in enumerate(kinds):
        out.append(f"| {name} | " + " | ".join(f"{counts[b][i]:,}" for b in BASES) + " |")
    out.append("| **lines added** | " + " | ".join(f"**{sum(counts[b]):,}**" for b in BASES)
               + " |")
    out.append("| patches | " + " | ".join(str(patches[b]) for b in BASES) + " |")
    return "\n".join(out) + "\n"


def no_run(base):
    return (f"No `make bench` run of Linux {base} is committed under `docs/results/{base}/`: "
            f"`make bench BASE={base}` then `make results BASE={base}` puts one there.\n")


def page(run):
    r = run.run
    body = run.text.split("\n", 2)[2] if run.text.startswith("# ") else run.text
    model = model_section(run)
    plots = "".join(f"![{p}]({run.base}/{p}.png)\n\n" for p in PLOTS)
    return (f"# make bench on Linux {r['version']}\n\n"
            f"<!-- Written by harness/results.py from docs/results/{run.base}/: "
            "make results rewrites it; do not edit. -->\n\n"
            f"The run: `{r['command']}` at {r['commit']}, {r['date']}.\n\n"
            "## At a glance\n\n" + glance(run, "  Every row follows.") + "\n" + body.rstrip("\n") + "\n\n" + model + "## Plots\n\n" + plots)


def model_section(run):
    """The cost model's cycles of the glance's single-CPU cases."""
    c = run.checks
    cases = [("kmem_cache_alloc + free pair, 256 B", "fast", "256"),
             ("kmalloc + kfree pair, 256 B", "kmalloc", "256"),
             ("bulk alloc + free of 64, per object", "bulk", "64"),
             ("one object of each of 64 caches, per pair", "many", "64"),
             ("fork + exec of busybox", "shell", "forkexec"),
             ("UDP datagram over loopback, 64 B", "net", "64x1")]
    head = ["case"] + [short(run, k) for k in run.kernels] + ["ours / best peer"]
    out = ["## Modelled cycles", "",
           "The icount boots ran under the slabcost plugin; its counts are priced with "
           "`harness/costmodel.conf` as it is in the tree (one cycle an instruction plus "
           "per-event costs; the instruction, `cmpxchg16b` and `pushf` costs are assumed, and "
           "the sensitivity table below varies them: [docs/cost-model.md]"
           "(../cost-model.md)).  Modelled cycles per operation, first pass; "
           f"{c.get('modelcal_exact', 0)} of {c.get('modelcal_total', 0)} calibration "
           f"windows counted exactly, {c.get('windows_same', 0)} of "
           f"{c.get('windows_same', 0) + c.get('windows_differ', 0)} windows identical "
           "between the two passes.", "",
           "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    rows = [(what, {k: run.cycles(k, g, key) for k in run.kernels}) for what, g, key in cases]
    rows.append(("IP forwarding, per packet", {k: run.fwd(k, "cycles") for k in run.kernels}))
    for what, vals in rows:
        r, _ = run.judge(vals, None)
        out.append("| " + " | ".join([what] + [fmt(vals[k], 1) for k in run.kernels] +
                                     [fmt(r, 2) + "×" if r is not None else "n/a"]) + " |")
    out += ["", "Events per operation, counted (first pass): locked instructions other than "
            "`cmpxchg16b` / `lock cmpxchg16b` / `cmpxchg16b` without `LOCK` / `pushf`, `popf`, "
            "`cli` and `sti` / L1 misses.", "",
            "| case | " + " | ".join(short(run, k) for k in run.kernels) + " |",
            "|" + " --- |" * (len(run.kernels) + 1)]
    for what, g, key in cases:
        cells = []
        for k in run.kernels:
            c = run.model.get((k, 1, g, key))
            cells.append("n/a" if not c else
                         f"{c.get('locked', 0):.2f} / {c.get('cx16l', 0):.2f} / "
                         f"{c.get('cx16', 0):.2f} / "
                         f"{sum(c.get(e, 0) for e in ('pushf', 'popf', 'cli', 'sti')):.2f} / "
                         f"{c.get('l1m', 0):.2f}")
        out.append(f"| {what} | " + " | ".join(cells) + " |")
    out += [""] + MR.sensitivity_tables(run.cycles, run.ours, run.peers, COSTS,
                                       lambda k: short(run, k), cycles_table=False)
    return "\n".join(out).rstrip("\n") + "\n\n" + experiments_section(run)


def dd_pages(run):
    """Dave Hansen's dd per 4 KiB page written (the windows are per MiB),
    by kernel, first pass."""
    out = {}
    for k in run.kernels:
        c = run.model.get((k, 1, "dave", "dd"))
        if c:
            out[k] = {x: n / 256 for x, n in c.items()}
    return out


def dave_msg(run):
    """docs/experiments.md's figures of Dave Hansen's dd."""
    dd = dd_pages(run)
    a, i = dd.get("ours-aligned"), dd.get("ours-internal")
    if not a or not i:
        return f"The committed {run.base} run has no dd of both layouts.\n"
    ns = COSTS["dram"] / GHZ
    return (f"On the committed {run.base} run (make bench at {run.run['commit']}), per 4 KiB "
            f"page written, the 56-byte page touches {i['vmml']:.3f} `struct page` lines and "
            f"the 64-byte page {a['vmml']:.3f} (counted): {i['vmml'] / a['vmml']:.3f} times "
            f"as many.  At the model's DRAM latency, {COSTS['dram']:g} cycles or {ns:.0f} ns at "
            f"{GHZ:.1f} GHz, that is {i['vmml'] * ns:.1f} ns against {a['vmml'] * ns:.1f} ns of "
            f"latencies a page, {(a['vmml'] - i['vmml']) * ns:.1f} ns less (modelled).\n")


def sens_msg(run):
    """The sensitivity table's conclusion, one paragraph (docs/cost-model.md)."""
    rows = MR.sensitivity(run.cycles, run.ours, run.peers, COSTS)
    n = len(MR.sens_settings())
    steady, flipped = [], []
    for what, _, _, base, grid in rows:
        fl = []
        for k in base:
            if k == run.ours:
                continue
            cheaper, nbad, names = MR.flips(base, grid, run.ours, k)
            if nbad:
                fl.append(f"{short(run, k)} is {'cheaper' if cheaper else 'dearer'} than ours "
                          f"at {nbad} of the {n} ({'; '.join(names)})")
            elif not cheaper:
                fl.append(f"{short(run, k)} is cheaper than ours at all {n}")
        (flipped if fl else steady).append((what, fl))
    text = (f"On the committed {run.base} run (make bench at {run.run['commit']}), priced at "
            f"each of the {n} settings, ours is cheaper than every peer at every setting in "
            f"{len(steady)} of the {len(rows)} single-CPU cases of the sensitivity table")
    if flipped:
        text += "; not in " + "; ".join(f"{what.lower()}, where {', and '.join(fl)}"
                                          for what, fl in flipped)
    return text + ".\n"


def experiments_section(run):
    """Dave Hansen's dd and Jesper Brouer's forwarding, from the model's
    counts (docs/experiments.md says how they are taken)."""
    out = []
    dd = dd_pages(run)
    if dd:
        out += ["## Dave Hansen's dd, per 4 KiB page", "",
                "A 4 GiB file written to ramfs with `dd bs=1G` on an 8 GiB guest, one boot "
                "a kernel under the plugin; per 4 KiB page written: instructions, L1 misses "
                "and the distinct `struct page` lines touched (counted), and those lines "
                "priced at the model's DRAM latency, "
                f"{COSTS['dram']:g} cycles or {COSTS['dram'] / GHZ:.0f} ns at {GHZ:.1f} GHz "
                "(modelled: a sum of latencies, not a time).  The model does not price the dd "
                "itself (docs/experiments.md says why), so no share of dd time is given.", "",
                "| kernel | instructions | L1 misses | `struct page` lines | their latency, ns |",
                "| --- | --- | --- | --- | --- |"]
        for k, q in dd.items():
            out.append(f"| {short(run, k)} | {q['insn']:,.1f} | {q['l1m']:.2f} | "
                       f"{q['vmml']:.3f} | {q['vmml'] * COSTS['dram'] / GHZ:.1f} |")
        out.append("")
    variants = [(k + s, short(run, k) + label) for k in run.kernels
                for s, label in (("", ""), ("+freelist", ", freelist front end"))
                if k.startswith("ours-") or not s]
    rows = []
    for v, label in variants:
        for nm, nlabel in (("", ""), ("+nomerge", ", `slab_nomerge`")):
            i = run.fwd(v + nm)
            if i is None:
                continue
            calls = [run.fwd(v + nm, f"call:{fn}") for fn in
                     ("kmem_cache_alloc_bulk", "kmem_cache_free_bulk", "kmem_cache_alloc",
                      "kmem_cache_free")]
            rows.append(f"| {label}{nlabel} | {i:,.1f} | {fmt(run.fwd(v + nm, 'cycles'), 1)} | "
                        + " | ".join(fmt(c, 3) for c in calls) + " |")
    modes = run.fwd_modes()
    if rows:
        out += ["## IP forwarding, per packet", "",
                "60-byte UDP frames forwarded between the two devices of "
                "`harness/modules/fwdnic` on one vCPU under `-icount` and the plugin "
                "(docs/experiments.md): instructions (counted) and modelled cycles per packet, "
                "the median of every run of both passes, and the calls of the allocator's "
                "entry points per packet (counted)." +
                (f"  The module's mode {modes[0]}: {FWD_MODE_LABEL[modes[0]]}; the modes are "
                 "compared below." if len(modes) > 1 else ""), "",
                "| kernel | instructions | modelled cycles | `alloc_bulk` calls | "
                "`free_bulk` calls | `kmem_cache_alloc` calls | `kmem_cache_free` calls |",
                "| --- | --- | --- | --- | --- | --- | --- |"] + rows + [""]
    if rows and len(modes) > 1:
        out += fwd_modes_section(run, modes)
    return "\n".join(out) + ("\n" if out else "")


def fwd_modes_section(run, modes):
    """The forwarding figures of each of fwdnic's modes: how much of the
    table above the module's way of receiving and completing decides."""
    calls = ("kmem_cache_alloc_bulk", "kmem_cache_free_bulk", "kmem_cache_alloc",
             "kmem_cache_alloc_node", "__kmalloc_node_track_caller", "kmem_cache_free", "kfree")
    out = ["### IP forwarding, by the module's mode", "",
           "The same boots in each mode of `harness/modules/fwdnic`: instructions per packet "
           "(counted), ours against SLUB in instructions (counted) and modelled cycles, the "
           "frames each TX completion freed, and SLUB's allocator calls per packet "
           "(`alloc_bulk` / `free_bulk` / `kmem_cache_alloc` / `_alloc_node` / `kmalloc` / "
           "`kmem_cache_free` / `kfree`, counted), which say how many heads go through the bulk "
           "calls.  "
           "What the module leaves out of a real driver's path (assumed to matter, not "
           "measured): DMA mapping, descriptor rings in device memory and their doorbells, "
           "the interrupt and its moderation timer, the device's and the wire's own time (so "
           "the allocator's share of a packet is larger here than on hardware), page_pool's "
           "recycling caches and statistics, XDP, and completions on another CPU.",
           "",
           "| mode | " + " | ".join(short(run, k) for k in run.kernels) +
           " | ours − SLUB | in cycles | frames / completion | SLUB's calls |",
           "|" + " --- |" * (len(run.kernels) + 5)]
    diffs = []
    for m in modes:
        o, s = run.fwd(run.ours, mode=m), run.fwd("slub", mode=m)
        oc, sc = run.fwd(run.ours, "cycles", mode=m), run.fwd("slub", "cycles", mode=m)
        d = (o - s, oc - sc) if None not in (o, s, oc, sc) else None
        if d:
            diffs.append(d)
        sl = [run.fwd("slub", f"call:{fn}", mode=m) for fn in calls]
        out.append(f"| {FWD_MODE_LABEL[m]} | " +
                   " | ".join(fmt(run.fwd(k, mode=m), 1) for k in run.kernels) + " | " +
                   (f"{d[0]:+,.1f} | {d[1]:+,.1f}" if d else "n/a | n/a") + " | " +
                   fmt(run.fwd_batch("slub", m), 1) + " | " +
                   " / ".join(fmt(c, 3) for c in sl) + " |")
    out.append("")
    if diffs:
        out += [f"Ours − SLUB across the {len(modes)} modes: "
                f"{min(d[0] for d in diffs):+,.1f} to {max(d[0] for d in diffs):+,.1f} "
                f"instructions, {min(d[1] for d in diffs):+,.1f} to "
                f"{max(d[1] for d in diffs):+,.1f} modelled cycles per packet.", ""]
    return out


class Renderer:
    def __init__(self):
        self.runs = {}
        for b in BASES:
            if os.path.exists(os.path.join(RESULTS, b, "results.tsv")):
                self.runs[b] = Run(b)

    def block(self, kind, base):
        if kind == "size":
            return size()
        if base not in BASES:
            raise ValueError(f"no base {base}")
        run = self.runs.get(base)
        if kind == "glance":
            return glance(run) if run else no_run(base)
        if kind == "cover":
            return cover(run) if run else wrap(
                f"This posting carries no measured figures for {base}: the repository "
                "this series comes from has no committed make bench run of this base.") + "\n"
        if kind == "dave":
            return dave_msg(run) if run else no_run(base)
        if kind == "sensitivity":
            return sens_msg(run) if run else no_run(base)
        if kind in ("arrays", "layout"):
            return (arrays_msg if kind == "arrays" else layout_msg)(run) if run else wrap(
                "The repository this series comes from has no committed make bench run "
                f"of {base}: the measured figures come with one.") + "\n"
        raise ValueError(f"no block kind {kind}")

    def pages(self):
        """path -> text of every generated page."""
        out = {}
        for b in BASES:
            path = os.path.join(RESULTS, f"{b}.md")
            out[path] = page(self.runs[b]) if b in self.runs else (
                f"# make bench on Linux {b}\n\n" + no_run(b))
        return out

    def fill(self, path):
        """(the file's text, the text with its blocks rendered, blocks)."""
        with open(path) as f:
            text = f.read()
        md = not path.endswith(".txt")
        begin, end = (MD_BEGIN, MD_END) if md else (TXT_BEGIN, TXT_END)
        out, lines, i, n = [], text.split("\n"), 0, 0
        while i < len(lines):
            m = begin.match(lines[i])
            out.append(lines[i])
            i += 1
            if not m:
                continue
            j = i
            while j < len(lines) and lines[j] != end:
                j += 1
            if j == len(lines):
                fail(f"{os.path.relpath(path, REPO)}: '{m.group(0)}' has no '{end}'")
            try:
                body = self.block(m.group(1), m.group(2))
            except ValueError as e:
                fail(f"{os.path.relpath(path, REPO)}: {m.group(0)}: {e}")
            out += body.rstrip("\n").split("\n")
            out.append(end)
            i = j + 1
            n += 1
        return text, "\n".join(out), n

    def block_files(self):
        files = []
        for pat in BLOCK_FILES:
            files += sorted(glob.glob(os.path.join(REPO, pat)))
        return files

    def plots(self, base, outdir):
        run = self.runs[base]
        os.makedirs(outdir, exist_ok=True)
        run.br.plots(run.b, outdir, run.args)


def strip_blocks(text):
    """A cover letter's own text: without its generated blocks."""
    out, inside = [], False
    for line in text.split("\n"):
        if TXT_BEGIN.match(line):
            inside = True
        elif line == TXT_END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def read_sources():
    """[(phrase, source)] of harness/figure-sources.conf."""
    out = []
    with open(SOURCES) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            phrase, _, source = line.partition("\t")
            source = source.strip()
            if not source:
                fail(f"harness/figure-sources.conf:{n}: '{phrase}' names no source")
            out.append((" ".join(phrase.split()), source))
    return out


def check_source(source):
    """None if SOURCE holds, else why not.  "repo PATH REGEX": the regex
    must match in that file of the repository; "cite TEXT": a public
    posting, named; "fact TEXT": arithmetic, shown."""
    kind, _, rest = source.partition(" ")
    if kind in ("cite", "fact"):
        return None if rest.strip() else f"'{kind}' without its text"
    if kind == "repo":
        path, _, regex = rest.partition(" ")
        try:
            with open(os.path.join(REPO, path)) as f:
                return None if re.search(regex, f.read()) else f"{path} has no match for {regex}"
        except OSError:
            return f"no file {path}"
    return f"unknown kind of source '{kind}'"


def unsourced(path, sources):
    """Figures with a unit in a cover letter's own text that no phrase of
    figure-sources.conf covers: [(figure, context)]; and how many were
    found with their source."""
    with open(path) as f:
        text = " ".join(strip_blocks(f.read()).split())
    covered = []
    for phrase, _ in sources:
        for m in re.finditer(re.escape(phrase), text):
            covered.append((m.start(), m.end()))
    bad, good = [], 0
    for m in FIGURE.finditer(text):
        if any(a <= m.start() and m.end() <= z for a, z in covered):
            good += 1
        else:
            bad.append((m.group(0), text[max(0, m.start() - 40):m.end() + 20]))
    return bad, good


def cmd_import(base, src):
    dest = os.path.join(RESULTS, base)
    need = ["results.tsv", "model.tsv", "run.conf"]
    missing = [n for n in need if not os.path.exists(os.path.join(src, n))]
    if missing:
        fail(f"{src} lacks {', '.join(missing)}: not a make bench run of this harness")
    os.makedirs(dest, exist_ok=True)
    for n in need:
        shutil.copyfile(os.path.join(src, n), os.path.join(dest, n))
    read_run(base)
    print(f"results: took {src} as the run of {base} ({os.path.relpath(dest, REPO)})")


def cmd_update():
    r = Renderer()
    for path, text in r.pages().items():
        with open(path, "w") as f:
            f.write(text)
    for b in r.runs:
        r.plots(b, os.path.join(RESULTS, b))
    n = 0
    for path in r.block_files():
        old, new, k = r.fill(path)
        n += k
        if new != old:
            with open(path, "w") as f:
                f.write(new)
            print(f"results: rewrote {os.path.relpath(path, REPO)}")
    print(f"results: {len(r.pages())} pages, {n} blocks, plots of {len(r.runs)} base(s)")


def cmd_check():
    r = Renderer()
    problems, checked = [], 0
    for path, text in r.pages().items():
        checked += 1
        try:
            with open(path) as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            problems.append(first_diff(path, old, text))
    blocks = 0
    for path in r.block_files():
        old, new, k = r.fill(path)
        blocks += k
        if new != old:
            problems.append(first_diff(path, old, new))
    with tempfile.TemporaryDirectory() as tmp:
        for b in r.runs:
            r.plots(b, tmp)
            for p in PLOTS:
                mine = os.path.join(RESULTS, b, p)
                for ext in (".dat", ".png"):
                    if not os.path.exists(mine + ext):
                        problems.append(f"{os.path.relpath(mine + ext, REPO)} missing")
                with open(os.path.join(tmp, p + ".dat")) as f1:
                    new = f1.read()
                try:
                    with open(mine + ".dat") as f2:
                        old = f2.read()
                except OSError:
                    continue
                checked += 1
                if new != old:
                    problems.append(first_diff(mine + ".dat", old, new))
    sources = read_sources()
    for phrase, source in sources:
        why = check_source(source)
        if why:
            problems.append(f"harness/figure-sources.conf: '{phrase}': {why}")
    sourced = 0
    letters = [p for p in r.block_files() if p.endswith(".txt")]
    for path in letters:
        bad, good = unsourced(path, sources)
        sourced += good
        problems += [f"{os.path.relpath(path, REPO)}: figure '{fig}' has no source "
                     f"(…{ctx}…): generate it or name its source in "
                     "harness/figure-sources.conf" for fig, ctx in bad]
    # README.md is a front page: the detail lives in docs/.
    with open(os.path.join(REPO, "README.md")) as f:
        n = sum(1 for _ in f)
    if n > README_LINES:
        problems.append(f"README.md has {n} lines, more than {README_LINES}: move detail to docs/")
    if blocks == 0 or not letters:
        problems.append(f"found {blocks} generated blocks and {len(letters)} cover letters "
                        "and messages: nothing to check")
    for p in problems:
        print(f"results: error: {p}", file=sys.stderr)
    print(f"results: {checked} pages and plot data, {blocks} generated blocks, "
          f"{len(letters)} cover letters and patch messages ({sourced} figures with "
          "a source): "
          f"{'OK' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def first_diff(path, old, new):
    rel = os.path.relpath(path, REPO)
    if old is None:
        return f"{rel} missing (make results writes it)"
    a, b = old.split("\n"), new.split("\n")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return (f"{rel}:{i + 1} differs from what its results render (make results):"
                    f" has '{x[:100]}', renders '{y[:100]}'")
    return f"{rel}: {len(a)} lines where its results render {len(b)} (make results)"


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "import":
        cmd_import(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == "update":
        cmd_update()
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == "check":
        return cmd_check()
    print(__doc__.split("usage: ")[1].split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
