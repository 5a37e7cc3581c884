#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SLUB debugging as users see it:
#   - the slub_debug= given at boot shows in each cache's sanity_checks,
#     red_zone, poison, store_user and trace files, with its cache lists
#     ("<name>" or "<prefix>*"), '-' and O (no debugging where the
#     metadata would raise the slab order);
#   - debug caches carry their metadata in slab_size;
#   - writing 1 to "validate" of a debug cache finds nothing on a healthy
#     system;
#   - caches that record users have debugfs slab/<cache>/alloc_traces;
#   - provoked errors (test_slab_api phase=debug: red zone overwrite,
#     write after free, double free) are reported in the format of
#     upstream SLUB's reports, repaired, and the kernel keeps running.
# The same checks pass on upstream SLUB; kernels without SLUB debugging
# skip.  POSIX sh; runs under busybox ash.

. "$(dirname "$0")/tap.sh"

SLAB=/sys/kernel/slab
TRACES=/sys/kernel/debug/slab
MOD=test_slab_api
CACHE=test_slab_api_debug
NTESTS=11

echo "TAP version 13"
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -d $SLAB ] || skip_all "$SLAB absent: not SLUB"
[ -e $SLAB/kmalloc-64/sanity_checks ] ||
	skip_all "no sanity_checks file: kernel without CONFIG_SLUB_DEBUG"
mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo "1..$NTESTS"

# ---- what slub_debug= asks for ----

# The last slub_debug word, if any, without "slub_debug" (or its 6.12
# name, slab_debug).
arg=$(tr ' ' '\n' </proc/cmdline | grep -E '^sl[au]b_debug(=|$)' | tail -n 1)
given=0
[ -n "$arg" ] && given=1
val=${arg#sl?b_debug}
val=${val#=}

# letters_flags LETTERS: "F Z P U T" membership as five 0/1 words
letters_flags() {
	l=${1##*-}
	for c in f z p u t; do
		case "$l" in
		*$c*|*$(echo $c | tr a-z A-Z)*)	printf '1 ' ;;
		*)				printf '0 ' ;;
		esac
	done
	echo
}

# want NAME: the flags slub_debug= gives cache NAME
want() {
	if [ -z "$val" ]; then
		echo "1 1 1 1 0"
		return
	fi
	global="0 0 0 0 0"
	echo "$val" | tr ';' '\n' | {
		found=""
		while read -r block; do
			[ -n "$block" ] || continue
			case "$block" in
			*,*)
				flags=${block%%,*}
				[ -z "$flags" ] && flags=fzpu
				list=${block#*,}
				[ -n "$found" ] && continue
				for item in $(echo "$list" | tr ',' ' '); do
					case "$item" in
					*\*)	case "$1" in "${item%\*}"*)
							found=$(letters_flags "$flags") ;;
						esac ;;
					*)	[ "$1" = "$item" ] &&
							found=$(letters_flags "$flags") ;;
					esac
				done
				;;
			*)
				global=$(letters_flags "$block")
				;;
			esac
		done
		if [ -n "$found" ]; then
			echo "$found"
		else
			echo "$global"
		fi
	}
}

# O: debugging metadata dropped where it would raise the slab order.
no_higher=0
case "$(echo "$val" | tr ';' '\n' | sed 's/,.*//' | tr -d '\n')" in
*[oO]*)	no_higher=1 ;;
esac

# order_of BYTES: the page order of a size
order_of() {
	o=0
	s=4096
	while [ "$s" -lt "$1" ]; do
		s=$((s * 2))
		o=$((o + 1))
	done
	echo $o
}

flags_of() {
	for f in sanity_checks red_zone poison store_user trace; do
		printf '%s ' "$(cat "$1/$f" 2>/dev/null || echo '?')"
	done
	echo
}

# Named cache directories: symlinks are aliases of ":<id>" directories.
caches() {
	for d in $SLAB/*; do
		[ -L "$d" ] && continue
		case "${d##*/}" in :*) continue ;; esac
		echo "${d##*/}"
	done
}

# 1: flags of every named cache
if [ $given = 0 ]; then
	skip "debug flags: no slub_debug= given"
