#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make results: publish the last make bench of BASE.  Its output
# directory (build/bench@6.12; 6.1: build/bench) becomes the committed
# run of that base in docs/results/<base>/ (results.tsv, model.tsv,
# run.conf), and results.py regenerates every page, plot and block
# from the committed runs of all bases.  IMPORT=0 only regenerates.
# make check's docs:results row fails until the result is committed as
# written here.
set -eu
STAGE=results
. "$(dirname "$0")/lib.sh"

if [ "${IMPORT:-1}" != 0 ]; then
	src=$BUILD/bench$(base_suffix)
	[ -f "$src/run.conf" ] || die "${src#$REPO/} has no run.conf: run make bench${BASE_GIVEN:+ BASE=$BASE} to the end first"
	"$REPO/harness/results.py" import "$BASE" "$src"
fi
"$REPO/harness/results.py" update
