#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the results of make check as one table per variant, the skips
grouped by the reason harness/manifest.conf gives for them, the failures
again, and the total.

Exit status 1 if anything failed or no test ran at all.
"""
import sys
from collections import OrderedDict


def main():
    variants = OrderedDict()
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            st, var, test = parts[0], parts[1], parts[2]
            detail = parts[3] if len(parts) > 3 else ""
            variants.setdefault(var, []).append((st, test, detail))
    total = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    # Boots booted again because QEMU, not the kernel, broke them
    # (harness/stale-int3.py): listed, not counted.
    retried = [(var, detail) for var, rows in variants.items()
               for st, _, detail in rows if st == "RETRY"]
    for var, rows in variants.items():
        rows = [r for r in rows if r[0] != "RETRY"]
        variants[var] = rows
        if not rows:
            continue
        width = max(len(t) for _, t, _ in rows)
        print("== %s" % var)
        for st, test, detail in rows:
            total[st] += 1
            print("  %-4s  %-*s  %s" % (st, width, test, detail))
        print()
    reasons = OrderedDict()
    for var, rows in variants.items():
        for st, test, detail in rows:
            if st == "SKIP":
                reasons.setdefault(detail, OrderedDict()).setdefault(var, 0)
                reasons[detail][var] += 1
    if reasons:
        print("Skipped, by reason (harness/manifest.conf):")
        for why, per_var in sorted(reasons.items(),
                                   key=lambda kv: -sum(kv[1].values())):
            print("  %4d  %s" % (sum(per_var.values()), why))
            print("        %s" % ", ".join("%s %d" % vn for vn in per_var.items()))
        print()
    if retried:
        print("Retried (the first boot's log is kept):")
        for var, detail in retried:
            print("  %s  %s" % (var, detail[:200]))
        print()
    # Last before the totals, so that the tail of a CI log shows them.
    failed = [(var, test, detail) for var, rows in variants.items()
              for st, test, detail in rows if st == "FAIL"]
    if failed:
        print("Failed:")
        for var, test, detail in failed[:40]:
            print("  %s  %s  %s" % (var, test, detail[:160]))
        if len(failed) > 40:
            print("  ... and %d more, in the tables above" % (len(failed) - 40))
        print()
    print("%d passed, %d failed, %d skipped" %
          (total["PASS"], total["FAIL"], total["SKIP"]))
    sys.exit(1 if total["FAIL"] or not total["PASS"] else 0)


if __name__ == "__main__":
    main()
