#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every boot parameter of the series' files must be documented in the
tree's Documentation/admin-guide/kernel-parameters.txt.

usage: param-doc-check.py TREE

The parameters are the strings of __setup(), __setup_param(), early_param()
and slub_setup_alias() (mm/slub_base.h: a base's own name for one; on a
base where it names nothing it is left out) in the engine's files of TREE
(mm/slub*.c, mm/slab_merge.c), "=" and all.  A parameter is documented
where an entry of kernel-parameters.txt starts with its name (a line of
one tab, then the name, followed by "=", "[", white space or the end), or
where an entry names it as a legacy name ("(NAME legacy name also
accepted").  Prints one line per parameter and fails on any without.
"""
import glob
import os
import re
import sys

SETUP = re.compile(r'^\s*(__setup|__setup_param|early_param|slub_setup_alias)\s*\(\s*"([^"]+)"',
                   re.M)


def base_has_alias(tree):
    """Whether slub_setup_alias() registers a parameter in TREE (6.12)."""
    with open(os.path.join(tree, "mm", "slub_base.h")) as f:
        return re.search(r"#define\s+slub_setup_alias\([^)]*\)\s+__setup_param", f.read()) is not None


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[5], file=sys.stderr)
        return 2
    tree = sys.argv[1]
    files = sorted(glob.glob(os.path.join(tree, "mm", "slub*.c")) +
                   [os.path.join(tree, "mm", "slab_merge.c")])
    alias = base_has_alias(tree)
    params = {}
    for path in files:
        if not os.path.isfile(path) or path.endswith("_test.c"):
            continue
        with open(path) as f:
            for kind, name in SETUP.findall(f.read()):
                if kind == "slub_setup_alias" and not alias:
                    continue
                params.setdefault(name.rstrip("="), os.path.relpath(path, tree))
    with open(os.path.join(tree, "Documentation", "admin-guide", "kernel-parameters.txt")) as f:
        doc = f.read()
    missing = 0
    for name, where in sorted(params.items()):
        entry = re.search(r"^\t%s(=|\[|\s|$)" % re.escape(name), doc, re.M)
        legacy = re.search(r"\(%s legacy name also\s+accepted" % re.escape(name), doc)
        if entry or legacy:
            print("ok %s (%s)" % (name, where))
        else:
            print("missing %s (%s): no entry in kernel-parameters.txt" % (name, where))
            missing += 1
    print("%d of %d boot parameters documented" % (len(params) - missing, len(params)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
