#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: our allocator against upstream SLUB and SLAB, side by side.
#
# Five kernels from the same base and config (profiles bench-* in
# profiles.conf: base + bench.config), only the allocator or the struct
# page layout differing, each booted under QEMU to run harness/modules/
# slab_bench (the guest side is the "bench" suite of harness/guest/init):
#
#   icount  -icount shift=0, 1 vCPU: single-CPU costs in guest
#           instructions per operation, deterministic.  Run twice
#           (ICOUNT_PASSES), and the two passes are compared.  Also the
#           boot-time strategies of our kernels and slab_nomerge for bulk
#           and the network case.  Every icount boot runs under the
#           slabcost TCG plugin too (below), which counts the events and
#           cache misses icount prices as one instruction.
#   tcg     plain TCG, 2 vCPUs: every kernel and strategy once per round,
#           interleaved (A B C A B C ...), ROUNDS rounds; the report gives
#           median and min-max.  Remote free and all-CPU throughput; the
#           network case, with slab_nomerge boots too unless QUICK.
#   dave    8 GiB, 1 vCPU, icount and the slabcost plugin: Dave Hansen's
#           dd, a 4 GiB ramfs file written with bs=1G, on the four kernels
#           whose struct page differs (not with QUICK).
#   fwd     Jesper Brouer's IP forwarding, one CPU, one UDP flow (guest/
#           init, bench_fwd): frames received on one device of modules/
#           fwdnic, a NIC in guest memory, forwarded out of its other,
#           in each of FWD_MODES: napi (the NAPI skb cache and so
#           kmem_cache_alloc_bulk()/_free_bulk() in the path, the TX
#           completion moderated), napi-k1 (completed after every
#           receive poll), nobulk (netdev_alloc_skb(), no bulk API) and
#           pages (napi_build_skb() over recycled pages).  Icount, 1
#           vCPU and the plugin, ICOUNT_PASSES passes,
#           with the calls of the allocator's entry points counted; the
#           kernels, ours also with slub_frontend=freelist, each with and
#           without slab_nomerge.
#   fwdtcg  the same boots in plain TCG, 1 vCPU, FWD_ROUNDS interleaved
#           rounds (5; 3 with QUICK): packets per second.
#   mem     8 GiB, 1 vCPU: the boot "Memory:" line, Slab: of /proc/meminfo
#           after boot, after the module's workload and after a dd to
#           ramfs, and slab pages per cache of a fixed workload; the KiB
#           of slabs of each cache after boot (/proc/slabinfo), which the
#           report compares with SLUB's.
#
# The network case, in every icount and tcg boot but the mem ones: harness/
# guest/udpbench sends UDP datagrams over lo to itself and receives them,
# an skb allocated and freed per datagram; cost per datagram, send and
# receive together.
#
#   plain   the same five kernels built without SLAB_FREELIST_HARDENED
#           and _RANDOM (profiles bench-*-unhardened), booted like icount
#           for the fastpath, kmalloc and bulk cases: the fastpath targets
#           hold in both configurations.  CONFIGS=hardened leaves them out.
#   rt      ours (internal layout) and SLUB built with PREEMPT_RT
#           (profiles bench-internal-rt, bench-slub-rt), booted as plain:
#           upstream's SLUB takes its cpu's local lock on every operation
#           there, ours locks its cpu freelists, and the arrays' fastpaths
#           are those of the other kernels.  6.12 only, and only with
#           CONFIGS=rt (make bench CONFIGS="hardened unhardened rt").
#
# QUICK=1: one icount pass, 3 TCG rounds of the five kernels without the
# strategies and slab_nomerge (fwd keeps its variants, in the modes napi
# and nobulk).  ROUNDS=, ICOUNT_PASSES=, FWD_ROUNDS= and FWD_MODES= (a
# comma list) override.
# KERNELS="ours-internal slub ..." boots only those (the report then says
# which targets it could not judge, and fails).  MEASURES="fwd fwdtcg"
# runs only those of the measures above (icount tcg dave fwd fwdtcg mem
# plain), with the same consequence.
# BASE=6.12: the four kernels 6.12 has (no SLAB) into
# build/bench@6.12/.
# Output: build/bench/report.md, build/bench/*.png, build/bench/results.tsv
# (raw), build/bench/model.md (the icount boots' plugin counts and the cost
# model's cycles, harness/model-report.py) with the raw counts in
# build/bench/model/.  A progress line per kernel and case group; console logs in
# build/logs/console-bench-<measure>-<variant>-<run>.log.
set -eu
STAGE=bench
. "$(dirname "$0")/lib.sh"

