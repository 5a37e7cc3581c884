# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts.  Sourced, never run.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
LOGS=$BUILD/logs
JOBS=${JOBS:-$(nproc)}
HARNESS_T0=${HARNESS_T0:-$(date +%s)}
export HARNESS_T0
mkdir -p "$LOGS"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$REPO}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros}
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2022-12-11}
export KBUILD_BUILD_USER=slab KBUILD_BUILD_HOST=harness

STAGE=${STAGE:-harness}

# Paths of this repo that are laid into the kernel tree whole (prepare.sh),
# and that the patch series must cover (series.py).
SERIES_PATHS="mm include lib Documentation tools/testing/selftests/slab"

log() {
	printf '[%s %4ds] %s\n' "$STAGE" $(($(date +%s) - HARNESS_T0)) "$*"
}

die() {
	printf '%s: error: %s\n' "$STAGE" "$*" >&2
	exit 1
}

kcc() {
	if command -v ccache >/dev/null 2>&1; then
		echo "ccache gcc"
	else
		echo gcc
	fi
}

# Run "make" in a kernel source tree with a separate output directory.
kmake() {
	local src=$1 out=$2
	shift 2
	make -s -C "$src" O="$out" CC="$(kcc)" HOSTCC=gcc "$@"
}

# The bases: Debian's linux-source-<V> packages.  BASE (by default
# DEFAULT_BASE, 6.12, the LTS that current distributions ship) is the
# base of every profile whose tree column names none
# (harness/profiles.conf, the bench kernels): "bench-internal" is built
# on BASE, "series@6.1" on 6.1 whatever BASE is.  BASE_GIVEN says whether
# the user chose it (make check BASE=V runs only the variants of V).
BASES="6.1 6.12"
DEFAULT_BASE=6.12
BASE_GIVEN=${BASE:+1}
BASE=${BASE:-$DEFAULT_BASE}
case " $BASES " in
*" $BASE "*) ;;
*) die "BASE=$BASE: unknown base (the bases: $BASES)" ;;
esac

# base_suffix [V]: what names the outputs of base V apart: nothing for
# 6.1, whose outputs keep the names they had before there was a second
# base (build/out/series), "@V" for another (build/out/series@6.12).
base_suffix() {
	local v=${1:-$BASE}
	[ "$v" = 6.1 ] || echo "@$v"
}

# kselftest_install [ROOT]: where kselftest.sh installs the slab
# kselftests of BASE's series tree, under ROOT (default BUILD).
kselftest_install() {
	echo "${1:-$BUILD}/kselftest/install$(base_suffix)"
}

# profile_tree_column PROFILE: the tree column of PROFILE (series@6.12,
# say); profile_kind PROFILE: the column without its base (series,
# pristine or a harness/trees/ patch); profile_base PROFILE: its base,
# the one the column names or BASE.  Each dies on an unknown profile.
profile_tree_column() {
	local kind
	kind=$(conf_entry profiles "$1" | awk '{ print $2 }')
	[ -n "$kind" ] || die "unknown profile '$1' (see harness/profiles.conf)"
	echo "$kind"
}

profile_kind() {
	local kind
	kind=$(profile_tree_column "$1") || exit 1
	echo "${kind%@*}"
}

profile_base() {
	local kind
	kind=$(profile_tree_column "$1") || exit 1
	case $kind in
	*@*) echo "${kind#*@}" ;;
	*) echo "$BASE" ;;
	esac
}

# profile_key PROFILE: the name of PROFILE's outputs, build/out/KEY,
# build/initramfs/KEY.cpio.gz, build/modules/KEY and the build log: the
# profile's own name where its tree names its base or the base is 6.1,
# else PROFILE@BASE (make kernel PROFILE=bench-internal builds
# build/out/bench-internal@6.12, beside 6.1's build/out/bench-internal).
profile_key() {
	local kind
	kind=$(profile_tree_column "$1") || exit 1
	case $kind in
	*@*) echo "$1" ;;
	*) echo "$1$(base_suffix)" ;;
	esac
}

# profile_out PROFILE: PROFILE's kernel output directory.
profile_out() {
	local key
	key=$(profile_key "$1") || exit 1
	echo "$BUILD/out/$key"
}

