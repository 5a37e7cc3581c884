#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the rows of make bench (harness/bench.sh) into build/bench/report.md
and PNG plots (gnuplot).

results.tsv rows: measure variant run group key value
  measure  icount (guest instructions), tcg (ns), mem (8 GiB boot), plain
           (icount of the kernels without freelist hardening); fwd and
           fwdtcg (IP forwarding) and dave are model-report.py's
  variant  kernel name, +strategy or +nomerge for boot-time variants
Every figure is a cost: lower is better.
"""
import argparse
import copy
import os
import platform
import statistics
import subprocess
import sys
from collections import defaultdict

KERNELS = ["ours-aligned", "ours-internal", "slub", "slub56", "slab"]
LABEL = {
    "ours-aligned": "ours aligned (64 B page)",
    "ours-internal": "ours internal (56 B page)",
    "slub": "SLUB",
    "slub56": "SLUB 56 B page",
    "slab": "SLAB",
}
SHORT = {"ours-aligned": "ours aligned", "ours-internal": "ours internal",
         "slub": "SLUB", "slub56": "SLUB 56B", "slab": "SLAB"}
OURS = "ours-internal"          # the default build of the series
PEERS = ["slub", "slub56", "slab"]
SIZES = [8, 64, 256, 1024, 4096]
ALLOCN = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
BULK = [1, 2, 3, 4, 8, 16, 30, 32, 34, 48, 64, 128, 158, 250]
STRATS = ["", "+irqoff", "+bitlock", "+irqoff-bitlock", "+freelist"]
STRAT_LABEL = {"": "lockless, cmpxchg, arrays (default)", "+irqoff": "irqoff, cmpxchg, arrays",
               "+bitlock": "lockless, bitlock, arrays",
               "+irqoff-bitlock": "irqoff, bitlock, arrays",
               "+freelist": "lockless, cmpxchg, freelist front end"}


# The figures each case of slab_bench gives, by group and key.
CASE_FIGURES = {
    "fast": [("fast", k) for k in SIZES],
    "kmalloc": [("kmalloc", k) for k in SIZES],
    "allocn": [("allocn", k) for k in ALLOCN],
    "bulk": [("bulk", k) for k in BULK],
    "bulkm": [("bulkm", k) for k in BULK],
    "remote": [("remote", 256)],
    "mt": [("mt", 2)],
    "frag": [("frag", k) for k in (64, 192, 700, 2000)],
    "many": [("many", 64)],
}
# Under -icount shift=0 the clock ticks once per guest instruction; the
# calibration loop of known length must find that, or the figures are not
# instruction counts.
TICKS_PER_INSN = (0.9, 1.1)
# The network case (harness/guest/udpbench): payload bytes x datagrams in
# flight; the figure is the cost of one datagram sent and received.
NET_LABEL = {"64x1": "64 B, 1 in flight", "64x32": "64 B, 32 in flight",
             "1400x1": "1400 B, 1 in flight", "1400x32": "1400 B, 32 in flight"}

# The targets (docs/results/<base>.md): name, goal and the number
# of rows a complete run judges.  A target with fewer rows is not judged,
# and the run fails: a run that lacks figures must not read as a pass.
LAYOUT_TARGET = "internal layout within 1% of aligned (single-CPU rows)"
TARGETS = [
    ("fastpath pair kmem_cache (ratio to SLUB)", "≤ 0.85× SLUB and ≤ SLAB", len(SIZES)),
    ("fastpath pair kmalloc (ratio to SLUB)", "≤ 0.85× SLUB and ≤ SLAB", len(SIZES)),
    ("alloc N / free N (ratio to SLAB)", "≤ SLAB", len(ALLOCN)),
    ("bulk ≥ 16 (ratio to SLUB)", "≤ 0.8× SLUB", len([n for n in BULK if n >= 16])),
    ("bulk 250 (ratio to SLAB)", "≤ SLAB", 1),
    ("many caches (ratio to SLUB)", "≤ SLUB", 1),
    ("fork+exec (ratio to SLUB)", "≤ SLUB", 1),
    ("remote free, TCG median (ratio to SLUB)", "≤ SLUB in ns (throughput ≥ SLUB)", 1),
    ("all-CPU throughput, TCG median (ratio to SLUB)", "≤ SLUB in ns (throughput ≥ SLUB)", 1),
    # Every row of the single-CPU tables: fast, kmalloc, alloc N, bulk,
    # many caches, fork+exec.
    (LAYOUT_TARGET, "≤ 1.01× ours aligned",
     2 * len(SIZES) + len(ALLOCN) + len(BULK) + 2),
]
# The kernels without SLAB_FREELIST_HARDENED and _RANDOM (measure plain):
# the fastpath targets hold there too.  The one-object bulk against SLAB
# in both configurations.
PLAIN_FAST = "fastpath pair kmem_cache, unhardened (ratio to SLUB)"
PLAIN_KMALLOC = "fastpath pair kmalloc, unhardened (ratio to SLUB)"
PLAIN_BULK = "bulk ≥ 16, unhardened (ratio to SLUB)"
BULK1_TARGET = "bulk 1, both configurations (ratio to SLAB)"
TARGETS += [
    (PLAIN_FAST, "≤ 0.85× SLUB and ≤ SLAB", len(SIZES)),
    (PLAIN_KMALLOC, "≤ 0.85× SLUB and ≤ SLAB", len(SIZES)),
    (PLAIN_BULK, "≤ 0.8× SLUB", len([n for n in BULK if n >= 16])),
    (BULK1_TARGET, "≤ SLAB", 2),
]
# The PREEMPT_RT kernels (measure rt, 6.12 on; configure_base()): ours
# with the internal layout against SLUB, both built with PREEMPT_RT.
RT_FAST = "fastpath pair kmem_cache, PREEMPT_RT (ratio to SLUB)"
RT_KMALLOC = "fastpath pair kmalloc, PREEMPT_RT (ratio to SLUB)"
RT_BULK = "bulk ≥ 16, PREEMPT_RT (ratio to SLUB)"
ICOUNT_MEASURES = ("icount", "plain", "rt")
# Slab: of /proc/meminfo in the 8 GiB boots, after boot, with the fixed
# workload, after the dd; ours within 3% of SLUB at each (issue 48).
SLAB_TARGET = "`Slab:` within 3% of SLUB (after boot, fixed workload, after dd)"
SLAB_FIGURES = [("slab_boot_kb", "after boot"), ("slab_module_kb", "with the fixed workload"),
                ("slab_dd_kb", "after the dd")]
SLAB_BOUND = 1.03
# The caches whose slabs after boot differ most, ours against SLUB.
CACHES_SHOWN = 10
TARGETS.append((SLAB_TARGET, f"≤ {SLAB_BOUND:.2f}× SLUB", len(SLAB_FIGURES)))
BASE = "6.1"


def configure_base(base):
    """The kernels and targets of base BASE (harness/bench.sh picks the
    kernels the same way).  6.1 has all five.  A later base has no SLAB
    (removed in 6.8): the peers are SLUB in both layouts, and the targets
    are those that do not need SLAB: the fastpath pairs against SLUB
    alone, bulk, many caches, fork+exec, TCG, the layout and Slab:."""
    global BASE, KERNELS, OURS, PEERS, TARGETS
    BASE = base
    if base == "6.1":
        return
    KERNELS = ["ours-aligned", "ours-internal", "slub", "slub56"]
    PEERS = ["slub", "slub56"]
    drop = {"alloc N / free N (ratio to SLAB)", "bulk 250 (ratio to SLAB)",
            BULK1_TARGET}
    TARGETS = [(name, goal.replace(" and ≤ SLAB", ""), n) for name, goal, n in TARGETS
               if name not in drop]
    TARGETS += [(RT_FAST, "≤ 0.85× SLUB", len(SIZES)), (RT_KMALLOC, "≤ 0.85× SLUB", len(SIZES)),
                (RT_BULK, "≤ 0.8× SLUB", len([n for n in BULK if n >= 16]))]


def ours_variants():
    """Our kernels of this base: their boot-time strategies are rows."""
    return [k for k in KERNELS if k.startswith("ours-")]


def load(path):
    data = defaultdict(list)    # (measure, variant, group, key) -> [(run, value)]
    errors = []
    plans = defaultdict(dict)   # (measure, variant, run) -> {"cases": ..., "dd": ...}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 6:
                continue
            measure, variant, run, group, key, value = parts
            if group == "error":
                errors.append((measure, variant, run, key, value))
                continue
            if group in ("plan", "meta"):
                # meta: what a boot says it did (slab_bench's repetitions).
                plans[(measure, variant, run)][key if group == "plan" else "meta:" + key] = value
                continue
            try:
                data[(measure, variant, group, key)].append((int(run), float(value)))
            except ValueError:
                errors.append((measure, variant, run, "bad figure",
                               f"{group} {key} {value}"))
    return data, errors, plans


def check_plans(data, plans):
    """Every figure each boot was asked for, and an icount calibration in
    bounds.  Returns a list of (measure, variant, run, what, detail)."""
    problems = []
    for (measure, variant, run), plan in sorted(plans.items()):
        cases = [c for c in plan.get("cases", "").split(",") if c]
        want = [("memory", "reserved_kb"), ("memory", "slab_boot_kb")]
        if cases:
            want.append(("memory", "slab_module_kb"))
        if plan.get("dd") not in (None, "", "0"):
            want += [("dd", int(plan["dd"])), ("memory", "slab_dd_kb")]
        if plan.get("forkexec") not in (None, "", "0"):
            want.append(("forkexec", int(plan["forkexec"])))
        want += [("net", c) for c in plan.get("net", "").split(",") if c]
        if plan.get("fwd") not in (None, "", "0"):
            # Per mode of fwdnic (bench.sh's FWD_MODES); a run from
            # before the modes has the one figure.
            modes = [m for m in plan.get("fwd_modes", "").split(",") if m]
            want += ([("fwd", f"{k}.{m}") for m in modes for k in ("pps", "batch")]
                     if modes else [("fwd", "pps")])
        for c in cases:
            want += CASE_FIGURES.get(c, [])
        if "calib" in cases and measure in ICOUNT_MEASURES:
            want.append(("calib", "ticks_per_insn"))
        for group, key in want:
            vals = [v for r, v in data.get((measure, variant, group, str(key)), [])
                    if r == int(run)]
            if not vals:
                problems.append((measure, variant, run, "missing figure", f"{group} {key}"))
            elif group == "calib" and not TICKS_PER_INSN[0] <= vals[0] <= TICKS_PER_INSN[1]:
                problems.append((measure, variant, run, "calibration out of bounds",
                                 f"ticks_per_insn={vals[0]:.3f}, not within "
                                 f"{TICKS_PER_INSN[0]}-{TICKS_PER_INSN[1]}"))
    return problems


class Bench:
    def __init__(self, data, plans=None, run=1):
        self.data = data
        self.plans = plans or {}
        # The icount pass whose figures the report judges: pass 1 for
        # the tables, every other pass again for the targets.
        self.run = run

    def icount_runs(self):
        """The icount passes the run holds (measures icount and plain)."""
        return sorted({r for (m, _, _, _), vals in self.data.items() if m in ICOUNT_MEASURES
                       for r, _ in vals})

    def counts(self, key, measure=None):
        """The values of a plan or meta key over the boots (of a
        measure), as a phrase: "7", "3 or 7", or None if none says."""
        vals = sorted({int(p[key]) for (m, _, _), p in self.plans.items()
                       if (measure is None or m == measure) and
                       str(p.get(key, "")).isdigit()})
        return " or ".join(str(v) for v in vals) if vals else None

    def icount(self, variant, group, key, run=None, measure="icount"):
        run = self.run if run is None else run
        for r, v in self.data.get((measure, variant, group, str(key)), []):
            if r == run:
                return v
        return None

    def tcg(self, variant, group, key):
        vals = [v for _, v in self.data.get(("tcg", variant, group, str(key)), [])]
        if not vals:
            return None
        return statistics.median(vals), min(vals), max(vals), len(vals)

    def mem(self, variant, group, key):
        vals = [v for _, v in self.data.get(("mem", variant, group, str(key)), [])]
        return vals[0] if vals else None


def fmt(v, digits=1):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def fmt_tcg(t, digits=0):
    if t is None:
        return "n/a"
    med, lo, hi, _ = t
    return f"{med:,.{digits}f} ({lo:,.{digits}f}–{hi:,.{digits}f})"


def ratio(ours, peers):
    peers = [p for p in peers if p is not None]
    if ours is None or not peers:
        return None, None
    best = min(peers)
    return ours / best, best


def verdict(ok):
    if ok is None:
        return "n/a"
    return "yes" if ok else "**NO**"


class Report:
    def __init__(self, b, args):
        self.b = b
        self.args = args
        self.out = []
        self.shortfalls = []
        # target name -> [(met, ratio to the reference)]
        self.targets = defaultdict(list)
        self.incomplete = 0     # errors, missing figures, bad calibration
        # What the later icount passes miss beyond the first's shortfalls,
        # and the targets they miss.
        self.later_shortfalls = []
        self.later_missed = set()

    def missed(self):
        """The targets with a row not met."""
        return {name for name, res in self.targets.items() if not all(ok for ok, _ in res)}

    def verdict(self, problems):
        """The report's first lines: what was met, what was not."""
        if problems:
            return (f"**Verdict: not judged.**  The run is incomplete or its calibration is off "
                    f"({len(problems)} problems, listed under Errors).\n\n")
        gone = self.missed() | self.later_missed
        met = [name for name, _, _ in TARGETS if name not in gone]
        missed = [name for name, _, _ in TARGETS if name in gone]
        text = (f"**Verdict: {len(met)} of {len(TARGETS)} targets met** on every icount pass" +
                (".\n" if not missed else "; missed: " + "; ".join(missed) + ".\n"))
        if self.later_shortfalls:
            text += ("\nMissed on a later icount pass only: " +
                     "; ".join(self.later_shortfalls) + ".\n")
        return text + "\n"

    def p(self, s=""):
        self.out.append(s)

    def table(self, head, rows):
        self.p("| " + " | ".join(head) + " |")
        self.p("|" + "|".join([" --- "] * len(head)) + "|")
        for r in rows:
            self.p("| " + " | ".join(str(c) for c in r) + " |")
        self.p()

    # -- single-CPU (icount) groups with targets --

    def icount_group(self, title, group, keys, keyname, target, short, ref,
                     measure="icount"):
        """target(key, ours, slub_best, slab) -> (ok or None, text);
        short names the target in the summary, ref(slub_best, slab) is
        the figure its ratio is taken against.  The layout target is
        judged on the hardened kernels (measure icount) only."""
        b = self.b
        self.p(f"### {title}")
        self.p()
        head = [keyname] + [LABEL[k] for k in KERNELS] + ["ours / best peer"] + \
            (["internal / aligned"] if OURS != "ours-aligned" else []) + ["target", "met"]
        rows = []
        for key in keys:
            vals = {k: b.icount(k, group, key, measure=measure) for k in KERNELS}
            ours = vals[OURS]
            r, _ = ratio(ours, [vals[p] for p in PEERS])
            lay = None
            if OURS != "ours-aligned" and ours is not None and vals["ours-aligned"] and \
                    measure == "icount":
                lay = ours / vals["ours-aligned"]
            slub_best = min([vals[p] for p in ("slub", "slub56") if vals[p] is not None],
                            default=None)
            slab = vals.get("slab")
            ok, text = target(key, ours, slub_best, slab)
            lay_ok = lay is not None and lay <= 1.01
            if ok is not None:
                self.targets[short].append((ok, ours / ref(slub_best, slab)))
            if lay is not None:
                self.targets[LAYOUT_TARGET].append((lay_ok, lay))
            if ok is False:
                self.shortfalls.append(f"{title}, {keyname} {key}: ours {fmt(ours)} "
                                       f"against {text} (SLUB {fmt(slub_best)}, SLAB {fmt(slab)})")
            if lay is not None and not lay_ok:
                self.shortfalls.append(f"{title}, {keyname} {key}: internal layout "
                                       f"{fmt(ours)} is {100 * (lay - 1):.1f}% over aligned "
                                       f"{fmt(vals['ours-aligned'])} (target within 1%)")
            rows.append([key] + [fmt(vals[k]) for k in KERNELS] +
                        [fmt(r, 2) + "×" if r else "n/a"] +
                        ([(fmt(lay, 3) + ("" if lay_ok else " **over 1%**")) if lay else "n/a"]
                         if OURS != "ours-aligned" else []) + [text, verdict(ok)])
        self.table(head, rows)

    # -- the report --

    def build(self):
        a = self.args
        b = self.b
        cpu = "unknown"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        cpu = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0:1]
        # The machine of the run: this one's, unless the caller says
        # (harness/results.py renders a committed run on another machine).
        self.machine = getattr(a, "machine", None) or (
            f"{cpu}, {os.cpu_count()} host CPUs, no KVM; {qemu[0] if qemu else 'QEMU'} TCG "
            f"(host {platform.node()})")
        self.p("# make bench report")
        self.p()
        self.p(f"Machine: {self.machine}.  Guests: `-cpu qemu64,+cx16`.")
        self.p()
        self.p(f"Kernels: one base (Linux {BASE}) and one config (harness/configs/base.config + "
               "bench.config: no KUnit, no test code, SLAB_FREELIST_HARDENED=y and "
               "SLAB_FREELIST_RANDOM=y everywhere, MEMCG off); only the allocator or "
               "the struct page layout differs:")
        self.p()
        for k, d in [("ours-aligned", "the series, CONFIG_STRUCT_PAGE_ALIGNED (64-byte struct page)"),
                     ("ours-internal", "the series, CONFIG_STRUCT_PAGE_INTERNAL_ALIGN, the default (56 bytes)"),
                     ("slub", "upstream SLUB, pristine (64-byte aligned struct page, slab cmpxchg16b)"),
                     ("slub56", "upstream SLUB without `select HAVE_ALIGNED_STRUCT_PAGE` "
                      "(harness/trees/pristine-noalign.patch): 56-byte page, slab bit spinlock"),
                     ("slab", "upstream SLAB")]:
            if k in KERNELS:
                self.p(f"- **{LABEL[k]}**: {d}.")
        if "slab" not in KERNELS:
            self.p()
            self.p(f"Linux {BASE} has no SLAB (removed in 6.8): the targets against SLAB "
                   "are 6.1's only.")
        self.p()
        self.p("Measures:")
        self.p()
        reps = b.counts("meta:reps", "icount")
        reps = (f"the cheapest of {reps} repetitions" if reps else
                "the cheapest of slab_bench's repetitions (the boots did not say how many)")
        self.p("- **icount**: QEMU `-icount shift=0`, 1 vCPU, 512 MiB.  Figures are **guest "
               "instructions per operation** (the TSC counts one tick per instruction; a "
               "calibration loop of known length checks the ratio, and the cost of the clock "
               f"reads is subtracted).  Each figure is {reps} after a "
               "warm-up, and includes the benchmark loop itself (a few instructions).  The "
               "caches are private to the benchmark (never merged), 256-byte objects unless "
               "the table says otherwise; kmalloc uses the kmalloc caches.  \"ours / best peer\" is "
               f"{LABEL[OURS]} over the lowest of {', '.join(LABEL[k] for k in PEERS)}.")
        self.p(f"- **TCG**: plain QEMU TCG, 2 vCPUs, 512 MiB, kernels interleaved, {a.rounds} "
               "rounds; figures are ns, **median (min–max)** over the rounds, each round the "
               "cheapest of its repetitions.  Wall-clock time of an emulator on a shared "
               "host: compare kernels, not absolute values.")
        self.p("- **mem**: 8 GiB guest, 1 vCPU, TCG.")
        self.p()
        self.determinism()
        self.p("## Single CPU, icount (guest instructions per operation)")
        self.p()
        slub_t = lambda f: (lambda key, o, s, sl: (
            (None, "n/a") if o is None or s is None else
            (o <= f * s, f"≤ {f}× SLUB") if "slab" not in KERNELS else
            (None, "n/a") if sl is None else
            (o <= f * s and o <= sl, f"≤ {f}× SLUB and ≤ SLAB")))
        to_slub = lambda s, sl: s
        to_slab = lambda s, sl: sl
        self.icount_group("Fastpath pair: kmem_cache_alloc + kmem_cache_free", "fast",
                          SIZES, "object size", slub_t(0.85),
                          "fastpath pair kmem_cache (ratio to SLUB)", to_slub)
        self.icount_group("Fastpath pair: kmalloc + kfree", "kmalloc", SIZES, "size",
                          slub_t(0.85), "fastpath pair kmalloc (ratio to SLUB)", to_slub)
        self.icount_group("Alloc N, then free N (256-byte cache), per object", "allocn",
                          ALLOCN, "N",
                          lambda key, o, s, sl: (None, "n/a") if o is None or sl is None
                          else (o <= sl, "≤ SLAB"), "alloc N / free N (ratio to SLAB)",
                          to_slab)
        self.icount_group("Bulk alloc + free (kmem_cache_alloc_bulk/free_bulk, 256 bytes), "
                          "per object", "bulk", BULK, "bulk size",
                          lambda key, o, s, sl: (None, "—") if key < 16 else
                          ((None, "n/a") if o is None or s is None else
                           (o <= 0.8 * s, "≤ 0.8× SLUB")), "bulk ≥ 16 (ratio to SLUB)",
                          to_slub)
        self.bulk_against_slab(250)
        self.bulk_one()
        no_worse = lambda key, o, s, sl: ((None, "n/a") if o is None or s is None
                                          else (o <= s, "≤ SLUB"))
        self.icount_group("Many caches: one object of each of 64 caches, round the caches, "
                          "per alloc+free pair", "many", [64], "caches", no_worse,
                          "many caches (ratio to SLUB)", to_slub)
        self.forkexec(no_worse, to_slub)
        self.unhardened(slub_t, to_slub)
        self.preempt_rt(slub_t, to_slub)
        self.strategies()
        self.nomerge()
        self.network()
        self.tcg()
        self.dd()
        self.memory()
        self.summary()
        return "\n".join(self.out) + "\n"

    def bulk_against_slab(self, n):
        """The largest bulk against SLAB, whose per-cpu array caches are
        at their best there."""
        b = self.b
        if "slab" not in KERNELS:
            return
        o, sl = b.icount(OURS, "bulk", n), b.icount("slab", "bulk", n)
        if o is None or sl is None:
            self.p(f"Bulk {n} against SLAB: not judged (no figure of ours or of SLAB).")
            self.p()
            return
        ok = o <= sl
        self.targets[f"bulk {n} (ratio to SLAB)"].append((ok, o / sl))
        self.p(f"Bulk {n} against SLAB: ours {fmt(o)} against {fmt(sl)} per object: "
               f"{'meets' if ok else '**misses**'} the target (≤ SLAB).")
        self.p()
        if not ok:
            self.shortfalls.append(f"bulk {n}: ours {fmt(o)} against SLAB {fmt(sl)} per object "
                                   f"(target ≤ SLAB)")

    def bulk_one(self):
        """A bulk call for one object against SLAB, in both
        configurations: the cost of the bulk entry points themselves."""
        b = self.b
        if "slab" not in KERNELS:
            return
        for measure, what in (("icount", "hardened"), ("plain", "unhardened")):
            o = b.icount(OURS, "bulk", 1, measure=measure)
            sl = b.icount("slab", "bulk", 1, measure=measure)
            if o is None or sl is None:
                self.p(f"Bulk 1 against SLAB, {what}: not judged (no figure of ours or of SLAB).")
                continue
            ok = o <= sl
            self.targets[BULK1_TARGET].append((ok, o / sl))
            self.p(f"Bulk 1 against SLAB, {what}: ours {fmt(o)} against {fmt(sl)}: "
                   f"{'meets' if ok else '**misses**'} the target (≤ SLAB).")
            if not ok:
                self.shortfalls.append(f"bulk 1, {what}: ours {fmt(o)} against SLAB {fmt(sl)} "
                                       "(target ≤ SLAB)")
        self.p()

    def config_groups(self, what, measure, targets, slub_t, to_slub):
        """The fastpath, kmalloc and bulk tables of the kernels of one
        other build configuration (measure MEASURE), judged by TARGETS:
        the names of its fastpath, kmalloc and bulk targets."""
        fast, kmalloc, bulk = targets
        self.icount_group(f"Fastpath pair, {what}: kmem_cache_alloc + kmem_cache_free",
                          "fast", SIZES, "object size", slub_t(0.85), fast, to_slub,
                          measure=measure)
        self.icount_group(f"Fastpath pair, {what}: kmalloc + kfree", "kmalloc", SIZES,
                          "size", slub_t(0.85), kmalloc, to_slub, measure=measure)
        self.icount_group(f"Bulk alloc + free, {what}, per object", "bulk", BULK,
                          "bulk size",
                          lambda key, o, s, sl: (None, "—") if key < 16 else
                          ((None, "n/a") if o is None or s is None else
                           (o <= 0.8 * s, "≤ 0.8× SLUB")), bulk, to_slub,
                          measure=measure)

    def unhardened(self, slub_t, to_slub):
        """The fastpath targets on the kernels built without freelist
        hardening (measure plain)."""
        self.p("## Single CPU, icount, without freelist hardening")
        self.p()
        self.p(f"The same {len(KERNELS)} kernels built without `SLAB_FREELIST_HARDENED` and "
               "`SLAB_FREELIST_RANDOM` (profiles `bench-*-unhardened`), booted as the "
               "icount boots; only the fastpath, kmalloc and bulk cases.")
        self.p()
        self.config_groups("unhardened", "plain", (PLAIN_FAST, PLAIN_KMALLOC, PLAIN_BULK),
                           slub_t, to_slub)

    def preempt_rt(self, slub_t, to_slub):
        """The fastpath targets on PREEMPT_RT (measure rt, 6.12 on):
        upstream's SLUB takes the cpu's local lock on every operation
        there, ours locks its cpu freelists and keeps its arrays'
        fastpaths."""
        if BASE == "6.1":
            return
        self.p("## Single CPU, icount, PREEMPT_RT")
        self.p()
        self.p("Ours (internal layout) and SLUB built with `PREEMPT_RT` (profiles "
               "`bench-internal-rt`, `bench-slub-rt`; `make bench CONFIGS=rt`), booted as "
               "the icount boots; only the fastpath, kmalloc and bulk cases.")
        self.p()
        self.config_groups("PREEMPT_RT", "rt", (RT_FAST, RT_KMALLOC, RT_BULK), slub_t, to_slub)

    def determinism(self):
        b = self.b
        if self.args.passes < 2:
            self.p("Determinism: one icount pass only (QUICK); run `make bench` for the check.")
            self.p()
            self.det = None
            return
        same = diff = 0
        diffs = []
        for (m, v, g, k), vals in b.data.items():
            if m not in ICOUNT_MEASURES:
                continue
            d = dict(vals)
            if 1 in d and 2 in d:
                if d[1] == d[2]:
                    same += 1
                else:
                    diff += 1
                    diffs.append(f"{v} {g} {k}: {d[1]} vs {d[2]}")
        self.det = (same, diff)
        self.p(f"**Determinism** (icount, two consecutive passes): {same} of {same + diff} "
               f"single-CPU figures identical (the dd workload and the Slab: figures included)" + ("." if not diff else
                                                  f"; {diff} differ: " + "; ".join(diffs[:20]) + "."))
        self.p()

    def forkexec(self, target, ref):
        """fork+exec of busybox in the guest: the total of the boot's loop,
        turned into instructions per fork+exec before the usual table."""
        b = self.b
        n = self.args.forkexec
        for k in list(KERNELS):
            per = [(r, v / n) for r, v in b.data.get(("icount", k, "forkexec", str(n)), [])]
            if per:
                b.data[("icount", k, "forkexecop", "1")] = per
        self.icount_group(f"fork + exec of busybox from the shell, per pair ({n} in a row)",
                          "forkexecop", [1], "per", target,
                          "fork+exec (ratio to SLUB)", ref)

    def strategies(self):
        b = self.b
        self.p("### Boot-time strategies of our kernels (icount)")
        self.p()
        self.p("`slub_fastpath=lockless|irqoff` × `slub_pair=cmpxchg|bitlock`; "
               "upstream SLUB for reference.")
        self.p()
        rows_def = [("fast", 64), ("fast", 256), ("kmalloc", 256), ("allocn", 64),
                    ("allocn", 256), ("allocn", 4096), ("bulk", 16), ("bulk", 64),
                    ("bulk", 128), ("bulk", 250), ("dd", self.args.dd)]
        head = ["case"] + [f"{SHORT[o].split()[-1]} {STRAT_LABEL[s]}" for o in ours_variants()
                           for s in STRATS] + ["SLUB"]
        rows = []
        for g, k in rows_def:
            r = [f"{g} {k}"]
            f = (lambda v: fmt(v / 1e6, 2) + " M" if v else "n/a") if g == "dd" else fmt
            for o in ours_variants():
                for s in STRATS:
                    r.append(f(b.icount(o + s, g, k)))
            r.append(f(b.icount("slub", g, k)))
            rows.append(r)
        self.table(head, rows)

    def nomerge(self):
        b = self.b
        self.p("### Bulk in a mergeable cache: default boot against slab_nomerge (icount, per object)")
        self.p()
        self.p("The other cases use private caches (SLAB_NOLEAKTRACE, never merged).  This one "
               "creates its 256-byte cache with default flags, so it merges into kmalloc-256 "
               "and shares its slabs with the rest of the kernel, unless the kernel boots with "
               "`slab_nomerge`.")
        self.p()
        head = ["bulk size"] + [f"{SHORT[k]} {m}" for k in KERNELS for m in ("merged", "nomerge")]
        rows = []
        for n in BULK:
            rows.append([n] + [fmt(b.icount(k + s, "bulkm", n)) for k in KERNELS
                               for s in ("", "+nomerge")])
        self.table(head, rows)

    def network(self):
        """UDP over loopback: every kernel, our strategies, slab_nomerge."""
        b = self.b
        variants = KERNELS + [o + s for o in ours_variants()
                              for s in STRATS[1:]] + [k + "+nomerge" for k in KERNELS]
        cases = sorted({k for (m, v, g, k) in b.data if g == "net"},
                       key=lambda c: tuple(int(x) for x in c.split("x")))
        self.p("## Network: UDP over loopback (the packet path)")
        self.p()
        self.p("`harness/guest/udpbench`, first thing after boot: one receiver socket on "
               "127.0.0.1 and one sender socket connected to it, in one thread; it sends a "
               "burst of datagrams (1 or 32 in flight), then receives them.  Each datagram is "
               "an skb allocated on send (`skbuff_head_cache` and a kmalloc data buffer) and "
               "freed on receive, through the IPv4 UDP stack and the loopback device's "
               "softirq.  Figures are per datagram, send and receive together, the cheapest "
               f"of {b.counts('net_reps') or '(unrecorded)'} runs of "
               f"{b.counts('net_packets') or '(unrecorded)'} datagrams, and include the system calls and the rest of "
               "the stack: the allocator is a part of it.  Ratios are "
               f"{LABEL[OURS]} over the peer kernel booted the same way in this run; a figure "
               "for `+nomerge` is a boot with `slab_nomerge`.")
        self.p()
        if not cases:
            self.p("No network figures in this run.")
            self.p()
            return
        self.p("### Guest instructions per datagram (icount)")
        self.p()
        head = ["kernel, boot"] + [NET_LABEL.get(c, c) for c in cases]
        rows = []
        for v in variants:
            vals = [b.icount(v, "net", c) for c in cases]
            if any(x is not None for x in vals):
                rows.append([self.variant_label(v)] + [fmt(x) for x in vals])
        self.table(head, rows)

        def r(o, p, get):
            a, c = get(o), get(p)
            return fmt(a / c, 3) + "×" if a and c else "n/a"
        pairs = [("ours / SLUB", OURS, "slub"), ("ours / SLAB", OURS, "slab"),
                 ("ours aligned / SLUB", "ours-aligned", "slub"),
                 ("ours freelist / SLUB", OURS + "+freelist", "slub"),
                 ("ours freelist / SLAB", OURS + "+freelist", "slab"),
                 ("ours / ours freelist", OURS, OURS + "+freelist"),
                 ("nomerge: ours / SLUB", OURS + "+nomerge", "slub+nomerge"),
                 ("nomerge: ours / SLAB", OURS + "+nomerge", "slab+nomerge"),
                 ("ours nomerge / merged", OURS + "+nomerge", OURS),
                 ("SLUB nomerge / merged", "slub+nomerge", "slub"),
                 ("SLAB nomerge / merged", "slab+nomerge", "slab")]
        # The pairs of this base's kernels; "ours aligned" is ours where
        # the base has no other layout of ours.
        pairs = [x for x in pairs if x[1].split("+")[0] in KERNELS and
                 x[2].split("+")[0] in KERNELS and
                 not (OURS == "ours-aligned" and x[0].startswith("ours aligned"))]
        self.p("Ratios (icount; each is the first named over the second, below 1 the "
               "first costs less):")
        self.p()
        rows = [[name] + [r(o, p, lambda v, c=c: b.icount(v, "net", c)) for c in cases]
                for name, o, p in pairs]
        self.table(["ratio"] + [NET_LABEL.get(c, c) for c in cases], rows)
        tv = [v for v in variants if any(b.tcg(v, "net", c) for c in cases)]
        if not tv:
            return
        self.p(f"### Datagrams per second under TCG (thousands, median (min–max) of "
               f"{self.args.rounds} interleaved rounds, 2 vCPUs)")
        self.p()
        rows = []
        for v in tv:
            row = [self.variant_label(v)]
            for c in cases:
                t = b.tcg(v, "net", c)
                # ns per datagram to kpps; the slowest run gives the minimum.
                row.append(fmt_tcg((1e6 / t[0], 1e6 / t[2], 1e6 / t[1], t[3]))
                           if t else "n/a")
            rows.append(row)
        self.table(head, rows)
        rows = [[name] + [r(o, p, lambda v, c=c: (b.tcg(v, "net", c) or (None,))[0])
                          for c in cases]
                for name, o, p in pairs]
        self.p("Ratios of the TCG medians in time per datagram (the first named over the "
               "second, below 1 the first is faster; the inverse of the ratio of the rates):")
        self.p()
        self.table(["ratio"] + [NET_LABEL.get(c, c) for c in cases], rows)

    def variant_label(self, v):
        k, _, s = v.partition("+")
        if not s:
            return LABEL[k]
        if s == "nomerge":
            return f"{LABEL[k]}, slab_nomerge"
        return f"{LABEL[k]}, {STRAT_LABEL['+' + s]}"

    def tcg(self):
        b = self.b
        self.p("## TCG time (ns, median (min–max))")
        self.p()
        variants = KERNELS + [o + s for o in ours_variants() for s in STRATS[1:]]
        variants = [v for v in variants if b.tcg(v, "mt", 2) or b.tcg(v, "fast", 64)]
        head = ["kernel", "remote free (alloc cpu0, free cpu1), per object",
                "all 2 vCPUs alloc+free, wall per pair", "fastpath pair 256",
                "alloc-N 4096 per object", "bulk 64 per object"]
        rows = []
        for v in variants:
            rows.append([v] + [fmt_tcg(b.tcg(v, g, k)) for g, k in
                               (("remote", 256), ("mt", 2), ("fast", 256), ("allocn", 4096),
                                ("bulk", 64))])
        self.table(head, rows)
        for g, k, what in (("remote", 256, "remote free"), ("mt", 2, "all-CPU throughput")):
            o, s = b.tcg(OURS, g, k), b.tcg("slub", g, k)
            if o and s:
                ok = o[0] <= s[0]
                overlap = o[1] <= s[2] and s[1] <= o[2]
                self.targets[f"{what}, TCG median (ratio to SLUB)"].append((ok, o[0] / s[0]))
                self.p(f"- {what}: {LABEL[OURS]} {o[0]:,.0f} ns against SLUB {s[0]:,.0f} ns "
                       f"(median): {'meets' if ok else '**misses**'} the target "
                       f"(ours ≤ SLUB in cost, i.e. throughput ≥ SLUB)" +
                       (f"; the min–max ranges ({o[1]:,.0f}–{o[2]:,.0f} against "
                        f"{s[1]:,.0f}–{s[2]:,.0f}) overlap, so the order of the medians is "
                        f"within run-to-run noise of TCG on a shared host." if overlap else "."))
                if not ok:
                    self.shortfalls.append(f"TCG {what}: ours {o[0]:,.0f} ns against SLUB "
                                           f"{s[0]:,.0f} ns per op (median)")
        self.p()

    def dd(self):
        b = self.b
        a = self.args
        self.p(f"## Dave Hansen's workload: dd of {a.dd} MiB of zeros into a ramfs file")
        self.p()
        head = ["kernel", "icount: guest instructions (M)", "TCG ms, median (min–max)"]
        rows = []
        for k in KERNELS:
            ic = b.icount(k, "dd", a.dd)
            t = b.tcg(k, "dd", a.dd)
            t = tuple(x / 1e6 for x in t[:3]) + (t[3],) if t else None
            rows.append([LABEL[k], fmt(ic / 1e6 if ic else None, 2), fmt_tcg(t, 1)])
        self.table(head, rows)

    def memory(self):
        b = self.b
        a = self.args
        self.p("## Memory (8 GiB guest)")
        self.p()
        head = ["kernel", "boot reserved (KiB)", "Slab: after boot (KiB)",
                "Slab: with the fixed workload (KiB)", f"Slab: after dd {a.mem_dd} MiB (KiB)"]
        rows = []
        for k in KERNELS:
            rows.append([LABEL[k]] + [fmt(b.mem(k, "memory", x), 0) for x in
                                      ("reserved_kb", "slab_boot_kb", "slab_module_kb",
                                       "slab_dd_kb")])
        self.table(head, rows)
        for key, when in SLAB_FIGURES:
            o = b.mem(OURS, "memory", key)
            s = min([v for v in (b.mem(p, "memory", key) for p in ("slub", "slub56"))
                     if v is not None], default=None)
            if o is None or not s:
                self.p(f"- `Slab:` {when}: not judged (no figure of ours or of SLUB).")
                continue
            ok = o <= SLAB_BOUND * s
            self.targets[SLAB_TARGET].append((ok, o / s))
            self.p(f"- `Slab:` {when}: {LABEL[OURS]} {o:,.0f} KiB against SLUB {s:,.0f} KiB, "
                   f"{o / s:.3f}×: {'meets' if ok else '**misses**'} the target "
                   f"(≤ {SLAB_BOUND:.2f}× SLUB).")
            if not ok:
                self.shortfalls.append(f"`Slab:` {when}: ours {o:,.0f} KiB against SLUB "
                                       f"{s:,.0f} KiB, {o / s:.3f}× (target ≤ {SLAB_BOUND:.2f}×)")
        self.p()
        self.slab_caches()
        self.p("Fixed workload (fragmentation): 8192 objects of each cache allocated, then "
               "3 of every 4 freed; slab pages each cache still holds (own caches, never "
               "merged: they have a constructor).")
        self.p()
        head = ["object size"] + [LABEL[k] for k in KERNELS] + ["ours / best peer"]
        rows = []
        for sz in (64, 192, 700, 2000):
            vals = {k: b.mem(k, "frag", sz) for k in KERNELS}
            r, _ = ratio(vals[OURS], [vals[p] for p in PEERS])
            rows.append([sz] + [fmt(vals[k], 0) for k in KERNELS] +
                        [fmt(r, 2) + "×" if r else "n/a"])
        self.table(head, rows)

    def slab_caches(self):
        """Where Slab: after boot sits, per cache (the mem boots'
        harness.bench_slabinfo=1: num_slabs x pagesperslab of each line
        of /proc/slabinfo), ours against the SLUB that the after-boot
        target was judged against: the caches that differ most."""
        b = self.b

        def caches(k):
            return {key: vals[0][1] for (m, var, g, key), vals in b.data.items()
                    if m == "mem" and var == k and g == "slabcache" and vals}

        peers = [p for p in ("slub", "slub56") if b.mem(p, "memory", "slab_boot_kb")]
        if not peers:
            return
        peer = min(peers, key=lambda p: b.mem(p, "memory", "slab_boot_kb"))
        o, s = caches(OURS), caches(peer)
        if not o or not s:
            return
        self.p(f"Slabs of each cache after boot (`/proc/slabinfo`: slabs times pages "
               f"per slab), {LABEL[OURS]} against {LABEL[peer]}: {sum(o.values()):,.0f} "
               f"KiB against {sum(s.values()):,.0f} KiB in {len(o)} and {len(s)} caches "
               f"with slabs; the {CACHES_SHOWN} that differ most:")
        self.p()
        names = sorted(set(o) | set(s), key=lambda n: (-abs(o.get(n, 0) - s.get(n, 0)), n))
        rows = [[f"`{n}`", fmt(o.get(n), 0), fmt(s.get(n), 0),
                 f"{o.get(n, 0) - s.get(n, 0):+,.0f}"] for n in names[:CACHES_SHOWN]]
        self.table(["cache", f"{LABEL[OURS]} (KiB)", f"{LABEL[peer]} (KiB)", "difference"], rows)
        rest = sum(o.get(n, 0) - s.get(n, 0) for n in names[CACHES_SHOWN:])
        self.p(f"The other {max(len(names) - CACHES_SHOWN, 0)} caches: {rest:+,.0f} KiB "
               "(n/a: no slabs, or merged into another cache, in that kernel).")
        self.p()

    def not_judged(self):
        """(name, rows found, rows wanted) of each target the run lacks
        figures for."""
        return [(name, len(self.targets.get(name, [])), n) for name, _, n in TARGETS
                if len(self.targets.get(name, [])) != n]

    def target_table(self):
        head = ["target", "goal", "rows met", "ours / reference (min–max over rows)"]
        rows = []
        unjudged = {name: (got, n) for name, got, n in self.not_judged()}
        for name, goal, n in TARGETS:
            res = self.targets.get(name, [])
            rs = [r for _, r in res]
            span = (f"{min(rs):.3f}–{max(rs):.3f}" if len(rs) > 1 else
                    f"{rs[0]:.3f}" if rs else "n/a")
            if name in unjudged:
                rows.append([name, goal, f"**not judged**: {len(res)} of {n} rows", span])
                continue
            met = sum(1 for ok, _ in res if ok)
            rows.append([name, goal, f"{met} of {len(res)}", span])
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join([" --- "] * len(head)) + "|"]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(lines) + "\n"

    def summary(self):
        self.p("## Targets")
        self.p()
        self.p(f"Ours is {LABEL[OURS]}" + (" (the default)" if OURS == "ours-internal" else "") +
               "; the single-CPU rows are icount.")
        self.p()
        self.p(self.target_table())
        unjudged = self.not_judged()
        if self.incomplete:
            self.p(f"**This run is incomplete or its calibration is off** "
                   f"({self.incomplete} problems, listed under Errors): "
                   "the targets are not judged.")
        elif unjudged:
            self.p(f"**This run lacks the figures of {len(unjudged)} of the {len(TARGETS)} "
                   "targets**, which are not judged: " +
                   "; ".join(f"{name} ({got} of {n} rows)" for name, got, n in unjudged) + ".")
        elif not self.shortfalls:
            self.p("Every target is met on this run.")
        else:
            self.p("Where we fall short on this run:")
            self.p()
            for s in self.shortfalls:
                self.p(f"- {s}")
        self.p()

    def headline_table(self):
        """The short table of make bench's headline.md."""
        b = self.b
        rows = []
        spec = [("fastpath pair kmem_cache_alloc/free, 64 B", "fast", 64),
                ("fastpath pair kmem_cache_alloc/free, 256 B", "fast", 256),
                ("fastpath pair kmalloc/kfree, 256 B", "kmalloc", 256),
                ("alloc 4096 then free 4096, per object", "allocn", 4096),
                ("bulk 16, per object", "bulk", 16),
                ("bulk 64, per object", "bulk", 64),
                ("bulk 250, per object", "bulk", 250)]
        for what, g, k in spec:
            vals = {x: b.icount(x, g, k) for x in KERNELS}
            r, _ = ratio(vals[OURS], [vals[p] for p in PEERS])
            rows.append([what + " (icount insns)"] + [fmt(vals[x]) for x in KERNELS] +
                        [fmt(r, 2) + "×" if r else "n/a"])
        for what, g, k in (("remote free, per object", "remote", 256),
                           ("both vCPUs alloc+free, per pair", "mt", 2)):
            vals = {x: b.tcg(x, g, k) for x in KERNELS}
            r, _ = ratio(vals[OURS][0] if vals[OURS] else None,
                         [vals[p][0] for p in PEERS if vals[p]])
            rows.append([what + " (TCG ns, median)"] +
                        [fmt(vals[x][0], 0) if vals[x] else "n/a" for x in KERNELS] +
                        [fmt(r, 2) + "×" if r else "n/a"])
        for c in ("64x1", "1400x32"):
            vals = {x: b.icount(x, "net", c) for x in KERNELS}
            r, _ = ratio(vals[OURS], [vals[p] for p in PEERS])
            rows.append([f"UDP over lo, {NET_LABEL[c]}, per datagram (icount insns)"] +
                        [fmt(vals[x]) for x in KERNELS] + [fmt(r, 3) + "×" if r else "n/a"])
        vals = {x: b.icount(x, "dd", self.args.dd) for x in KERNELS}
        r, _ = ratio(vals[OURS], [vals[p] for p in PEERS])
        rows.append([f"dd {self.args.dd} MiB to ramfs (icount M insns)"] +
                    [fmt(vals[x] / 1e6 if vals[x] else None, 2) for x in KERNELS] +
                    [fmt(r, 3) + "×" if r else "n/a"])
        vals = {x: b.mem(x, "memory", "reserved_kb") for x in KERNELS}
        r, _ = ratio(vals[OURS], [vals[p] for p in PEERS])
        rows.append(["boot reserved, 8 GiB guest (KiB)"] + [fmt(vals[x], 0) for x in KERNELS] +
                    [fmt(r, 3) + "×" if r else "n/a"])
        head = ["case"] + [LABEL[k] for k in KERNELS] + ["ours / best peer"]
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join([" --- "] * len(head)) + "|"]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(lines) + "\n"


