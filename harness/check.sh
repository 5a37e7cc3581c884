#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: build every profile that variants.conf uses, boot every
# variant, run KUnit and the kselftests in it, and summarise.
#
# VARIANTS="a b" limits the run to the named variants; FULL=1 (make
# check-full) adds those of variants-full.conf, each base's series patch
# by patch (series-check.sh), the bad-input suite (badinput.sh) and the
# mutants (check-mutants.sh).  harness/manifest.conf says what each
# variant must report.
#
# The variants cover both bases (a profile's tree column names its base,
# or it is BASE's: harness/lib.sh).  BASE=V runs only those of base V,
# its series plan and its build matrix.
set -eu
STAGE=check
. "$(dirname "$0")/lib.sh"

# This run's rows go to a file of its own, so that a second make check
# on the same build/ (another VARIANTS=, say) neither empties nor joins
# them; it becomes build/results.tsv, the last run's, when the run ends,
# also when it stops early.  That is emptied before anything can fail: a
# package install or a build that stops this script must not leave the
# rows of an earlier run behind, to be read as this one's
# (check-mutants.sh reads them).
last=$BUILD/results.tsv
results=$BUILD/results.$$.tsv
: >"$last"
: >"$results"
trap 'mv -f "$results" "$last"' EXIT

"$REPO/harness/deps.sh"
if [ -n "$BASE_GIVEN" ]; then
	bases=$BASE
else
	bases=$BASES
fi
version=
for b in $bases; do
	log "base $b: Linux $(base_version "$b") ($(base_tree "$b"))"
	version="$version${version:+, }$(base_version "$b")"
done

# make check-full (FULL=1) adds the heaviest variants.
confs=variants
[ "${FULL:-0}" = 1 ] && confs="$confs variants-full"
# shellcheck disable=SC2086
variants=$(conf $confs)
if [ -n "${VARIANTS:-}" ]; then
	variants=$(echo "$variants" | awk -v want=" $VARIANTS " 'index(want, " " $1 " ")')
	[ -n "$variants" ] || die "no variant matches VARIANTS='$VARIANTS'"
fi
# BASE=V: the variants whose profile names base V, or names none and V
# is the default base (a variant of a profile that follows BASE, were
# there one, would otherwise be built on V, not what it was written for).
if [ -n "$BASE_GIVEN" ]; then
	keep=
	for p in $(echo "$variants" | awk '!seen[$2]++ { print $2 }'); do
		case $(profile_tree_column "$p") in
		*@"$BASE") keep="$keep $p" ;;
		*@*) ;;
		*) [ "$BASE" = "$DEFAULT_BASE" ] && keep="$keep $p" ;;
		esac
	done
	variants=$(echo "$variants" | awk -v want="$keep " 'index(want, " " $2 " ")')
	[ -n "$variants" ] || die "no variant${VARIANTS:+ of VARIANTS='$VARIANTS'} runs on base $BASE"
fi
profiles=$(echo "$variants" | awk '!seen[$2]++ { print $2 }')

# The kselftests come from the series tree, whatever kernel runs them.
"$REPO/harness/kselftest.sh"

for p in $profiles; do
	"$REPO/harness/build.sh" "$p"
	"$REPO/harness/initramfs.sh" "$p"
done

# The patch series of each base: every patch of its plan (series/plan,
# base/6.12/series/plan) applies at its step, split diffs included, and
# the last one gives the tree the kernels are built from.  A change to
# the engine's files that a split diff no longer fits fails here, not
# only at make series-check, and so does a 6.12 diff that no longer
# applies.
for b in $bases; do
	plan=series/plan
	[ -z "$(base_layer "$b")" ] || plan=$(base_layer "$b")/series/plan
	if BASE=$b "$REPO/harness/series.py" >"$LOGS/series-$b.log" 2>&1; then
		st=PASS detail="$(grep -c '^  ' "$LOGS/series-$b.log") patches from $plan"
	else
		st=FAIL detail=$(grep -m 1 'error' "$LOGS/series-$b.log" || tail -n 1 "$LOGS/series-$b.log")
	fi
	printf '%s\t%s\t%s\t%s\n' "$st" series "series:plan:$b" "$detail" >>"$results"
done

