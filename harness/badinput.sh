#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make badinput: each misuse of the slab API (test_slab_api phase=badinput)
# in a boot of its own, on upstream SLUB (the pristine base) and on the
# series, without slab debugging and with slub_debug=FZPU.  Prints what
# each kernel reported and whether it kept running, writes the table to
# build/badinput.md, and fails a case where the series does worse than
# upstream: dies where upstream survives, stays silent where upstream
# reports, or hands out corrupt memory where upstream does not; and a
# case whose misuse never ran ("badinput <case>: start" missing) on
# either kernel.
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

# outcome LOG CASE: "<survived|died>|<what was reported>|<corruption
# seen>|<whether the misuse ran>"
outcome() {
	local clog=$1 c=$2 alive=died report=none corrupt=no ran=no line
	# The module's own line, just before the misuse: without it the boot
	# never got there, and neither "survived" nor "silent" means anything.
	grep -q "badinput $c: start" "$clog" && ran=yes
	grep -q "^HARNESS: badinput-alive $c" "$clog" && alive=survived
	# Only what follows the misuse: the series' boot-time KUnit suites
	# print reports of their own on purpose.
	line=$(sed -e '1,/^HARNESS: badinput-begin/d' -e 's/^\[ *[0-9.]*\] //' "$clog" | grep -m1 -E \
		'^BUG [^ ]+ \(|^kernel BUG at|^BUG: |^general protection fault|^divide error|^invalid opcode|^WARNING:|^SLUB [^ ]+: |^kmem_cache_destroy |^kmem_cache_create|^Oops' || true)
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
	echo "$alive|$report|$corrupt|$ran"
}

results=${RESULTS:-}
md=$BUILD/badinput$(base_suffix).md
{
	echo "| case | slub_debug | upstream SLUB | this series | verdict |"
	echo "|---|---|---|---|---|"
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
			got[$k]=$(outcome "$clog" "$c")
		done
		IFS='|' read -r ua ur uc un <<<"${got[$up]}"
		IFS='|' read -r sa sr sc sn <<<"${got[$us]}"
		why=
		[ "$ua" = survived ] && [ "$sa" != survived ] && why="dies where upstream survives"
		[ "$ur" != none ] && [ "$sr" = none ] && why="${why:+$why; }silent where upstream reports"
		[ "$uc" = no ] && [ "$sc" = yes ] && why="${why:+$why; }corrupts where upstream does not"
		[ "$un" = yes ] || why="${why:+$why; }the misuse never ran on upstream"
		[ "$sn" = yes ] || why="${why:+$why; }the misuse never ran on the series"
		if [ -z "$why" ]; then
			verdict=ok
			pass=$((pass + 1))
		else
			verdict="worse: $why"
			fail=$((fail + 1))
		fi
		desc() { echo "$1, $2$([ "$3" = yes ] && echo ', corrupt memory handed out')"; }
		echo "| $c | $mode | $(desc "$ua" "$ur" "$uc") | $(desc "$sa" "$sr" "$sc") | $verdict |" >>"$md"
		if [ -n "$results" ]; then
			printf '%s\t%s\t%s\t%s\n' "$([ $verdict = ok ] && echo PASS || echo FAIL)" \
				"badinput" "$c slub_debug=$mode" \
				"upstream: $(desc "$ua" "$ur" "$uc"); series: $(desc "$sa" "$sr" "$sc")" >>"$results"
		fi
		unset got
	done
done
echo
cat "$md"
echo
echo "$pass passed, $fail failed"
[ $fail = 0 ]
