#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Check the struct page layout of the running kernel and the slab pair
# commits in both positions of the pair window, through
# /sys/kernel/debug/slab_pair (mm/slub_pair.c):
#
#   1. the layout and sizeof(struct page) agree: "aligned" is a multiple
#      of 16 bytes; "internal" is 56 bytes without MEMCG and allocation
#      profiling, 64 with either;
#   2-5. under the test_slab_api stress (remote frees, refills), slabs are
#      allocated and their pairs committed by cmpxchg16b at both positions
#      of the window when struct page is 8 mod 16, and at position 0 only
#      when it is a multiple of 16;
#   6. after the stress caches are destroyed, no page freed back to the
#      page allocator since boot reported a bad page state.
#
# Kernels without the file (upstream SLUB, SLAB) skip.  POSIX sh, runs
# under busybox ash.
#
# Environment overrides:
#   SPT_SECONDS  minimum stress run time in seconds (default 3)
#   SPT_OPS      minimum stress operations (default 200000)

. "$(dirname "$0")/tap.sh"

MOD=test_slab_api
PAIR=/sys/kernel/debug/slab_pair

SECONDS_=${SPT_SECONDS:-3}
OPS=${SPT_OPS:-200000}

NTESTS=6

echo "TAP version 13"

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e "$PAIR" ] || skip_all "$PAIR is absent: no struct page layout choice in this kernel"

# field KEY [COLUMN]: a value of the slab_pair file
field() {
	awk -v k="$1" -v c="${2:-1}" '$1 == k { print $(c + 1) }' "$PAIR"
}

echo "1..$NTESTS"
sed 's/^/# /' "$PAIR"

# 1: layout and size
layout=$(field layout)
size=$(field sizeof_struct_page)
# The last word of struct page is memcg_data with MEMCG, or the slab
# object extensions' with allocation profiling (6.10 on).
memcg=0
grep -q '^memory[[:space:]]' /proc/cgroups 2>/dev/null && memcg=1
[ -e /proc/allocinfo ] && memcg=1
case "$layout:$memcg" in
aligned:*)	want="a multiple of 16" ;;
internal:0)	want=56 ;;
internal:1)	want=64 ;;
*)		want="a known layout" ;;
esac
good=0
case "$layout" in
aligned)	[ -n "$size" ] && [ $((size % 16)) -eq 0 ] && good=1 ;;
internal)	[ "$size" = "$want" ] && good=1 ;;
esac
if [ $good = 1 ]; then
	ok "layout $layout, sizeof(struct page) $size (MEMCG $memcg)"
else
	not_ok "layout ${layout:-?}, sizeof(struct page) ${size:-?}: want $want (MEMCG $memcg)"
fi

# Both positions occur only when struct page is 8 mod 16.
both=0
[ -n "$size" ] && [ $((size % 16)) -eq 8 ] && both=1

if ! module_available $MOD; then
	for t in "slabs at both positions" "commits at position 0" \
		 "commits at position 1" "cmpxchg16b in use" "no bad page state"; do
		skip "$t: module $MOD is not available"
	done
	exit 0
fi
rmmod $MOD >/dev/null 2>&1

bad0=$(dmesg | grep -c 'Bad page state')
echo 1 >"$PAIR" || not_ok "cannot start counting"
s0=$(field slabs 1) s1=$(field slabs 2)
c0=$(field commits 1) c1=$(field commits 2)
r0=$(field retries 1) r1=$(field retries 2)

echo "# modprobe $MOD phase=stress seconds=$SECONDS_ ops=$OPS"
if modprobe $MOD phase=stress seconds="$SECONDS_" ops="$OPS" &&
   dmesg | grep "$MOD: stress: [0-9]* checks passed" | tail -n 1 |
	grep -q ": [1-9][0-9]* checks passed, 0 failed"; then
	stress_ok=1
else
	stress_ok=0
