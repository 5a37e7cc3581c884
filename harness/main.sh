#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make: build the default configuration of the series, boot it and report.
set -eu
STAGE=make
. "$(dirname "$0")/lib.sh"

profile=${PROFILE:-$(series_profile)}
"$REPO/harness/deps.sh"
version=$(base_version)
log "base tree: Linux $version (BASE=$BASE)"
"$REPO/harness/kselftest.sh"
"$REPO/harness/build.sh" "$profile"
"$REPO/harness/initramfs.sh" "$profile"
log "$profile: booting for the report (1 GiB, 2 vCPUs)"
# No KUnit suite at this boot: the series builds its suites in and runs
# them at boot, and the slabs they leave (some leaked on purpose, about
# 500 KiB) would count in Slab: with no cache in /proc/slabinfo.
"$REPO/harness/run-qemu.sh" "$profile" "$LOGS/console-report.log" -u report -m 1G -s 2 -t 300 \
	-a "kunit.filter_glob=none_such"
echo
"$REPO/harness/report.py" "$LOGS/console-report.log" "$version" "$profile" "$(profile_out "$profile")/.config"
