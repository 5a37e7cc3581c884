// SPDX-License-Identifier: GPL-2.0
/*
 * slabcost: a QEMU TCG plugin that counts what icount cannot see.
 *
 * Under -icount every guest instruction costs one unit: a lock cmpxchg16b,
 * a popf and a load that misses every cache alike.  This plugin counts, for
 * each window the guest marks, the events that make those differ:
 *
 *   insn      instructions executed between the two markers (the markers
 *             themselves excluded);
 *   locked    instructions with a LOCK prefix, and XCHG with a memory
 *             operand (locked by definition), cmpxchg16b not included.
 *             A kernel booted on one possible CPU patches its LOCK_PREFIX
 *             sites to a DS prefix (alternatives_smp_unlock()), which the
 *             bench's one-vCPU guests are: a DS prefix on an instruction
 *             that can take LOCK counts as LOCK, since on the SMP machines
 *             the model stands for it is one;
 *   cx16l     LOCK CMPXCHG16B (the slab pair's commit), DS included;
 *   cx16      CMPXCHG16B without LOCK (this_cpu_cmpxchg_double on %gs);
 *   pushf, popf, cli, sti;
 *   ld, st    data accesses, as QEMU reports them (a cmpxchg16b is one
 *             16-byte access or two 8-byte ones, whichever QEMU emits);
 *   l1m, l2m, l3m
 *             line misses of a simulated data cache hierarchy (below), by
 *             physical address; an access that spans two lines is two
 *             line accesses;
 *   vmm       accesses to the vmemmap range (struct pages), by virtual
 *             address, and vmml the distinct 64-byte lines of it that the
 *             window touched;
 *   nohw      data accesses whose physical address QEMU did not give
 *             (qemu_plugin_get_hwaddr() returned NULL), which the cache
 *             simulation took by their virtual address instead: any but 0
 *             makes the window's misses suspect.
 *
 * The cache: three levels of 64-byte lines, each set-associative with true
 * LRU, every access filling every level (non-inclusive victims are not
 * modelled): L1D 32 KiB 8-way, L2 256 KiB 8-way, L3 8 MiB 16-way, the
 * geometry of the Core i7-4790K (Haswell) of the second seed's figures,
 * as recalled (harness/costmodel.conf says what is unchecked).
 * Instruction fetches, the TLBs, prefetchers and other CPUs are not
 * modelled.  The simulation starts at the first marker, so that the boot
 * before it costs a test per access and no more; it then runs continuously,
 * inside and outside windows, and only the counting is per window.
 *
 * The guest marks a window with the 8-byte NOP "nopl disp32(%rax,%rax,1)"
 * (0f 1f 84 00 + disp32), whose displacement is SLABCOST_BEGIN or
 * SLABCOST_END: an instruction that changes nothing and costs the guest one
 * icount unit.  Windows are numbered from 1 in the order they begin, and
 * the guest prints the same numbers beside what each window measured.
 * Windows do not nest.
 *
 * Output, one line per window to the file of the "out=" argument:
 *   window N insn=... locked=... cx16l=... cx16=... pushf=... popf=...
 *          cli=... sti=... ld=... st=... l1m=... l2m=... l3m=... vmm=...
 *          vmml=... nohw=...
 * followed by up to PC_TOP lines
 *   pc N 0xADDRESS l1m=... l2m=... l3m=... vmm=... vmml=...
 * for the instructions with the most L1 misses and vmemmap accesses in the
 * window (vmml: the struct page lines that instruction touched first), so
 * that the report can name the functions, then, with the "calls=" argument,
 *   call N NAME=COUNT ...
 * how many times each instruction that file names ran in the window (the
 * file: "ADDRESS NAME" lines, the first instruction of a function from
 * System.map, so that a count is the function's calls), and a last
 * "slabcost: end windows=N errors=M nohw=K" line, K the accesses without
 * a physical address since the first marker, in windows or not.  Counts
 * only: the cost model that turns them into cycles is
 * harness/costmodel.conf, applied by model-report.py.
 *
 * The QEMU plugin API is declared in qemu-plugin-v1.h, from the documented
 * interface of QEMU 7.2 (API version 1); qemu_plugin_install() refuses a
 * QEMU that does not offer version 1.  Only one vCPU is supported: the
 * counts are of one CPU.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-v1.h"

EXPORT int qemu_plugin_version = 1;

/* ---- The marker, shared with the guest (harness/modules/slab_bench) ---- */

