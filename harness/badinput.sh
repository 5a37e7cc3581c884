#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make badinput: each misuse of the slab API (test_slab_api phase=badinput)
# in a boot of its own, on upstream SLUB (the pristine base) and on the
# series, without slab debugging and with slub_debug=FZPU.  Prints what
# each kernel reported and whether it kept running, writes the table to
# build/badinput.md, and fails a case where the series does worse than
# upstream: dies where upstream survives, stays silent where upstream
# reports (a crash is no report), or hands out corrupt memory where
# upstream does not; a case
# where the series does not give the report the case is there to draw
# (required below: a double free must bring a double free report naming
# the cache, not just any warning); and a case whose misuse never ran
# ("badinput <case>: start" missing) on either kernel.
#
# RESULTS=<file> appends one result line per case to that results file
# (make check-full uses it); CASES='a b' picks cases.  The pristine
# profile is upstream as configured by default: without
# SLAB_FREELIST_HARDENED, which the series profile has.  BASE=6.12:
# pristine-6.12 against series-6.12 (memcg and allocation profiling on
# in both), into build/badinput@6.12.md.
set -eu
STAGE=badinput
. "$(dirname "$0")/lib.sh"

cases=${CASES:-"double_free invalid_free cross_cache_free write_after_free redzone corrupt_freeptr destroy_live create_absurd kmalloc_sizes"}
case $BASE in
6.1) up=pristine us=series ;;
*) up=pristine-$BASE us=series-$BASE ;;
esac
kernels="$up $us"

"$REPO/harness/deps.sh"
"$REPO/harness/kselftest.sh"
for k in $kernels; do
	"$REPO/harness/build.sh" "$k"
	"$REPO/harness/initramfs.sh" "$k"
done

# required CASE MODE: the kind of report (has_kind) the series must give
# for the misuse, where its checks or upstream's catch it in that mode;
# nothing where neither allocator checks it (a write after free, a red
# zone overwrite or an invalid pointer without slub_debug).  The kinds
# of the two refusing cases are what the module prints of the refusals.
required() {
	case $1:$2 in
	double_free:*) echo double-free ;;
	invalid_free:FZPU) echo invalid-pointer ;;
	cross_cache_free:*) echo wrong-cache ;;
	write_after_free:FZPU | corrupt_freeptr:FZPU) echo poison ;;
	redzone:FZPU) echo redzone ;;
	destroy_live:*) echo objects-remaining ;;
	create_absurd:*) echo refusals ;;
	kmalloc_sizes:*) echo null-returns ;;
	esac
}

# has_kind FILE KIND: whether FILE, the console after the misuse without
# timestamps, holds a report of KIND naming the cache of the misuse, in
# the words of either base (6.12's upstream names the overwritten bytes
# on a line of their own, then the cache: "BUG <cache> (...): Object
# corrupt").
has_kind() {
	local t=$1
	case $2 in
	double-free)
		grep -q -E '^(SLUB tsa_bad: double free of object|BUG tsa_bad \(.*\): (Object already free|Slab has [0-9]+ allocated objects but [0-9]+ are to be freed))' "$t" ;;
	invalid-pointer)
		grep -q -E '^BUG tsa_bad \(.*\): Invalid object pointer' "$t" ;;
	wrong-cache)
		grep -q -E 'Wrong slab cache\. tsa_bad but object is from tsa_bad_other' "$t" ;;
	poison)
		grep -q -E '^BUG tsa_bad \(.*\): Poison overwritten' "$t" ||
			{ grep -q -E '^\[Poison overwritten\] ' "$t" &&
			  grep -q -E '^BUG tsa_bad \(.*\): Object corrupt' "$t"; } ;;
	redzone)
		grep -q -E '^BUG kmalloc-[^ ]*64 \(.*\): Right Redzone overwritten' "$t" ||
			{ grep -q -E '^\[Right Redzone overwritten\] ' "$t" &&
			  grep -q -E '^BUG kmalloc-[^ ]*64 \(.*\): Object corrupt' "$t"; } ;;
	objects-remaining)
		grep -q -E '^BUG tsa_bad_live \(.*\): Objects remaining' "$t" ;;
	refusals)
		[ "$(grep -c -E 'badinput create_absurd: size (0|4 GiB - 1|2 GiB): refused$' "$t")" = 3 ] ;;
	null-returns)
		grep -q -F 'badinput kmalloc_sizes: kmalloc(0) returned ZERO_SIZE_PTR' "$t" &&
			grep -q -F 'badinput kmalloc_sizes: kmalloc(KMALLOC_MAX_SIZE + 1) returned NULL' "$t" ;;
	*) return 1 ;;
	esac
}