fi
dmesg | grep "$MOD: stress" | tail -n 3 | sed 's/^/# /'
# Destroying the caches frees their slabs to the page allocator.
rmmod $MOD >/dev/null 2>&1
for f in /sys/kernel/slab/*/shrink; do
	echo 1 >"$f" 2>/dev/null
done

ds0=$(($(field slabs 1) - s0)) ds1=$(($(field slabs 2) - s1))
dc0=$(($(field commits 1) - c0)) dc1=$(($(field commits 2) - c1))
dr0=$(($(field retries 1) - r0)) dr1=$(($(field retries 2) - r1))
echo "# during the stress, at positions 0 1: slabs $ds0 $ds1,"
echo "# cmpxchg16b commits $dc0 $dc1, retries $dr0 $dr1"
# 2-5 judge what the stress did: a stress that did not run, or ran and
# failed, leaves nothing to judge (no commits at all would pass the bit
# lock's checks), and fails them.
nostress=
if [ $stress_ok = 0 ]; then
	nostress="the stress did not pass (no summary with passed checks and 0 failed)"
	echo "# $nostress"
elif [ $((ds0 + ds1)) -eq 0 ]; then
	nostress="the stress allocated no slab"
fi

# 2: slabs at the positions the layout implies
if [ -n "$nostress" ]; then
	not_ok "slabs at the positions of the layout: $nostress"
elif [ $both = 1 ]; then
	if [ $ds0 -gt 0 ] && [ $ds1 -gt 0 ]; then
		ok "slabs at both positions ($ds0, $ds1)"
	else
		not_ok "slabs at both positions ($ds0, $ds1)"
	fi
else
	if [ $ds0 -gt 0 ] && [ $ds1 -eq 0 ]; then
		ok "slabs at position 0 only ($ds0, $ds1)"
	else
		not_ok "slabs at position 0 only ($ds0, $ds1)"
	fi
fi

# 3-5: remote frees and refills commit by cmpxchg16b at each position
cmpxchg=$(field cmpxchg)
# Only a CPU without cmpxchg16b excuses the bit lock where none was asked.
cx16=0
grep -q '^flags.* cx16' /proc/cpuinfo && cx16=1
# no_cmpxchg16b TEST...: fail each test if the CPU has the instruction
no_cmpxchg16b() {
	for t in "$@"; do
		if [ $cx16 = 1 ]; then
			not_ok "$t: the CPU has cmpxchg16b but $PAIR says cmpxchg ${cmpxchg:-?}"
		else
			skip "$t: the CPU has no cmpxchg16b (no cx16 in /proc/cpuinfo)"
		fi
	done
}
# slub_pair=bitlock (the last valid slub_pair= word) turns cmpxchg16b off.
bitlock=$(tr ' ' '\n' </proc/cmdline |
	sed -n 's/^slub_pair=\(cmpxchg\|bitlock\)$/\1/p' | tail -n 1)
# slub_debug= flags for every cache (the last block without a cache list;
# none: full debugging) make every cache a debug cache, whose slab pairs
# change under the node list_lock only.
debug_all=0
dbg=$(tr ' ' '\n' </proc/cmdline | grep -E '^sl[au]b_debug(=|$)' | tail -n 1)
if [ -n "$dbg" ]; then
	val=${dbg#sl?b_debug}
	val=${val#=}
	flags=$(echo "$val" | tr ';' '\n' | grep -v , | tail -n 1)
	case "${flags##*-}" in
	*[fFzZpPuUtT]*)	debug_all=1 ;;
	esac
	[ -z "$val" ] && debug_all=1
fi
if [ -n "$nostress" ]; then
	for t in "commits at position 0" "commits at position 1" "cmpxchg16b in use"; do
		not_ok "$t: $nostress"
	done
elif [ "$bitlock" = bitlock ] || [ $debug_all = 1 ]; then
	why="with slub_pair=bitlock"
	[ $debug_all = 1 ] && why="with slub_debug on every cache"
	if [ $dc0 -eq 0 ] && [ $dr0 -eq 0 ]; then
		ok "no cmpxchg16b commits at position 0 $why"
	else
		not_ok "cmpxchg16b commits at position 0 ($dc0, $dr0) $why"
	fi
	if [ $dc1 -eq 0 ] && [ $dr1 -eq 0 ]; then
		ok "no cmpxchg16b commits at position 1 $why"
	else
		not_ok "cmpxchg16b commits at position 1 ($dc1, $dr1) $why"
	fi
	if [ "$bitlock" != bitlock ]; then
		if [ "$cmpxchg" = 1 ]; then
			ok "cmpxchg16b for caches without debug flags: $PAIR says cmpxchg 1"
		else
			no_cmpxchg16b "cmpxchg16b in use"
		fi
	elif [ "$cmpxchg" = 0 ]; then
		ok "bit lock in use: $PAIR says cmpxchg 0"
	else
		not_ok "bit lock in use: $PAIR says cmpxchg ${cmpxchg:-?}"
	fi
elif [ "$cmpxchg" != 1 ]; then
	no_cmpxchg16b "commits at position 0" "commits at position 1" "cmpxchg16b in use"
else
	if [ $dc0 -gt 0 ]; then
		ok "cmpxchg16b commits at position 0 ($dc0, $dr0 retried)"
	else
		not_ok "cmpxchg16b commits at position 0 ($dc0)"
	fi
	if [ $both = 0 ]; then
		if [ $dc1 -eq 0 ] && [ $dr1 -eq 0 ]; then
			ok "no commits at position 1 with a 16-byte multiple struct page"
		else
			not_ok "commits at position 1 ($dc1, $dr1)" \
				"with a 16-byte multiple struct page"
		fi
	elif [ $dc1 -gt 0 ]; then
		ok "cmpxchg16b commits at position 1 ($dc1, $dr1 retried)"
	else
		not_ok "cmpxchg16b commits at position 1 ($dc1)"
	fi
	ok "cmpxchg16b in use"
fi

# 6: every freed slab page passed the page allocator's free checks.  The
# reports are rate limited, so count those since boot as well.
bad=$(dmesg | grep -c 'Bad page state')
if [ "$bad" -eq 0 ]; then
	ok "no bad page state after the stress"
else
	not_ok "bad page state: $bad reports since boot, $((bad - bad0)) during the stress"
fi

echo 0 >"$PAIR"
echo "# $((NTESTS - failed)) of $NTESTS passed"
[ $failed -eq 0 ]