#define SLABCOST_BEGIN	0x5ab1c0b1u
#define SLABCOST_END	0x5ab1c0e1u

/* x86-64, 4-level paging, no KASLR of the memory layout (bench.config). */
#define VMEMMAP_START	0xffffea0000000000ull
#define VMEMMAP_END	0xffffeb0000000000ull

/* ---- Counters ---- */

enum {
	C_INSN, C_LOCKED, C_CX16L, C_CX16, C_PUSHF, C_POPF, C_CLI, C_STI,
	C_LD, C_ST, C_L1M, C_L2M, C_L3M, C_VMM, C_VMML, C_NOHW, C_NR
};

/* What the per-instruction table counts (pc_add()). */
enum { P_L1M, P_L2M, P_L3M, P_VMM, P_VMML, P_NR };

static const char *const counter_name[C_NR] = {
	"insn", "locked", "cx16l", "cx16", "pushf", "popf", "cli", "sti",
	"ld", "st", "l1m", "l2m", "l3m", "vmm", "vmml", "nohw",
};

/* Running totals since the start; a window reports the difference. */
static uint64_t total[C_NR];
static uint64_t at_begin[C_NR];
static bool in_window, sim_on;
static unsigned int windows, errors;
static FILE *out;

/* ---- The cache hierarchy ---- */

struct cache_level {
	unsigned int sets, ways;
	uint64_t *tag;		/* sets * ways; 0 = empty (line + 1 stored) */
	uint64_t *used;		/* LRU stamps */
};

#define LINE_SHIFT 6

static struct cache_level level[3] = {
	{ .sets = 32 * 1024 / 64 / 8, .ways = 8 },		/* L1D */
	{ .sets = 256 * 1024 / 64 / 8, .ways = 8 },		/* L2 */
	{ .sets = 8 * 1024 * 1024 / 64 / 16, .ways = 16 },	/* L3 */
};

static uint64_t stamp;

/* Look @line up in @c; on a miss put it in place of the LRU way. */
static bool cache_access(struct cache_level *c, uint64_t line)
{
	unsigned int set = line % c->sets, w, victim = 0;
	uint64_t *tag = c->tag + (size_t)set * c->ways;
	uint64_t *used = c->used + (size_t)set * c->ways;

	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line + 1) {
			used[w] = ++stamp;
			return true;
		}
		if (used[w] < used[victim])
			victim = w;
	}
	tag[victim] = line + 1;
	used[victim] = ++stamp;
	return false;
}

static void pc_add(uint64_t pc, int what);

static void line_access(uint64_t line, uint64_t pc)
{
	if (cache_access(&level[0], line))
		return;
	total[C_L1M]++;
	pc_add(pc, P_L1M);
	if (cache_access(&level[1], line))
		return;
	total[C_L2M]++;
	pc_add(pc, P_L2M);
	if (!cache_access(&level[2], line)) {
		total[C_L3M]++;
		pc_add(pc, P_L3M);
	}
}

/*
 * The vmemmap lines a window touched: a bitmap of the first VMM_LINES lines
 * of the vmemmap (the struct pages of 64 GiB of memory at 64 bytes a page),
 * cleared per window.  A line past it is counted in C_VMM but not as a
 * distinct line, and is an error of the window.
 */
#define VMM_LINES (64ull << 30 >> 12 << 6 >> LINE_SHIFT)
static uint64_t *vmm_seen;

