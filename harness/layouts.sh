#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make layouts: boot the two struct page layouts on the same guest size and
# compare the "reserved" figure of the boot "Memory:" line.  Removing the
# 8-byte padding must save exactly 8 bytes per struct page of the memmap,
# which covers whole present memory sections.  Also prints how the
# disassembly of the slab fastpath entry points differs between them
# (harness/fastpath-diff.sh).
#
# MEM=<size> (default 8G) sets the guest memory.  The vmemmap is mapped
# in 2 MiB blocks, and 8 sections of 56-byte struct pages fill 7 of them
# exactly: the comparison is exact when every run of present sections is
# a multiple of 1 GiB, as for 1G, 8G and 256G guests.  The page-table
# pages that map the vmemmap are reserved too, one per GiB of it: where
# the smaller memmap needs fewer of them (256G: 4 against 5), the
# expectation adds 4K for each, counted from the guest's memory ranges.
# From 64G up run-qemu.sh backs the guest memory with a sparse file.
#
# BASE=6.12 compares ours in the two layouts there, where the 56-byte
# layout's counters carry the slab page type (<linux/slub_def.h>): the
# bench kernels bench-aligned and bench-internal, which make bench boots
# too (series-aligned and series would be two more kernels to build on
# that base, for the same comparison).
set -eu
STAGE=layouts
. "$(dirname "$0")/lib.sh"

mem=${MEM:-8G}
case $BASE in
6.1) a=series-aligned i=series ;;
*) a=bench-aligned i=bench-internal ;;
esac
what="ours on $BASE"
profiles="$i $a"
"$REPO/harness/deps.sh"
"$REPO/harness/kselftest.sh"
for p in $profiles; do
	"$REPO/harness/build.sh" "$p"
	"$REPO/harness/initramfs.sh" "$p"
done

echo "Fastpath disassembly, $a against $i ($what):"
"$REPO/harness/fastpath-diff.sh" "$a" "$i"
echo

# The number of page-table pages (one per GiB of vmemmap) that map the
# memmap of the present 128 MiB sections in the console log LOG, for a
# struct page of SIZE bytes.
vmemmap_tables() {
	local a b n t
	local -A seen=()
	while read -r a b; do
		for ((n = a >> 27; n <= b >> 27; n++)); do
			for ((t = n * 32768 * $2 >> 30; t <= ((n + 1) * 32768 * $2 - 1) >> 30; t++)); do
				seen[$t]=1
			done
		done
	done < <(sed -n 's/.*node *[0-9]*: \[mem \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)\]$/\1 \2/p' "$1")
	echo ${#seen[@]}
}

declare -A reserved size pages tables
for p in $profiles; do
	clog=$LOGS/console-layout-$(profile_key "$p").log
	log "$p: booting with $mem, 1 vCPU"
	"$REPO/harness/run-qemu.sh" "$p" "$clog" -u report -m "$mem" -s 1 -t 900
	line=$(grep -m1 -o 'Memory: .*' "$clog") || die "$p: no Memory: line in $clog"
	reserved[$p]=$(echo "$line" | sed -n 's/.* \([0-9]*\)K reserved.*/\1/p')
	size[$p]=$(sed -n 's/.*slabreport: sizeof(struct page)=\([0-9]*\).*/\1/p' "$clog")
	pages[$p]=$(sed -n 's/.*slabreport: memmap_pages=\([0-9]*\).*/\1/p' "$clog")
	[ -n "${reserved[$p]}" ] && [ -n "${size[$p]}" ] && [ -n "${pages[$p]}" ] ||
		die "$p: cannot read the figures from $clog"
	tables[$p]=$(vmemmap_tables "$clog" "${size[$p]}")
	[ "${tables[$p]}" -gt 0 ] || die "$p: no memory ranges in $clog"
	printf '  %-15s sizeof(struct page)=%s memmap_pages=%s\n  %-15s %s\n' \
		"$p" "${size[$p]}" "${pages[$p]}" "" "$line"
done

[ "${pages[$a]}" = "${pages[$i]}" ] || die "memmap pages differ: ${pages[$a]} vs ${pages[$i]}"
delta=$((reserved[$a] - reserved[$i]))
dt=$((tables[$a] - tables[$i]))
want=$(((size[$a] - size[$i]) * pages[$i] / 1024 + 4 * dt))
pt=
[ "$dt" -ne 0 ] && pt=" + $dt vmemmap page-table page(s) (${tables[$a]} against ${tables[$i]})"
echo
echo "$what, guest $mem: reserved ${reserved[$a]}K (aligned, ${size[$a]} bytes) - ${reserved[$i]}K (unpadded, ${size[$i]} bytes) = ${delta}K"
echo "expected ($((size[$a] - size[$i])) bytes x ${pages[$i]} pages$pt) = ${want}K"
if [ "$delta" -ne "$want" ]; then
	echo "FAIL: reserved memory dropped by ${delta}K, not ${want}K"
	exit 1
fi
echo "PASS: reserved memory dropped by exactly $((size[$a] - size[$i])) bytes per page${pt:+ plus${pt# +}}"
