#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay the series onto a copy of the base tree, incrementally.
#
#   build/src/series   the base tree plus this repo's files and patches/
#
# The copy is made once.  Each run rebuilds the changed files in a staging
# directory (base file + patches/ in patches/series order, or the repo's own
# file) and copies into the tree only what differs, so that unchanged files
# keep their mtimes and kbuild rebuilds only what changed.  Files that an
# earlier run changed but this one does not are restored from the base.
set -eu
STAGE=prepare
. "$(dirname "$0")/lib.sh"

base=$(base_tree)
tree=$BUILD/src/series
stage=$BUILD/src/stage
manifest=$BUILD/src/series.manifest


if [ ! -e "$tree/.harness-copied" ] || [ "$(cat "$tree/.harness-copied")" != "$base" ]; then
	log "copying $base to $tree"
	rm -rf "$tree"
	mkdir -p "$BUILD/src"
	# Hard links are safe: this script replaces files, never writes into them.
	cp -al "$base" "$tree" 2>/dev/null || cp -a "$base" "$tree"
	rm -f "$tree/.harness-unpacked" "$manifest"
	echo "$base" >"$tree/.harness-copied"
fi

rm -rf "$stage"
mkdir -p "$stage"

# 1. Upstream files changed by patches/, patched in series order.
series=$REPO/patches/series
patches=
[ -f "$series" ] && patches=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
for p in $patches; do
	[ -f "$REPO/patches/$p" ] || die "patches/series names $p, which does not exist"
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$REPO/patches/$p"); do
		[ -e "$stage/$f" ] && continue
		mkdir -p "$stage/$(dirname "$f")"
		[ -f "$base/$f" ] && cp "$base/$f" "$stage/$f"
	done
	if ! out=$(patch -p1 -d "$stage" -N -s --no-backup-if-mismatch -r - <"$REPO/patches/$p" 2>&1); then
		printf '%s\n' "$out" >&2
		die "patches/$p does not apply to $(base_version) (files: $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$REPO/patches/$p" | tr '\n' ' '))"
	fi
done

# 2. Files this repo adds or replaces, at their kernel paths.
(cd "$REPO" && git ls-files -co --exclude-standard -- $SERIES_PATHS) | while read -r f; do
	[ -f "$REPO/$f" ] || continue
	if [ -e "$stage/$f" ]; then
		die "$f is both shipped whole and changed by a patch"
	fi
	mkdir -p "$stage/$(dirname "$f")"
	cp "$REPO/$f" "$stage/$f"
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
log "series tree ready: $(wc -l <"$manifest") files from the series, $changed updated"