static void vmm_touch(uint64_t vaddr, uint64_t pc)
{
	uint64_t line = (vaddr - VMEMMAP_START) >> LINE_SHIFT;

	total[C_VMM]++;
	pc_add(pc, P_VMM);
	if (line >= VMM_LINES) {
		errors++;
		return;
	}
	if (vmm_seen[line / 64] & (1ull << (line % 64)))
		return;
	vmm_seen[line / 64] |= 1ull << (line % 64);
	total[C_VMML]++;
	pc_add(pc, P_VMML);
}

/*
 * Per instruction address, in the window: the misses and vmemmap accesses
 * of each.  Open addressing, cleared per window; an instruction that finds
 * the table full is not attributed (counted in "unattributed").
 */
#define PC_BITS 14
#define PC_TOP 40
static const char *const pc_name[P_NR] = { "l1m", "l2m", "l3m", "vmm", "vmml" };
struct pc_count {
	uint64_t pc;
	uint64_t n[P_NR];
};

static struct pc_count *pc_table;
static unsigned int pc_used;
static uint64_t pc_lost;

static uint64_t *pc_slot(uint64_t pc)
{
	uint64_t mask = (1ull << PC_BITS) - 1;
	uint64_t i = (pc * 0x9e3779b97f4a7c15ull) >> (64 - PC_BITS);

	for (;; i = (i + 1) & mask) {
		if (pc_table[i].pc == pc)
			return pc_table[i].n;
		if (!pc_table[i].pc)
			break;
	}
	if (pc_used >= mask / 2) {
		pc_lost++;
		return NULL;
	}
	pc_used++;
	pc_table[i].pc = pc;
	return pc_table[i].n;
}

static void pc_add(uint64_t pc, int what)
{
	uint64_t *n = in_window ? pc_slot(pc) : NULL;

	if (n)
		n[what]++;
}

static int pc_cmp(const void *a, const void *b)
{
	const struct pc_count *x = a, *y = b;
	uint64_t kx = x->n[P_L1M] + x->n[P_VMM], ky = y->n[P_L1M] + y->n[P_VMM];

	return kx < ky ? 1 : kx > ky ? -1 : x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void pc_report(void)
{
	size_t i, n = 0, size = 1ull << PC_BITS;
	unsigned int j;

	for (i = 0; i < size; i++)
		if (pc_table[i].pc)
			pc_table[n++] = pc_table[i];
	qsort(pc_table, n, sizeof(*pc_table), pc_cmp);
	for (i = 0; i < n && i < PC_TOP; i++) {
		fprintf(out, "pc %u 0x%" PRIx64, windows, pc_table[i].pc);
		for (j = 0; j < P_NR; j++)
			fprintf(out, " %s=%" PRIu64, pc_name[j], pc_table[i].n[j]);
		fputc('\n', out);
	}
	if (pc_lost)
		fprintf(out, "pc %u unattributed=%" PRIu64 "\n", windows, pc_lost);
}

/*
 * Calls: the instructions named by the "calls=" file, each counted by an
 * inline add at its translation, per window by difference like total[].
 */
#define CALL_MAX 16
static struct {
	uint64_t pc;
	char name[48];
} call_at[CALL_MAX];
static uint64_t call_total[CALL_MAX], call_begin[CALL_MAX];
static unsigned int call_nr;

static int calls_load(const char *path)
{
	char line[128];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pc;
		char name[48];

		if (sscanf(line, "%llx %47s", &pc, name) != 2)
			continue;
		if (call_nr == CALL_MAX) {
			fclose(f);
			return -1;
		}
		call_at[call_nr].pc = pc;
		strcpy(call_at[call_nr].name, name);
		call_nr++;
	}
	fclose(f);
	return 0;
}

static void calls_report(void)
{
	unsigned int i;

	if (!call_nr)
		return;
	fprintf(out, "call %u", windows);
	for (i = 0; i < call_nr; i++)
		fprintf(out, " %s=%" PRIu64, call_at[i].name, call_total[i] - call_begin[i]);
	fputc('\n', out);
}

