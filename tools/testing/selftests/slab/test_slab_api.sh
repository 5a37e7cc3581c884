#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Drive the test_slab_api module (lib/test_slab_api.c) through its phases:
# basic, bulk, stress while CPUs go offline and online, the stress
# caches' array sizes change and failslab fails allocations (each of the
# three a result of its own, which must have done it at least once or
# skip where the kernel or the machine cannot), and stress with
# objects held in "test_slab_api_stress" whose count /proc/slabinfo must
# show exactly; and names, where caches of every kind are destroyed and
# created again at once under one name and their /sys/kernel/slab entries
# checked; and numa, where the slabs of a cache must follow the memory
# policy of the task allocating (bind, interleave; mpol_exec sets it);
# and leak, where kmemleak must find objects leaked after they were
# freed and allocated again (kernels with kmemleak on); then what root
# may write to array_size, and reclaim emptying the arrays; then a new
# cache's slabs following the cpuset of the allocating task, and a
# memory block going offline and online while the stress runs (kernels
# with CONFIG_CPUSETS, CONFIG_MEMORY_HOTREMOVE and movablecore=).
# POSIX sh; runs under busybox ash.
#
# Environment overrides:
#   TSA_SECONDS  minimum stress run time in seconds (default 10)
#   TSA_OPS      minimum stress operations (default 1000000)
#   TSA_MAX_SECONDS  stop the stress after this long even if TSA_OPS is
#                not reached, which fails it (default 3 * TSA_SECONDS + 30)
#   TSA_HOLD     objects held for the slabinfo check (default 1000)
#   TSA_HOTPLUG  0 disables the CPU offline/online loop (default 1)
#   TSA_RESIZE   0 disables the loop that writes new array sizes to the
#                stress caches' array_size during the stress (default 1;
#                only where the file is writable and the cache has arrays)
#   TSA_OFFLINE_SECONDS  how long a memory block may take to go offline
#                before the write is interrupted (default 120)
#   TSA_INJECT   failslab probability in percent for the stress threads
#                in the middle third of the stress (default 0: none, and
#                the fault injection result skips); needs CONFIG_FAILSLAB
#                and CONFIG_FAULT_INJECTION_DEBUG_FS, else it skips too

. "$(dirname "$0")/tap.sh"

MOD=test_slab_api
CACHE=test_slab_api_stress

SECONDS_=${TSA_SECONDS:-10}
OPS=${TSA_OPS:-1000000}
MAX_SECONDS=${TSA_MAX_SECONDS:-0}
HOLD=${TSA_HOLD:-1000}
HOTPLUG=${TSA_HOTPLUG:-1}
RESIZE=${TSA_RESIZE:-1}
INJECT=${TSA_INJECT:-0}
OFFLINE_SECONDS=${TSA_OFFLINE_SECONDS:-120}
FAILSLAB=/sys/kernel/debug/failslab

NTESTS=17

echo "TAP version 13"

if [ "$(id -u)" -ne 0 ]; then
	skip_all "must be run as root"
fi

if ! module_available $MOD; then
	skip_all "module $MOD is not available (CONFIG_TEST_SLAB_API=m)"
fi

echo "1..$NTESTS"

# A leftover from an earlier run would make every modprobe a no-op.
rmmod $MOD >/dev/null 2>&1

kmsg_mark=0

# Remember how many of the module's lines the kernel log holds.
kmsg_start() {
	kmsg_mark=$(dmesg | grep -c "$MOD:")
}

# Print the module's new kernel log lines as TAP comments.
kmsg_show() {
	dmesg | grep "$MOD:" | tail -n +$((kmsg_mark + 1)) | tail -n 20 |
		sed 's/^/# /'
}

# load PHASE ARGS...: load the module; true if it loaded and reported
# checks, none of them failed.  NOCHECKS=1: a phase that checks nothing
# itself (leak, which kmemleak judges) may report none.
load() {
	phase=$1
	shift
	passed='[1-9][0-9]*'
	[ -n "${NOCHECKS:-}" ] && passed='[0-9]*'
	# A shell that keeps an assignment before a function call after it
	# must not carry this one over to the next load.
	NOCHECKS=
	kmsg_start
	echo "# ${LOADER:+$LOADER }modprobe $MOD phase=$phase $*"
	# shellcheck disable=SC2086
	${LOADER:-} modprobe $MOD phase="$phase" "$@"
	rc=$?
	kmsg_show
	if [ $rc -ne 0 ]; then
		echo "# modprobe failed with $rc"
		return 1
	fi
	if ! dmesg | grep "$MOD:" | tail -n +$((kmsg_mark + 1)) |
	     grep -q "$MOD: $phase: $passed checks passed, 0 failed"; then
		echo "# no summary line with passed checks and 0 failed"
		return 1
	fi
	return 0
}

