#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A cpu whose kworkers never run must hold up no other cpu's slab work.
#
# rt_spin keeps the last cpu busy as a SCHED_FIFO task that never
# sleeps, with RT throttling off and, where the kernel has one (6.12 on),
# that cpu's fair server stopped (its debugfs runtime 0), so that nothing
# of a lower class runs there, its kworkers included, for
# RT_SPIN_SECONDS.  The cpu used the
# slab caches before (every cpu does while the system boots), and then
# sits untouched: the kind of cpu an allocator's periodic housekeeping
# empties.  After more than two such periods (SLAB reaped every 2 s, and
# so does the array front end of the series), this script, bound to cpu
# 0, creates and destroys caches (test_slab_api phase=names), gives
# kmalloc-64's arrays a new size and back where the kernel has them, and,
# with a third cpu, takes that one offline and online again.  Each must end
# within RT_STARVE_TIMEOUT seconds, long before the spinner stops: a
# housekeeping that waited on the starved cpu's kworker while holding the
# slab or the cpu hotplug lock would block them until then.  Upstream
# SLUB passes it as the series does.  On PREEMPT_RT, RCU invokes its
# callbacks in per-cpu threads (rcuc), which the spinner starves unless
# they run above it (rcutree.kthread_prio=, 1 by default): then
# kmem_cache_destroy()'s kvfree_rcu_barrier() (6.12's mm/slab_common.c,
# upstream's code) waits for it, and a step that did not end shows such
# a wait in the kernel stacks it prints.
#
# Results: 1 the spinner held its cpu for its whole time; 2 caches
# created and destroyed meanwhile; 3 a cpu offline and online meanwhile;
# 4 kmalloc-64's array_size written twice meanwhile.
# POSIX sh; runs under busybox.
#
# Environment: RT_SPIN_SECONDS (default 24), RT_STARVE_TIMEOUT (10),
# RT_STARVE=0 skips the test (the harness boots run it on a few
# variants only: it holds a cpu for RT_SPIN_SECONDS)

. "$(dirname "$0")/tap.sh"

MOD=test_slab_api
SPIN=${RT_SPIN_SECONDS:-24}
TIMEOUT=${RT_STARVE_TIMEOUT:-10}
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us
FAIR_SERVER=/sys/kernel/debug/sched/fair_server

echo "TAP version 13"

[ "${RT_STARVE:-1}" != 0 ] || skip_all "RT_STARVE=0: not asked to hold a cpu for $SPIN s"
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
ncpus=$(grep -c '^processor' /proc/cpuinfo)
[ "$ncpus" -ge 2 ] || skip_all "one cpu: none to starve"
[ -w $RT_RUNTIME ] || skip_all "no writable $RT_RUNTIME (RT throttling cannot be turned off)"
module_available $MOD ||
	skip_all "module $MOD is not available (CONFIG_TEST_SLAB_API=m)"
echo "1..4"

spin_cpu=$((ncpus - 1))
toggle_cpu=
if [ "$ncpus" -ge 3 ] && [ -w /sys/devices/system/cpu/cpu1/online ]; then
	toggle_cpu=1
fi
tmpdir=$(mktemp -d)
taskset -p -c 0 $$ >/dev/null 2>&1

# wait_for PID SECONDS: whether PID ended within SECONDS (tenths).
wait_for() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1 2>/dev/null || sleep 1
		i=$((i + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# stacks PID: the kernel stacks of PID and its descendants, as TAP
# comments: where a step that did not end waits.
stacks() {
	for t in /proc/"$1"/task/*; do
		[ -r "$t/stack" ] || continue
		echo "# $(cat "$t/comm" 2>/dev/null) (${t##*/}):"
		sed 's/^/#   /' "$t/stack" 2>/dev/null
	done
	# The children files hold pids separated by spaces: words.
	# shellcheck disable=SC2013
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		stacks "$c"
	done
}

# bounded STEP CMD...: run CMD in the background, its output in
# $tmpdir/STEP.out, and wait up to $TIMEOUT s for it: STEP_ok is 1 if it
# ended in time, STEP_rc is then its exit status; STEP_pid its pid.  If
# it did not, the kernel stacks of its tasks then, in $tmpdir/STEP.stacks.
bounded() {
	step=$1
	shift
	"$@" >"$tmpdir/$step.out" 2>&1 &
	eval "${step}_pid=$!"
	if wait_for $! "$TIMEOUT"; then
		wait $!
		eval "${step}_rc=$? ${step}_ok=1"
	else
		eval "${step}_ok=0"
		stacks $! >"$tmpdir/$step.stacks"
	fi
}