/* ---- Callbacks ---- */

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t pa, size, line, pc = (uintptr_t)udata;

	(void)vcpu;
	if (!sim_on)
		return;
	total[qemu_plugin_mem_is_store(info) ? C_ST : C_LD]++;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw)
		total[C_NOHW]++;
	else if (qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = hw ? qemu_plugin_hwaddr_phys_addr(hw) : vaddr;
	size = 1ull << qemu_plugin_mem_size_shift(info);
	for (line = pa >> LINE_SHIFT; line <= (pa + size - 1) >> LINE_SHIFT; line++)
		line_access(line, pc);
	if (in_window && vaddr >= VMEMMAP_START && vaddr < VMEMMAP_END)
		vmm_touch(vaddr, pc);
}

static void window_begin(void)
{
	if (in_window) {
		errors++;
		fprintf(out, "slabcost: error: window %u begins inside window %u\n",
			windows + 1, windows);
		return;
	}
	sim_on = true;
	in_window = true;
	windows++;
	memcpy(at_begin, total, sizeof(total));
	memcpy(call_begin, call_total, sizeof(call_total));
	memset(vmm_seen, 0, VMM_LINES / 8);
	memset(pc_table, 0, sizeof(*pc_table) << PC_BITS);
	pc_used = 0;
	pc_lost = 0;
}

static void window_end(void)
{
	unsigned int i;

	if (!in_window) {
		errors++;
		fprintf(out, "slabcost: error: a window ends after window %u ended\n",
			windows);
		return;
	}
	in_window = false;
	fprintf(out, "window %u", windows);
	for (i = 0; i < C_NR; i++)
		fprintf(out, " %s=%" PRIu64, counter_name[i], total[i] - at_begin[i]);
	fputc('\n', out);
	pc_report();
	calls_report();
}

static void marker_cb(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if ((uintptr_t)udata == SLABCOST_BEGIN)
		window_begin();
	else
		window_end();
}

/* ---- Translation: classify each instruction once ---- */

/* The marker's code, or 0 if @b is not a marker. */
static uint32_t marker_of(const uint8_t *b, size_t n)
{
	uint32_t disp;

	if (n != 8 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 || b[3] != 0x00)
		return 0;
	memcpy(&disp, b + 4, 4);
	return disp == SLABCOST_BEGIN || disp == SLABCOST_END ? disp : 0;
}

/*
 * Whether the instruction at @b (past its prefixes and REX) is one that
 * takes LOCK: a read-modify-write of memory (Intel SDM, LOCK).
 */
static bool lockable(const uint8_t *b, size_t n)
{
	size_t modrm = b[0] == 0x0f ? 2 : 1;
	unsigned int reg;

	if (n <= modrm || (b[modrm] >> 6) == 3)
		return false;			/* no memory operand */
	reg = (b[modrm] >> 3) & 7;
	if (b[0] == 0x0f) {
		switch (b[1]) {
		case 0xab: case 0xb3: case 0xbb:	/* bts, btr, btc */
		case 0xb0: case 0xb1:			/* cmpxchg */
		case 0xc0: case 0xc1:			/* xadd */
			return true;
		case 0xba:
			return reg >= 5;
		case 0xc7:
			return reg == 1;		/* cmpxchg8b/16b */
		}
		return false;
	}
	if (b[0] < 0x40 && (b[0] & 7) <= 1 && b[0] != 0x38 && b[0] != 0x39)
		return true;				/* add ... xor to memory */
	switch (b[0]) {
	case 0x80: case 0x81: case 0x83:
		return reg != 7;			/* not cmp */
	case 0xf6: case 0xf7:
		return reg == 2 || reg == 3;		/* not, neg */
	case 0xfe: case 0xff:
		return reg <= 1;			/* inc, dec */
	}
	return false;
}

