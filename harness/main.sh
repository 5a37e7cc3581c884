#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make: build the default configuration of the series, boot it and report.
set -eu
STAGE=make
. "$(dirname "$0")/lib.sh"

profile=${PROFILE:-series}
"$REPO/harness/deps.sh"
version=$(base_version)
log "base tree: Linux $version"
"$REPO/harness/kselftest.sh"
"$REPO/harness/build.sh" "$profile"
"$REPO/harness/initramfs.sh" "$profile"
log "$profile: booting for the report (1 GiB, 2 vCPUs)"
"$REPO/harness/run-qemu.sh" "$profile" "$LOGS/console-report.log" -u report -m 1G -s 2 -t 300
echo
"$REPO/harness/report.py" "$LOGS/console-report.log" "$version" "$profile" "$BUILD/out/$profile/.config"