# Every boot parameter of the engine's files has its entry in the
# kernel-parameters.txt of each base's series tree (param-doc-check.py).
for b in $bases; do
	"$REPO/harness/prepare.sh" "$b" >/dev/null
	if "$REPO/harness/param-doc-check.py" "$(series_tree "$b")" >"$LOGS/param-doc-$b.log" 2>&1; then
		st=PASS
	else
		st=FAIL
	fi
	printf '%s\t%s\t%s\t%s\n' "$st" docs "kernel-parameters:$b" \
		"$(grep -m 1 '^missing' "$LOGS/param-doc-$b.log" || tail -n 1 "$LOGS/param-doc-$b.log")" >>"$results"
done

# The published figures (results.py): the pages docs/results/<base>.md,
# their plots' data and the generated blocks of README.md, docs/ and both
# cover letters must be what the committed runs in docs/results/ render,
# and every figure a cover letter states in its own text must have a
# source in figure-sources.conf.  Seconds, no kernel.
if "$REPO/harness/results.py" check >"$LOGS/results-check.log" 2>&1; then
	st=PASS detail=$(tail -n 1 "$LOGS/results-check.log" | sed 's/^results: //')
else
	st=FAIL detail=$(grep -m 1 'error:' "$LOGS/results-check.log" | sed 's/^results: error: //' ||
		tail -n 1 "$LOGS/results-check.log")
fi
printf '%s\t%s\t%s\t%s\n' "$st" docs "docs:results" "$detail" >>"$results"

# The build matrix (build-matrix.sh): mm/ of the series compiled in the
# configurations of harness/matrix.conf, not booted.  On 6.1 make check
# takes the five that take files or struct fields out of the engine
# (about 5 minutes with an empty ccache, seconds when built), make
# check-full all of it (21 minutes with an empty ccache, 6.5 with a warm
# one, before Debian's cloud-amd64 and amd64 configurations, which add 6
# CPU-minutes cold).  On 6.12 make check takes no-sysfs, which takes
# SLUB_DEBUG with it and so out the files that 6.12's own build glue
# names by those two options (base/6.12/patches/0080, 0090), and
# debian-cloud, Debian's cloud-amd64 configuration (the smallest of
# linux-config-6.12's three: 102 objects of mm/, 3.7 CPU-minutes with an
# empty ccache, 50 CPU-seconds with a warm one); make check-full all of
# it too (its own entries, matrix.conf's NAME@6.12; about 40 minutes
# cold, and Debian's amd64 and rt configurations add 8 CPU-minutes).
for b in $bases; do
	[ -z "${VARIANTS:-}" ] || break
	case $b/${FULL:-0} in
	6.1/0) m="no-numa no-smp no-slub-debug no-sysfs no-debugfs" ;;
	*/0) m="no-sysfs debian-cloud" ;;
	*) m= ;;
	esac
	log "build matrix on $b: ${m:-every entry of harness/matrix.conf} (log: ${LOGS#$REPO/}/matrix-$b.log)"
	rc=0
	BASE=$b MATRIX=$m RESULTS=$results "$REPO/harness/build-matrix.sh" >"$LOGS/matrix-$b.log" 2>&1 || rc=$?
	[ $rc = 0 ] || grep -q "^FAIL	build-matrix	build:[^	]*$(base_suffix "$b")	" "$results" ||
		printf 'FAIL\tbuild-matrix\tbuild-matrix.sh%s\texit status %s (%s)\n' "$(base_suffix "$b")" $rc \
			"$(tail -n 1 "$LOGS/matrix-$b.log")" >>"$results"
done