/* The counter an instruction adds to besides C_INSN, or -1. */
static int event_of(const uint8_t *b, size_t n)
{
	bool lock = false, ds = false, rexw = false;
	size_t i = 0;

	for (; i < n; i++) {
		switch (b[i]) {
		case 0xf0:
			lock = true;
			continue;
		case 0x3e:
			ds = true;
			continue;
		case 0xf2: case 0xf3: case 0x2e: case 0x36:
		case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		}
		break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40) {
		rexw = b[i] & 0x08;
		i++;
	}
	if (i >= n)
		return -1;
	if (ds && lockable(b + i, n - i))
		lock = true;
	switch (b[i]) {
	case 0x9c:
		return C_PUSHF;
	case 0x9d:
		return C_POPF;
	case 0xfa:
		return C_CLI;
	case 0xfb:
		return C_STI;
	case 0x86: case 0x87:
		/* XCHG with memory locks whatever its prefixes. */
		if (i + 1 < n && (b[i + 1] >> 6) != 3)
			return C_LOCKED;
		break;
	case 0x0f:
		if (i + 2 < n && b[i + 1] == 0xc7 && ((b[i + 2] >> 3) & 7) == 1 &&
		    (b[i + 2] >> 6) != 3 && rexw)
			return lock ? C_CX16L : C_CX16;
		break;
	}
	return lock ? C_LOCKED : -1;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		uint32_t mark = marker_of(b, len);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		unsigned int c;
		int ev;

		if (mark) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_cb,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mark);
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &total[C_INSN], 1);
		ev = event_of(b, len);
		if (ev >= 0)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
								   QEMU_PLUGIN_INLINE_ADD_U64,
								   &total[ev], 1);
		for (c = 0; c < call_nr; c++)
			if (call_at[c].pc == pc)
				qemu_plugin_register_vcpu_insn_exec_inline(insn,
									   QEMU_PLUGIN_INLINE_ADD_U64,
									   &call_total[c], 1);
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)pc);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (in_window) {
		errors++;
		fprintf(out, "slabcost: error: window %u never ended\n", windows);
	}
	fprintf(out, "slabcost: end windows=%u errors=%u nohw=%" PRIu64 "\n", windows, errors,
		total[C_NOHW]);
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = NULL, *calls = NULL;
	unsigned int l;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "calls=", 6))
			calls = argv[i] + 6;
	}
	if (!path) {
		fprintf(stderr, "slabcost: usage: -plugin slabcost.so,out=FILE[,calls=FILE]\n");
		return -1;
	}
	if (calls && calls_load(calls)) {
		fprintf(stderr, "slabcost: cannot read %s, or it names more than %d addresses\n",
			calls, CALL_MAX);
		return -1;
	}
	if (info->version.min > 1 || info->version.cur < 1) {
		fprintf(stderr, "slabcost: QEMU offers plugin API %d..%d, this plugin is 1\n",
			info->version.min, info->version.cur);
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64") ||
	    info->system.smp_vcpus != 1) {
		fprintf(stderr, "slabcost: needs qemu-system-x86_64, one vCPU (%s, %d vCPUs)\n",
			info->target_name,
			info->system_emulation ? info->system.smp_vcpus : 0);
		return -1;
	}
	for (l = 0; l < 3; l++) {
		level[l].tag = calloc((size_t)level[l].sets * level[l].ways, sizeof(uint64_t));
		level[l].used = calloc((size_t)level[l].sets * level[l].ways, sizeof(uint64_t));
		if (!level[l].tag || !level[l].used)
			return -1;
	}
	vmm_seen = calloc(VMM_LINES / 64, sizeof(*vmm_seen));
	pc_table = calloc(1ull << PC_BITS, sizeof(*pc_table));
	out = fopen(path, "w");
	if (!vmm_seen || !pc_table || !out) {
		fprintf(stderr, "slabcost: cannot set up (out=%s)\n", path);
		return -1;
	}
	setvbuf(out, NULL, _IOLBF, 0);
	fprintf(out, "slabcost: start api=%d..%d l1=%ux%u l2=%ux%u l3=%ux%u line=64\n",
		info->version.min, info->version.cur,
		level[0].sets, level[0].ways, level[1].sets, level[1].ways,
		level[2].sets, level[2].ways);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