unload() {
	rmmod $MOD
}

# CPUs that can go offline: those with an online file, cpu0 excluded.
hotplug_cpus() {
	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		c=${d##*/cpu}
		[ "$c" = 0 ] && continue
		[ -w "$d/online" ] || continue
		[ "$(cat "$d/online")" = 1 ] || continue
		echo "$c"
	done
}

# hotplug_loop STOPFILE CPUS...: take each CPU offline and back online
# until STOPFILE exists; print the number of completed cycles, those
# whose two writes both succeeded, and of failed writes.
hotplug_loop() {
	stopfile=$1
	shift
	cycles=0
	errors=0
	while [ ! -e "$stopfile" ]; do
		for c in "$@"; do
			f=/sys/devices/system/cpu/cpu$c/online
			if echo 0 >"$f" 2>/dev/null; then
				sleep 0.2 2>/dev/null || sleep 1
				if echo 1 >"$f" 2>/dev/null; then
					cycles=$((cycles + 1))
				else
					errors=$((errors + 1))
				fi
			else
				errors=$((errors + 1))
			fi
			[ -e "$stopfile" ] && break
		done
		sleep 0.2 2>/dev/null || sleep 1
	done
	# Leave every CPU online whatever happened.
	for c in "$@"; do
		echo 1 >"/sys/devices/system/cpu/cpu$c/online" 2>/dev/null
	done
	echo "# CPU hotplug: $cycles offline/online cycles, $errors failed writes"
}

# resize_loop STOPFILE: write array sizes to the stress caches'
# array_size until STOPFILE exists; print how many writes there were to
# caches with arrays, how many of them failed, and, when there was none,
# whether a stress cache was seen at all and whether one had arrays.
resize_loop() {
	stopfile=$1
	resizes=0
	errors=0
	seen=
	while [ ! -e "$stopfile" ]; do
		for n in 4 61 1024 13 125 29; do
			for f in /sys/kernel/slab/test_slab_api_stress*/array_size; do
				[ -w "$f" ] || continue
				size=$(cat "$f" 2>/dev/null)
				# None: a cache destroyed meanwhile.
				[ -n "$size" ] || continue
				seen=${seen:-caches}
				[ "$size" = 0 ] && continue
				# A cache destroyed meanwhile counts as neither.
				if echo "$n" >"$f" 2>/dev/null; then
					resizes=$((resizes + 1))
					seen=arrays
				elif [ -e "$f" ]; then
					errors=$((errors + 1))
					seen=arrays
				fi
			done
			sleep 0.3 2>/dev/null || sleep 1
			[ -e "$stopfile" ] && break
		done
	done
	case $seen in
	"") seen="; no stress cache seen" ;;
	caches) seen="; no stress cache with arrays" ;;
	*) seen= ;;
	esac
	echo "# array resizes: $resizes, $errors failed writes$seen"
}

# loop_done PID LOG: wait for a background loop and show what it printed.
loop_done() {
	wait "$1"
	cat "$2"
}

# 1: basic
if load basic; then
	ok "$MOD basic"
	unload
else
	not_ok "$MOD basic"
fi

# 2: bulk
if load bulk; then
	ok "$MOD bulk"
	unload
else
	not_ok "$MOD bulk"
fi

# 3-6: the stress, with CPUs going offline and online, array sizes
# written and failslab failing allocations meanwhile.  Each of these
# three is a result of its own, which counts what it did: a part that
# did nothing fails, or skips where the kernel or the machine cannot do
# it (one CPU, no failslab, no arrays) or where it was not asked for.
ncpus=0
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -d "$d" ] && ncpus=$((ncpus + 1))
done
cpus=$(hotplug_cpus)
tmpdir=$(mktemp -d 2>/dev/null || echo /tmp/$MOD.$$)
mkdir -p "$tmpdir"
stopfile=$tmpdir/stop
rm -f "$stopfile"
hp_pid='' hp_why='' hp_bad=''
if [ "$HOTPLUG" = 0 ]; then
	hp_why="not asked for (TSA_HOTPLUG=0)"
