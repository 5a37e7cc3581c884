#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build one kernel profile (see profiles.conf) into build/out/<profile>,
# or build/out/<profile>@V for a profile that takes BASE=V (lib.sh,
# profile_key).
# usage: build.sh PROFILE [TARGET...]: with targets (mm/slub.o, say), only
# those are made, in the profile's configured tree, for reading the code
# a profile compiles without building the whole kernel.
#
# The .config is tinyconfig plus the profile's fragments; it is regenerated
# only when a fragment or the base changes, so repeated runs are incremental.
# A fragment with a "# harness: start <targets>" line starts from those
# configuration targets instead (distro.config: x86_64_defconfig and
# kvm_guest.config).
set -eu
STAGE=build
. "$(dirname "$0")/lib.sh"

profile=${1:?usage: build.sh PROFILE [TARGET...]}
shift
targets="$*"
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

# A tree kind may name its base: pristine@6.12, series@6.12 (lib.sh,
# BASES); the others take BASE.
kind=$(profile_kind "$profile")
kbase=$(profile_base "$profile")
key=$(profile_key "$profile")
base=$(base_tree "$kbase")
case $kind in
series)
	"$REPO/harness/prepare.sh" "$kbase"
	src=$(series_tree "$kbase")
	;;
pristine)
	src=$base
	;;
*)
	# The base plus harness/trees/<kind>.patch (bench-only trees).
	[ -f "$REPO/harness/trees/$kind.patch" ] ||
		die "profile $profile: unknown tree kind '$kind' (no harness/trees/$kind.patch)"
	src=$(patched_tree "$kind" "$kbase")
	;;
esac

out=$(profile_out "$profile")
mkdir -p "$out"
blog=$LOGS/build-$key.log
stamp=$(cat $frags | sha1sum | cut -c1-16)-$(echo "$src" | sha1sum | cut -c1-8)
: >"$blog"	# one build per log: no stale errors from an earlier run

# shellcheck disable=SC2086
start=$(sed -n 's/^# harness: start //p' $frags | tail -n 1)
start=${start:-tinyconfig}

if [ ! -f "$out/.config" ] || [ "$(cat "$out/.harness-config" 2>/dev/null)" != "$stamp" ]; then
	log "$key: configuring ($start +$(printf ' %s' "$@"))"
	{
		# shellcheck disable=SC2086
		kmake "$src" "$out" $start &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
		kmake "$src" "$out" olddefconfig
	} >>"$blog" 2>&1 || { tail -n 20 "$blog"; die "$key: configuration failed (log: $blog)"; }
	# Every option the fragments ask for (the last word wins) must have stuck.
	# shellcheck disable=SC2086
	bad=$(config_unmet "$out/.config" $frags)
	[ -z "$bad" ] || die "$key: config options did not stick: $(echo $bad)"
	echo "$stamp" >"$out/.harness-config"
fi

# Once a minute while a long build runs: how many objects it compiled,
# out of the count this profile's last build had (or a typical count for
# its start: about 1,000 from tinyconfig, about 2,900 from
# x86_64_defconfig), and the time left at the rate so far.
progress() {
	local t0=$1 expect=$2 done el left
	while sleep 60 >/dev/null 2>&1; do
		done=$(find "$out" -name '*.o' -newer "$out/.harness-start" | wc -l)
		[ "$done" -gt 50 ] || continue
		el=$(($(date +%s) - t0))
		left=$(((expect - done) * el / done / 60 + 1))
		[ "$done" -lt "$expect" ] || left=1
		log "$key: $done of about $expect objects in $((el / 60)) min, about $left min left"
	done
}

if [ -n "$targets" ]; then
	# shellcheck disable=SC2086
	kmake "$src" "$out" -j"$JOBS" $targets >>"$blog" 2>&1 ||
		{ tail -n 20 "$blog"; die "$key: make $targets failed (log: $blog)"; }
	log "$key: made $targets"
	exit 0
fi

log "$key: building bzImage and modules (-j$JOBS, log: ${blog#$REPO/})"
t0=$(date +%s)
expect=$(cat "$out/.harness-objects" 2>/dev/null || true)
case $start in
tinyconfig) expect=${expect:-1000} ;;
*) expect=${expect:-2900} ;;
esac
touch "$out/.harness-start"
progress "$t0" "$expect" &
ppid=$!
trap 'kill $ppid 2>/dev/null || true' EXIT
if ! kmake "$src" "$out" -j"$JOBS" bzImage modules >>"$blog" 2>&1; then
	grep -E 'error|Error' "$blog" | tail -n 20
	tail -n 20 "$blog"
	die "$key: kernel build failed (log: $blog)"
fi
kill $ppid 2>/dev/null || true
find "$out" -name '*.o' | wc -l >"$out/.harness-objects"
rm -rf "$out/modroot"
kmake "$src" "$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
	modules_install >>"$blog" 2>&1 || die "$key: modules_install failed (log: $blog)"
log "$key: built in $(($(date +%s) - t0))s"