# base_tree [V]: the pristine tree of base V (by default $BASE), Debian's
# linux-source-V unpacked under build/, or $KERNEL_SRC for the default
# base.  Prints its path.
base_tree() {
	local v=${1:-$BASE}
	case " $BASES " in
	*" $v "*) ;;
	*) die "unknown base '$v' (the bases: $BASES)" ;;
	esac
	if [ -n "${KERNEL_SRC:-}" ] && [ "$v" = "$BASE" ]; then
		[ -f "$KERNEL_SRC/Makefile" ] && [ -f "$KERNEL_SRC/mm/slab_common.c" ] ||
			die "KERNEL_SRC=$KERNEL_SRC is not a Linux source tree"
		if [ -e "$KERNEL_SRC/.config" ] || [ -d "$KERNEL_SRC/include/config" ]; then
			die "KERNEL_SRC=$KERNEL_SRC has been built in place; out-of-tree builds need a clean tree (run 'make mrproper' there or point at a clean copy)"
		fi
		local kv
		kv=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { print v "." $2; exit }' \
			"$KERNEL_SRC/Makefile")
		[ "$kv" = "$v" ] ||
			die "KERNEL_SRC=$KERNEL_SRC is Linux $kv, not base $v (set BASE=$kv if that is one of: $BASES)"
		(cd "$KERNEL_SRC" && pwd)
		return
	fi
	local tarball=/usr/src/linux-source-$v.tar.xz
	local dir=$BUILD/linux-source-$v
	if [ ! -e "$dir/.harness-unpacked" ]; then
		[ -f "$tarball" ] || die "$tarball missing: install linux-source-$v"
		log "unpacking $tarball" >&2
		rm -rf "$dir"
		tar -C "$BUILD" -xf "$tarball" || die "cannot unpack $tarball"
		touch "$dir/.harness-unpacked"
	fi
	echo "$dir"
}

# debian_config FLAVOUR [V]: Debian's kernel configuration FLAVOUR of
# base V (amd64_none_amd64, amd64_none_cloud-amd64, amd64_rt_amd64), from
# Debian's linux-config-V, unpacked into build/debian-config/V/ and
# replaced when the package's copy differs.  Prints its path.
debian_config() {
	local flavour=$1 v=${2:-$BASE} xz dir
	xz=/usr/src/linux-config-$v/config.$flavour.xz
	dir=$BUILD/debian-config/$v
	[ -d "/usr/src/linux-config-$v" ] || die "/usr/src/linux-config-$v missing: install linux-config-$v"
	[ -f "$xz" ] || die "no Debian configuration $flavour in linux-config-$v (it has: $(cd "/usr/src/linux-config-$v" && ls config.*.xz | sed 's/^config\.//; s/\.xz$//' | paste -sd' '))"
	mkdir -p "$dir"
	xz -dc "$xz" >"$dir/.config.$flavour.tmp" || die "cannot unpack $xz"
	if cmp -s "$dir/.config.$flavour.tmp" "$dir/config.$flavour"; then
		rm -f "$dir/.config.$flavour.tmp"
	else
		mv "$dir/.config.$flavour.tmp" "$dir/config.$flavour"
	fi
	echo "$dir/config.$flavour"
}

# The entries of harness/NAME.conf (profiles, variants, variants-full):
# their lines without comments and blank lines.  "conf NAME..." prints
# those of each file in turn, "conf_entry NAME KEY" those of one file
# whose first field is KEY (the profile or variant named KEY).
conf() {
	local name files=()
	for name in "$@"; do
		files+=("$REPO/harness/$name.conf")
	done
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${files[@]}"
}

conf_entry() {
	conf "$1" | awk -v k="$2" '$1 == k'
}

# The per-base layer of the series.  The files at their kernel paths and
# patches/ are base 6.1's; another base V has base/V/: base/V/patches/
# (its diffs and their series file) and, at their kernel paths under
# base/V/, the files that replace or add to the shared ones for V (the
# struct and hook header mm/slub_base.h, say).  base_layer V prints
# base/V relative to the repo, or nothing for 6.1.
base_layer() {
	local v=${1:-$BASE}
	[ "$v" = 6.1 ] || echo "base/$v"
}

# base_patches [V]: the directory of base V's diffs and series file.
base_patches() {
	local layer
	layer=$(base_layer "$@")
	echo "$REPO/${layer:+$layer/}patches"
}

# base_patch V NAME: the diff NAME of base V's series file: base V's own,
# else 6.1's of the same name (patches/NAME), where one diff fits both.
base_patch() {
	local own
	own=$(base_patches "$1")/$2
	if [ -f "$own" ] || [ ! -f "$REPO/patches/$2" ]; then
		echo "$own"
	else
		echo "$REPO/patches/$2"
	fi
}

# series_tree [V]: where prepare.sh lays the series onto base V:
# build/src/series for 6.1, build/src/series-V for another base, whatever
# BASE is, so that the trees of the two bases never take each other's
# place (and their kernels' objects stay valid).
series_tree() {
	local v=${1:-$BASE}
	if [ "$v" = 6.1 ]; then
		echo "$BUILD/src/series"
	else
		echo "$BUILD/src/series-$v"
	fi
}

# series_profile [V]: the profile that "make", "make shell" and the
# other one-kernel targets build by default on base V: series (the
# 56-byte struct page) on 6.1, series-6.12 (memcg and allocation
# profiling, so a 64-byte page in either layout) on 6.12.
series_profile() {
	local v=${1:-$BASE}
	if [ "$v" = 6.1 ]; then
		echo series
	else
		echo "series-$v"
	fi
}

# bench_kernels [V]: make bench's kernels on base V, "name:profile" words,
# ours first.  6.12 has no SLAB (removed in 6.8), so four of 6.1's five.
bench_kernels() {
	case ${1:-$BASE} in
	6.1) echo "ours-aligned:bench-aligned ours-internal:bench-internal slub:bench-slub slub56:bench-slub56 slab:bench-slab" ;;
	*) echo "ours-aligned:bench-aligned ours-internal:bench-internal slub:bench-slub slub56:bench-slub56" ;;
	esac
}