quick=${QUICK:-0}
[ "$quick" = 0 ] || quick=1
rounds=${ROUNDS:-$([ $quick = 1 ] && echo 3 || echo 7)}
passes=${ICOUNT_PASSES:-$([ $quick = 1 ] && echo 1 || echo 2)}
out=$BUILD/bench$(base_suffix)
res=$out/results.tsv

# name:profile, ours first: the kernels of BASE (lib.sh, bench_kernels).
kernels=$(bench_kernels)
base_kernels=$(for k in $kernels; do printf '%s ' "${k%%:*}"; done)
if [ -n "${KERNELS:-}" ]; then
	pick=
	for k in $kernels; do
		case " $KERNELS " in *" ${k%%:*} "*) pick="$pick $k" ;; esac
	done
	[ -n "$pick" ] || die "KERNELS=$KERNELS names none of base $BASE's: $base_kernels"
	kernels=${pick# }
fi
all_measures="icount tcg dave fwd fwdtcg mem plain rt"
measures=${MEASURES:-$all_measures}
for m in $measures; do
	case " $all_measures " in *" $m "*) ;; *) die "MEASURES=$measures: no measure $m (there are: $all_measures)" ;; esac
done
# usage: measure M: whether this run takes measure M.
measure() {
	case " $measures " in *" $1 "*) return 0 ;; esac
	return 1
}
configs=${CONFIGS:-hardened unhardened}
case " $configs " in *" hardened "*) ;; *) die "CONFIGS=$configs: the hardened kernels are always measured" ;; esac
plain=0
case " $configs " in *" unhardened "*) measure plain && plain=1 ;; esac
plain_cases=calib,fast,kmalloc,bulk
rt=0
case " $configs " in *" rt "*) measure rt && rt=1 ;; esac
[ $rt = 0 ] || [ "$BASE" != 6.1 ] ||
	die "CONFIGS=$configs: 6.1 has no PREEMPT_RT on x86 without the RT patch set, which linux-source-6.1 does not carry"
# usage: rt_kernel NAME: whether kernel NAME has a PREEMPT_RT build.
rt_kernel() {
	case $1 in ours-internal | slub) return 0 ;; esac
	return 1
}
# Boot-time strategies of our kernels (the default, lockless + cmpxchg
# with the array front end, is the plain kernel).
strategies="irqoff:slub_fastpath=irqoff bitlock:slub_pair=bitlock irqoff-bitlock:slub_fastpath=irqoff,slub_pair=bitlock freelist:slub_frontend=freelist"
# The freelist front end with each fallback, for the cost model's answer
# to "what does the double cmpxchg buy" (icount boots only): the arrays'
# hit path takes neither the freelist cmpxchg nor the slab pair.
model_strategies="freelist-irqoff:slub_frontend=freelist,slub_fastpath=irqoff freelist-bitlock:slub_frontend=freelist,slub_pair=bitlock"
single_cases=calib,fast,kmalloc,allocn,bulk,bulkm,many
forkexec=200		# fork+exec of busybox per boot
tcg_cases=calib,fast,kmalloc,allocn,bulk,remote,mt
dd_mib=128		# guests of 512 MiB
# The network case: payload bytes x datagrams in flight, and per case the
# cheapest of net_reps runs of net_packets datagrams.
net_cases=64x1,64x32,1400x1,1400x32
net="harness.bench_net=$net_cases harness.bench_net_packets=512 harness.bench_net_reps=7"
mem_dd_mib=1024		# the 8 GiB guest
dave_mib=4096		# Dave's dd, the 8 GiB guest
# IP forwarding: packets per run, runs per boot (after a warm-up run),
# per mode (harness/guest/init, bench_fwd).  A mode adds about 12 s to an
# icount boot under the plugin (four modes 54 s, one 17 s, on a loaded
# host); a TCG boot of the four takes 5 s.
fwd_modes=${FWD_MODES:-$([ $quick = 1 ] && echo napi,nobulk || echo napi,napi-k1,nobulk,pages)}
fwd="harness.bench_fwd=16384 harness.bench_fwd_reps=3 harness.bench_fwd_modes=$fwd_modes"
fwd_rounds=${FWD_ROUNDS:-$([ $quick = 1 ] && echo 3 || echo 5)}