else
	bad=0
	checked=0
	for c in $(caches); do
		[ "$c" = "$CACHE" ] && continue
		w=$(want "$c")
		h=$(flags_of "$SLAB/$c")
		checked=$((checked + 1))
		[ "$w" = "$h" ] && continue
		# O: no Z, P or U where they would raise the order.
		if [ $no_higher = 1 ]; then
			os=$(cat $SLAB/$c/object_size)
			set -- $w
			w2="$1 0 0 0 $5"
			if [ "$(order_of $((os + 256)))" -gt "$(order_of "$os")" ] &&
			   [ "$w2" = "$h" ]; then
				continue
			fi
		fi
		echo "# $c: flags F Z P U T are $h, slub_debug=$val wants $w"
		bad=$((bad + 1))
	done
	if [ $bad = 0 ] && [ $checked -gt 0 ]; then
		ok "debug flags of $checked caches follow slub_debug=$val"
	else
		not_ok "debug flags: $bad of $checked caches differ from slub_debug=$val"
	fi
fi

# Debug caches: a red zone, poison or user tracking.
debug_caches() {
	for c in $(caches); do
		set -- $(flags_of "$SLAB/$c")
		[ "$1$2$3$4$5" != 00000 ] && echo "$c"
	done
}
dcaches=$(debug_caches)

# 2: metadata is in slab_size
if [ -z "$dcaches" ]; then
	skip "metadata: no debug caches"
else
	bad=0
	for c in $dcaches; do
		set -- $(flags_of "$SLAB/$c")
		os=$(cat $SLAB/$c/object_size)
		ss=$(cat $SLAB/$c/slab_size)
		need=$os
		[ "$2" = 1 ] && need=$((need + 2 * 8))
		[ "$4" = 1 ] && need=$((need + 2 * 16))
		if [ "$ss" -lt "$need" ]; then
			echo "# $c: slab_size $ss < $need for object_size $os and flags $*"
			bad=$((bad + 1))
		fi
	done
	if [ $bad = 0 ]; then
		nd=$(echo $dcaches | wc -w)
		ok "metadata: slab_size holds red zones and tracks of $nd debug caches"
	else
		not_ok "metadata: $bad debug caches too small for their metadata"
	fi
fi

# 3: validation of every debug cache is clean
if [ -z "$dcaches" ]; then
	skip "validate: no debug caches"
else
	before=$(dmesg | wc -l)
	bad=0
	for c in $dcaches; do
		echo 1 >"$SLAB/$c/validate" 2>/dev/null || bad=$((bad + 1))
	done
	# Upstream-style reports, and the engine's own ("SLUB <cache>: slab
	# ... freelist corrupt", node count mismatches, ...).
	reports=$(dmesg | tail -n +$((before + 1)) |
		grep -c -E '^(\[[^]]*\] )?((BUG|FIX) |SLUB [^ :]+: )')
	if [ $bad = 0 ] && [ "$reports" = 0 ]; then
		ok "validate: $(echo $dcaches | wc -w) debug caches validated, no reports"
	else
		not_ok "validate: $bad writes failed, $reports reports"
	fi
fi

# 4: alloc_traces of a cache that records users and has objects
tcache=""
for c in $dcaches; do
	[ "$(cat $SLAB/$c/store_user)" = 1 ] || continue
	objs=$(cut -d' ' -f1 $SLAB/$c/objects)
	[ "${objs:-0}" -gt 0 ] || continue
	tcache=$c
	break
done
if [ -z "$tcache" ]; then
	skip "alloc_traces: no cache records users"
elif [ ! -r $TRACES/$tcache/alloc_traces ]; then
	not_ok "alloc_traces: $TRACES/$tcache/alloc_traces missing"
else
	lines=$(grep -c -E '^ *[0-9]+ .* age=[0-9/]+ pid=[0-9-]+' $TRACES/$tcache/alloc_traces)
	grep -q -E '^ *[0-9]+ ' $TRACES/$tcache/free_traces 2>/dev/null
	free_ok=$?
	head -n 4 $TRACES/$tcache/alloc_traces | sed 's/^/# /'
	if [ "$lines" -gt 0 ] && [ $free_ok = 0 ]; then
		ok "alloc_traces: $lines call sites in $tcache, free_traces readable"
	else
		not_ok "alloc_traces: $lines call sites in $tcache, free_traces status $free_ok"
	fi