elif [ "$ncpus" -lt 2 ]; then
	hp_why="one CPU"
elif ! ls /sys/devices/system/cpu/cpu[1-9]*/online >/dev/null 2>&1; then
	hp_why="no online files (no CONFIG_HOTPLUG_CPU)"
elif [ -z "$cpus" ]; then
	hp_bad="$ncpus CPUs with online files, but none other than cpu0 online and writable"
else
	echo "# toggling CPUs $(echo "$cpus" | tr '\n' ' ')offline/online during the stress"
	# shellcheck disable=SC2086
	hotplug_loop "$stopfile" $cpus >"$tmpdir/hotplug.log" 2>&1 &
	hp_pid=$!
fi
rs_pid='' rs_why=''
if [ "$RESIZE" = 0 ]; then
	rs_why="not asked for (TSA_RESIZE=0)"
elif [ ! -w /sys/kernel/slab/kmalloc-64/array_size ]; then
	rs_why="no writable array_size (no array front end)"
else
	resize_loop "$stopfile" >"$tmpdir/resize.log" 2>&1 &
	rs_pid=$!
fi
# failslab counts "times" down by one for each failure it injects: from
# FAIL_TIMES, what is left says how many it injected.
FAIL_TIMES=1000000000
inject_arg='' inject_why='' inject_bad='' times_before=''
if [ "$INJECT" = 0 ]; then
	inject_why="not asked for (TSA_INJECT=0)"
else
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ ! -d $FAILSLAB ]; then
		inject_why="no $FAILSLAB (no CONFIG_FAILSLAB or CONFIG_FAULT_INJECTION_DEBUG_FS)"
	else
		times_before=$(cat $FAILSLAB/times)
		# Only tasks that ask (the stress threads, in the middle third
		# of the run) see failures.
		if echo Y >$FAILSLAB/task-filter &&
		   echo N >$FAILSLAB/ignore-gfp-wait &&
		   echo 1 >$FAILSLAB/interval &&
		   echo $FAIL_TIMES >$FAILSLAB/times &&
		   echo 0 >$FAILSLAB/verbose &&
		   echo "$INJECT" >$FAILSLAB/probability; then
			inject_arg="inject=1"
			echo "# failslab: $INJECT% of the stress threads' allocations fail" \
				"in the middle third"
		else
			inject_bad="a write to $FAILSLAB failed"
		fi
	fi
fi
# shellcheck disable=SC2086
# irq=1: hrtimers allocate and free in softirq and (not on PREEMPT_RT)
# hardirq context too.
load stress seconds="$SECONDS_" ops="$OPS" max_seconds="$MAX_SECONDS" irq=1 $inject_arg
rc=$?
injected=0
if [ -n "$inject_arg" ]; then
	injected=$((FAIL_TIMES - $(cat $FAILSLAB/times)))
	echo 0 >$FAILSLAB/probability
	echo "$times_before" >$FAILSLAB/times
fi
touch "$stopfile"
resizes=0
rs_bad=
if [ -n "$rs_pid" ]; then
	loop_done "$rs_pid" "$tmpdir/resize.log"
	resizes=$(sed -n 's/^# array resizes: \([0-9]*\), .*/\1/p' "$tmpdir/resize.log")
	if grep -q "^# array resizes: 0, 0 failed writes; no stress cache seen" \
		"$tmpdir/resize.log"; then
		rs_bad="the loop never saw a stress cache"
	elif grep -q "^# array resizes: 0, 0 failed writes; no stress cache with arrays" \
		"$tmpdir/resize.log"; then
		rs_why="the stress caches have no arrays"
	elif [ "${resizes:-0}" = 0 ]; then
		rs_bad="no array size written"
	elif ! grep -q "^# array resizes: [0-9]*, 0 failed" "$tmpdir/resize.log"; then
		rs_bad="a write of a good array size failed"
	fi
