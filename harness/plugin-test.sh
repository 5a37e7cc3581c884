#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make plugin-test: the cost model's plugin (harness/plugin/slabcost.c) on
# the host, without QEMU or a kernel, in a second or two.  Builds the
# plugin as run-qemu.sh -P does, and plugin/slabcost-test.c, which plays
# QEMU's part: it drives the plugin with made-up instructions and memory
# accesses between the window markers and checks every count of the
# plugin's output against what the cache geometry and the instruction
# encodings give: a 64 KiB buffer read twice, a 9-way conflict in one L1
# set, LRU order, L2's and L3's ways, accesses across a line, stores,
# cmpxchg16b with and without LOCK, the instruction classes, call counts,
# struct page lines, failed physical address lookups, and the plugin's
# refusals.
#
# Passes when the driver exits 0 and its last line says that a positive
# number of checks passed and none failed.  RESULTS=<file> appends the
# row model:plugin-unit there (make check), whose detail on a failure is
# the first check that failed.  Output: build/plugin-test/ (log, and per
# case the plugin's out file).  Exit status 1 on a failure.
set -eu
STAGE=plugin-test
. "$(dirname "$0")/lib.sh"

dir=$BUILD/plugin-test
src=$REPO/harness/plugin
results=${RESULTS:-}
rm -rf "$dir"
mkdir -p "$dir/out"
rc=0
{
	gcc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$dir/slabcost.so" \
		"$src/slabcost.c" &&
		gcc -O2 -Wall -Wextra -rdynamic -o "$dir/slabcost-test" "$src/slabcost-test.c" -ldl &&
		"$dir/slabcost-test" "$dir/slabcost.so" "$dir/out"
} >"$dir/log" 2>&1 || rc=$?
cat "$dir/log"
last=$(tail -n 1 "$dir/log")
if [ $rc = 0 ] && [[ $last =~ ^slabcost-test:\ [1-9][0-9]*\ checks\ passed,\ 0\ failed$ ]]; then
	st=PASS detail=${last#slabcost-test: }
else
	first=$(grep -m 1 -e '^FAIL ' -e 'error' "$dir/log" || true)
	case $last in
	slabcost-test:*) last=", ${last#slabcost-test: }" ;;
	*) last= ;;
	esac
	st=FAIL detail="${first#FAIL }${first:+; }exit status $rc$last"
fi
echo "plugin-test: $st: $detail"
[ -z "$results" ] || printf '%s\tmodel\tmodel:plugin-unit\t%s\n' "$st" "$detail" >>"$results"
[ $st = PASS ]
