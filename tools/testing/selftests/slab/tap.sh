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

# KFENCE takes the objects it samples out of the allocator's hands: they
# live outside the cache's slabs, and a misuse of one is KFENCE's to
# report.  kfence_pause stops its sampling (sample_interval 0) for a test
# that counts or misuses objects; kfence_resume puts the interval back.
# Without KFENCE both do nothing.
KFENCE_INTERVAL=/sys/module/kfence/parameters/sample_interval
kfence_interval=

kfence_pause() {
	kfence_interval=$(cat $KFENCE_INTERVAL 2>/dev/null)
	if [ "${kfence_interval:-0}" != 0 ]; then
		echo 0 >$KFENCE_INTERVAL
	fi
}

kfence_resume() {
	if [ "${kfence_interval:-0}" != 0 ]; then
		echo "$kfence_interval" >$KFENCE_INTERVAL
	fi
}

# module_available MOD: whether modprobe can find MOD.  kmod's modprobe
# has a dry run; busybox's has not, but -D fails for a module that
# modprobe cannot find.
module_available() {
	modprobe -n -q "$1" >/dev/null 2>&1 ||
		modprobe -D "$1" 2>/dev/null | grep -q "$1"
}