# outcome LOG CASE MODE: "<survived|died>|<what was reported>|<corruption
# seen>|<whether the misuse ran>|<whether the required report came>"
outcome() {
	local clog=$1 c=$2 alive=died report=none corrupt=no ran=no line
	local want after kind=-
	after=$LOGS/badinput$(base_suffix)-after.txt
	# The module's own line, just before the misuse: without it the boot
	# never got there, and neither "survived" nor "silent" means anything.
	grep -q "badinput $c: start" "$clog" && ran=yes
	grep -q "^HARNESS: badinput-alive $c" "$clog" && alive=survived
	# Only what follows the misuse: the series' boot-time KUnit suites
	# print reports of their own on purpose.
	sed -e '1,/^HARNESS: badinput-begin/d' -e 's/^\[ *[0-9.]*\] //' "$clog" >"$after"
	line=$(grep -m1 -E \
		'^BUG [^ ]+ \(|^kernel BUG at|^BUG: |^general protection fault|^divide error|^invalid opcode|^WARNING:|^SLUB [^ ]+: |^kmem_cache_destroy |^kmem_cache_create|^Oops' "$after" || true)
	case "$line" in
	"") ;;
	"BUG: "*|"general protection fault"*|"divide error"*|"invalid opcode"*|"Oops"*)
		report="oops: $(echo "${line#BUG: }" | cut -c1-50)" ;;
	"kernel BUG at"*) report="kernel BUG at ${line#kernel BUG at }" ;;
	"BUG "*) report="slab report: ${line#*): }" ;;
	"WARNING:"*) report="WARN $(echo "$line" | sed -n 's/.* at \([^ ]*\).*/\1/p')" ;;
	*) report=$(echo "$line" | cut -c1-60) ;;
	esac
	# The module marks what can only be corruption: an object handed out
	# twice, or memory that was never an object.
	grep -q -E "badinput $c: .*: CORRUPT" "$clog" && corrupt=yes
	want=$(required "$c" "$3")
	if [ -n "$want" ]; then
		kind=no
		has_kind "$after" "$want" && kind=yes
	fi
	echo "$alive|$report|$corrupt|$ran|$kind"
}

# reported REPORT: whether outcome's REPORT is a report of the misuse.  A
# crash is none: the kernel died of the misuse rather than caught it,
# which "dies where upstream survives" judges.
reported() {
	case $1 in
	none) return 1 ;;
	"oops: KASAN:"* | "oops: KFENCE:"*) return 0 ;;
	oops:*) return 1 ;;
	esac
	return 0
}

results=${RESULTS:-}
md=$BUILD/badinput$(base_suffix).md
{
	echo "| case | slub_debug | required of the series | upstream SLUB | this series | verdict |"
	echo "|---|---|---|---|---|---|"
} >"$md"
pass=0 fail=0
for mode in none FZPU; do
	for c in $cases; do
		declare -A got=()
		for k in $kernels; do
			clog=$LOGS/console-badinput-$(profile_key "$k")-$mode-$c.log
			extra="harness.case=$c"
			[ $mode = FZPU ] && extra="$extra slub_debug=FZPU"
			log "$c (slub_debug=$mode): booting $k"
			"$REPO/harness/run-qemu.sh" "$k" "$clog" -u badinput -s 2 \
				-a "$extra" -t 300 >/dev/null 2>&1 || true
			got[$k]=$(outcome "$clog" "$c" $mode)
		done
		IFS='|' read -r ua ur uc un uk <<<"${got[$up]}"
		IFS='|' read -r sa sr sc sn sk <<<"${got[$us]}"
		want=$(required "$c" $mode)
		why=
		[ "$ua" = survived ] && [ "$sa" != survived ] && why="dies where upstream survives"
		reported "$ur" && ! reported "$sr" && why="${why:+$why; }silent where upstream reports"
		[ "$uc" = no ] && [ "$sc" = yes ] && why="${why:+$why; }corrupts where upstream does not"
		[ "$un" = yes ] || why="${why:+$why; }the misuse never ran on upstream"
		[ "$sn" = yes ] || why="${why:+$why; }the misuse never ran on the series"
		[ "$sk" = no ] && why="${why:+$why; }no $want report on the series"
		if [ -z "$why" ]; then
			verdict=ok
			pass=$((pass + 1))
		else
			verdict="worse: $why"
			fail=$((fail + 1))
		fi
		desc() {
			echo "$1, $2$([ "$3" = yes ] && echo ', corrupt memory handed out')$(
				[ "$4" = yes ] && echo ", $want report")$([ "$4" = no ] && echo ", no $want report")"
		}
		echo "| $c | $mode | ${want:--} | $(desc "$ua" "$ur" "$uc" "$uk") | $(desc "$sa" "$sr" "$sc" "$sk") | $verdict |" >>"$md"
		if [ -n "$results" ]; then
			printf '%s\t%s\t%s\t%s\n' "$([ "$verdict" = ok ] && echo PASS || echo FAIL)" \
				"badinput" "$c slub_debug=$mode" \
				"upstream: $(desc "$ua" "$ur" "$uc" "$uk"); series: $(desc "$sa" "$sr" "$sc" "$sk")" >>"$results"
		fi
		unset got
	done
done
echo
cat "$md"
echo
echo "$pass passed, $fail failed"
[ $fail = 0 ]
