#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest console log into test results.

usage: parse-results.py VARIANT CONSOLE_LOG BOOT_RC
       parse-results.py --skips NAME <ROWS

Prints one line per result, tab-separated: STATUS VARIANT TEST DETAIL,
where STATUS is PASS, FAIL or SKIP.  Results are:
  - boot: the guest reached userspace and finished its suite;
  - console: no oops, BUG, WARNING, sanitizer report or report of the
    engine's own checks ("SLUB <cache>: slab ... freelist corrupt", node
    count mismatches, "no sysfs directory", ...) outside the regions a
    test marks as expected, up to the kernel's "reboot:" line; a KCSAN
    report with no frame of the engine on either side is named in the
    detail and does not fail;
  - console:<tag>: each such region, "HARNESS: expect-splat-begin <tag>
    <kind>..." to "HARNESS: expect-splat-end <tag>", holds reports of
    exactly the kinds it lists (see REPORT_KINDS), no more, no fewer; a
    kind written "<kind>?" may appear or not;
  - every KUnit case (KTAP from debugfs), as kunit:<suite>:<case>, a
    failed one with where its first assertion failed and what it logged
    there as the detail; a suite with another number of results than its
    plan, or without its plan or its closing line, fails;
  - every "HARNESS: result STATUS TEST DETAIL" line of a guest script
    (the distribution profile's workload parts, test_meminit, LKDTM's
    cases);
  - every kselftest result (TAP from run_kselftest.sh), as
    kselftest:<program>:<description>; a program that failed without a
    failing subtest (crash, timeout), or that reported another number of
    results than its plan (none at all included), or results without a
    plan, counts as one failure of its own.
Then harness/manifest.conf says which programs and suites the variant must
run, with how many results, and which results may be skipped and why: a
missing program or suite, a wrong count or a skip it does not list is a
FAIL.  The count holds whether or not the program printed a plan; only a
program skipped as a whole ("1..0 # SKIP", judged by the skip rules)
owes no results.  A SKIP's detail is the manifest's reason.

