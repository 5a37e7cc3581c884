#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: take the series that `make series` writes to a fresh
# copy of the base tree with git am, one patch at a time, and after each
# patch run scripts/checkpatch.pl --strict on it, build the kernel with
# the configuration of the base's series profile (series on 6.1:
# tinyconfig + harness/configs/base and series, then olddefconfig;
# series-6.12 on 6.12) and boot it under harness/run-qemu.sh
# with the check suite: KUnit and the kselftests of the whole series,
# which skip what a kernel lacks.  A step before the last passes with no
# FAIL, whatever it skips.  Then, on the last tree, build and install the
# slab kselftests the kselftest ways, boot the kernel and hold its results
# to harness/manifest.conf as make check does (SERIES_BOOT=0 skips all
# boots).
#
# Everything lives in build/series-check/, laid out like build/ itself
# (src/series, out/series) so that ccache finds the objects of earlier
# builds of the same sources.  BASE=6.12: the series of make series
# BASE=6.12 (build/series@6.12) onto 6.12, with the configuration of
# profile series-6.12, in build/series-check@6.12/ (src/series-6.12,
# out/series-6.12).  The output directory is rebuilt from
# scratch on every run: the tree is a new copy, and stale objects must
# not survive it.
#
# Fails on a patch that does not apply, a build failure, a checkpatch
# ERROR or a failed boot.  checkpatch WARNINGs are listed: each must be
# fixed or justified in the cover letter (series/cover-letter.txt, or
# base/V/series/cover-letter.txt).
set -eu
STAGE=series-check
. "$(dirname "$0")/lib.sh"

"$REPO/harness/deps.sh" series
"$REPO/harness/series.py"