# The series' fastpaths must commit with one %gs cmpxchg16b (none on
# PREEMPT_RT, where they take the cpu's lock) and never lock nor disable
# interrupts, in the function or in what its fast path calls; fastpath.py
# checks the built vmlinux: kmem_cache_alloc/free, and kmalloc's entry
# points (__kmalloc, kmalloc_trace for a constant size) and kfree, whose
# fastpaths are the engine's, in the functions they call.
# 6.12 names them kmem_cache_alloc_noprof, __kmalloc_noprof and
# __kmalloc_cache_noprof.
for p in $profiles; do
	[ "$(profile_kind "$p")" = series ] || continue
	fns=$(fastpath_fns "$(profile_base "$p")")
	pout=$(profile_out "$p")
	for fn in $fns; do
		# Without SMP, per-cpu data is not %gs-relative: fastpath.py's
		# patterns are those of an SMP kernel.  The skip goes through
		# the manifest, which names the profiles meant to lack SMP: one
		# that lost it is a FAIL, not a quiet skip of its fastpaths.
		if ! grep -q '^CONFIG_SMP=y' "$pout/.config"; then
			printf 'SKIP\tfastpath:%s\t%s\n' "$fn" \
				"no CONFIG_SMP: per-cpu accesses have no %gs prefix to check" |
				BOOT_CONFIG=$pout/.config "$REPO/harness/parse-results.py" --skips "$p" >>"$results" ||
				printf 'FAIL\t%s\tfastpath:%s\tparse-results.py --skips failed\n' "$p" "$fn" >>"$results"
			continue
		fi
		# PREEMPT_RT: the freelist fastpaths take the cpu's lock.
		rt=
		grep -q '^CONFIG_PREEMPT_RT=y' "$pout/.config" && rt=--rt
		# shellcheck disable=SC2086
		if "$REPO/harness/fastpath.py" "$pout/vmlinux" $rt "$fn" >"$LOGS/fastpath-$p-$fn.txt" 2>&1; then
			st=PASS
		else
			st=FAIL
		fi
		printf '%s\t%s\t%s\t%s\n' "$st" "$p" "fastpath:$fn" \
			"$(tail -n 1 "$LOGS/fastpath-$p-$fn.txt" | sed 's/^ *=> //')" >>"$results"
	done
done
# The cost model's plugin on the host (plugin-test.sh, make plugin-test):
# made-up instructions and accesses whose every count follows from the
# cache geometry and the instruction encodings, no QEMU, no kernel.  PASS
# only on a positive count of checks and none failed.  Seconds.
log "model: the slabcost plugin on the host (log: ${LOGS#$REPO/}/plugin-test.log)"
RESULTS=$results "$REPO/harness/plugin-test.sh" >"$LOGS/plugin-test.log" 2>&1 || true
grep -q $'\tmodel:plugin-unit\t' "$results" ||
	printf 'FAIL\tmodel\tmodel:plugin-unit\tplugin-test.sh wrote no row: %s\n' \
		"$(tail -n 1 "$LOGS/plugin-test.log")" >>"$results"
# The bench's cost model (harness/plugin/slabcost.c): two icount boots of
# the series kernel under the plugin, with a fastpath case, fork+exec and
# a dd (the shell's windows), then, as every boot under the plugin ends,
# slab_bench's modelcal windows, whose counts are known exactly (misses
# at each level, stores, the locked and interrupt events, struct page
# lines, the call counts of the calls= file).  model-report.py must find
# each modelcal window of its list once in each boot, counted as its code
# executes, no "BENCH: error" line, and the two boots identical; so CI
# sees a plugin that no longer builds, loads or counts.  About 20 s.
if [ -z "${VARIANTS:-}" ] && echo "$profiles" | grep -qx series; then
	log "model: two icount boots of series under the slabcost plugin"
	mdir=$BUILD/model-check
	rm -rf "$mdir"
	mkdir -p "$mdir"
	rc=0
	for run in 1 2; do
		model_calls_file "$(profile_out series)/System.map" "$mdir/calls.txt"
		"$REPO/harness/run-qemu.sh" series "$LOGS/console-model-$run.log" -u bench -i -s 1 \
			-m 512M -P "$mdir/counts-$run" -C "$mdir/calls.txt" -a "kunit.filter_glob=none_such harness.bench_mode=icount harness.bench_model=1 harness.bench_cases=calib,fast harness.bench_forkexec=2 harness.bench_dd=2" ||
			rc=$?
		model_index icount series $run "$LOGS/console-model-$run.log" \
			"$mdir/counts-$run" "$(profile_out series)/System.map" >>"$mdir/index.tsv"
	done
	if [ $rc != 0 ]; then
		st=FAIL detail="a boot failed (exit $rc)"
	elif "$REPO/harness/model-report.py" "$mdir/index.tsv" "$REPO/harness/costmodel.conf" \
		"$mdir/model.md" >"$LOGS/model-check.log" 2>&1; then
		st=PASS detail=$(sed -n 's/^model: //p' "$LOGS/model-check.log")
	else
		st=FAIL detail=$(grep -m 1 '^error:' "$LOGS/model-check.log" || tail -n 1 "$LOGS/model-check.log")
	fi
	printf '%s\tmodel\tmodel:slabcost\t%s\n' "$st" "$detail" >>"$results"
fi

