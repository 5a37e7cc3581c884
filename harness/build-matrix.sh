#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make build-matrix: configure the series tree once per entry of
# harness/matrix.conf and compile only mm/ (and the series' files in
# lib/ that the config turns on), without linking or booting, each entry
# in its own build/out/matrix-<name>, incrementally across runs.
# On 6.12 (the default base) the series tree of 6.12 under its series
# profile (series-6.12, lib.sh series_profile), into
# build/out/matrix-<name>@6.12, with result lines build:<name>@6.12; on
# BASE=6.1 the series profile, build/out/matrix-<name>, build:<name>.
# An entry NAME@V of matrix.conf is base V's only.
#
# An entry debian=FLAVOUR starts from Debian's own configuration of the
# base (linux-config-V, lib.sh debian_config) instead of the series
# profile, and takes olddefconfig on the series tree.
#
# An entry passes when its .config has every option it asked for, mm/
# compiles, no warning points into a file of the series, and no symbol
# that mm/'s own headers declare is left undefined by mm/built-in.a (the
# link error a full vmlinux would hit when a file is configured out).
# An option that Kconfig refuses fails the entry, unless the entry is
# marked "refused" in matrix.conf with a reason (SKIP); an entry whose
# .config comes out the same as an earlier one's shares its result.  An
# entry marked "xfail NAME FILE REASON" must fail to build, every
# compiler error of its log an #error directive in FILE (built with -k,
# so that the rest of mm/ is compiled and judged too): then it is a SKIP
# that says so; a build that passes, or that fails otherwise, FAILs.
#
# MATRIX="a b" picks entries; RANDSEEDS="0x.. 0x.." replaces the
# randconfig entries by one per seed.  RESULTS=<file> appends the result
# lines there (make check); otherwise they go to build/matrix-results.tsv
# and summary.py prints them.  Exit status 1 on any failure.
set -eu
STAGE=matrix
. "$(dirname "$0")/lib.sh"

# matrix.conf of this base: an entry named NAME@V is base V's only (and
# is NAME there), one without @ every base's; likewise "refused NAME@V".
matrix_conf() {
	conf matrix | awk -v base="$BASE" '
		{ i = $1 == "refused" || $1 == "xfail" ? 2 : 1; n = $i }
		n ~ /@/ { if (substr(n, index(n, "@") + 1) != base) next; $i = substr(n, 1, index(n, "@") - 1) }
		{ print }'
}

entries=$(matrix_conf | awk '$1 != "refused" && $1 != "xfail"')
if [ -n "${RANDSEEDS:-}" ]; then
	entries=$(echo "$entries" | grep -v ' randconfig=' || true)
	for s in $RANDSEEDS; do
		entries="$entries
rand-$s randconfig=$s"
	done
fi
if [ -n "${MATRIX:-}" ]; then
	entries=$(echo "$entries" | awk -v want=" $MATRIX " 'index(want, " " $1 " ")')
	[ -n "$entries" ] || die "no entry of harness/matrix.conf matches MATRIX='$MATRIX'"
fi

"$REPO/harness/prepare.sh"
src=$(series_tree)
# Every Kconfig file of the tree, read once: an entry reconfigures when one
# changes.
kconfig_sum=$(find "$src" -name 'Kconfig*' -type f -print0 | sort -z | xargs -0 cat | sha1sum | cut -c1-8)
sfx=$(base_suffix)
# The series profile's fragments (profiles.conf), under every entry:
# series on 6.1, series-6.12 on 6.12 (lib.sh series_profile).
set -- $(conf_entry profiles "$(series_profile)")
shift 2
pfrags=
for f in "$@"; do
	pfrags="$pfrags $REPO/harness/configs/$f.config"
done
randfrag=$REPO/harness/configs/rand.config

standalone=0
results=${RESULTS:-}
if [ -z "$results" ]; then
	standalone=1
	results=$BUILD/matrix-results.tsv
	: >"$results"
fi

# Every CONFIG_ symbol the tree's Kconfig files define: an entry naming
# another one (a typo, or an option of another version) is refused, even
# when it asks for n, which a missing option would otherwise satisfy.
syms=$BUILD/out/.matrix-kconfig-symbols$sfx
mkdir -p "$BUILD/out"
if [ ! -s "$syms" ] || [ -n "$(find "$src" -name 'Kconfig*' -newer "$syms" -print -quit)" ]; then
	find "$src" -name 'Kconfig*' -exec sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' {} + |
		sort -u >"$syms"
fi

