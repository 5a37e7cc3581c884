#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make distro: the series as installable Debian kernel packages (kbuild's
# bindeb-pkg) for a machine of your own, configured with Debian's own
# configuration of the base (linux-config-V, lib.sh debian_config) and
# olddefconfig on the series tree of BASE.
#
#   FLAVOUR=amd64         Debian's generic amd64 configuration, every driver
#                         (the default); cloud-amd64: Debian's for virtual
#                         machines, about a quarter of the modules; rt:
#                         Debian's PREEMPT_RT kernel (6.12 only: Debian
#                         builds 6.1's with the RT patch set, which
#                         linux-source-6.1 does not carry).
#   LOCALVERSION=-slub-engine  appended to the kernel release, so that
#                         the package installs beside Debian's kernels
#                         (6.12.118-slub-engine)
#   DEBUG_INFO=1          keep Debian's debug information and its -dbg
#                         package (by default off: several times the disk
#                         and a longer build)
#   CONFIGURE_ONLY=1      stop once the configuration is written
#
# Output, in build/distro@6.12/<flavour>/ (6.1: build/distro/<flavour>/):
# linux-image-<release>_*.deb, linux-headers-<release>_*.deb and
# linux-libc-dev_*.deb, the kernel's objects in out/; the build's log in
# build/logs/distro-<flavour>@6.12.log.  Install with dpkg -i on the
# target machine.  The packages are not signed for Secure Boot.
set -eu
STAGE=distro
. "$(dirname "$0")/lib.sh"

flavour=${FLAVOUR:-amd64}
case $flavour in
amd64 | cloud-amd64) dflavour=amd64_none_$flavour rt=n ;;
rt | rt-amd64 | rt_amd64)
	[ "$BASE" = 6.1 ] &&
		die "FLAVOUR=$flavour: 6.1 has no PREEMPT_RT on x86 without the RT patch set, which linux-source-6.1 does not carry; take BASE=6.12"
	flavour=rt dflavour=amd64_rt_amd64 rt=y ;;
*) die "FLAVOUR=$flavour: amd64, cloud-amd64 or rt" ;;
esac
# LOCALVERSION goes into the .config, not to kbuild, which would append
# it a second time; nor do make distro's own command-line variables,
# which make passes on in MAKEFLAGS.
lv=${LOCALVERSION--slub-engine}
unset LOCALVERSION MAKEFLAGS MAKEOVERRIDES MFLAGS
debug=${DEBUG_INFO:-0}

"$REPO/harness/deps.sh" distro
"$REPO/harness/prepare.sh"
src=$(series_tree)
dconf=$(debian_config "$dflavour") || exit 1
dir=$BUILD/distro$(base_suffix)/$flavour
out=$dir/out
blog=$LOGS/distro-$flavour$(base_suffix).log
mkdir -p "$out"

# Configure when Debian's configuration, the choices or the tree changed,
# so that a second run continues the build.
stamp=$(sha1sum <"$dconf" | cut -c1-16)-$lv-$debug-$(echo "$src" | sha1sum | cut -c1-8)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.harness-config" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$out/.harness-config"
	what="debug information off"
	[ "$debug" = 1 ] && what="Debian's debug information"
	log "configuring: Debian's $dflavour of linux-config-$BASE, LOCALVERSION=$lv, $what"
	cp "$dconf" "$out/.config"
	"$src/scripts/config" --file "$out/.config" --set-str LOCALVERSION "$lv" --disable LOCALVERSION_AUTO
	if [ "$debug" != 1 ]; then
		"$src/scripts/config" --file "$out/.config" --enable DEBUG_INFO_NONE \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5
	fi
	kmake "$src" "$out" olddefconfig >"$blog" 2>&1 || die "olddefconfig failed (log: ${blog#"$REPO"/})"
	echo "$stamp" >"$out/.harness-config"
fi

# What the package must be: the series' engine, RT as the flavour says,
# the release named.
want=$(mktemp)
trap 'rm -f "$want"' EXIT
rtline='# CONFIG_PREEMPT_RT is not set'
[ "$rt" = y ] && rtline=CONFIG_PREEMPT_RT=y
printf '%s\n' CONFIG_SLUB=y "CONFIG_LOCALVERSION=\"$lv\"" "$rtline" >"$want"
[ "$debug" = 1 ] || echo '# CONFIG_DEBUG_INFO is not set' >>"$want"
bad=$(config_unmet "$out/.config" "$want" | paste -sd' ')
[ -z "$bad" ] || die "the configuration in ${out#"$REPO"/} is not what was asked: $bad"
release=$(kmake "$src" "$out" kernelrelease)
log "kernel release $release, $(grep -c '=m$' "$out/.config") options built as modules, config: ${out#"$REPO"/}/.config"
[ "${CONFIGURE_ONLY:-0}" = 1 ] && exit 0

# bindeb-pkg runs dpkg-buildpackage in out/, which writes the packages
# to its parent.  KBUILD_VERBOSE=0: 6.12's debian/rules is verbose when
# it is unset.
dist=${KDEB_CHANGELOG_DIST:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
log "make bindeb-pkg (-j$JOBS; log: ${blog#"$REPO"/}); hours on 2 cores (harness/README.md, make distro)"
t0=$(date +%s)
touch "$out/.harness-pkg-start"
if ! make -C "$src" O="$out" CC="$(kcc)" HOSTCC=gcc KBUILD_VERBOSE=0 \
	KDEB_CHANGELOG_DIST="${dist:-unstable}" -j"$JOBS" bindeb-pkg >>"$blog" 2>&1; then
	die "make bindeb-pkg failed: $(grep -m 1 -E 'error:|Error [0-9]' "$blog" || tail -n 1 "$blog") (log: ${blog#"$REPO"/})"
fi
debs=$(find "$dir" -maxdepth 1 -name '*.deb' -newer "$out/.harness-pkg-start" | sort)
echo "$debs" | grep -q "/linux-image-${release}_" ||
	die "bindeb-pkg wrote no linux-image-${release}_*.deb in ${dir#"$REPO"/}"
log "built in $(($(date +%s) - t0))s:"
for d in $debs; do
	echo "  ${d#"$REPO"/} ($(du -h "$d" | cut -f1))"
done
echo "install on the target machine: dpkg -i $(echo "$debs" | grep -E '/linux-(image|headers)-' | sed 's|.*/||' | paste -sd' ')"