fi
cycles=0
if [ -n "$hp_pid" ]; then
	loop_done "$hp_pid" "$tmpdir/hotplug.log"
	cycles=$(sed -n 's/^# CPU hotplug: \([0-9]*\) .*/\1/p' "$tmpdir/hotplug.log")
	# The stress is "while CPUs go offline and online": without one
	# completed cycle it was not.  A write the kernel refused (a CPU
	# that would not go or come back) fails it too.
	if [ "${cycles:-0}" = 0 ]; then
		hp_bad="no CPU went offline and online again"
	elif ! grep -q "^# CPU hotplug: [0-9]* offline/online cycles, 0 failed" \
		"$tmpdir/hotplug.log"; then
		hp_bad="a CPU offline or online write failed"
	fi
fi
rm -rf "$tmpdir"
# The figures of the run, for the report next to the result.
num='\([0-9]*\)'
pat=".*stress: $num operations, $num objects, $num CPUs.*, $num failed allocations.*"
rep='\1 ops, \2 objects, \3 CPUs, \4 failed allocations'
line=$(dmesg | grep "$MOD: stress: [0-9]* operations" | tail -n 1)
figures=$(echo "$line" | sed -n "s/$pat/$rep/p")
fails=$(echo "$line" | sed -n "s/$pat/\4/p")
if [ $rc -eq 0 ]; then
	ok "$MOD stress: ${figures:-no figures}"
	unload
else
	not_ok "$MOD stress: ${figures:-no figures}"
fi

# 4: failslab failed some of the stress threads' allocations, and the
# stress saw them fail.
what="$MOD stress fault injection"
if [ -n "$inject_why" ]; then
	skip "$what: $inject_why"
elif [ -n "$inject_bad" ]; then
	not_ok "$what: $inject_bad"
elif [ "$injected" -gt 0 ] && [ "${fails:-0}" -gt 0 ]; then
	ok "$what: failslab failed $injected allocations, the stress saw $fails fail"
else
	not_ok "$what: failslab failed $injected allocations, the stress saw ${fails:-no} failures"
fi

# 5: CPUs went offline and online during the stress.
what="$MOD stress CPU hotplug"
if [ -n "$hp_why" ]; then
	skip "$what: $hp_why"
elif [ -n "$hp_bad" ]; then
	not_ok "$what: $hp_bad (${cycles:-0} cycles)"
else
	ok "$what: $cycles offline/online cycles"
fi

# 6: the stress caches' arrays were resized during the stress.
what="$MOD stress array resizes"
if [ -n "$rs_why" ]; then
	skip "$what: $rs_why"
elif [ -n "$rs_bad" ]; then
	not_ok "$what: $rs_bad (${resizes:-0} resizes)"
else
	ok "$what: $resizes array sizes written"
fi

# 7-9: objects held in the stress cache after kmem_cache_shrink().  An
# object KFENCE sampled lives outside the cache's slabs, and slabinfo
# would miss it: KFENCE samples nothing until they are counted.
kfence_pause
if load stress hold="$HOLD" seconds=2 ops=0; then
	ok "$MOD stress hold=$HOLD"
	if [ ! -r /proc/slabinfo ]; then
		unload
		why="no /proc/slabinfo (no CONFIG_SLAB or CONFIG_SLUB_DEBUG)"
		skip "slabinfo $CACHE active_objs: $why"
		skip "rmmod destroys $CACHE: $why"
	else
		line=$(grep "^$CACHE " /proc/slabinfo)
		echo "# slabinfo: $line"
		active=$(echo "$line" | awk '{ print $2 }')
		if [ "$active" = "$HOLD" ]; then
			ok "slabinfo $CACHE active_objs is $HOLD"
		else
			not_ok "slabinfo $CACHE active_objs is ${active:-missing}, expected $HOLD"
		fi
		if unload && ! grep -q "^$CACHE " /proc/slabinfo; then
			ok "rmmod destroys $CACHE"
		else
			not_ok "rmmod destroys $CACHE"
		fi
	fi
else
	not_ok "$MOD stress hold=$HOLD"
	not_ok "slabinfo $CACHE active_objs (module did not load)"
	not_ok "rmmod destroys $CACHE (module did not load)"
fi
kfence_resume

