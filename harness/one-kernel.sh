#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernel, make fastpath and make shell: one kernel profile, PROFILE=
# or by default the series of BASE (lib.sh, series_profile: series on
# 6.1, series-6.12 on 6.12).
# usage: one-kernel.sh kernel|fastpath|shell
#   kernel    build it (build.sh)
#   fastpath  build it and check the fast paths of the allocator's entry
#             points in its vmlinux (fastpath.py, lib.sh fastpath_fns)
#   shell     build it and boot it to an interactive shell, SMP= vCPUs
#             (2) and MEM= of memory (512M)
set -eu
what=${1:?usage: one-kernel.sh kernel|fastpath|shell}
STAGE=$what
. "$(dirname "$0")/lib.sh"

profile=${PROFILE:-$(series_profile)}
"$REPO/harness/build.sh" "$profile"
case $what in
kernel) ;;
fastpath)
	# shellcheck disable=SC2046
	"$REPO/harness/fastpath.py" "$(profile_out "$profile")/vmlinux" $(fastpath_fns "$(profile_base "$profile")")
	;;
shell)
	"$REPO/harness/kselftest.sh"
	"$REPO/harness/initramfs.sh" "$profile"
	"$REPO/harness/run-qemu.sh" "$profile" "$LOGS/console-shell.log" -I \
		-s "${SMP:-2}" -m "${MEM:-512M}"
	;;
*) die "unknown action '$what' (kernel, fastpath or shell)" ;;
esac
