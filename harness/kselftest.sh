#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build and install tools/testing/selftests/slab of the series tree the
# kselftest way, into build/kselftest/install (install@6.12 under
# BASE=6.12, lib.sh base_suffix), so that targets of the two bases can
# run at once.  Two of one base take turns: the lock is held over the
# install here and over the copy in initramfs.sh.
set -eu
STAGE=kselftest
. "$(dirname "$0")/lib.sh"

"$REPO/harness/prepare.sh" >/dev/null
tree=$(series_tree)
sfx=$(base_suffix)
inst=$(kselftest_install)
mkdir -p "$BUILD/kselftest"
exec 9>"$BUILD/kselftest/lock$sfx"
flock 9
rm -rf "$inst"
[ -d "$tree/tools/testing/selftests/slab" ] || { log "no slab kselftests in the series"; exit 0; }
make -s -C "$tree/tools/testing/selftests" TARGETS=slab O="$BUILD/kselftest/obj$sfx" \
	KSFT_INSTALL_PATH="$inst" install >"$LOGS/kselftest-build$sfx.log" 2>&1 || {
	tail -n 20 "$LOGS/kselftest-build$sfx.log"
	die "building the slab kselftests failed (log: $LOGS/kselftest-build$sfx.log)"
}
log "installed $(sed -n 's/^slab://p' "$inst/kselftest-list.txt" | tr '\n' ' ')"