# 10: names reused at once, by caches of every kind
if [ ! -d /sys/kernel/slab ]; then
	skip "$MOD names: no /sys/kernel/slab (SLAB)"
elif load names; then
	ok "$MOD names"
	unload
else
	not_ok "$MOD names"
fi

# 11-12: slabs placed by the memory policy of the allocating task: every
# object on the bound node, and the objects of an interleaving task
# spread evenly over its nodes.  Upstream SLUB's slabs for an
# interleaving task come in runs from one node (lib/test_slab_api.c,
# run_numa()): a kernel without the series (no <cache>/sync attribute)
# is not asked for the spread.
DIR=$(dirname "$0")

# numa_policy MODE NODES: phase=numa with modprobe under that policy.
numa_policy() {
	if LOADER="$DIR/mpol_exec $1 $2" load numa numa_mode="$1" numa_nodes="$2"; then
		unload
		return 0
	fi
	return 1
}

if [ ! -d /sys/kernel/slab ]; then
	skip "$MOD numa bind: no /sys/kernel/slab (SLAB)"
	skip "$MOD numa interleave: no /sys/kernel/slab (SLAB)"
elif [ ! -d /sys/devices/system/node/node1 ]; then
	skip "$MOD numa bind: one node"
	skip "$MOD numa interleave: one node"
else
	if numa_policy bind 0 && numa_policy bind 1; then
		ok "$MOD numa bind: every object on the bound node"
	else
		not_ok "$MOD numa bind: every object on the bound node"
	fi
	if [ ! -e /sys/kernel/slab/kmalloc-64/sync ]; then
		skip "$MOD numa interleave: upstream SLUB (no sync attribute)"
	elif numa_policy interleave 0,1; then
		ok "$MOD numa interleave: objects spread over nodes 0 and 1"
	else
		not_ok "$MOD numa interleave: objects spread over nodes 0 and 1"
	fi
fi

# 13: kmemleak finds objects leaked after a free and a new allocation;
# an allocator whose per-cpu caches keep the pointers of objects they
# handed out would hide them.  16 are leaked, and at least half must be
# reported: a copy left on some stack may hide a few.
KMEMLEAK=/sys/kernel/debug/kmemleak
# Writes other than "clear" fail with EPERM while kmemleak is off.
if [ ! -w $KMEMLEAK ] || ! echo stack=on >$KMEMLEAK 2>/dev/null; then
	skip "$MOD leak: kmemleak is off (CONFIG_DEBUG_KMEMLEAK, kmemleak=on)"
elif echo clear >$KMEMLEAK && NOCHECKS=1 load leak; then
	addrs=$(dmesg | grep "$MOD: leak: object" | tail -n 16 |
		sed 's/.*object \(0x\)*//')
	# kmemleak reports objects only once they are 5 s old.
	sleep 6
	echo scan >$KMEMLEAK
	echo scan >$KMEMLEAK
	found=0
	for a in $addrs; do
		grep -q "unreferenced object 0x$a " $KMEMLEAK && found=$((found + 1))
	done
	# The allocator's own arrays must never look leaked.
	arrays=$(grep -cE '\] array_(new|free_slowpath|free_bulk|cache_attach)\+' $KMEMLEAK)
	echo "# kmemleak: $found of 16 leaked objects reported, $arrays reports of cpu arrays"
	unload
	if [ "$found" -ge 8 ] && [ "$arrays" -eq 0 ]; then
		ok "$MOD leak: $found of 16 reported"
	else
		not_ok "$MOD leak: $found of 16 reported, $arrays cpu arrays reported"
	fi
	echo clear >$KMEMLEAK
else
	not_ok "$MOD leak"
fi

# 14: array_size takes a good size at run time and refuses bad ones,
# which leave the size as it was; a cache without arrays refuses any.
f=/sys/kernel/slab/kmalloc-64/array_size
if [ ! -w $f ]; then
	skip "array_size writes: no writable $f (no array front end)"