fi

# ---- 5-11: provoked errors and their reports ----

if ! module_available $MOD; then
	for t in red_zone fix not_freed poison double_free tracking destroyed; do
		skip "report $t: module $MOD is not available"
	done
	exit 0
fi
rmmod $MOD >/dev/null 2>&1
# Generic KASAN sees a write after free or a double free before the slab
# checks do, and reports it itself: only the red zone cases apply.
kasan=0
dmesg | grep -q "KernelAddressSanitizer initialized" && kasan=1
before=$(dmesg | wc -l)
# Tell a console log scanner which reports below are wanted, and that no
# other may appear (KERN_ERR, so that a quiet console shows the marker):
# a red zone overwrite, caught on free, and without KASAN a write after
# free, caught by validation, and a refused double free.
expect="bug-redzone fix"
if [ $kasan = 1 ]; then
	# KASAN reports the double free.  Its quarantine decides when the
	# slab checks see the other freed objects, if at all ("kind?": may
	# appear).
	expect="$expect kasan bug-poison? bug-double-free?"
else
	expect="$expect bug-poison bug-double-free"
fi
# Allocation profiling's debug checks (MEM_ALLOC_PROFILING_DEBUG) warn
# at the first free of an untagged object in a boot, which the double
# free may be.
expect="$expect alloc-tag-unset?"
# An object KFENCE sampled would be KFENCE's to report, not the slab
# checks' (at a 5 ms sample interval it took the write after free).
kfence_pause
echo "<3>HARNESS: expect-splat-begin slub_debug_test $expect" >/dev/kmsg
modprobe $MOD phase=debug >/dev/null 2>&1
status=$?
echo "<3>HARNESS: expect-splat-end slub_debug_test" >/dev/kmsg
kfence_resume
rmmod $MOD >/dev/null 2>&1
log=$(dmesg | tail -n +$((before + 1)))

# has DESCRIPTION REGEX
has() {
	if echo "$log" | grep -q -E "$2"; then
		ok "report $1"
	else
		# (the pattern is not echoed: a console scanner would take
		# its "BUG" for a report)
		not_ok "report $1: no such line in the kernel log"
	fi
}

# has_bytes DESCRIPTION WHAT: an overwrite of WHAT (Right Redzone,
# Poison) reported in 6.1's words, "BUG <cache> (...): WHAT overwritten",
# or in 6.12's, "[WHAT overwritten] <range>" and the object's
# "BUG <cache> (...): Object corrupt".
has_bytes() {
	if echo "$log" | grep -q -E "BUG $CACHE \(.*\): $2 overwritten" ||
	   { echo "$log" | grep -q -F "[$2 overwritten] 0x" &&
	     echo "$log" | grep -q -E "BUG $CACHE \(.*\): Object corrupt"; }; then
		ok "report $1"
	else
		not_ok "report $1: no such line in the kernel log"
	fi
}

has_bytes "red_zone: header names cache and what" "Right Redzone"
has "fix: red zone restored" "FIX $CACHE: Restoring Right Redzone"
if [ $kasan = 1 ]; then
	for t in not_freed poison double_free tracking; do
		skip "report $t: KASAN reports these misuses first"
	done
else
	has "not_freed: bad object not freed" "FIX $CACHE: Object at 0x.* not freed"
	has_bytes "poison: write after free found by validate" "Poison"
	# Upstream words it by the slab's count when no other object is in use.
	upstream_words="Slab has 0 allocated objects but 1 are to be freed"
	has "double_free: refused" \
		"BUG $CACHE \(.*\): (Object already free|$upstream_words)"
	has "tracking: alloc and free sites shown" \
		"Freed in .*\[$MOD\] age=[0-9]+ cpu=[0-9]+ pid=[0-9]+"
fi
if [ $status = 0 ] && [ ! -e $SLAB/$CACHE ]; then
	ok "report destroyed: module ran, cache destroyed clean, kernel alive"
else
	left=gone
	[ -e $SLAB/$CACHE ] && left=left
	not_ok "report destroyed: modprobe status $status, $SLAB/$CACHE $left"
fi
[ $failed = 0 ]
