#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Slab object extensions as users see them: the allocation tags of
# /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING) and the memcg charge of
# accounted slab objects in memory.stat (CONFIG_MEMCG, cgroup v2).
#
# test_slab_api phase=objext holds COUNT objects of the accounted cache
# test_slab_api_objext allocated one at a time (objext_one()), COUNT
# more from one kmem_cache_alloc_bulk() (objext_bulk()), COUNT
# kmalloc(128) (objext_kmalloc()) and one kmalloc of three pages
# (objext_large()).  As upstream SLUB counts them, each live slab object
# is one call and its cache's slab_size in bytes at its call site; the
# large kmalloc is one call and its pages, 16 KiB.  Writing 1 to the
# module's objext_release parameter frees them: every site is back to 0
# bytes and 0 calls.  The memcg the module was loaded from is charged
# slab_size + 8 bytes (the object and its obj_cgroup pointer) for each
# object of the accounted cache: its memory.stat "slab" grows by that
# much, within 10%, and falls by as much when they are freed.
#
# Each part skips where the kernel lacks what it reads: upstream SLUB
# of 6.12 passes it as the series does.  POSIX sh; runs under busybox.
#
# Environment: OBJEXT_COUNT  objects per site (default 2048)

. "$(dirname "$0")/tap.sh"

MOD=test_slab_api
CACHE=test_slab_api_objext
COUNT=${OBJEXT_COUNT:-2048}
LARGE_BYTES=16384
ALLOCINFO=/proc/allocinfo
CGROOT=/sys/fs/cgroup
CG=$CGROOT/slab_objext_test

echo "TAP version 13"

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
module_available $MOD ||
	skip_all "module $MOD is not available (CONFIG_TEST_SLAB_API=m)"

echo "1..7"
rmmod $MOD >/dev/null 2>&1

# tags: whether /proc/allocinfo counts allocations now.
tags=
if [ ! -r $ALLOCINFO ]; then
	tags_why="no /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING)"
elif [ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" != 1 ]; then
	tags_why="allocation profiling is off (vm.mem_profiling)"
else
	tags=1
fi

# memcg: a cgroup v2 memory controller to load the module from.
memcg=
memcg_setup() {
	# Mounted already (by systemd, or by whoever ran before us): the
	# mount point and type, whatever the mount's source is called.
	awk -v m=$CGROOT '$2 == m && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts ||
		mount -t cgroup2 none $CGROOT 2>/dev/null || return 1
	grep -qw memory $CGROOT/cgroup.controllers 2>/dev/null || return 1
	echo +memory >$CGROOT/cgroup.subtree_control 2>/dev/null
	rmdir $CG 2>/dev/null
	mkdir $CG 2>/dev/null && [ -r $CG/memory.stat ]
}
if memcg_setup; then
	memcg=1
else
	memcg_why="no cgroup v2 memory controller (CONFIG_MEMCG)"
fi

# The memcg's slab bytes, after the 2 s periodic flush of its stats.
memcg_slab() {
	sleep 3
	awk '$1 == "slab" { print $2 }' $CG/memory.stat
}

# site FUNC: "bytes calls" of the module's allocation site FUNC.
site() {
	awk -v f="func:$1" '$4 == "['$MOD']" && $5 == f { print $1, $2 }' \
		$ALLOCINFO
}

# check_site NAME FUNC BYTES CALLS
check_site() {
	got=$(site "$2")
	if [ "$got" = "$3 $4" ]; then
		ok "$1: $2 counts $3 bytes in $4 calls"
	else
		not_ok "$1: $2 counts '${got:-no line}' (bytes calls), expected '$3 $4'"
	fi
}

kfence_pause
if [ -n "$memcg" ]; then
	before=$(memcg_slab)
	# The module's allocations are charged to the memcg of modprobe.
	sh -c "echo \$\$ >$CG/cgroup.procs && exec modprobe $MOD phase=objext count=$COUNT"
else
	modprobe $MOD phase=objext count=$COUNT
fi
rc=$?
dmesg | grep "$MOD: objext" | tail -n 3 | sed 's/^/# /'
if [ $rc -ne 0 ]; then
	for i in 1 2 3 4 5 6 7; do
		not_ok "modprobe $MOD phase=objext failed ($rc)"
	done
	kfence_resume
	rmdir $CG 2>/dev/null
	exit 1
fi

size=$(cat /sys/kernel/slab/$CACHE/slab_size 2>/dev/null)
ksize=$(cat /sys/kernel/slab/kmalloc-128/slab_size 2>/dev/null)
echo "# slab_size: $CACHE ${size:-?}, kmalloc-128 ${ksize:-?}"

if [ -n "$tags" ] && [ -n "$size" ] && [ -n "$ksize" ]; then
	check_site "tags" objext_one $((COUNT * size)) "$COUNT"
	check_site "tags" objext_bulk $((COUNT * size)) "$COUNT"
	check_site "tags" objext_kmalloc $((COUNT * ksize)) "$COUNT"
	check_site "tags" objext_large $LARGE_BYTES 1
else
	for f in objext_one objext_bulk objext_kmalloc objext_large; do
		skip "tags: $f: ${tags_why:-no slab_size in /sys/kernel/slab}"
	done
fi

if [ -n "$memcg" ]; then
	held=$(memcg_slab)
fi
echo 1 >/sys/module/$MOD/parameters/objext_release

if [ -n "$tags" ] && [ -n "$size" ]; then
	left=
	for f in objext_one objext_bulk objext_kmalloc objext_large; do
		got=$(site $f)
		[ "$got" = "0 0" ] || left="$left $f: '${got:-no line}'"
	done
	if [ -z "$left" ]; then
		ok "tags: every site back to 0 bytes in 0 calls after the frees"
	else
		not_ok "tags: left after the frees:$left"
	fi
else
	skip "tags: after the frees: ${tags_why:-no slab_size in /sys/kernel/slab}"
fi

if [ -n "$memcg" ] && [ -n "$size" ]; then
	after=$(memcg_slab)
	want=$((2 * COUNT * (size + 8)))
	tol=$((want / 10))
	grew=$((held - before))
	fell=$((held - after))
	echo "# memory.stat slab: $before before, $held held, $after after; $want expected"
	if [ $grew -ge $((want - tol)) ] && [ $grew -le $((want + tol)) ]; then
		ok "memcg: slab grew by $grew bytes for $want charged"
	else
		not_ok "memcg: slab grew by $grew bytes, expected $want +- $tol"
	fi
	if [ $fell -ge $((want - tol)) ] && [ $fell -le $((want + tol)) ]; then
		ok "memcg: slab fell by $fell bytes when they were freed"
	else
		not_ok "memcg: slab fell by $fell bytes, expected $want +- $tol"
	fi
else
	skip "memcg: charge: ${memcg_why:-no slab_size in /sys/kernel/slab}"
	skip "memcg: uncharge: ${memcg_why:-no slab_size in /sys/kernel/slab}"
fi

rmmod $MOD
kfence_resume
if [ -n "$memcg" ]; then
	# Back to the root cgroup, then the test's can go.
	rmdir $CG 2>/dev/null
fi
[ $failed = 0 ]
