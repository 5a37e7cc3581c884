# SPDX-License-Identifier: GPL-2.0
#
# TAP output for the shell tests of this directory, sourced by them.
# POSIX sh.  The caller prints "1..N" itself and ends with [ $failed = 0 ].

KSFT_SKIP=4
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $*"
}

skip() {
	n=$((n + 1))
	echo "ok $n $* # SKIP"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}