else
	old=$(cat $f)
	bad=
	for v in 3 1025 abc ""; do
		echo "$v" >$f 2>/dev/null && bad="$bad '$v' taken;"
	done
	[ "$(cat $f)" = "$old" ] || bad="$bad size changed to $(cat $f);"
	dmesg | grep -q "SLUB kmalloc-64: array_size 3 refused" ||
		bad="$bad no message for 3;"
	if [ "$old" = 0 ]; then
		echo 32 >$f 2>/dev/null && bad="$bad a cache without arrays took 32;"
	elif ! echo 32 >$f || [ "$(cat $f)" != 32 ] ||
	     ! echo "$old" >$f || [ "$(cat $f)" != "$old" ]; then
		bad="$bad 32 and back to $old not taken;"
	fi
	echo "# kmalloc-64/array_size was $old, is $(cat $f)"
	if [ -z "$bad" ]; then
		ok "array_size writes: good taken, bad refused"
	else
		not_ok "array_size writes:$bad"
	fi
fi

# 15: reclaim empties the arrays: phase=park frees objects of a cache
# nobody else uses into the allocator's per-cpu caches, and drop_caches,
# which runs the shrinkers, must give every one back (array_objects 0).
# The shrinker empties the depots itself and asks each cpu to reap its
# own arrays at once, without waiting for it (THEORY 6 of mm/slub.c): a
# cpu that used the cache keeps its loaded array at the first such reap
# and gives it back at the next, so each drop_caches is given a second
# for the reaps it asked for.  The reaper alone needs two intervals (4 s)
# after the last use.  A shrinker that finds slab_mutex taken stops, so
# drop_caches is tried 3 times.
PARK=/sys/kernel/slab/test_slab_api_park/array_objects
if [ ! -d /sys/kernel/slab ] ||
   ! ls /sys/kernel/slab/*/array_objects >/dev/null 2>&1; then
	skip "reclaim empties the arrays: no array_objects files (no array front end)"
elif load park; then
	before=$(cut -d' ' -f1 $PARK)
	after=$before
	for i in 1 2 3; do
		echo 2 >/proc/sys/vm/drop_caches
		for t in 1 2 3 4 5 6 7 8 9 10; do
			after=$(cut -d' ' -f1 $PARK)
			[ "$after" = 0 ] && break
			sleep 0.1 2>/dev/null || sleep 1
		done
		[ "$after" = 0 ] && break
	done
	echo "# test_slab_api_park: $before objects in arrays before drop_caches, $after after"
	# The freeing cpu's two arrays and its node's depot of 8 full ones
	# hold all 512 objects, or once they overflow (the loaded array gives
	# half back) nine arrays and a half.
	size=$(cat /sys/kernel/slab/test_slab_api_park/array_size)
	want=$((size * 19 / 2))
	[ $want -gt 512 ] && want=512
	# KASAN's quarantine keeps most of them out of the arrays.
	dmesg | grep -q "$MOD: park: the KASAN quarantine" && want=1
	unload
	if [ "$before" = 0 ]; then
		skip "reclaim empties the arrays: no objects in arrays to begin with"
	elif [ "$before" -lt $want ]; then
		not_ok "reclaim empties the arrays: $before objects before, $want expected"
	elif [ "$after" = 0 ]; then
		ok "reclaim empties the arrays: $before objects before, none after"
	else
		not_ok "reclaim empties the arrays: $before objects before, $after after"
	fi
else
	not_ok "reclaim empties the arrays: phase=park"
fi

# 16: slabs placed by the cpuset of the allocating task: modprobe runs in
# a cgroup whose cpuset.mems is node 1, and every slab of a new cache
# must come from node 1, as with a bind policy (phase=numa looks at the
# node of every object).  The kernel takes cpuset.mems as the nodemask
# of a task's page allocations while those nodes have free memory.
CG=/sys/fs/cgroup
CPUSET=$CG/$MOD
CG_MOUNTED=

# cpuset_setup: a cgroup v2 group $CPUSET with cpuset.mems 1; false if
# the kernel has no cpuset controller.
cpuset_setup() {
	if ! grep -q "^[^ ]* $CG cgroup2 " /proc/mounts; then
		mount -t cgroup2 none $CG 2>/dev/null || return 1
		CG_MOUNTED=1
	fi
	grep -qw cpuset $CG/cgroup.controllers 2>/dev/null || return 1
	echo +cpuset >$CG/cgroup.subtree_control || return 1
	rmdir $CPUSET 2>/dev/null
	mkdir $CPUSET && echo 1 >$CPUSET/cpuset.mems &&
		[ "$(cat $CPUSET/cpuset.mems.effective)" = 1 ]
}

cpuset_cleanup() {
	rmdir $CPUSET 2>/dev/null
	[ -n "$CG_MOUNTED" ] && umount $CG
}

# in_cpuset CMD...: run CMD in $CPUSET ("0": the writing process).
in_cpuset() {
	(echo 0 >$CPUSET/cgroup.procs && exec "$@")
}

if [ ! -d /sys/kernel/slab ]; then
	skip "$MOD cpuset: no /sys/kernel/slab (SLAB)"
elif [ ! -d /sys/devices/system/node/node1 ]; then
	skip "$MOD cpuset: one node"
elif ! cpuset_setup; then
	cpuset_cleanup
	skip "$MOD cpuset: no cpuset controller (CONFIG_CPUSETS)"
else
	if LOADER=in_cpuset load numa numa_mode=cpuset numa_nodes=1; then
		unload
		ok "$MOD cpuset: slabs on the cpuset's node"
	else
		not_ok "$MOD cpuset: slabs on the cpuset's node"
	fi
	cpuset_cleanup
fi

# 17: a memory block goes offline while the stress allocates and frees,
# and comes back online.  Going offline, the engine's memory notifier
# shrinks every cache while the stress runs.  movablecore= on the
# command line makes ZONE_MOVABLE blocks, whose pages can all migrate;
# one that holds boot-time allocations (PG_reserved) refuses at once
# with EBUSY, one with a hole (the last block below 4 GiB, whose end
# the firmware keeps) with EINVAL, and the next is tried.  A write that takes longer than
# TSA_OFFLINE_SECONDS is interrupted, which makes the kernel give up
# (EINTR) and put the block back.

# movable_blocks: the online memory blocks of ZONE_MOVABLE.
movable_blocks() {
	for d in /sys/devices/system/memory/memory[0-9]*; do
		[ "$(cat "$d/state" 2>/dev/null)" = online ] || continue
		grep -qw Movable "$d/valid_zones" 2>/dev/null || continue
		echo "$d"
	done
}

blocks=$(movable_blocks)
if [ ! -d /sys/devices/system/memory ]; then
	skip "memory offline: no memory blocks (CONFIG_MEMORY_HOTPLUG)"
elif [ -z "$blocks" ]; then
	skip "memory offline: no online ZONE_MOVABLE block (movablecore=)"
else
	tmpdir=$(mktemp -d 2>/dev/null || echo /tmp/$MOD.$$)
	mkdir -p "$tmpdir"
	(load stress seconds=20 ops=0 irq=1 >"$tmpdir/stress.log" 2>&1
	 echo $? >"$tmpdir/stress.rc") &
	st_pid=$!
	sleep 3
	done_block=
	why=
	for b in $blocks; do
		start=$(date +%s)
		timeout "$OFFLINE_SECONDS" sh -c "echo offline >$b/state" \
			2>"$tmpdir/offline.err"
		rc=$?
		took=$(($(date +%s) - start))
		err=$(tr '\n' ' ' <"$tmpdir/offline.err")
		echo "# ${b##*/}: offline exit $rc after ${took}s ${err}"
		if [ "$(cat "$b/state")" = offline ]; then
			done_block=$b
			break
		fi
		why="$why ${b##*/}: exit $rc after ${took}s;"
	done
	online=
	if [ -n "$done_block" ] && echo online >"$done_block/state" &&
	   [ "$(cat "$done_block/state")" = online ]; then
		online=1
	fi
	wait $st_pid
	cat "$tmpdir/stress.log"
	stress_rc=$(cat "$tmpdir/stress.rc" 2>/dev/null || echo 1)
	rm -rf "$tmpdir"
	[ "$stress_rc" = 0 ] && unload
	if [ -z "$done_block" ]; then
		not_ok "memory offline: no block went offline:$why"
	elif [ -z "$online" ]; then
		not_ok "memory offline: ${done_block##*/} did not come back online"
	elif [ "$stress_rc" != 0 ]; then
		not_ok "memory offline: the stress failed meanwhile"
	else
		ok "memory offline: ${done_block##*/} offline and online under the stress"
	fi
fi

echo "# $((NTESTS - failed)) of $NTESTS passed"
[ $failed -eq 0 ]
