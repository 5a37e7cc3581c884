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

# The bases: Debian's linux-source-<V> packages.  BASE is the default
# one, that of the series tree; a profile names another in its tree
# column (pristine@6.12, harness/profiles.conf).
BASES="6.1 6.12"
BASE=${BASE:-6.1}

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

# series_tree [V]: where prepare.sh lays the series onto base V.
series_tree() {
	local v=${1:-$BASE}
	if [ "$v" = "$BASE" ]; then
		echo "$BUILD/src/series"
	else
		echo "$BUILD/src/series-$v"
	fi
}

# base_version [V]: the kernel version of base_tree V.
base_version() {
	local tree
	tree=$(base_tree "$@") || exit 1
	make -s -C "$tree" kernelversion
}

# A copy of the base tree with harness/trees/NAME.patch applied, in
# build/src/NAME; remade when the patch or the base changes.  Prints its
# path.  The copy hard-links the base, so the patched files are replaced,
# never written into.
patched_tree() {
	local name=$1 base tree patch stamp f
	base=$(base_tree)
	tree=$BUILD/src/$name
	patch=$REPO/harness/trees/$name.patch
	stamp="$base $(sha1sum <"$patch" | cut -c1-16)"
	if [ "$(cat "$tree/.harness-patched" 2>/dev/null)" != "$stamp" ]; then
		log "laying harness/trees/$name.patch onto a copy of the base" >&2
		rm -rf "$tree"
		mkdir -p "$BUILD/src"
		cp -al "$base" "$tree" 2>/dev/null || cp -a "$base" "$tree"
		rm -f "$tree/.harness-unpacked"
		for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch"); do
			rm -f "$tree/$f"
			cp "$base/$f" "$tree/$f"
		done
		patch -p1 -d "$tree" -N -s --no-backup-if-mismatch -r - <"$patch" >&2 ||
			die "harness/trees/$name.patch does not apply to the base"
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
