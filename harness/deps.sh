#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make sure the Debian packages the harness needs are present.  As root,
# install what is missing; otherwise name the packages and stop.
set -eu
STAGE=deps
. "$(dirname "$0")/lib.sh"

# package:probe (a command, or an absolute path that must exist); libc.a
# for the static guest programs (harness/guest/udpbench.c).
want="
gcc:gcc
make:make
flex:flex
bison:bison
bc:bc
cpio:cpio
perl:perl
python3:python3
rsync:rsync
kmod:depmod
xz-utils:xz
libelf-dev:/usr/include/gelf.h
libssl-dev:/usr/include/openssl/ssl.h
qemu-system-x86:qemu-system-x86_64
busybox-static:/bin/busybox
ccache:ccache
gnuplot-nox:gnuplot
libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a
"
# Every base's source package (lib.sh, BASES), but the one KERNEL_SRC
# stands in for, and every base's Debian configurations (linux-config-V,
# in the same suite: lib.sh debian_config, the matrix's debian-* entries
# and make distro).
for v in $BASES; do
	want="$want linux-config-$v:/usr/src/linux-config-$v/config.amd64_none_cloud-amd64.xz"
	[ -n "${KERNEL_SRC:-}" ] && [ "$v" = "$BASE" ] && continue
	want="$want linux-source-$v:/usr/src/linux-source-$v.tar.xz"
done
# make series-check: checkpatch's SPDX check runs scripts/spdxcheck.py;
# harness/doc-check.py parses the kernel-doc output with docutils.
[ "${1:-}" = series ] && want="$want python3-ply:/usr/lib/python3/dist-packages/ply
python3-git:/usr/lib/python3/dist-packages/git
python3-docutils:/usr/lib/python3/dist-packages/docutils"

# make datagram-trace: the guest is single-stepped through QEMU's gdbstub.
[ "${1:-}" = trace ] && want="$want gdb:gdb"

# make distro: kbuild's bindeb-pkg runs dpkg-buildpackage, and 6.12's
# debian/rules debhelper's dh_* commands (6.1's builddeb, fakeroot).
[ "${1:-}" = distro ] && want="$want dpkg-dev:dpkg-buildpackage
debhelper:dh_prep
fakeroot:fakeroot"

missing=
for w in $want; do
	pkg=${w%%:*}
	probe=${w#*:}
	case $probe in
	/*) [ -e "$probe" ] && continue ;;
	*) command -v "$probe" >/dev/null 2>&1 && continue ;;
	esac
	missing="$missing $pkg"
done

# busybox must be the static build: the guest has no libc of its own.
if [ -x /bin/busybox ] && LC_ALL=C ldd /bin/busybox >/dev/null 2>&1; then
	missing="$missing busybox-static"
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	die "missing Debian packages:$missing (run: sudo apt-get install$missing)"
fi
log "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >"$LOGS/apt.log" 2>&1 || die "apt-get update failed (see $LOGS/apt.log)"
# shellcheck disable=SC2086
apt-get install -y -qq $missing >>"$LOGS/apt.log" 2>&1 ||
	die "apt-get install$missing failed (see $LOGS/apt.log)"