# The files of the series (a warning there fails the entry) and the
# functions mm/'s own headers declare (not static, at the start of a
# line, as kernel style writes prototypes).
series_files=$(sed 's/[.[\*^$]/\\&/g' "$src.manifest" | paste -sd'|')
declared=$BUILD/out/.matrix-mm-declared$sfx
sed -n '/^[A-Za-z_]/p' "$src"/mm/*.h | grep -v '^static' |
	grep -oE '[A-Za-z_][A-Za-z0-9_]*\(' | tr -d '(' | sort -u >"$declared"

record() {
	printf '%s\t%s\t%s\t%s\n' "$1" build-matrix "build:$2$sfx" "$3" >>"$results"
	log "$2: $1 $3"
}

# kmake of the entry's tree and output, with the host programs (kconfig,
# fixdep, objtool: each cold output directory builds its own) through
# ccache too.
mkm() {
	kmake "$src" "$out" HOSTCC="$(kcc)" "$@"
}

# The entry's .config: randconfig from its seed, Debian's configuration
# with the entry's options merged in, or tinyconfig with the profile's
# fragments and then the entry's merged in.
configure() {
	if [ -n "$seed" ]; then
		KCONFIG_SEED=$seed KCONFIG_ALLCONFIG=$randfrag mkm randconfig
	elif [ -n "$dconf" ]; then
		cp "$dconf" "$out/.config" &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" &&
		mkm olddefconfig
	else
		# shellcheck disable=SC2086
		mkm tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $pfrags "$frag" &&
		mkm olddefconfig
	fi
}

declare -A by_config=()
failed=0
while read -r name opts <&3; do
	out=$BUILD/out/matrix-$name$sfx
	blog=$LOGS/matrix-$name$sfx.log
	mkdir -p "$out"
	: >"$blog"
	frag=$out/.harness-matrix.config
	seed=
	dconf=
	case $opts in
	randconfig=*)
		seed=${opts#randconfig=}
		cp "$randfrag" "$frag"
		;;
	*)
		: >"$frag"
		for o in $opts; do
			case $o in
			+*)
				[ -f "$REPO/harness/configs/${o#+}.config" ] ||
					die "matrix entry $name: no harness/configs/${o#+}.config"
				cat "$REPO/harness/configs/${o#+}.config" ;;
			CONFIG_*=n) echo "# ${o%=n} is not set" ;;
			CONFIG_*=*) echo "$o" ;;
			debian=*) dconf=$(debian_config "${o#debian=}") || exit 1 ;;
			*) die "matrix entry $name: '$o' is neither CONFIG_X=value, +fragment nor debian=FLAVOUR" ;;
			esac >>"$frag"
		done
		;;
	esac

	# Configure only when the entry, the profile's fragments, the tree
	# or its Kconfig files changed (the series' own Kconfig patches:
	# what the entry requires is checked in the .config configured
	# here, before kbuild would sync it), so that a second run is
	# incremental.
	# shellcheck disable=SC2086
	if [ -n "$dconf" ]; then
		stamp=$(cat "$dconf" "$frag" | sha1sum | cut -c1-16)-debian-$(echo "$src" | sha1sum | cut -c1-8)
	else
		stamp=$(cat $pfrags "$frag" | sha1sum | cut -c1-16)-$seed-$(echo "$src" | sha1sum | cut -c1-8)
	fi
	stamp=$stamp-$kconfig_sum
	t0=$(date +%s)
	if [ ! -f "$out/.config" ] || [ "$(cat "$out/.harness-config" 2>/dev/null)" != "$stamp" ]; then
		rm -f "$out/.harness-config"
		if [ -n "$seed" ]; then
			log "$name: make randconfig KCONFIG_SEED=$seed KCONFIG_ALLCONFIG=${randfrag#$REPO/}"
		elif [ -n "$dconf" ]; then
			log "$name: configuring (Debian's ${dconf##*/config.} of linux-config-$BASE, olddefconfig, then $opts)"
		else
			log "$name: configuring (series profile, then $opts)"
		fi
		if ! configure >>"$blog" 2>&1; then
			record FAIL "$name" "configuration failed: $(grep -m 1 -i 'error' "$blog" || tail -n 1 "$blog") (log: ${blog#$REPO/})"
			failed=1
			continue
		fi
		echo "$stamp" >"$out/.harness-config"
	fi
	tconf=$(($(date +%s) - t0))
	what=${seed:+"KCONFIG_SEED=$seed: "}

	# What the entry asked for must be in its .config.
	unknown=$(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1/p' "$frag" |
		sort -u | comm -23 - "$syms" | paste -sd' ')
	bad=$(config_unmet "$out/.config" "$frag" | paste -sd' ')
	[ -n "$unknown" ] && bad="no such option: $unknown${bad:+; }$bad"
	if [ -n "$bad" ]; then
		why=$(matrix_conf | awk -v n="$name" '$1 == "refused" && $2 == n { $1 = $2 = ""; sub(/^ */, ""); print }')
		if [ -n "$why" ]; then
			record SKIP "$name" "refused by Kconfig as expected: $bad; $why"
		else
			record FAIL "$name" "${what}refused by Kconfig: $bad"
			failed=1
		fi
		continue
	fi

	# The same .config as an earlier entry: the same build.
	key=$(sha1sum <"$out/.config" | cut -c1-40)
	if [ -n "${by_config[$key]:-}" ]; then
		set -- ${by_config[$key]}
		record "$1" "$name" "same .config as $2"
		[ "$1" = FAIL ] && failed=1
		continue
	fi

	targets=mm/
	grep -qE '^CONFIG_SLUB_KUNIT_TEST=[ym]' "$out/.config" && targets="$targets lib/slub_kunit.o"
	grep -qE '^CONFIG_TEST_SLAB_API=[ym]' "$out/.config" && targets="$targets lib/test_slab_api.o"
	kind=incremental
	[ -f "$out/mm/built-in.a" ] || kind=cold
	# xfail NAME FILE REASON: the file whose #error must stop the build.
	read -r xfile xwhy <<<"$(matrix_conf | awk -v n="$name" '$1 == "xfail" && $2 == n { $1 = $2 = ""; print }')"
	keep=
	[ -n "$xfile" ] && keep=-k
	log "$name: ${what}building $targets ($kind, -j$JOBS${keep:+, -k: expected to fail in $xfile}, log: ${blog#$REPO/})"
	t1=$(date +%s)
	st=PASS
	# shellcheck disable=SC2086
	mkm -j"$JOBS" $keep $targets >>"$blog" 2>&1 || st=FAIL
	warn=$(grep -E "(^|/)($series_files):[0-9]+:([0-9]+:)? warning:" "$blog" | sed -E "s#$src/|([.][.]/)+src/${src##*/}/##g" | sort -u)
	# kbuild warns only when it compiles: drop the objects built from
	# the files warned about, also when another file failed, so that
	# the next run compiles them again rather than passing silently.
	for f in $(echo "$warn" | cut -d: -f1 | sort -u); do
		find "$out" -name '.*.o.cmd' -exec grep -l -F "$f" {} + 2>/dev/null |
			sed 's|/\.\([^/]*\)\.cmd$|/\1|' | xargs -r rm -f
	done
	errs=$(grep -E 'error:' "$blog" | sed -E "s#$src/|([.][.]/)+src/${src##*/}/##g" | sort -u || true)
	if [ -n "$xfile" ]; then
		# Expected to fail: by the #error of xfile alone.
		xfile_re=$(echo "$xfile" | sed 's/[.[\*^$]/\\&/g')
		other=$(echo "$errs" | grep -vE "^$xfile_re:[0-9]+:([0-9]+:)? error: #error " || true)
		if [ $st = PASS ]; then
			st=FAIL
			detail="built, yet matrix.conf expects it to fail in $xfile ($xwhy): drop its xfail line"
		elif [ -z "$errs" ] || [ -n "$other" ]; then
			detail="build failed, not only by the #error of $xfile that matrix.conf expects: $(echo "${other:-no compiler error in the log}" | head -n 1)"
		elif [ -n "$warn" ]; then
			detail="$(echo "$warn" | wc -l) warning(s) in the series' files: $(echo "$warn" | head -n 1)"
		else
			st=SKIP
			detail="fails as expected: $(echo "$errs" | head -n 1 | sed -E 's/^([^:]*:[0-9]+):[0-9]+: error: /\1: /'); $(find "$out/mm" -name '*.o' | wc -l) objects of mm/ compiled beside it (-k); $xwhy"
		fi
	elif [ $st = FAIL ]; then
		detail="build failed: $(grep -m 1 -E 'error:|Error [0-9]' "$blog" | sed -E "s#$src/|([.][.]/)+src/${src##*/}/##g" || true)"
	else
		detail="$targets in $(($(date +%s) - t1))s ($kind; configured in ${tconf}s)"
		ld -r -o "$out/.harness-mm.o" --whole-archive "$out/mm/built-in.a" >>"$blog" 2>&1 || true
		undef=$(nm -u "$out/.harness-mm.o" 2>>"$blog" | awk '{ print $2 }' | sort -u | comm -12 - "$declared" | paste -sd' ')
		if [ -n "$warn" ]; then
			st=FAIL
			detail="$(echo "$warn" | wc -l) warning(s) in the series' files: $(echo "$warn" | head -n 1)"
		elif [ -n "$undef" ]; then
			st=FAIL
			detail="declared in mm/*.h, undefined in mm/built-in.a: $undef"
		fi
	fi
	record "$st" "$name" "$what$detail"
	[ "$st" = FAIL ] && { failed=1; echo "  log: ${blog#$REPO/}"; }
	by_config[$key]="$st $name"
done 3<<<"$entries"

if [ "$standalone" = 1 ]; then
	exec "$REPO/harness/summary.py" "$results"
fi
exit $failed