def gnuplot(script, outdir):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=outdir, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        print(f"bench-report: gnuplot failed: {err}", file=sys.stderr)


def plots(b, outdir, args):
    style = "set terminal pngcairo size 900,560 font 'sans,10'\nset grid\nset key top left\n"
    # Bulk: Jesper Brouer's plot, cost per object against bulk size.
    with open(os.path.join(outdir, "bulk.dat"), "w") as f:
        f.write("# n " + " ".join(KERNELS) + "\n")
        for n in BULK:
            f.write(f"{n} " + " ".join(fmt(b.icount(k, 'bulk', n), 1).replace(",", "")
                                       .replace("n/a", "NaN") for k in KERNELS) + "\n")
    lines = ", ".join(f"'bulk.dat' using 1:{i + 2} with linespoints title '{LABEL[k]}'"
                      for i, k in enumerate(KERNELS))
    gnuplot(style + "set output 'bulk.png'\nset logscale x 2\n"
            "set title 'kmem\\_cache\\_alloc\\_bulk + free\\_bulk, 256-byte objects (QEMU -icount, 1 vCPU)'\n"
            "set xlabel 'bulk size (objects)'\nset ylabel 'guest instructions per object'\n"
            "set yrange [0:*]\nset xtics (1,2,4,8,16,32,64,128,250)\n"
            f"plot {lines}\n", outdir)
    # Fastpath by object size.
    with open(os.path.join(outdir, "fastpath.dat"), "w") as f:
        f.write("# size " + " ".join(f"{k}-cache {k}-kmalloc" for k in KERNELS) + "\n")
        for sz in SIZES:
            vals = []
            for k in KERNELS:
                for g in ("fast", "kmalloc"):
                    vals.append(fmt(b.icount(k, g, sz), 1).replace(",", "").replace("n/a", "NaN"))
            f.write(f"{sz} " + " ".join(vals) + "\n")
    lines = []
    for i, k in enumerate(KERNELS):
        lines.append(f"'fastpath.dat' using 1:{2 * i + 2} with linespoints lc {i + 1} dt 1 "
                     f"title '{LABEL[k]} kmem\\_cache'")
        lines.append(f"'fastpath.dat' using 1:{2 * i + 3} with linespoints lc {i + 1} dt 2 "
                     f"title '{LABEL[k]} kmalloc'")
    gnuplot(style + "set output 'fastpath.png'\nset logscale x 2\nset key outside right\n"
            "set title 'alloc + free pair by object size (QEMU -icount, 1 vCPU)'\n"
            "set xlabel 'object size (bytes)'\nset ylabel 'guest instructions per pair'\n"
            "set yrange [0:*]\nset xrange [6:5500]\nset xtics (8,64,256,1024,4096)\n"
            f"plot {', '.join(lines)}\n", outdir)
    # Memory: reserved and Slab: on the 8 GiB guest, MiB.
    with open(os.path.join(outdir, "memory.dat"), "w") as f:
        f.write("# kernel reserved slab_boot slab_module slab_dd (MiB)\n")
        for k in KERNELS:
            vals = [b.mem(k, "memory", x) for x in
                    ("reserved_kb", "slab_boot_kb", "slab_module_kb", "slab_dd_kb")]
            f.write(f"\"{SHORT[k]}\" " + " ".join("NaN" if v is None else f"{v / 1024:.2f}"
                                                 for v in vals) + "\n")
    gnuplot("set terminal pngcairo size 1000,480 font 'sans,10'\nset grid ytics\n"
            "set output 'memory.png'\nset multiplot layout 1,2 title 'Memory on an 8 GiB guest'\n"
            "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset yrange [0:*]\nset xtics scale 0 rotate by -20\n"
            "set key off\nset title 'boot Memory: reserved'\nset ylabel 'MiB'\n"
            "plot 'memory.dat' using 2:xtic(1) lc 1\n"
            "set key outside bottom center horizontal\nset title 'Slab: in /proc/meminfo'\n"
            "plot 'memory.dat' using 3:xtic(1) title 'after boot' lc 2, "
            "'' using 4 title 'fixed workload' lc 3, "
            f"'' using 5 title 'after dd {args.mem_dd} MiB' lc 4\nunset multiplot\n", outdir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("outdir")
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--dd", type=int, default=128)
    ap.add_argument("--mem-dd", type=int, default=1024)
    ap.add_argument("--forkexec", type=int, default=200)
    ap.add_argument("--base", default="6.1")
    args = ap.parse_args()
    text, rep, problems, b = render(args.results, args)
    text += "## Plots\n\n![bulk](bulk.png)\n\n![fastpath](fastpath.png)\n\n![memory](memory.png)\n"
    plots(b, args.outdir, args)
    with open(os.path.join(args.outdir, "report.md"), "w") as f:
        f.write(text)
    # The short tables, only from a complete run; never a stale
    # pair next to an incomplete report.
    for name, table in (("headline.md", rep.headline_table), ("targets.md", rep.target_table)):
        path = os.path.join(args.outdir, name)
        if problems:
            if os.path.exists(path):
                os.remove(path)
            continue
        with open(path, "w") as f:
            f.write(table())
    print(rep.headline_table())
    if rep.det:
        print(f"icount passes: {rep.det[0]} of {sum(rep.det)} single-CPU figures identical")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 1
    # A complete run that misses a target fails too (exit 3, not 1:
    # bench.sh tells the two apart).
    if rep.shortfalls:
        print(f"{len(rep.shortfalls)} target row(s) missed; see the report:", file=sys.stderr)
        for s in rep.shortfalls:
            print(f"missed: {s}", file=sys.stderr)
        return 3
    return 0


def render(results, args):
    """The report of the rows in file RESULTS, without its plots: (text,
    the Report, the problems that keep the targets from being judged,
    the Bench).  ARGS: main()'s options (results.py passes its own, with
    .machine set to the run's machine)."""
    configure_base(args.base)
    data, errors, plans = load(results)
    if not plans:
        errors.append(("-", "-", "-", "no plan", "results.tsv names no boot"))
    errors += check_plans(data, plans)
    # Every kernel of the base booted: a target takes the best of its
    # peers, so a kernel left out (KERNELS=) would not show otherwise.
    booted = {v for (_, v, _) in plans}
    errors += [("-", k, "-", "no boot of this kernel", f"base {BASE} has {len(KERNELS)} kernels")
               for k in KERNELS if k not in booted]
    # The targets on every icount pass, not on the first alone: each
    # other pass is judged again, and what it misses that the first does
    # not joins the shortfalls.
    later = []
    for run in Bench(data, plans).icount_runs()[1:]:
        r = Report(Bench(copy.deepcopy(data), plans, run), args)
        r.build()
        later.append((run, r))
    b = Bench(data, plans)
    rep = Report(b, args)
    rep.incomplete = len(errors)
    text = rep.build()
    for run, r in later:
        rep.later_shortfalls += [f"icount pass {run}: {s}" for s in r.shortfalls
                                 if s not in rep.shortfalls]
        rep.later_missed |= r.missed()
    rep.shortfalls += rep.later_shortfalls
    assert set(rep.targets) <= {name for name, _, _ in TARGETS}, set(rep.targets)
    problems = [f"{m} {v} run {r}: {k} ({val})" for m, v, r, k, val in errors]
    problems += [f"target not judged: {name} ({got} of {n} rows)"
                 for name, got, n in rep.not_judged()]
    if rep.det and rep.det[1]:
        problems.append(f"the icount passes disagree on {rep.det[1]} of {sum(rep.det)} "
                        "figures (listed under Determinism)")
    # Boots that QEMU's stale int3 broke and bench.sh booted once more
    # (the figures are the second boot's): listed, not errors.
    retried = [f"{m} {v} run {r}: {p['meta:retried']}"
               for (m, v, r), p in sorted(plans.items()) if "meta:retried" in p]
    if retried:
        text += ("## Retried\n\nBooted once more after QEMU TCG ran a stale int3 "
                 "(harness/stale-int3.py); the broken boot's log is "
                 "`console-bench-<measure>-<variant>-<run>.stale-int3.log`.\n\n" +
                 "".join(f"- {r}\n" for r in retried) + "\n")
    if problems:
        text += "## Errors\n\n" + "".join(f"- {p}\n" for p in problems) + "\n"
    head, rest = text.split("\n", 1)
    text = head + "\n\n" + rep.verdict(problems) + rest.lstrip("\n")
    return text, rep, problems, b


if __name__ == "__main__":
    sys.exit(main())
