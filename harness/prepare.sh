#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay the series onto a copy of a base tree, incrementally.
# usage: prepare.sh [V]: base V (lib.sh, BASES), by default $BASE.
#
#   build/src/series     base 6.1 plus this repo's files and diffs
#   build/src/series-V   another base V, likewise (lib.sh, series_tree)
#
# The diffs are those of base V's patches directory and the files those
# at their kernel paths, where base/V/ has its own copy of a file (or one
# more file) for V (lib.sh, base_layer).
#
# The copy is made once.  Each run rebuilds the changed files in a staging
# directory (base file + patches/ in patches/series order, or the repo's own
# file) and copies into the tree only what differs, so that unchanged files
# keep their mtimes and kbuild rebuilds only what changed.  Files that an
# earlier run changed but this one does not are restored from the base.
set -eu
STAGE=prepare
. "$(dirname "$0")/lib.sh"

v=${1:-$BASE}
base=$(base_tree "$v")
tree=$(series_tree "$v")
stage=$tree.stage
manifest=$tree.manifest
layer=$(base_layer "$v")
pdir=$(base_patches "$v")


if [ ! -e "$tree/.harness-copied" ] || [ "$(cat "$tree/.harness-copied")" != "$base" ]; then
	log "copying $base to $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	# Hard links are safe: this script replaces files, never writes into them.
	# The base's contents, not the base: a KERNEL_SRC that is a symlink
	# would be copied as the link, and the series laid into the user's tree.
	cp -al "$base/." "$tree" 2>/dev/null || cp -a "$base/." "$tree"
	rm -f "$tree/.harness-unpacked" "$manifest"
	echo "$base" >"$tree/.harness-copied"
fi

rm -rf "$stage"
mkdir -p "$stage"

# 1. Upstream files changed by the base's diffs, patched in series order.
series=$pdir/series
rel=${pdir#"$REPO"/}
patches=
[ -f "$series" ] && patches=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
for p in $patches; do
	pf=$(base_patch "$v" "$p")
	[ -f "$pf" ] || die "$rel/series names $p, which does not exist"
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$pf"); do
		[ -e "$stage/$f" ] && continue
		mkdir -p "$stage/$(dirname "$f")"
		[ -f "$base/$f" ] && cp "$base/$f" "$stage/$f"
	done
	if ! out=$(patch -p1 -d "$stage" -N -s --no-backup-if-mismatch -r - <"$pf" 2>&1); then
		printf '%s\n' "$out" >&2
		die "${pf#"$REPO"/} does not apply to $(base_version "$v") (files: $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$pf" | tr '\n' ' '))"
	fi
done

# 2. Files this repo adds or replaces, at their kernel paths; base/V/'s
# own copy where it has one, and the files only base/V/ has.
{
	(cd "$REPO" && git ls-files -co --exclude-standard -- $SERIES_PATHS)
	[ -z "$layer" ] || (cd "$REPO/$layer" && git ls-files -co --exclude-standard -- $SERIES_PATHS)
} | sort -u | while read -r f; do
	from=$REPO/$f
	[ -n "$layer" ] && [ -f "$REPO/$layer/$f" ] && from=$REPO/$layer/$f
	[ -f "$from" ] || continue
	if [ -e "$stage/$f" ]; then
		die "$f is both shipped whole and changed by a patch"
	fi
	mkdir -p "$stage/$(dirname "$f")"
	cp "$from" "$stage/$f"
done

# 3. Sync by content.
(cd "$stage" && find . -type f | sed 's|^\./||' | sort) >"$manifest.new"
changed=0
while read -r f; do
	if ! cmp -s "$stage/$f" "$tree/$f"; then
		mkdir -p "$tree/$(dirname "$f")"
		rm -f "$tree/$f"
		cp "$stage/$f" "$tree/$f"
		changed=$((changed + 1))
	fi
done <"$manifest.new"

# 4. Restore what an earlier run changed and this one no longer does.
if [ -f "$manifest" ]; then
	comm -23 "$manifest" "$manifest.new" | while read -r f; do
		rm -f "$tree/$f"
		[ -f "$base/$f" ] && cp "$base/$f" "$tree/$f"
		log "restored $f from the base"
	done
fi
mv "$manifest.new" "$manifest"
rm -rf "$stage"
log "series tree for $v ready: $(wc -l <"$manifest") files from the series, $changed updated"