"$REPO/harness/deps.sh"
for k in $kernels; do
	"$REPO/harness/build.sh" "${k#*:}"
	"$REPO/harness/initramfs.sh" "${k#*:}"
	if [ $rt = 1 ] && rt_kernel "${k%%:*}"; then
		"$REPO/harness/build.sh" "${k#*:}-rt"
		"$REPO/harness/initramfs.sh" "${k#*:}-rt"
	fi
	[ $plain = 1 ] || continue
	"$REPO/harness/build.sh" "${k#*:}-unhardened"
	"$REPO/harness/initramfs.sh" "${k#*:}-unhardened"
done
mkdir -p "$out"
rm -f "$out"/*.png "$out"/report.md
: >"$res"

# One boot.  usage: bench_boot MEASURE VARIANT PROFILE RUN CMDLINE QEMU-OPTS...
# Appends "measure variant run group key value" rows to results.tsv and
# prints a progress line per case group.
bench_boot() {
	local measure=$1 variant=$2 profile=$3 run=$4 cmdline=$5
	shift 5
	local clog=$LOGS/console-bench-$measure-$variant-$run.log t0 rows rc why
	t0=$(date +%s)
	# What this boot must produce: bench-report.py fails the run on any
	# figure of the plan that is missing.
	printf '%s\t%s\t%s\tplan\tcases\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_cases=\([^ ]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tdd\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_dd=\([0-9]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tforkexec\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_forkexec=\([0-9]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tnet\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_net=\([^ ]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tfwd\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_fwd=\([0-9]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tfwd_modes\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_fwd_modes=\([^ ]*\).*/\1/p')" >>"$res"
	# The report states how many datagrams and runs a figure is of.
	printf '%s\t%s\t%s\tplan\tnet_packets\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_net_packets=\([0-9]*\).*/\1/p')" >>"$res"
	printf '%s\t%s\t%s\tplan\tnet_reps\t%s\n' "$measure" "$variant" "$run" \
		"$(echo "$cmdline" | sed -n 's/.*harness\.bench_net_reps=\([0-9]*\).*/\1/p')" >>"$res"
	rc=0
	"$REPO/harness/run-qemu.sh" "$profile" "$clog" -u bench -a "$cmdline" "$@" || rc=$?
	# QEMU's stale int3 (harness/stale-int3.py), as make check does: the
	# boot once more, the broken log kept beside, the retry on record.
	if [ $rc != 0 ] && why=$("$REPO/harness/stale-int3.py" "$clog"); then
		mv "$clog" "${clog%.log}.stale-int3.log"
		log "$measure $variant run $run: QEMU ran a stale int3 ($why); booting once more"
		printf '%s\t%s\t%s\tmeta\tretried\t%s\n' "$measure" "$variant" "$run" \
			"$why" >>"$res"
		rc=0
		"$REPO/harness/run-qemu.sh" "$profile" "$clog" -u bench -a "$cmdline" "$@" || rc=$?
	fi
	if [ $rc != 0 ]; then
		log "$measure $variant run $run: boot failed (log: ${clog#$REPO/})"
		printf '%s\t%s\t%s\terror\tboot\t%s\n' "$measure" "$variant" "$run" "${clog#$REPO/}" >>"$res"
		return 0
	fi
	# meta rows: what the boot says it did (slab_bench's repetitions
	# per figure), for the report's text.
	rows=$(sed -n \
		-e 's/^BENCH: slab_bench: start .* reps=\([0-9]*\) .*/meta\treps\t\1/p' \
		-e 's/^BENCH: slab_bench: result \([a-z]*\) \([0-9]*\) \([0-9.]*\)$/\1\t\2\t\3/p' \
		-e 's/^BENCH: slab_bench: calib icount .*ticks_per_insn=\([0-9.]*\) overhead=\([0-9]*\)$/calib\tticks_per_insn\t\1\ncalib\toverhead\t\2/p' \
		-e 's/^BENCH: memory Memory: .* \([0-9]*\)K reserved.*/memory\treserved_kb\t\1/p' \
		-e 's/^BENCH: \(slab_[a-z]*_kb\) \([0-9]*\)$/memory\t\1\t\2/p' \
		-e 's/^BENCH: dd mib=\([0-9]*\) ns=\([0-9]*\)$/dd\t\1\t\2/p' \
		-e 's/^BENCH: forkexec n=\([0-9]*\) ns=\([0-9]*\)$/forkexec\t\1\t\2/p' \
		-e 's/^BENCH: frag bench_frag_\([0-9]*\) .* pages=\([0-9]*\)$/frag\t\1\t\2/p' \
		-e 's/^BENCH: net \([0-9]*x[0-9]*\) .* per_packet=\([0-9.]*\)$/net\t\1\t\2/p' \
		-e 's/^BENCH: fwd mode=\([a-z0-9-]*\) pps=\([0-9]*\) .* per_completion=\([0-9.]*\)$/fwd\tpps.\1\t\2\nfwd\tbatch.\1\t\3/p' \
		-e 's/^BENCH: slabcache \([^ ]*\) \([0-9]*\)$/slabcache\t\1\t\2/p' \
		"$clog")
	if grep -q '^BENCH: error\|slab_bench: end ret=[^0]' "$clog"; then
		log "$measure $variant run $run: the benchmark failed (log: ${clog#$REPO/})"
		printf '%s\t%s\t%s\terror\tmodule\t%s\n' "$measure" "$variant" "$run" "${clog#$REPO/}" >>"$res"
	fi
	[ -n "$rows" ] && echo "$rows" | sed "s/^/$measure\t$variant\t$run\t/" >>"$res"
	echo "$rows" | awk -F'\t' -v pre="$measure $variant run $run" -v s=$(($(date +%s) - t0)) '
		$1 != "calib" && $1 != "meta" && $1 != "slabcache" { if (!($1 in line)) order[n++] = $1; line[$1] = line[$1] " " $2 "=" $3 }
		END { for (i = 0; i < n; i++) printf "%s: %s:%s\n", pre, order[i], line[order[i]]
		      printf "%s: %ds\n", pre, s }' |
		while read -r l; do log "$l"; done
}