echo "$variants" | while read -r name profile vcpus mem numa extra; do
	# harness.suite=NAME on a variant's command line runs that suite of
	# guest/init instead of check (the distribution profile's "distro").
	suite=$(echo "$extra" | sed -n 's/.*harness\.suite=\([a-z]*\).*/\1/p')
	extra=$(echo "$extra" | sed -e 's/ *harness\.suite=[a-z]*//' -e 's/^ *//')
	opts=(-s "$vcpus" -m "$mem" -u "${suite:-check}")
	# harness.timeout=N on a variant's command line raises the boot's
	# hard timeout (run-qemu.sh -t, 600 s by default).
	tmo=$(echo "$extra" | sed -n 's/.*harness\.timeout=\([0-9]*\).*/\1/p')
	[ -n "$tmo" ] && opts+=(-t "$tmo")
	[ "$numa" != "-" ] && opts+=(-n "$numa")
	[ -n "$extra" ] && opts+=(-a "$extra")
	what="$vcpus vCPUs, $mem"
	[ "$numa" != "-" ] && what="$what, numa=fake=$numa"
	[ -n "$extra" ] && what="$what, $extra"
	log "$name: booting $profile ($what)"
	t0=$(date +%s)
	rc=0
	"$REPO/harness/run-qemu.sh" "$profile" "$LOGS/console-$name.log" "${opts[@]}" || rc=$?
	# A boot that QEMU broke, not the kernel: an int3 oops where memory
	# no longer holds the int3 (harness/stale-int3.py).  It is booted
	# once more; the broken boot's log stays beside the new one, and
	# the summary names it under "Retried".
	if [ $rc != 0 ] &&
	   why=$("$REPO/harness/stale-int3.py" "$LOGS/console-$name.log"); then
		mv "$LOGS/console-$name.log" "$LOGS/console-$name.stale-int3.log"
		log "$name: QEMU ran a stale int3 ($why); booting once more"
		printf 'RETRY\t%s\tboot\tQEMU TCG ran a stale int3: %s (%s)\n' "$name" "$why" \
			"${LOGS#$REPO/}/console-$name.stale-int3.log" >>"$results"
		rc=0
		"$REPO/harness/run-qemu.sh" "$profile" "$LOGS/console-$name.log" "${opts[@]}" || rc=$?
	fi
	BOOT_CONFIG=$(profile_out "$profile")/.config \
		"$REPO/harness/parse-results.py" "$name" "$LOGS/console-$name.log" "$rc" >>"$results"
	log "$name: $(awk -F'\t' -v v="$name" '$2 == v { n[$1]++ } END {
		printf "%d passed, %d failed, %d skipped", n["PASS"], n["FAIL"], n["SKIP"] }' "$results") in $(($(date +%s) - t0))s"
done

if [ "${FULL:-0}" = 1 ] && [ -z "${VARIANTS:-}" ]; then
	# Each base's series patch by patch (series-check.sh): make series
	# above only shows that the split diffs apply; a step that no
	# longer builds or boots on its own shows here.
	for b in $bases; do
		log "series-check on $b: git am, checkpatch, build and boot each patch"
		rc=0
		BASE=$b "$REPO/harness/series-check.sh" >"$LOGS/series-check-$b.log" 2>&1 || rc=$?
		printf '%s\tseries-check\tseries-check:%s\t%s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
			"$b" "exit status $rc (build/series-check$(base_suffix "$b")/report.txt)" >>"$results"
	done
	log "badinput: the misuses of the slab API, upstream SLUB against the series"
	rc=0
	RESULTS=$results "$REPO/harness/badinput.sh" || rc=$?
	grep -q "	badinput	" "$results" || rc=1
	printf '%s\tbadinput\tbadinput.sh\t%s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
		"exit status $rc (build/badinput$(base_suffix).md)" >>"$results"
	# The mutants name variants of both bases: a make check-full of one
	# base (BASE=) leaves them to one that covers both.
	if [ -n "$BASE_GIVEN" ]; then
		printf 'SKIP\tmutants\tcheck-mutants.sh\tthe mutants need both bases (BASE=%s given)\n' \
			"$BASE" >>"$results"
	else
		log "mutants: each deliberate breakage must turn make check red"
		rc=0
		RESULTS=$results "$REPO/harness/check-mutants.sh" || rc=$?
		printf '%s\tmutants\tcheck-mutants.sh\t%s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
			"exit status $rc (build/mutants/report.txt)" >>"$results"
	fi
fi

echo
echo "Linux $version; console logs in ${LOGS#$REPO/}/console-<variant>.log"
"$REPO/harness/summary.py" "$results"