base=$(base_tree)
version=$(base_version)
sfx=$(base_suffix)
# The profile whose configuration every step builds and whose name the
# boots take (lib.sh, series_profile), and the tree and out directory
# at the same places under build/series-check as that profile's under
# build/.
sp=$(series_profile)
CB=$BUILD/series-check$sfx
st=$(series_tree)
tree=$CB/${st#"$BUILD"/}
out=$CB/out/$(profile_key "$sp")
cpd=$CB/checkpatch
blogs=$CB/logs
report=$CB/report.txt
frags=
for f in $(conf_entry profiles "$sp" | awk '{ for (i = 3; i <= NF; i++) print $i }'); do
	frags="$frags $REPO/harness/configs/$f.config"
done
# 6.12 guests boot with tsc=unstable (harness/variants.conf says why).
cmdline=
[ "$BASE" = 6.1 ] || cmdline=tsc=unstable
patches=$(ls "$BUILD/series$sfx"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter.patch$')
last=$(echo "$patches" | tail -n 1)

# Without a git identity (a CI checkout) git am commits as the
# placeholder series.py signs off with.
name=$(git -C "$REPO" config user.name) || name="Slab Series"
email=$(git -C "$REPO" config user.email) || email=slab@localhost
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

log "fresh copy of the base tree in ${tree#$REPO/}"
rm -rf "$tree" "$out" "$cpd" "$blogs" "$CB/kselftest" "$CB/initramfs" "$CB/modules"
mkdir -p "$tree" "$out" "$cpd" "$blogs"
(cd "$base" && tar --exclude=./.harness-unpacked -cf - .) | tar -C "$tree" -xf -
(
	cd "$tree"
	git init -q
	git config gc.auto 0
	git add -A -f .
	git commit -q -m "Linux $version"
) || die "cannot make a git tree of the base"

# The boots of the steps: the kernel of the step, the kselftests of the
# whole series (installed by kselftest.sh from the tree make series laid)
# and a manifest that lets any test skip.
steps=$CB/steps
boot=${SERIES_BOOT:-1}
if [ "$boot" != 0 ]; then
	"$REPO/harness/kselftest.sh"
	rm -rf "$steps"
	mkdir -p "$steps/out" "$steps/kselftest"
	ln -s "$out" "$steps/out/$(profile_key "$sp")"
	cp -a "$(kselftest_install)" "$(kselftest_install "$steps")"
	echo "skip * * a step of the series before what the test checks" >"$steps/manifest.conf"
fi

# Boot the kernel of step $i, built in $out, as make check boots a
# variant: BUILD=$1 for initramfs.sh and run-qemu.sh (where the
# kselftests come from), variant name $2, console log $3, results $4,
# manifest $5 (empty: harness/manifest.conf).  Prints passed/failed/
# skipped, or the stage that failed; fails on a FAIL.
boot_tree() {
	local bdir=$1 name=$2 clog=$3 results=$4 manifest=$5 rc=0
	rm -rf "$out/modroot"
	kmake "$tree" "$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
		modules_install >>"$blogs/build-$i.log" 2>&1 || { echo "modules_install failed"; return 1; }
	BUILD=$bdir "$REPO/harness/initramfs.sh" "$sp" >>"$blogs/boot-$i.log" 2>&1 ||
		{ echo "initramfs failed"; return 1; }
	BUILD=$bdir "$REPO/harness/run-qemu.sh" "$sp" "$clog" -s 2 -m 512M \
		${cmdline:+-a "$cmdline"} -u check >>"$blogs/boot-$i.log" 2>&1 || rc=$?
	# A boot that QEMU broke with a stale int3 (stale-int3.py) is booted
	# once more, as make check does; the broken log stays beside.
	if [ $rc != 0 ] && why=$("$REPO/harness/stale-int3.py" "$clog"); then
		mv "$clog" "${clog%.log}.stale-int3.log"
		echo "QEMU TCG ran a stale int3 ($why); booting once more" >>"$blogs/boot-$i.log"
		rc=0
		BUILD=$bdir "$REPO/harness/run-qemu.sh" "$sp" "$clog" -s 2 -m 512M \
			${cmdline:+-a "$cmdline"} -u check >>"$blogs/boot-$i.log" 2>&1 || rc=$?
	fi
	# What the boot asked for, which the manifest's skips follow: one
	# node, no extra command line, the step's config; its KUnit cases.
	BOOT_NUMA=- BOOT_CMDLINE=$cmdline BOOT_CONFIG=$out/.config BOOT_TREE=$tree \
		MANIFEST=$manifest \
		"$REPO/harness/parse-results.py" "$name" "$clog" "$rc" >"$results"
	awk -F'\t' '{ n[$1]++ } END {
		printf "%d/%d/%d\n", n["PASS"], n["FAIL"], n["SKIP"]
		exit n["FAIL"] ? 1 : 0 }' "$results"
}

# checkpatch's SPDX check runs scripts/spdxcheck.py with the python3 of
# PATH, which must be the one that has python3-ply and python3-git.
cp_path=/usr/bin:/bin:$PATH

configure() {
	kmake "$tree" "$out" tinyconfig &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
	kmake "$tree" "$out" olddefconfig
}

: >"$report"
failed=0
errors=0
warnings=0
checks=0
built=1
i=0
printf '%-4s %-56s %-11s %-9s %s\n' "#" "patch" "checkpatch" "build" \
	"boot: passed/failed/skipped" | tee -a "$report"
for p in $patches; do
	i=$((i + 1))
	subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$p" | head -n 1)
	cpout=$cpd/$(basename "$p" .patch).txt
	(cd "$tree" && PATH=$cp_path ./scripts/checkpatch.pl --strict "$p") >"$cpout" 2>&1 || true
	read -r e w c < <(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' "$cpout")
	if [ -z "${e:-}" ]; then
		e=1 w=0 c=0
		echo "checkpatch did not run on $p" >>"$cpout"
	fi
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	if ! (cd "$tree" && git am -q "$p") >"$blogs/am-$i.log" 2>&1; then
		cat "$blogs/am-$i.log" >&2
		printf '%-4s %-56.56s %-11s %s\n' "$i" "$subj" "${e}E ${w}W ${c}C" "git am FAILED" | tee -a "$report"
		failed=1
		break
	fi
	res=skipped
	booted=-
	if [ $built = 1 ]; then
		t0=$(date +%s)
		blog=$blogs/build-$i.log
		if configure >"$blog" 2>&1 && kmake "$tree" "$out" -j"$JOBS" bzImage modules >>"$blog" 2>&1; then
			res="ok $(($(date +%s) - t0))s"
		else
			res="FAILED (${blog#$REPO/})"
			grep -E 'error|Error' "$blog" | tail -n 10 >&2 || true
			failed=1 built=0
		fi
	fi
	if [ $built = 1 ] && [ "$boot" != 0 ]; then
		if [ "$p" = "$last" ]; then
			booted="below"
		elif booted=$(boot_tree "$steps" "step-$i" "$blogs/console-$i.log" \
				"$blogs/results-$i.tsv" "$steps/manifest.conf"); then
			booted="ok $booted"
		else
			booted="FAILED $booted"
			failed=1
		fi
	fi
	printf '%-4s %-56.56s %-11s %-9s %s\n' "$i" "$subj" "${e}E ${w}W ${c}C" "$res" "$booted" |
		tee -a "$report"
done
{
	echo
	echo "checkpatch --strict: $errors errors, $warnings warnings, $checks checks over $i patches"
	grep -H -E '^(ERROR|WARNING|CHECK):' "$cpd"/*.txt | sed -e "s|^$cpd/||" -e 's/\.txt:/: /' | sort | uniq -c | sort -k2
} | tee -a "$report"
[ $errors = 0 ] || failed=1

# The kselftests of the last tree, the three ways kselftest documents.
ks() {
	local what=$1
	shift
	if "$@" >>"$blogs/kselftest.log" 2>&1; then
		echo "kselftest: $what: ok" | tee -a "$report"
	else
		echo "kselftest: $what: FAILED (${blogs#$REPO/}/kselftest.log)" | tee -a "$report"
		failed=1
	fi
}
if [ $failed = 0 ]; then
	sel=$tree/tools/testing/selftests
	# Where initramfs.sh (BUILD=$CB) takes the install for the boot.
	cbks=$(kselftest_install "$CB")
	ks "make kselftest-all (O=)" \
		make -s -C "$tree" O="$out" TARGETS=slab kselftest-all
	ks "make -C tools/testing/selftests TARGETS=slab install (O=)" \
		make -s -C "$sel" TARGETS=slab O="$CB/kselftest/obj" \
		KSFT_INSTALL_PATH="$cbks" install
	ks "make -C tools/testing/selftests TARGETS=slab gen_tar (O=)" \
		make -s -C "$sel" TARGETS=slab O="$CB/kselftest/tar" gen_tar
	tarball=$(find "$CB/kselftest/tar" -name kselftest.tar.gz | head -n 1)
	ks "kselftest-all built the slab tests in O=" \
		test -x "$out/kselftest/slab/slabinfo_test"
	ks "the install and the tarball hold slab/config, slab/settings, the tests" \
		sh -c "grep -qx slab:test_slab_api.sh '$cbks/kselftest-list.txt' &&
			test -f '$cbks/slab/settings' &&
			tar tzf '${tarball:-none}' |
			grep -c -x -e ./slab/config -e ./slab/settings -e ./slab/slabinfo_test | grep -qx 3"
fi

# The theory statement and the other kernel-doc the documentation pulls
# in, through kernel-doc and docutils as make htmldocs would see them.
if [ $failed = 0 ]; then
	if PATH=$cp_path "$REPO/harness/doc-check.py" "$tree" Documentation/mm/slub.rst >"$blogs/doc-check.log" 2>&1; then
		echo "kernel-doc of Documentation/mm/slub.rst: ok ($(grep -c '^ok' "$blogs/doc-check.log") checks)" | tee -a "$report"
	else
		sed 's/^/    /' "$blogs/doc-check.log" | tee -a "$report"
		echo "kernel-doc of Documentation/mm/slub.rst: FAILED" | tee -a "$report"
		failed=1
	fi
fi

# Boot the kernel of the last patch, held to harness/manifest.conf.
if [ $failed = 0 ] && [ "$boot" != 0 ]; then
	clog=$blogs/console-series.log
	if counts=$(boot_tree "$CB" series-am "$clog" "$CB/results.tsv" ""); then
		st=ok
	else
		st=FAILED failed=1
	fi
	echo "boot of the git am'd tree (2 vCPUs, 512M): $st $counts passed/failed/skipped (${clog#$REPO/}, ${blogs#$REPO/}/boot-$i.log)" |
		tee -a "$report"
fi

echo "report: ${report#$REPO/}"
[ $failed = 0 ] || die "the series does not pass (see above)"
log "$i patches apply, build at every step and boot; no checkpatch ERROR"
