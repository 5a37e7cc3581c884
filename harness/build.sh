#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one kernel profile (see profiles.conf) into build/out/<profile>.
#
# The .config is tinyconfig plus the profile's fragments; it is regenerated
# only when a fragment or the base changes, so repeated runs are incremental.
set -eu
STAGE=build
. "$(dirname "$0")/lib.sh"

profile=${1:?usage: build.sh PROFILE}
line=$(conf_entry profiles "$profile")
[ -n "$line" ] || die "unknown profile '$profile' (see harness/profiles.conf)"
set -- $line
kind=$2
shift 2
frags=
for f in "$@"; do
	[ -f "$REPO/harness/configs/$f.config" ] || die "profile $profile: no harness/configs/$f.config"
	frags="$frags $REPO/harness/configs/$f.config"
done

base=$(base_tree)
case $kind in
series)
	"$REPO/harness/prepare.sh"
	src=$BUILD/src/series
	;;
pristine)
	src=$base
	;;
*)
	# The base plus harness/trees/<kind>.patch (bench-only trees).
	[ -f "$REPO/harness/trees/$kind.patch" ] ||
		die "profile $profile: unknown tree kind '$kind' (no harness/trees/$kind.patch)"
	src=$(patched_tree "$kind")
	;;
esac

out=$BUILD/out/$profile
mkdir -p "$out"
blog=$LOGS/build-$profile.log
stamp=$(cat $frags | sha1sum | cut -c1-16)-$(echo "$src" | sha1sum | cut -c1-8)
: >"$blog"	# one build per log: no stale errors from an earlier run

if [ ! -f "$out/.config" ] || [ "$(cat "$out/.harness-config" 2>/dev/null)" != "$stamp" ]; then
	log "$profile: configuring (tinyconfig +$(printf ' %s' "$@"))"
	{
		kmake "$src" "$out" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
		kmake "$src" "$out" olddefconfig
	} >>"$blog" 2>&1 || { tail -n 20 "$blog"; die "$profile: configuration failed (log: $blog)"; }
	# Every option the fragments ask for (the last word wins) must have stuck.
	bad=$(cat $frags | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 n/p' |
		awk '{ want[$1] = $2 } END { for (k in want) print k, want[k] }' |
		while read -r k v; do
		have=$(sed -n -e "s/^$k=//p" -e "s/^# $k is not set/n/p" "$out/.config")
		[ -z "$have" ] && have=n
		[ "$have" = "$v" ] || echo "$k=$v (got $have)"
	done)
	[ -z "$bad" ] || die "$profile: config options did not stick: $(echo $bad)"
	echo "$stamp" >"$out/.harness-config"
fi

log "$profile: building bzImage and modules (-j$JOBS, log: ${blog#$REPO/})"
t0=$(date +%s)
if ! kmake "$src" "$out" -j"$JOBS" bzImage modules >>"$blog" 2>&1; then
	grep -E 'error|Error' "$blog" | tail -n 20
	tail -n 20 "$blog"
	die "$profile: kernel build failed (log: $blog)"
fi
rm -rf "$out/modroot"
kmake "$src" "$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
	modules_install >>"$blog" 2>&1 || die "$profile: modules_install failed (log: $blog)"
log "$profile: built in $(($(date +%s) - t0))s"