# The variants of one measure: "variant profile cmdline-extra".
main_variants() {
	for k in $kernels; do
		echo "${k%%:*} ${k#*:} -"
	done
}

# usage: strategy_variants [STRATEGIES]: ours with each boot-time strategy
# ($strategies by default).
strategy_variants() {
	local k s
	for k in $kernels; do
		case $k in ours-*) ;; *) continue ;; esac
		for s in ${1:-$strategies}; do
			echo "${k%%:*}+${s%%:*} ${k#*:} ${s#*:}"
		done
	done
}

nomerge_variants() {
	for k in $kernels; do
		echo "${k%%:*}+nomerge ${k#*:} slab_nomerge"
	done
}

# The forwarding variants, the seed's table: every kernel, ours with each
# front end, each with and without slab_nomerge.
fwd_variants() {
	local k v p x
	for k in $kernels; do
		echo "${k%%:*} ${k#*:} -"
		case $k in ours-*) echo "${k%%:*}+freelist ${k#*:} slub_frontend=freelist" ;; esac
	done | while read -r v p x; do
		echo "$v $p $x"
		if [ "$x" = - ]; then
			echo "$v+nomerge $p slab_nomerge"
		else
			echo "$v+nomerge $p $x,slab_nomerge"
		fi
	done
}

args() {
	# The strategy lists use commas so that a variant stays one word.
	[ "$1" = - ] && return
	echo "$1" | tr ',' ' '
}

