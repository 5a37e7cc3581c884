#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest console log into test results.

usage: parse-results.py VARIANT CONSOLE_LOG BOOT_RC

Prints one line per result, tab-separated: STATUS VARIANT TEST DETAIL,
where STATUS is PASS, FAIL or SKIP.  Results are:
  - boot: the guest reached userspace and finished its suite;
  - console: no oops, BUG, WARNING or sanitizer report outside the regions
    a test marks as expected ("HARNESS: expect-splat-begin/-end");
  - every KUnit case (KTAP from debugfs), as kunit:<suite>:<case>;
  - every kselftest result (TAP from run_kselftest.sh), as
    kselftest:<program>:<description>; a program that failed without a
    failing subtest (crash, timeout) counts as one failure of its own.
"""
import re
import sys

SPLAT = re.compile(r"(\bBUG[: ]|WARNING:|Oops|general protection fault|"
                   r"Call Trace:|UBSAN:|KASAN:|KCSAN:|kernel BUG|"
                   r"possible recursive locking|possible circular locking|"
                   r"inconsistent lock state|sleeping function called|"
                   r"Bad page state|INFO: task .* blocked|"
                   r"list_(add|del) corruption|refcount_t:)")
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
    cases = 0
    for raw in lines:
        line = raw.rstrip()
        m = re.match(r"^HARNESS: kunit-begin (\S+)", line)
        if m:
            suite, cases = m.group(1), 0
            continue
        if line.startswith("HARNESS: kunit-end"):
            suite = None
            continue
        if suite is None:
            continue
        m = TAP.match(line.strip())
        if not m:
            continue
        st = status(m.group(1), m.group(3))
        if raw.startswith((" ", "\t")):
            cases += 1
            out.append((st, "kunit:%s:%s" % (suite, m.group(2)), ""))
        elif cases == 0 or st == "FAIL":
            out.append((st, "kunit:%s" % suite, "suite result"))


def parse_kselftest(lines, out):
    inside = False
    inner = []
    for raw in lines:
        line = raw.rstrip()
        if line.startswith("HARNESS: kselftest-begin"):
            inside, inner = True, []
            continue
        if line.startswith("HARNESS: kselftest-end"):
            inside = False
            continue
        if not inside:
            continue
        if line.startswith("# "):
            m = TAP.match(line[2:].strip())
            if m:
                inner.append((status(m.group(1), m.group(3)),
                              m.group(2) or (m.group(4) or "").strip()))
            continue
        m = TAP.match(line.strip())
        if not m:
            continue
        prog = m.group(2)
        prog = prog.split(": ")[-1] if ": " in prog else prog
        st = status(m.group(1), m.group(3))
        for ist, desc in inner:
            out.append((ist, "kselftest:%s:%s" % (prog, desc), ""))
        if not inner:
            out.append((st, "kselftest:%s" % prog, (m.group(4) or "").strip()))
        elif st == "FAIL" and not any(s == "FAIL" for s, _ in inner):
            out.append(("FAIL", "kselftest:%s" % prog,
                        (m.group(3) or "") + (m.group(4) or "") or "exit status"))
        inner = []


def parse_console(lines, out):
    expected = False
    splats = []
    for raw in lines:
        line = strip_time(raw.rstrip())
        if line.startswith("HARNESS: expect-splat-begin"):
            expected = True
        elif line.startswith("HARNESS: expect-splat-end"):
            expected = False
        elif not expected and SPLAT.search(line):
            splats.append(line)
    if splats:
        out.append(("FAIL", "console", "first report: " + splats[0][:160]))
    else:
        out.append(("PASS", "console", ""))


def allocator_name(banner):
    """A short name for the allocator banner guest/init found in dmesg."""
    m = re.match(r"SLUB engine.*?slab pair ([\w-]+)", banner)
    if m:
        return "our engine, slab pair " + m.group(1)
    if banner.startswith("SLUB:"):
        return "upstream SLUB"
    return "upstream " + banner if banner == "SLAB" else banner[:40]


def main():
    variant, path, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        with open(path, errors="replace") as f:
            lines = f.readlines()
    except OSError:
        lines = []
    alloc = [l.split("HARNESS: allocator: ", 1)[1].strip()
             for l in lines if "HARNESS: allocator: " in l]
    detail = allocator_name(alloc[0]) if alloc else ""
    out = [("PASS", "boot", detail) if rc == 0 else ("FAIL", "boot", "see " + path)]
    parse_console(lines, out)
    parse_kunit(lines, out)
    parse_kselftest(lines, out)
    for st, test, detail in out:
        print("%s\t%s\t%s\t%s" % (st, variant, test, detail))


if __name__ == "__main__":
    main()
