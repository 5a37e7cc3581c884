#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the kernel-doc of the series, as make htmldocs would see it.

usage: doc-check.py TREE RST...

For every ".. kernel-doc:: FILE" directive of the RST files (paths
relative to TREE), run TREE/scripts/kernel-doc on FILE: with ":doc: NAME"
for that DOC: section, else for the whole file.  The reST it writes must
parse without a docutils warning (an undefined |substitution|, a broken
table, a stray emphasis mark), and a :doc: section must exist and not be
empty.  Then run "kernel-doc -none" on each FILE: its warnings (a
parameter not described, a misnamed function) fail the check too.

Prints one line per check and exits 1 if any failed.
"""
import io
import os
import re
import subprocess
import sys

import docutils.core
import docutils.nodes
import docutils.utils
from docutils.parsers.rst import Directive, directives, roles

DIRECTIVE = re.compile(r'^\.\. kernel-doc:: (\S+)\s*$')
OPTION = re.compile(r'^\s+:(\w+):\s*(.*?)\s*$')


def kdoc_directives(rst):
    """Yield (file, doc-section or None) for each kernel-doc directive."""
    lines = open(rst, encoding='utf-8').read().splitlines()
    for i, line in enumerate(lines):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        doc = None
        for opt in lines[i + 1:]:
            o = OPTION.match(opt)
            if not o:
                break
            if o.group(1) == 'doc':
                doc = o.group(2)
        yield m.group(1), doc


def kernel_doc(tree, args):
    p = subprocess.run([tree + '/scripts/kernel-doc'] + args, cwd=tree,
                       capture_output=True, text=True)
    # The script says which Sphinx it assumes when none is installed.
    err = [l for l in p.stderr.splitlines()
           if l.strip() and not l.startswith('Warning: Sphinx version')]
    return p.returncode, p.stdout, err


class CDomain(Directive):
    """Sphinx's C domain, which plain docutils lacks: parse the body only."""
    required_arguments = 0
    optional_arguments = 100
    final_argument_whitespace = True
    has_content = True
    option_spec = {'noindex': directives.flag}

    def run(self):
        node = docutils.nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def c_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [docutils.nodes.literal(rawtext, text)], []


for kind in ('function', 'macro', 'type', 'struct', 'union', 'enum',
             'enumerator', 'member', 'var'):
    directives.register_directive('c:' + kind, CDomain)
for kind in ('func', 'macro', 'type', 'data', 'expr', 'texpr'):
    roles.register_local_role('c:' + kind, c_role)


def rst_problems(text):
    out = io.StringIO()
    try:
        docutils.core.publish_string(
            text, writer_name='null',
            settings_overrides={'report_level': 2, 'halt_level': 5,
                                'warning_stream': out})
    except docutils.utils.SystemMessage as e:
        return [str(e)]
    return [l for l in out.getvalue().splitlines() if l.strip()]


def main():
    tree, rsts = os.path.abspath(sys.argv[1]), sys.argv[2:]
    failed = 0
    files = []
    for rst in rsts:
        for src, doc in kdoc_directives(tree + '/' + rst):
            what = f'{rst}: {src}' + (f' :doc: {doc}' if doc else '')
            args = ['-rst'] + (['-function', doc] if doc else []) + [src]
            rc, text, err = kernel_doc(tree, args)
            problems = err + rst_problems(text)
            if doc and not text.strip():
                problems.append('no such DOC: section, or it is empty')
            if rc:
                problems.append(f'kernel-doc exited with {rc}')
            print(f"{'FAILED' if problems else 'ok'}: {what}")
            for p in problems:
                print(f'    {p}')
            failed |= bool(problems)
            if src not in files:
                files.append(src)
    for src in files:
        rc, _, err = kernel_doc(tree, ['-none', src])
        print(f"{'FAILED' if rc or err else 'ok'}: kernel-doc -none {src}")
        for p in err:
            print(f'    {p}')
        failed |= bool(rc or err)
    if not files:
        print('FAILED: no kernel-doc directive found')
        failed = 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