# Every icount boot also runs under the slabcost plugin (harness/plugin/
# slabcost.c): the guest marks the last repetition of each single-CPU case,
# outside its clock reads, and the plugin counts locked instructions,
# cmpxchg16b, pushf/popf/cli/sti, a simulated cache's misses and the
# struct page lines in each window.  The guest ends every such boot with
# slab_bench's cases=modelcal, the windows whose
# counts are known exactly.  model-report.py turns the counts into
# modelled cycles with harness/costmodel.conf.
# usage: model_boot MEASURE VARIANT PROFILE PASS: the run-qemu.sh options,
# and the boot's line in the index (System.map names the functions).  The
# plugin also counts the calls of the functions of model_calls (lib.sh),
# per window.
model_boot() {
	local m=$1 v=$2 p=$3 pass=$4 calls=$out/model/calls-$3.txt
	model_index "$m" "$v" "$pass" "$LOGS/console-bench-$m-$v-$pass.log" \
		"$out/model/$m-$v-$pass.counts" "$(profile_out "$p")/System.map" >>"$out/model/index.tsv"
	model_calls_file "$(profile_out "$p")/System.map" "$calls"
	echo "-P $out/model/$m-$v-$pass.counts -C $calls"
}
rm -rf "$out/model"
mkdir -p "$out/model"
: >"$out/model/index.tsv"
measure icount && log "icount: $passes pass(es), 1 vCPU, 512M, -icount shift=0, with the slabcost plugin"
measure icount && for pass in $(seq 1 "$passes"); do
	{
		main_variants
		strategy_variants "$strategies $model_strategies"
	} | while read -r v p x; do
		# shellcheck disable=SC2046
		bench_boot icount "$v" "$p" "$pass" \
			"harness.bench_mode=icount harness.bench_model=1 harness.bench_cases=$single_cases harness.bench_dd=$dd_mib harness.bench_forkexec=$forkexec $net $(args "$x")" \
			-i -s 1 -m 512M -t 600 $(model_boot icount "$v" "$p" "$pass")
	done
	nomerge_variants | while read -r v p x; do
		# shellcheck disable=SC2046
		bench_boot icount "$v" "$p" "$pass" \
			"harness.bench_mode=icount harness.bench_model=1 harness.bench_cases=calib,bulkm $net $(args "$x")" \
			-i -s 1 -m 512M -t 600 $(model_boot icount "$v" "$p" "$pass")
	done
done

# Dave Hansen's experiment, scaled to the guest: a 4 GiB file written to
# ramfs with dd bs=1G in an 8 GiB guest, under icount and the plugin, on
# the four kernels whose struct page differs (ours and SLUB, 64 and 56
# bytes): struct page lines touched and misses per 4 KiB page.
measure dave && [ $quick = 0 ] && log "dave: dd of $dave_mib MiB (bs=1G) to ramfs, 8G, 1 vCPU, icount, with the slabcost plugin"
measure dave && main_variants | while read -r v p x; do
	[ $quick = 1 ] || [ "$v" = slab ] && continue
	# shellcheck disable=SC2046
	bench_boot dave "$v" "$p" 1 \
		"harness.bench_mode=icount harness.bench_model=1 harness.bench_dd=$dave_mib harness.bench_dd_bs=1G" \
		-i -s 1 -m 8G -t 1800 $(model_boot dave "$v" "$p" 1)
done

# Jesper Brouer's forwarding: the icount boots with the plugin, then the
# TCG rounds (packets per second), every variant once per round.
measure fwd && log "fwd: IP forwarding, 1 vCPU, 512M, $passes icount pass(es) with the slabcost plugin"
measure fwd && for pass in $(seq 1 "$passes"); do
	fwd_variants | while read -r v p x; do
		# shellcheck disable=SC2046
		bench_boot fwd "$v" "$p" "$pass" \
			"harness.bench_mode=icount harness.bench_model=1 $fwd $(args "$x")" \
			-i -s 1 -m 512M -t 600 $(model_boot fwd "$v" "$p" "$pass")
	done
done
measure fwdtcg && log "fwdtcg: IP forwarding, 1 vCPU, 512M, $fwd_rounds interleaved TCG rounds"
measure fwdtcg && for round in $(seq 1 "$fwd_rounds"); do
	fwd_variants | while read -r v p x; do
		# shellcheck disable=SC2046
		bench_boot fwdtcg "$v" "$p" "$round" "harness.bench_mode=tcg $fwd $(args "$x")" \
			-s 1 -m 512M -t 600
	done
done

if [ $plain = 1 ]; then
	log "plain: $passes pass(es), the kernels without freelist hardening, as icount"
	for pass in $(seq 1 "$passes"); do
		main_variants | while read -r v p x; do
			bench_boot plain "$v" "$p-unhardened" "$pass" \
				"harness.bench_mode=icount harness.bench_cases=$plain_cases" \
				-i -s 1 -m 512M -t 600
		done
	done
fi

if [ $rt = 1 ]; then
	log "rt: $passes pass(es), the PREEMPT_RT kernels, as icount"
	for pass in $(seq 1 "$passes"); do
		main_variants | while read -r v p x; do
			rt_kernel "$v" || continue
			bench_boot rt "$v" "$p-rt" "$pass" \
				"harness.bench_mode=icount harness.bench_cases=$plain_cases" \
				-i -s 1 -m 512M -t 600
		done
	done