# fastpath_fns [V]: the entry points whose fast paths fastpath.py checks
# on base V: kmem_cache_alloc/free, kmalloc's for a variable and for a
# constant size, and kfree.  6.12 names them *_noprof (memory allocation
# profiling's wrappers around them are macros).
fastpath_fns() {
	case ${1:-$BASE} in
	6.1) echo "kmem_cache_alloc kmem_cache_free __kmalloc kmalloc_trace kfree" ;;
	*) echo "kmem_cache_alloc_noprof kmem_cache_free __kmalloc_noprof __kmalloc_cache_noprof kfree" ;;
	esac
}

# base_version [V]: the kernel version of base_tree V.
base_version() {
	local tree
	tree=$(base_tree "$@") || exit 1
	make -s -C "$tree" kernelversion
}

# patched_tree NAME [V]: a copy of base V (by default BASE) with
# harness/trees/NAME.patch applied (NAME@V.patch where base V has its
# own), in build/src/NAME, or NAME@V for a base other than 6.1; remade
# when the patch or the base changes.  Prints its path.  The copy
# hard-links the base, so the patched files are replaced, never written
# into.
patched_tree() {
	local name=$1 v=${2:-$BASE} base tree patch stamp f
	base=$(base_tree "$v") || exit 1
	tree=$BUILD/src/$name$(base_suffix "$v")
	patch=$REPO/harness/trees/$name@$v.patch
	[ -f "$patch" ] || patch=$REPO/harness/trees/$name.patch
	[ -f "$patch" ] || die "no harness/trees/$name.patch"
	stamp="$base $(sha1sum <"$patch" | cut -c1-16)"
	if [ "$(cat "$tree/.harness-patched" 2>/dev/null)" != "$stamp" ]; then
		log "laying ${patch#"$REPO"/} onto a copy of base $v" >&2
		rm -rf "$tree"
		mkdir -p "$tree"
		# The contents: a symlinked KERNEL_SRC must not become the tree.
		cp -al "$base/." "$tree" 2>/dev/null || cp -a "$base/." "$tree"
		rm -f "$tree/.harness-unpacked"
		for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch"); do
			rm -f "$tree/$f"
			cp "$base/$f" "$tree/$f"
		done
		patch -p1 -d "$tree" -N -s --no-backup-if-mismatch -r - <"$patch" >&2 ||
			die "${patch#"$REPO"/} does not apply to base $v"
		echo "$stamp" >"$tree/.harness-patched"
	fi
	echo "$tree"
}

# config_unmet CONFIG FRAGMENT...: each option the fragments ask for (the
# last word wins; "# CONFIG_X is not set" and CONFIG_X=n both mean n)
# that CONFIG does not have, as "CONFIG_X=want (got have)", one a line.
config_unmet() {
	local config=$1 k v have
	shift
	cat "$@" | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 n/p' |
		awk '{ want[$1] = $2 } END { for (k in want) print k, want[k] }' |
		while read -r k v; do
		have=$(sed -n -e "s/^$k=//p" -e "s/^# $k is not set/n/p" "$config")
		[ -z "$have" ] && have=n
		[ "$have" = "$v" ] || echo "$k=$v (got $have)"
	done
}

# One boot's line in the index that harness/model-report.py reads, to
# stdout.  usage: model_index MEASURE VARIANT PASS CONSOLE COUNTS SYSTEM.MAP
model_index() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@"
}

# The functions whose calls the slabcost plugin counts per window (its
# calls= file): the allocator's entry points and the forwarding path's.
# 6.12's names are counted under 6.1's, which the reports know: the
# *_noprof entry points (alloc profiling's macros call them) and
# napi_alloc_skb(), which was __napi_alloc_skb().  slab_bench's modelcal
# "calls" window checks the counting on kmem_cache_alloc and _free.
model_calls="kmem_cache_alloc kmem_cache_free kmem_cache_alloc_bulk kmem_cache_free_bulk
	__kmalloc __kmalloc_node_track_caller kfree napi_consume_skb __napi_alloc_skb ip_forward
	kmem_cache_alloc_noprof kmem_cache_alloc_bulk_noprof __kmalloc_noprof
	__kmalloc_node_track_caller_noprof napi_alloc_skb
	kmem_cache_alloc_node kmem_cache_alloc_node_noprof"

# usage: model_calls_file SYSTEM.MAP FILE: write the calls= file of the
# kernel whose System.map is given.
model_calls_file() {
	# shellcheck disable=SC2086
	awk -v want="$(echo $model_calls)" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) f[w[i]] = 1 }
		$2 ~ /^[Tt]$/ && ($3 in f) {
		sub(/_noprof$/, "", $3); sub(/^napi_alloc_skb$/, "__napi_alloc_skb", $3); print $1, $3 }' "$1" >"$2"
}
