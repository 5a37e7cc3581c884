#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the results of make check as one table per variant and the total.

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
    for var, rows in variants.items():
        width = max(len(t) for _, t, _ in rows)
        print("== %s" % var)
        for st, test, detail in rows:
            total[st] += 1
            print("  %-4s  %-*s  %s" % (st, width, test, detail))
        print()
    print("%d passed, %d failed, %d skipped" %
          (total["PASS"], total["FAIL"], total["SKIP"]))
    sys.exit(1 if total["FAIL"] or not total["PASS"] else 0)


if __name__ == "__main__":
    main()