With --skips, the rows of a check that boots nothing, STATUS TEST
DETAIL on stdin (check.sh's fastpath rows of profile NAME), go through
the manifest's skip rules alone: a SKIP it does not list is a FAIL.
"""
import fnmatch
import glob
import os
import re
import sys

SPLAT = re.compile(r"(\bBUG[: ]|WARNING:|Oops|general protection fault|"
                   r"Call Trace:|UBSAN:|KASAN:|KCSAN:|kernel BUG|"
                   r"possible recursive locking|possible circular locking|"
                   r"inconsistent lock state|sleeping function called|"
                   r"Bad page state|INFO: task .* blocked|"
                   r"list_(add|del) corruption|refcount_t:|"
                   r"sysfs: cannot create duplicate|kobject_add_internal failed)")
# Reports, by kind, for the expected regions; the first match names a
# line.  Lines of no kind outside a region that match SPLAT are reports
# of the kind "splat".
REPORT_KINDS = [
    ("kasan", re.compile(r"\bKASAN:")),
    ("kcsan", re.compile(r"\bKCSAN:")),
    ("kfence", re.compile(r"\bBUG: KFENCE: ")),
    # The engine's consistency checks (mm/slub_debug.c, mm/slub.c).
    ("slub-invalid", re.compile(
        r"^SLUB \S+: slab \S+ (is not a slab of this cache|bad counters|"
        r"freelist corrupt|inuse \d+ \+ free \d+ != objects)")),
    ("slub-node-count", re.compile(
        r"^SLUB \S+: (node \d+:? .*(counted but counter=|nr_partial)|"
        r"frozen slab .* partial list)")),
    ("slub-freelist", re.compile(
        r"^SLUB \S+: (double free of object|freelist corrupted)")),
    ("slub-destroy", re.compile(r"^SLUB \S+: not destroyed")),
    # A node's own structures on another node: no variant has a
    # memoryless node, so each one is a placement gone wrong.
    ("slub-placement", re.compile(r"^SLUB: node_cache for node \d+ placed on node")),
    # RCU stall warnings, whether or not a backtrace follows.
    ("rcu-stall", re.compile(r"\brcu: INFO: \S+ (self-)?detected (expedited )?stalls?\b")),
    ("slub-random", re.compile(r"^SLUB \S+: no random freelist sequence")),
    ("slub-sysfs", re.compile(
        r"^SLUB( \S+)?: (no sysfs directory|no sysfs alias|"
        r"cannot register /sys/kernel/slab)")),
    # slub_debug reports, in upstream's words (both allocators).  6.12
    # words a red zone or poison overwrite "[<what> overwritten] ...",
    # then "BUG <cache> (...): Object corrupt" (REPORT_CONTEXT).
    ("bug-redzone", re.compile(r"^BUG \S+ \(.*\): .*Redzone overwritten")),
    ("bug-redzone", re.compile(r"^\[.*Redzone overwritten\] ")),
    ("bug-poison", re.compile(r"^BUG \S+ \(.*\): Poison overwritten")),
    ("bug-poison", re.compile(r"^\[Poison overwritten\] ")),
    ("bug-double-free", re.compile(
        r"^BUG \S+ \(.*\): (Object already free|"
        r"Slab has \d+ allocated objects but \d+ are to be freed)")),
    ("bug-slab", re.compile(r"^BUG \S+ \(.*\): ")),
    # Allocation profiling's debug checks (6.12, MEM_ALLOC_PROFILING_DEBUG,
    # once a boot each): an object freed with no tag (a double free, or
    # an allocation path that did not tag), or allocated over a tag that
    # was never taken off (a free path that did not untag).
    ("alloc-tag-unset", re.compile(r"^alloc_tag was not set$")),
    ("alloc-tag-uncleared", re.compile(r"^alloc_tag was not cleared ")),
    ("fix", re.compile(r"^FIX \S+: ")),
]
# Inside a region, what goes with a report is part of it: its stack dump,
# and on 6.12 the header of the object whose bytes a "[... overwritten]"
# line named and the WARN_ON(1) that ends object_err() and __slab_err().
REPORT_CONTEXT = re.compile(
    r"^Call Trace:|^BUG \S+ \(.*\): Object corrupt$|"
    r"^WARNING: CPU: \d+ PID: \d+ at \S*include/linux/alloc_tag\.h:\d+ |"
    r"^WARNING: CPU: \d+ PID: \d+ at \S*mm/slub\.c:\d+ (object_err|__slab_err|slab_err)\+")
REGION = re.compile(r"^HARNESS: expect-splat-(begin|end)(?: (\S+))?(.*)$")

# KUnit's report of a failed assertion or expectation, in a case's log.
KUNIT_FAILED = re.compile(r"^\s*# (\S+): (?:ASSERTION|EXPECTATION) FAILED at (\S+)")
TAP = re.compile(r"^(not ok|ok)\s+\d+\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(\w+)(.*))?$")


def status(word, directive):
    if directive and directive.upper() == "SKIP":
        return "SKIP"
    if directive and directive.upper() in ("TODO", "XFAIL"):
        return "SKIP"
    return "PASS" if word == "ok" else "FAIL"


def strip_time(line):
    return re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line)


def parse_kunit(lines, out):
    suite = None
    cases = plan = 0
    ended = False
    failed = {}
    last_failed = None

    def end_suite():
        # debugfs prints the suite's plan and its closing line whatever
        # its cases logged: without them the results are cut short.
        if plan is None:
            out.append(("FAIL", "kunit:%s" % suite,
                        "no plan, %d results" % cases))
        elif cases != plan:
            out.append(("FAIL", "kunit:%s" % suite,
                        "plan of %d cases, %d results" % (plan, cases)))
        if not ended:
            out.append(("FAIL", "kunit:%s" % suite, "no suite result line"))

    for raw in lines:
        line = raw.rstrip()
        m = re.match(r"^HARNESS: kunit-begin (\S+)", line)
        if m:
            if suite is not None:
                end_suite()
            suite, cases, plan, ended = m.group(1), 0, None, False
            failed.clear()
            continue
        if line.startswith("HARNESS: kunit-end"):
            if suite is not None:
                end_suite()
            suite = None
            continue
        if suite is None:
            continue
        m = re.match(r"^\s+1\.\.(\d+)", line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = KUNIT_FAILED.match(line)
        if m:
            # The first failure of a case names where it failed; the
            # lines after it, up to the next comment or result, say what
            # was expected and the test's message.
            last_failed = m.group(1) not in failed and m.group(1)
            failed.setdefault(m.group(1), [m.group(2)])
            continue
        m = TAP.match(line.strip())
        if last_failed and not m and not line.lstrip().startswith("#"):
            if line.strip():
                failed[last_failed].append(line.strip())
            continue
        last_failed = None
        if not m:
            continue
        st = status(m.group(1), m.group(3))
        if raw.startswith((" ", "\t")):
            cases += 1
            detail = (m.group(4) or "").strip()
            if st == "FAIL" and not detail:
                detail = " ".join(failed.get(m.group(2), []))[:300]
            out.append((st, "kunit:%s:%s" % (suite, m.group(2)), detail))
        else:
            ended = True
            if cases == 0 or st == "FAIL":
                out.append((st, "kunit:%s" % suite, "suite result"))
    if suite is not None:
        end_suite()


def parse_kselftest(lines, out):
    inside = False
    inner = []
    plan = None
    skip_all = ""
    programs = 0
    top_plan = None
    for raw in lines:
        line = raw.rstrip()
        if line.startswith("HARNESS: kselftest-begin"):
            inside, inner, plan, skip_all = True, [], None, ""
            continue
        if line.startswith("HARNESS: kselftest-end"):
            inside = False
            if top_plan is not None and programs != top_plan:
                out.append(("FAIL", "kselftest", "plan of %d programs, %d results"
                            % (top_plan, programs)))
            continue
        if not inside:
            continue
        if line.startswith("# "):
            m = re.match(r"^1\.\.(\d+)(?:\s*#\s*SKIP\s*(.*))?", line[2:].strip())
            if m:
                plan = int(m.group(1))
                skip_all = (m.group(2) or "").strip()
                continue
            m = TAP.match(line[2:].strip())
            if m:
                # kselftest.h prints a skip as "ok N # SKIP <description>".
                why = (m.group(4) or "").strip()
                inner.append((status(m.group(1), m.group(3)),
                              m.group(2) or why, why if m.group(2) else ""))
            continue
        m = re.match(r"^1\.\.(\d+)", line.strip())
        if m:
            top_plan = int(m.group(1))
            continue
        m = TAP.match(line.strip())
        if not m:
            continue
        programs += 1
        prog = m.group(2)
        prog = prog.split(": ")[-1] if ": " in prog else prog
        st = status(m.group(1), m.group(3))
        for ist, desc, why in inner:
            out.append((ist, "kselftest:%s:%s" % (prog, desc), why))
        if not inner:
            out.append((st, "kselftest:%s" % prog,
                        skip_all or (m.group(4) or "").strip()))
        elif st == "FAIL" and not any(s == "FAIL" for s, _, _ in inner):
            out.append(("FAIL", "kselftest:%s" % prog,
                        (m.group(3) or "") + (m.group(4) or "") or "exit status"))
        # A program that states its plan and then stops short (a shell
        # test that exits 0 early) has fewer results than the plan, none
        # at all included; one that reports without a plan cannot say
        # how many it owed.
        if plan is not None and len(inner) != plan:
            out.append(("FAIL", "kselftest:%s" % prog,
                        "plan of %d tests, %d results" % (plan, len(inner))))
        elif plan is None and inner:
            out.append(("FAIL", "kselftest:%s" % prog,
                        "%d results without a plan" % len(inner)))
        inner, plan, skip_all = [], None, ""


RESULT = re.compile(r"^HARNESS: result (PASS|FAIL|SKIP) (\S+)\s*(.*)$")


def parse_results(lines, out):
    """The "HARNESS: result STATUS TEST DETAIL" lines of guest scripts (the
    distribution profile's workload, test_meminit, run_lkdtm)."""
    for raw in lines:
        m = RESULT.match(raw.strip())
        if m:
            out.append((m.group(1), m.group(2), m.group(3).strip()))


def report_kind(line):
    for kind, rx in REPORT_KINDS:
        if rx.search(line):
            return kind
    return "splat" if SPLAT.search(line) else None


# The guest's reboot -f after its suite: from here on the kernel stops the
# other cpus and the machine, and nothing of the suite runs any more.  A
# report of that teardown (KCSAN saw native_stop_other_cpus() race with
# the cpus it stops) is upstream's, not the run's.
SHUTDOWN = re.compile(r"^reboot: (Restarting system|Power down)")


def engine_functions():
    """Names of the functions defined in the engine's files: mm/slub*.c
    and mm/slub*.h, mm/slab_merge.c, and the inline helpers of
    include/linux/slub_def.h (out of line, they show in a report)."""
    names = set()
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    paths = glob.glob(os.path.join(top, "mm", "slub*.[ch]")) + [
        os.path.join(top, "mm", "slab_merge.c"),
        os.path.join(top, "include", "linux", "slub_def.h")]
    for path in paths:
        with open(path, errors="replace") as f:
            for l in f:
                m = re.match(r"^[a-z_][^=;(]*?\b([a-z_]\w*)\(", l)
                if m:
                    names.add(m.group(1))
    return names


# A frame "name+0x4b/0x2a0", also of a GCC clone ("name.constprop.0+...",
# ".isra.0", ".part.0", ".cold"): the clone is the function's.
KCSAN_FRAME = re.compile(r"^\s*(?:\[.*?\]\s*)?([a-z_]\w*)(?:\.\w+)*\+0x[0-9a-f]+/0x")


def foreign_kcsan_reports(lines):
    """Indexes of the lines that start a KCSAN report none of whose frames,
    on either side, is a function of the engine: a race between two other
    parts of the kernel (with one access in 100 watched, KCSAN found
    kernel/exit.c's release_task() and the psmouse probe), which is not
    this series' to mark.  A race with the engine has an engine frame on
    the engine's side; a race of unknown origin shows one side only, and
    counts when that side is the engine's."""
    engine = engine_functions()
    foreign = set()
    start = None
    for i, raw in enumerate(lines):
        line = strip_time(raw.rstrip())
        if "BUG: KCSAN:" in line:
            start, ours = i, False
        elif start is not None:
            m = KCSAN_FRAME.match(line)
            if m and m.group(1) in engine:
                ours = True
            elif line.startswith("====="):
                if not ours:
                    foreign.add(start)
                start = None
    return foreign


def parse_console(lines, out):
    region = None       # (tag, expected kinds, kinds seen)
    splats = []         # (kind, line) outside the regions
    foreign = []
    regions = {}        # tag -> list of problems ("" when it matched)
    kcsan_foreign = foreign_kcsan_reports(lines)
    for i, raw in enumerate(lines):
        line = strip_time(raw.rstrip())
        if SHUTDOWN.match(line):
            break
        if i in kcsan_foreign:
            foreign.append(line)
            continue
        m = REGION.match(line)
        if m:
            what, tag, rest = m.group(1), m.group(2) or "?", m.group(3)
            if what == "begin":
                if region:
                    regions.setdefault(region[0], []).append(
                        "region not ended before " + tag)
                region = (tag, set(rest.split()), {})
            elif not region or region[0] != tag:
                regions.setdefault(tag, []).append("end without begin")
                region = None
            else:
                tag, want, seen = region
                bad = []
                # "kind?" may appear, the others must.
                need = {k for k in want if not k.endswith("?")}
                allowed = need | {k[:-1] for k in want if k.endswith("?")}
                missing = sorted(need - set(seen))
                extra = sorted(set(seen) - allowed)
                if missing:
                    bad.append("missing " + " ".join(missing))
                if extra:
                    bad.append("unexpected %s (%s)" % (
                        " ".join(extra), seen[extra[0]][:100]))
                regions.setdefault(tag, []).append("; ".join(bad))
                region = None
            continue
        if region and REPORT_CONTEXT.search(line):
            continue
        kind = report_kind(line)
        if not kind:
            continue
        if region:
            region[2].setdefault(kind, line)
        else:
            splats.append((kind, line))
    if region:
        regions.setdefault(region[0], []).append("region never ended")
    if splats:
        # The kinds, so that a check can ask for the report it expects
        # (check-mutants.sh), not for any report at all.
        kinds = {}
        for kind, _ in splats:
            kinds[kind] = kinds.get(kind, 0) + 1
        out.append(("FAIL", "console", "%d reports (%s), the first: %s"
                    % (len(splats), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
                       splats[0][1][:160])))
    else:
        out.append(("PASS", "console", "%d KCSAN reports outside the engine, "
                    "the first: %s" % (len(foreign), foreign[0][:120])
                    if foreign else ""))
    for tag, problems in regions.items():
        bad = [p for p in problems if p]
        if bad:
            out.append(("FAIL", "console:" + tag, "%d of %d regions: %s"
                        % (len(bad), len(problems), bad[0])))
        else:
            out.append(("PASS", "console:" + tag,
                        "%d regions as expected" % len(problems)))


def load_manifest(path):
    """Rules of manifest.conf: ("run", globs, test, count) and
    ("skip", globs, test glob, reason)."""
    rules = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "run" and len(words) in (3, 4):
                rules.append(("run", words[1].split(","), words[2],
                              int(words[3]) if len(words) == 4 else None))
            elif words[0] == "skip" and len(words) >= 4:
                rules.append(("skip", words[1].split(","), words[2],
                              " ".join(words[3:])))
            else:
                sys.exit("%s:%d: cannot read: %s" % (path, n, line.strip()))
    return rules


_boots = {}


def variant_line(variant):
    """The words of the variant's line in variants.conf or
    variants-full.conf (name, profile, vcpus, memory, numa, extra...), or
    None."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = None
    for name in ("variants.conf", "variants-full.conf"):
        with open(os.path.join(here, name)) as f:
            for line in f:
                words = line.split("#", 1)[0].split()
                if len(words) >= 5 and words[0] == variant:
                    found = words
    return found


def variant_boot(variant):
    """What the variant boots with: (memory nodes, words of its extra
    command line, vCPUs or None).  BOOT_NUMA, BOOT_CMDLINE and BOOT_VCPUS,
    when set, say it (the columns of the boot); otherwise its line of
    variants.conf or variants-full.conf does.  The vCPUs of a boot that
    sets BOOT_NUMA but not BOOT_VCPUS are its variant line's, or unknown
    (None: no "vcpus=" term matches it)."""
    if variant in _boots:
        return _boots[variant]
    numa, extra = os.environ.get("BOOT_NUMA"), os.environ.get("BOOT_CMDLINE")
    vcpus = os.environ.get("BOOT_VCPUS")
    words = variant_line(variant)
    if numa is None:
        if words:
            numa, extra = words[4], " ".join(words[5:])
        if numa is None:
            sys.exit("parse-results.py: variant %s is in no variants file, and "
                     "BOOT_NUMA is not set" % variant)
    if vcpus is None and words:
        vcpus = words[2]
    nodes = 1 if numa in ("-", "") else int(numa)
    _boots[variant] = (nodes, (extra or "").split(),
                       int(vcpus) if vcpus else None)
    return _boots[variant]


_configs = {}


def variant_config(variant):
    """The options the variant's kernel was built with (y or m), from
    BOOT_CONFIG, the .config of the boot, when set; otherwise from the
    build of its profile (the second column of its variants file line)
    under $BUILD/out.  Without one no skip rule of it can be judged."""
    if variant in _configs:
        return _configs[variant][0]
    path = os.environ.get("BOOT_CONFIG")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        build = os.environ.get("BUILD") or os.path.join(os.path.dirname(here), "build")
        words = variant_line(variant)
        if words:
            path = os.path.join(build, "out", words[1], ".config")
        if not path:
            sys.exit("parse-results.py: variant %s is in no variants file, and "
                     "BOOT_CONFIG is not set" % variant)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        sys.exit("parse-results.py: the config of %s: %s" % (variant, e))
    opts = set(re.findall(r"^(CONFIG_\w+)=[ym]$", text, re.M))
    # Kconfig's header names the kernel: "# Linux/x86 6.12.118 Kernel
    # Configuration".
    m = re.search(r"^# Linux/\S+ (\S+) Kernel Configuration", text, re.M)
    _configs[variant] = (opts, m.group(1) if m else "unknown")
    return _configs[variant][0]


def variant_base(variant):
    """The kernel version the variant's kernel was configured from."""
    variant_config(variant)
    return _configs[variant][1]


def term_matches(variant, term):
    """One term of a manifest variant list: a glob over the variant's
    name, "nodes=N" (it boots with N memory nodes: numa=fake=N, or 1),
    "vcpus=N" (it boots with N vCPUs),
    "cmdline:GLOB" (a word of its extra command line matches GLOB), or
    "config:CONFIG_X" (its kernel has CONFIG_X, y or m),
    "config:CONFIG_X=n" (it has not) and "base:V" (its kernel is Linux V,
    V.x or V-x: base:6.12 is 6.12.118, not 6.1)."""
    if term.startswith("nodes="):
        return variant_boot(variant)[0] == int(term[6:])
    if term.startswith("vcpus="):
        return variant_boot(variant)[2] == int(term[6:])
    if term.startswith("cmdline:"):
        return any(fnmatch.fnmatchcase(w, term[8:]) for w in variant_boot(variant)[1])
    if term.startswith("config:"):
        opt, _, val = term[7:].partition("=")
        if val not in ("", "n") or not opt.startswith("CONFIG_"):
            sys.exit("parse-results.py: bad manifest term %s" % term)
        return (opt in variant_config(variant)) == (val == "")
    if term.startswith("base:"):
        v = variant_base(variant)
        return v == term[5:] or v.startswith((term[5:] + ".", term[5:] + "-"))
    return fnmatch.fnmatchcase(variant, term)


def variant_matches(variant, globs):
    """A comma list of terms; "!term" excludes what the earlier ones took."""
    hit = False
    for g in globs:
        if g.startswith("!"):
            hit = hit and not term_matches(variant, g[1:])
        else:
            hit = hit or term_matches(variant, g)
    return hit


def judge_skips(variant, out, rules):
    """A SKIP the manifest lists gets its reason; any other is a FAIL."""
    result = []
    for st, test, detail in out:
        if st != "SKIP":
            result.append((st, test, detail))
            continue
        what = test + (": " + detail if detail else "")
        reason = next((r[3] for r in rules if r[0] == "skip" and
                       variant_matches(variant, r[1]) and
                       fnmatch.fnmatchcase(what, r[2])), None)
        if reason:
            result.append(("SKIP", test, reason))
        else:
            result.append(("FAIL", test, "unexpected skip: " + (detail or test)))
    return result


def apply_manifest(variant, out, rules):
    """Fail unexpected skips and missing programs or suites."""
    result = judge_skips(variant, out, rules)
    for kind, globs, name, count in rules:
        if kind != "run" or not variant_matches(variant, globs):
            continue
        n = sum(1 for _, t, _ in out if t.startswith(name + ":"))
        # A program that skipped or failed as a whole has a row of its own.
        whole = any(t == name for _, t, _ in out)
        # A program skipped as a whole (its "1..0 # SKIP", which the skip
        # rules above judge) owes no results; one that passed or failed
        # as a whole with none, or another number, is short of the
        # manifest's count.
        skipped = any(t == name and st == "SKIP" for st, t, _ in out)
        if not n and not whole:
            result.append(("FAIL", name, "missing: the manifest says %s runs it"
                           % variant))
        elif count is not None and n != count and not (n == 0 and skipped):
            result.append(("FAIL", name, "%d results, the manifest says %d"
                           % (n, count)))
    return result


def allocator_name(banner):
    """A short name for the allocator banner guest/init found in dmesg."""
    m = re.match(r"SLUB engine.*?slab pair ([\w-]+)", banner)
    if m:
        return "our engine, slab pair " + m.group(1)
    if banner.startswith("SLUB:"):
        return "upstream SLUB"
    return "upstream " + banner if banner == "SLAB" else banner[:40]


def boot_failure(lines, rc):
    """Why the guest did not finish, in words a CI log tail can show."""
    if rc in (124, 137):
        return "timeout"
    for l in lines:
        if "Kernel panic - not syncing" in l:
            return "panic: " + l.split("not syncing:", 1)[1].strip()[:100]
    if not any(l.startswith("HARNESS: boot ok") for l in lines):
        return "never reached userspace (exit %d)" % rc
    for l in lines:
        if SPLAT.search(l):
            return "stopped after: " + l.strip()[:100]
    return "stopped before the end of its suite (exit %d)" % rc


def source_cases():
    """The KUnit suites of the engine and their cases, as the sources
    of the boot's tree list them (BOOT_TREE; by default this repo's):
    mm/slub*_test.c, each with one suite."""
    top = os.environ.get("BOOT_TREE") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    suites = {}
    for path in sorted(glob.glob(os.path.join(top, "mm", "slub*_test.c"))):
        with open(path, errors="replace") as f:
            text = f.read()
        names = re.findall(r'^\t\.name\s*=\s*"(\w+)"', text, re.M)
        if len(names) == 1:
            suites[names[0]] = re.findall(r"^\s*KUNIT_CASE\w*\((\w+)", text, re.M)
    return suites


def check_cases(out):
    """Every case of a suite that reported must report: a count in the
    manifest cannot tell a case that went from one that came."""
    for suite, cases in source_cases().items():
        prefix = "kunit:%s:" % suite
        seen = {t[len(prefix):] for _, t, _ in out if t.startswith(prefix)}
        if not seen:
            continue
        for case in cases:
            if case not in seen:
                out.append(("FAIL", prefix + case,
                            "a case of the suite's source that did not report"))


def manifest_rules():
    return load_manifest(os.environ.get("MANIFEST") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "manifest.conf"))


def skips_main(name):
    """--skips NAME: rows of a check that boots nothing (check.sh's
    fastpath rows of profile NAME), "STATUS<tab>TEST<tab>DETAIL" on stdin,
    their SKIPs judged by the manifest's skip rules.  There is no boot:
    nodes=, vcpus= and cmdline: terms match only what BOOT_NUMA,
    BOOT_VCPUS and BOOT_CMDLINE say (nothing by default); config: terms
    read BOOT_CONFIG, the profile's .config."""
    if not os.environ.get("BOOT_CONFIG"):
        sys.exit("parse-results.py --skips: BOOT_CONFIG is not set")
    os.environ.setdefault("BOOT_NUMA", "-")
    os.environ.setdefault("BOOT_CMDLINE", "")
    os.environ.setdefault("BOOT_VCPUS", "")
    out = []
    for n, line in enumerate(sys.stdin, 1):
        words = line.rstrip("\n").split("\t")
        if len(words) != 3 or words[0] not in ("PASS", "FAIL", "SKIP"):
            sys.exit("parse-results.py --skips: line %d: not STATUS<tab>TEST<tab>DETAIL: %s"
                     % (n, line.strip()))
        out.append(tuple(words))
    for st, test, detail in judge_skips(name, out, manifest_rules()):
        print("%s\t%s\t%s\t%s" % (st, name, test, detail))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--skips":
        skips_main(sys.argv[2])
        return
    variant, path, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        with open(path, errors="replace") as f:
            lines = f.readlines()
    except OSError:
        lines = []
    alloc = [l.split("HARNESS: allocator: ", 1)[1].strip()
             for l in lines if "HARNESS: allocator: " in l]
    detail = allocator_name(alloc[0]) if alloc else ""
    out = [("PASS", "boot", detail) if rc == 0 else
           ("FAIL", "boot", boot_failure(lines, rc) + "; see " + path)]
    parse_console(lines, out)
    parse_kunit(lines, out)
    check_cases(out)
    parse_kselftest(lines, out)
    parse_results(lines, out)
    out = apply_manifest(variant, out, manifest_rules())
    for st, test, detail in out:
        print("%s\t%s\t%s\t%s" % (st, variant, test, detail))


if __name__ == "__main__":
    main()
