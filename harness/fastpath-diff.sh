#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare the disassembly of the slab fastpath entry points of two built
# profiles (default: series and series-aligned).  Addresses, relative
# displacements and branch offsets are normalised away; a function that
# still differs is shown once more with registers normalised too, so that
# only real instruction differences remain.
#
# usage: fastpath-diff.sh [PROFILE_A PROFILE_B]: profiles of one base;
# their out directories are those of BASE (lib.sh, profile_out).
set -eu
STAGE=fastpath
. "$(dirname "$0")/lib.sh"

a=${1:-series-aligned} b=${2:-series}
case $(profile_base "$a") in
6.1) funcs="kmem_cache_alloc kmem_cache_alloc_lru kmem_cache_alloc_node
__kmem_cache_alloc_node kmem_cache_free __kmem_cache_free" ;;
# 6.12: the *_noprof entry points; kmalloc's are slub.c's own.
*) funcs="kmem_cache_alloc_noprof kmem_cache_alloc_lru_noprof kmem_cache_alloc_node_noprof
__kmalloc_cache_noprof kmem_cache_free kfree" ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# disasm PROFILE FUNC: the normalised instructions of FUNC
disasm() {
	objdump -d --no-show-raw-insn --disassemble="$2" "$(profile_out "$1")/vmlinux" |
		sed -n "/^[0-9a-f]* <$2>:/,/^\$/p" |
		sed -E -e 's/^ *[0-9a-f]+:\t//' -e '/^[0-9a-f]+ </d' -e '/^$/d' \
			-e 's/\b[0-9a-f]{16} <([^>]*)>/<\1>/g' \
			-e 's/(call|jmp|j[a-z]+) +[0-9a-f]+ </\1 </' \
			-e 's/-?0x[0-9a-f]+\(%rip\)/REL(%rip)/g' \
			-e 's/# [0-9a-f]+ </# </' -e 's/\$0xffffffff8[0-9a-f]+/$ADDR/g' \
			-e 's/\+0x[0-9a-f]+>/+OFF>/g' -e 's/[[:space:]]+$//'
}

for p in "$a" "$b"; do
	[ -f "$(profile_out "$p")/vmlinux" ] || die "profile $(profile_key "$p") is not built"
done
for f in $funcs; do
	disasm "$a" "$f" >"$tmp/a"
	disasm "$b" "$f" >"$tmp/b"
	[ -s "$tmp/a" ] || { printf '  %-24s not found\n' "$f"; continue; }
	if cmp -s "$tmp/a" "$tmp/b"; then
		printf '  %-24s identical (%d instructions)\n' "$f" "$(wc -l <"$tmp/a")"
		continue
	fi
	for x in a b; do
		sed -E -e 's/%r(1[0-5]|[0-9])[dwb]?\b/%R/g' \
			-e 's/%[re](ax|bx|cx|dx|si|di)\b/%R/g' \
			-e 's/0x0\(%R/(%R/g' "$tmp/$x" >"$tmp/$x.r"
	done
	printf '  %-24s %d vs %d instructions; beyond register allocation and order:\n' \
		"$f" "$(wc -l <"$tmp/a")" "$(wc -l <"$tmp/b")"
	# Instructions that one side has more often than the other.
	{ sed 's/^/A /' "$tmp/a.r"; sed 's/^/B /' "$tmp/b.r"; } |
		awk -v a="$a" -v b="$b" '
		{ k = substr($0, 3); n[k] += ($1 == "A") ? 1 : -1 }
		END { for (k in n) if (n[k] > 0) printf "      %s: %d x %s\n", a, n[k], k
			else if (n[k] < 0) printf "      %s: %d x %s\n", b, -n[k], k }' | sort
done