# judge STEP NAME DONE: the result NAME of a bounded step: not ok if it
# was still running after $TIMEOUT s (then wait for it) or failed, else
# ok with DONE.
judge() {
	eval "s_ok=\$${1}_ok s_rc=\$${1}_rc s_pid=\$${1}_pid"
	if [ "$s_ok" != 1 ]; then
		not_ok "$2: still running after $TIMEOUT s"
		cat "$tmpdir/$1.stacks"
		wait "$s_pid"
	elif [ "$s_rc" != 0 ]; then
		not_ok "$2: failed (exit $s_rc): $(cat "$tmpdir/$1.out")"
	else
		ok "$2: $3"
	fi
}

runtime=$(cat $RT_RUNTIME)
echo -1 >$RT_RUNTIME
fair=
if [ -w $FAIR_SERVER/cpu$spin_cpu/runtime ]; then
	fair=$(cat $FAIR_SERVER/cpu$spin_cpu/runtime)
	echo 0 >$FAIR_SERVER/cpu$spin_cpu/runtime
fi
"$(dirname "$0")/rt_spin" $spin_cpu "$SPIN" >"$tmpdir/spin.out" 2>&1 &
spin_pid=$!
# Two housekeeping periods and a half of a starved cpu.
sleep 5

bounded names taskset -c 0 modprobe $MOD phase=names

RESIZE=/sys/kernel/slab/kmalloc-64/array_size
resize_old=
if [ -w $RESIZE ] && [ "$(cat $RESIZE)" != 0 ]; then
	resize_old=$(cat $RESIZE)
	resize_new=13
	[ "$resize_old" = 13 ] && resize_new=29
	bounded resize sh -c "echo $resize_new >$RESIZE && echo $resize_old >$RESIZE"
fi

if [ -n "$toggle_cpu" ]; then
	online=/sys/devices/system/cpu/cpu$toggle_cpu/online
	bounded cpu sh -c "echo 0 >$online && echo 1 >$online"
fi

spin_alive=0
kill -0 $spin_pid 2>/dev/null && spin_alive=1
wait $spin_pid
spin_rc=$?
[ -z "$fair" ] || echo "$fair" >$FAIR_SERVER/cpu$spin_cpu/runtime
echo "$runtime" >$RT_RUNTIME
if [ -n "$fair" ]; then
	echo "# fair server of cpu $spin_cpu: stopped, its runtime of $fair ns restored"
else
	echo "# no fair server to stop on cpu $spin_cpu"
fi
sed 's/^/# /' "$tmpdir/spin.out"

# 1: the spinner held its cpu to the end, so the rest ran beside it.
if [ $spin_rc != 0 ] || ! grep -q "^rt_spin: cpu $spin_cpu fifo " "$tmpdir/spin.out"; then
	not_ok "rt_starve spinner: rt_spin failed (exit $spin_rc)"
elif [ $spin_alive != 1 ]; then
	not_ok "rt_starve spinner: it ended before the other steps did"
else
	ok "rt_starve spinner: cpu $spin_cpu held by SCHED_FIFO for $SPIN s"
fi

# 2: caches created and destroyed beside it (modprobe $MOD phase=names).
judge names "rt_starve caches" "created and destroyed while cpu $spin_cpu starved"
rmmod $MOD 2>/dev/null

# 3: a cpu offline and online beside it.
if [ -z "$toggle_cpu" ]; then
	skip "rt_starve cpu hotplug: fewer than 3 cpus, or cpu1 cannot go offline"
else
	judge cpu "rt_starve cpu hotplug" "cpu $toggle_cpu offline and online while cpu $spin_cpu starved"
fi

# 4: kmalloc-64's arrays resized beside it.
if [ -z "$resize_old" ]; then
	skip "rt_starve array resize: no writable $RESIZE with arrays"
else
	judge resize "rt_starve array resize" "kmalloc-64 to $resize_new objects and back to $resize_old while cpu $spin_cpu starved"
fi
rm -rf "$tmpdir"
[ $failed = 0 ]