fi

measure tcg && log "tcg: $rounds interleaved rounds, 2 vCPUs, 512M"
measure tcg && for round in $(seq 1 "$rounds"); do
	{
		main_variants
		[ $quick = 1 ] || strategy_variants
	} | while read -r v p x; do
		bench_boot tcg "$v" "$p" "$round" \
			"harness.bench_mode=tcg harness.bench_cases=$tcg_cases harness.bench_dd=$dd_mib $net $(args "$x")" \
			-s 2 -m 512M -t 600
	done
	[ $quick = 1 ] && continue
	nomerge_variants | while read -r v p x; do
		bench_boot tcg "$v" "$p" "$round" \
			"harness.bench_mode=tcg $net $(args "$x")" \
			-s 2 -m 512M -t 600
	done
	# The freelist front end's fallbacks where they are contended, both
	# vCPUs on the same slabs (Andrew Morton's question: what does the
	# double cmpxchg buy?): remote free and all-CPU throughput only.
	strategy_variants "$model_strategies" | while read -r v p x; do
		bench_boot tcg "$v" "$p" "$round" \
			"harness.bench_mode=tcg harness.bench_cases=calib,remote,mt $(args "$x")" \
			-s 2 -m 512M -t 600
	done
done

measure mem && log "mem: 8G, 1 vCPU"
measure mem && main_variants | while read -r v p x; do
	bench_boot mem "$v" "$p" 1 \
		"harness.bench_mode=tcg harness.bench_cases=frag harness.bench_dd=$mem_dd_mib harness.bench_slabinfo=1" \
		-s 1 -m 8G -t 900
done

# Each report exits 1 when the run is incomplete or its calibration is
# off, 3 when a complete run misses a target (bench-report.py: every
# target, on every icount pass; model-report.py: the targets on modelled
# cycles and the forwarding target), 0 only when everything was judged
# and met.
rc=0 mrc=0
"$REPO/harness/bench-report.py" "$res" "$out" --base "$BASE" --quick "$quick" --rounds "$rounds" \
	--passes "$passes" --dd "$dd_mib" --mem-dd "$mem_dd_mib" --forkexec "$forkexec" || rc=$?
log "report: ${out#$REPO/}/report.md"
"$REPO/harness/model-report.py" --base="$BASE" --tsv="$out/model.tsv" "$out/model/index.tsv" \
	"$REPO/harness/costmodel.conf" "$out/model.md" "$res" || mrc=$?
log "cost model: ${out#$REPO/}/model.md"
# What make results (harness/results.py) needs to publish this run
# beside results.tsv and model.tsv: the commit, the command, the machine
# and the options the report was made with.
run_conf() {
	local cmd="make bench" v
	for v in BASE QUICK CONFIGS KERNELS MEASURES ROUNDS ICOUNT_PASSES FWD_ROUNDS FWD_MODES; do
		[ -z "${!v:-}" ] || cmd="$cmd $v=${!v}"
	done
	printf 'commit\t%s\n' "$(git -C "$REPO" rev-parse --short=7 HEAD)$(git -C "$REPO" diff --quiet HEAD -- mm include lib base patches harness/configs harness/modules harness/guest harness/trees || echo ' (with uncommitted changes)')"
	printf 'date\t%s\n' "$(date -u +%Y-%m-%d)"
	printf 'command\t%s\n' "$cmd"
	printf 'machine\t%s, %s host CPUs, no KVM; %s\n' \
		"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" "$(nproc)" \
		"$(qemu-system-x86_64 --version | head -n 1 | sed 's/ (.*//')"
	printf 'quick\t%s\nrounds\t%s\npasses\t%s\ndd\t%s\nmem_dd\t%s\nforkexec\t%s\nfwd_rounds\t%s\n' \
		"$quick" "$rounds" "$passes" "$dd_mib" "$mem_dd_mib" "$forkexec" "$fwd_rounds"
	printf 'version\t%s\n' "$(base_version)"
}
run_conf >"$out/run.conf"
log "run: ${out#$REPO/}/run.conf (make results publishes the run)"
case $rc/$mrc in
0/0) ;;
[03]/[03]) die "targets missed (the \"missed:\" lines above; report.md and model.md say which)" ;;
*) die "the run is incomplete or its calibration is off: see the errors above" ;;
esac
