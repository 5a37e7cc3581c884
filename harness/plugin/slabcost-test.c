// SPDX-License-Identifier: GPL-2.0
/*
 * slabcost-test: the slabcost plugin (slabcost.c) on the host, without
 * QEMU.  usage: slabcost-test PLUGIN.so DIR
 *
 * This program is the QEMU of the plugin: it defines the qemu_plugin_*
 * functions of qemu-plugin-v1.h that the plugin calls, with made-up
 * instructions, translation blocks, memory accesses and physical
 * addresses, dlopen()s the plugin as QEMU does and drives it.  Each case
 * runs in a child process of its own, so that it starts from a new plugin
 * with empty caches: the child installs the plugin with out=DIR/CASE.out
 * (and calls=DIR/CASE.calls for the call counts), executes its made-up
 * instructions between the window markers, then runs the plugin's atexit
 * callback.  The parent reads the out file and checks every number the
 * case knows exactly, and that every counter it does not name is 0.
 *
 * The made-up machine: one vCPU.  An instruction's callbacks run in the
 * order QEMU runs them, the instruction's own (the markers' callback and
 * the inline counters) before its memory access, the memory callback
 * after it.  Virtual addresses map to physical ones as in an x86-64
 * kernel: the direct map (DIRECT_MAP + pa), a second mapping of the same
 * physical memory (ALIAS + pa, as vmalloc() gives), the vmemmap (the
 * plugin counts struct page accesses by virtual address there), a range
 * where qemu_plugin_get_hwaddr() fails (NOHW) and one of device memory
 * (IO).  Any other address is an error of the test.
 *
 * The cache the numbers below follow from (slabcost.c's header): 64-byte
 * lines; L1D 32 KiB 8-way: 64 sets, the set of physical line L is L % 64;
 * L2 256 KiB 8-way: 512 sets, L % 512; L3 8 MiB 16-way: 8192 sets,
 * L % 8192; true LRU at each level; every access fills every level.
 *
 * Prints "FAIL CASE: what" per failed check and, last, "slabcost-test: N
 * checks passed, M failed"; exits 1 when a check failed or none passed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu-plugin-v1.h"

/* The guest's side of the marker (harness/modules/slab_bench). */
#define SLABCOST_BEGIN	0x5ab1c0b1u
#define SLABCOST_END	0x5ab1c0e1u

/* The made-up address space. */
#define DIRECT_MAP	0xffff888000000000ull
#define ALIAS		0xffffc90000000000ull
#define VMEMMAP		0xffffea0000000000ull	/* slabcost.c's VMEMMAP_START */
#define VMEMMAP_PA	0x100000000ull		/* where the vmemmap's pages are */
#define NOHW		0xffffffffc0000000ull
#define IO		0xffffd00000000000ull
#define REGION		0x100000000ull		/* each range's size */

#define KB 1024ull

/* Instruction addresses: kernel text. */
#define PC_LOAD		0xffffffff81000000ull
#define PC_STORE	0xffffffff81000010ull
#define PC_OTHER	0xffffffff81000020ull
#define PC_BEGIN	0xffffffff81f00000ull
#define PC_END		0xffffffff81f00008ull

/* A meminfo: the size's log2 and whether the access stores. */
#define MI_STORE	0x100u

#define MAX_CB		8
#define TB_MAX		8

struct qemu_plugin_insn {
	uint8_t data[16];
	size_t size;
	uint64_t vaddr;
	unsigned int nexec, ninline, nmem;
	struct {
		udata_cb_t cb;
		void *udata;
	} exec[MAX_CB];
	struct {
		uint64_t *ptr;
		uint64_t imm;
	} inl[MAX_CB];
	struct {
		mem_cb_t cb;
		void *udata;
		enum qemu_plugin_mem_rw rw;
	} mem[MAX_CB];
};

struct qemu_plugin_tb {
	struct qemu_plugin_insn *insn[TB_MAX];
	size_t n;
};

struct qemu_plugin_hwaddr {
	uint64_t pa;
	bool io;
};

/* ---- The child: QEMU's side of the plugin API ---- */

#define PLUGIN_ID 7

static const char *cur;			/* the case running */
static tb_trans_cb_t tb_trans;
static atexit_cb_t at_exit;
static void *at_exit_udata;
static bool translating;
static struct qemu_plugin_hwaddr hwaddr;

/* An error of the plugin's use of the API, or of the test: the child ends. */
static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", cur);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	_exit(2);
}

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb)
{
	if (id != PLUGIN_ID)
		die("tb_trans_cb registered with id %" PRIu64, id);
	tb_trans = cb;
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb_t cb, void *udata)
{
	if (id != PLUGIN_ID)
		die("atexit_cb registered with id %" PRIu64, id);
	at_exit = cb;
	at_exit_udata = udata;
}

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb)
{
	return tb->n;
}

struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx)
{
	if (idx >= tb->n)
		die("instruction %zu of a block of %zu", idx, tb->n);
	return tb->insn[idx];
}

const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn)
{
	return insn->data;
}

size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn)
{
	return insn->size;
}

uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn)
{
	return insn->vaddr;
}

void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *udata)
{
	(void)flags;
	if (!translating || insn->nexec == MAX_CB)
		die("an exec callback outside translation, or too many");
	insn->exec[insn->nexec].cb = cb;
	insn->exec[insn->nexec].udata = udata;
	insn->nexec++;
}

void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr, uint64_t imm)
{
	if (!translating || insn->ninline == MAX_CB || op != QEMU_PLUGIN_INLINE_ADD_U64)
		die("an inline operation outside translation, too many, or not an add");
	insn->inl[insn->ninline].ptr = ptr;
	insn->inl[insn->ninline].imm = imm;
	insn->ninline++;
}

void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *udata)
{
	(void)flags;
	if (!translating || insn->nmem == MAX_CB)
		die("a memory callback outside translation, or too many");
	insn->mem[insn->nmem].cb = cb;
	insn->mem[insn->nmem].udata = udata;
	insn->mem[insn->nmem].rw = rw;
	insn->nmem++;
}

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info)
{
	return info & 0xf;
}

bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info)
{
	return info & MI_STORE;
}

struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr)
{
	(void)info;
	if (vaddr - NOHW < REGION)
		return NULL;
	hwaddr.io = false;
	if (vaddr - DIRECT_MAP < REGION) {
		hwaddr.pa = vaddr - DIRECT_MAP;
	} else if (vaddr - ALIAS < REGION) {
		hwaddr.pa = vaddr - ALIAS;
	} else if (vaddr - VMEMMAP < REGION) {
		hwaddr.pa = vaddr - VMEMMAP + VMEMMAP_PA;
	} else if (vaddr - IO < REGION) {
		hwaddr.pa = 0xfe000000 + (vaddr - IO);
		hwaddr.io = true;
	} else {
		die("an access to 0x%" PRIx64 ", which the test does not map", vaddr);
	}
	return &hwaddr;
}

bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr)
{
	return haddr->io;
}

uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr)
{
	return haddr->pa;
}

/* ---- The child: instructions and their execution ---- */

static void translate(struct qemu_plugin_insn **insn, size_t n)
{
	struct qemu_plugin_tb tb = { .n = n };

	memcpy(tb.insn, insn, n * sizeof(*insn));
	translating = true;
	tb_trans(PLUGIN_ID, &tb);
	translating = false;
}

/* An instruction at @pc of the bytes @hex ("f0 48 0f c7 0e"), untranslated. */
static struct qemu_plugin_insn *insn_new(uint64_t pc, const char *hex)
{
	struct qemu_plugin_insn *in = calloc(1, sizeof(*in));
	unsigned int byte;
	int used;

	if (!in)
		die("out of memory");
	in->vaddr = pc;
	while (sscanf(hex, " %2x%n", &byte, &used) == 1) {
		if (in->size == sizeof(in->data))
			die("instruction %s too long", hex);
		in->data[in->size++] = byte;
		hex += used;
	}
	return in;
}

/* The same, translated in a block of its own. */
static struct qemu_plugin_insn *insn(uint64_t pc, const char *hex)
{
	struct qemu_plugin_insn *in = insn_new(pc, hex);

	translate(&in, 1);
	return in;
}

/* Executes @in, with one memory access of @size bytes at @vaddr if @size. */
static void exec_access(struct qemu_plugin_insn *in, uint64_t vaddr, unsigned int size,
			bool store)
{
	qemu_plugin_meminfo_t info = store ? MI_STORE : 0;
	unsigned int i;

	for (i = 0; i < in->nexec; i++)
		in->exec[i].cb(0, in->exec[i].udata);
	for (i = 0; i < in->ninline; i++)
		*in->inl[i].ptr += in->inl[i].imm;
	if (!size)
		return;
	while ((1u << (info & 0xf)) < size)
		info++;
	for (i = 0; i < in->nmem; i++)
		if (in->mem[i].rw & (store ? QEMU_PLUGIN_MEM_W : QEMU_PLUGIN_MEM_R))
			in->mem[i].cb(0, info, vaddr, in->mem[i].udata);
}

static void run(struct qemu_plugin_insn *in)
{
	exec_access(in, 0, 0, false);
}

/* The markers, and a load and a store instruction (mov (%rsi),%rax, and back). */
static struct qemu_plugin_insn *m_begin, *m_end, *i_load, *i_store;

static void begin(void)
{
	run(m_begin);
}

static void end(void)
{
	run(m_end);
}

static void load(uint64_t vaddr, unsigned int size)
{
	exec_access(i_load, vaddr, size, false);
}

static void store(uint64_t vaddr, unsigned int size)
{
	exec_access(i_store, vaddr, size, true);
}

static uint64_t dm(uint64_t pa)
{
	return DIRECT_MAP + pa;
}

/* Loads of @size bytes over [@pa, @pa + @len) by the direct map. */
static void read_range(uint64_t pa, uint64_t len, unsigned int size)
{
	uint64_t off;

	for (off = 0; off < len; off += size)
		load(dm(pa + off), size);
}

/* ---- The parent: the plugin's output and the checks ---- */

#define MAX_LINES 4096

static char *lines[MAX_LINES];
static unsigned int nlines;
static unsigned int passed, failed;

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s: ", cur);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void read_out(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");

	while (nlines)
		free(lines[--nlines]);
	if (!f)
		return;
	while (nlines < MAX_LINES && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		lines[nlines] = strdup(buf);
		if (lines[nlines])
			nlines++;
	}
	fclose(f);
}

/* The index of the line that starts with @prefix and a space, or -1. */
static int find(const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned int i;

	for (i = 0; i < nlines; i++)
		if (!strncmp(lines[i], prefix, n) && (lines[i][n] == ' ' || !lines[i][n]))
			return i;
	return -1;
}

/* The value of @key in line @i (" key=value"), or NULL. */
static const char *value(int i, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);
	const char *p = lines[i];

	while ((p = strchr(p, ' '))) {
		p++;
		if (!strncmp(p, key, n) && p[n] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + n + 1, " "), p + n + 1);
			return buf;
		}
	}
	return NULL;
}

/*
 * The line that starts with @prefix holds each "key=value" of @want, and
 * every other key=value of it past the prefix is 0.  @why: the reason the
 * numbers are what they are, printed with a failure.
 */
static void expect(const char *prefix, const char *want, const char *why)
{
	char key[64], val[80], got[64];
	const char *p;
	int i = find(prefix), n;

	check(i >= 0, "no line \"%s ...\" (%s)", prefix, why);
	if (i < 0)
		return;
	for (p = want; sscanf(p, " %63[^= ]=%63s%n", key, val, &n) == 2; p += n) {
		if (!value(i, key, got, sizeof(got)))
			check(false, "%s: no %s= (%s)", prefix, key, why);
		else
			check(!strcmp(got, val), "%s %s=%s, expected %s (%s)", prefix, key, got,
			      val, why);
	}
	for (p = lines[i] + strlen(prefix); (p = strchr(p, ' ')); ) {
		p++;
		if (sscanf(p, "%63[^= ]=%63[^ ]", key, got) != 2)
			continue;
		snprintf(val, sizeof(val), " %s=", key);
		if (strstr(want, val + 1) == want || strstr(want, val))
			continue;
		check(!strcmp(got, "0"), "%s %s=%s, expected 0 (%s)", prefix, key, got, why);
	}
}

/* Every counter of the plugin, which each window line must have. */
static const char *const counters[] = {
	"insn", "locked", "cx16l", "cx16", "pushf", "popf", "cli", "sti",
	"ld", "st", "l1m", "l2m", "l3m", "vmm", "vmml", "nohw",
};

static void expect_window(unsigned int w, const char *want, const char *why)
{
	char prefix[32];
	unsigned int k, missing = 0;
	int i;

	snprintf(prefix, sizeof(prefix), "window %u", w);
	i = find(prefix);
	for (k = 0; i >= 0 && k < sizeof(counters) / sizeof(*counters); k++) {
		char buf[64];

		missing += !value(i, counters[k], buf, sizeof(buf));
	}
	check(i < 0 || !missing, "%s lacks %u of the %zu counters", prefix, missing,
	      sizeof(counters) / sizeof(*counters));
	expect(prefix, want, why);
}

static void expect_text(const char *text)
{
	unsigned int i;

	for (i = 0; i < nlines; i++)
		if (!strcmp(lines[i], text))
			break;
	check(i < nlines, "no line \"%s\"", text);
}

/* ---- The cases: each a drive (child) and a judge (parent) ---- */

/*
 * A 64 KiB buffer read twice with 8-byte loads: 8192 loads over 1024
 * lines.  It starts at 16 MiB, so its line k is set k % 64 of L1, 16 of
 * its lines in each; k % 512 of L2, 2 in each; k % 8192 of L3, one each.
 */
#define BUF_PA (16 * KB * KB)

static void buf_drive(void)
{
	begin();
	read_range(BUF_PA, 64 * KB, 8);
	end();
	begin();
	read_range(BUF_PA, 64 * KB, 8);
	end();
	begin();
	read_range(BUF_PA + 32 * KB, 32 * KB, 8);
	end();
}

static void buf_judge(void)
{
	/* The caches start empty: every line misses at every level once. */
	expect_window(1, "insn=8192 ld=8192 l1m=1024 l2m=1024 l3m=1024",
		      "first pass, cold: 1024 lines miss L1, L2 and L3");
	/*
	 * Each L1 set saw 16 lines and keeps the last 8; the second pass
	 * asks for the first 8 first, and each miss evicts the line the pass
	 * asks for 8 lines later (LRU): all 1024 miss again.  L2 holds the
	 * 2 lines of each set, so none misses there.
	 */
	expect_window(2, "insn=8192 ld=8192 l1m=1024 l2m=0 l3m=0",
		      "second pass: 64 KiB > 32 KiB L1 misses each line, fits 256 KiB L2");
	/* L1 now holds the buffer's second half, the 8 latest of each set. */
	expect_window(3, "insn=4096 ld=4096 l1m=0",
		      "the last 32 KiB read last stays in L1");
	expect("pc 1 0xffffffff81000000", "l1m=1024 l2m=1024 l3m=1024 vmm=0 vmml=0",
	       "the one load instruction has the misses of the window");
	expect("slabcost: end", "windows=3 errors=0 nohw=0", "three windows, no error");
}

/*
 * Lines 4 KiB apart from 32 MiB: 64 lines apart, all in L1 set 0; in L2
 * sets 0, 64, ... 448, then 0 again for the 9th (2 lines in an 8-way
 * set: no L2 conflict).
 */
#define CONF_PA (32 * KB * KB)

static void conflict_drive(void)
{
	unsigned int r, i;

	begin();
	for (r = 0; r < 10; r++)
		for (i = 0; i < 8; i++)
			load(dm(CONF_PA + i * 4 * KB), 8);
	end();
	begin();
	for (r = 0; r < 10; r++)
		for (i = 0; i < 9; i++)
			load(dm(CONF_PA + 64 * KB + i * 4 * KB), 8);
	end();
}

static void conflict_judge(void)
{
	expect_window(1, "insn=80 ld=80 l1m=8 l2m=8 l3m=8",
		      "8 lines of one L1 set fit its 8 ways: only the first round misses");
	expect_window(2, "insn=90 ld=90 l1m=90 l2m=9 l3m=9",
		      "9 lines of one 8-way L1 set in turn: LRU evicts each before its next use");
}

/*
 * LRU order: lines A..I 4 KiB apart (one L1 set) from 48 MiB.  Touch A..H,
 * A again, then I: the victim is B, the least recently used, not A, the
 * first filled (FIFO would take A).
 */
#define LRU_PA (48 * KB * KB)
#define LRU(x) dm(LRU_PA + ((x) - 'A') * 4 * KB)

static void lru_drive(void)
{
	char c;

	begin();
	for (c = 'A'; c <= 'H'; c++)
		load(LRU(c), 8);
	load(LRU('A'), 8);
	load(LRU('I'), 8);
	end();
	begin();
	load(LRU('A'), 8);
	end();
	begin();
	for (c = 'C'; c <= 'I'; c++)
		load(LRU(c), 8);
	end();
	begin();
	load(LRU('B'), 8);
	end();
	begin();
	load(LRU('A'), 8);
	end();
}

static void lru_judge(void)
{
	expect_window(1, "insn=10 ld=10 l1m=9 l2m=9 l3m=9", "A..H, A (a hit), I: 9 cold lines");
	expect_window(2, "insn=1 ld=1 l1m=0",
		      "I evicted B, the least recently used; A, touched again, stays");
	expect_window(3, "insn=7 ld=7 l1m=0", "C..I are all still in L1");
	expect_window(4, "insn=1 ld=1 l1m=1 l2m=0 l3m=0", "B was evicted from L1 only");
	expect_window(5, "insn=1 ld=1 l1m=1 l2m=0 l3m=0",
		      "B evicted A, least recently used after C..I");
}

/*
 * L2's ways: lines 64 KiB apart from 64 MiB are 1024 lines apart, in L1
 * set 0 and L2 set 0 (and in L2 set 0 too were L2 1024 sets of 4 ways),
 * each in an L3 set of its own.  8 such lines fit L2's 8 ways; 8 other
 * lines of L1 set 0 but other L2 sets (64 * k lines from the start, k not
 * a multiple of 8) push them out of L1 only.  A 9th line of the same L2
 * set makes the 9 miss L2 in turn and hit L3.
 */
#define L2_PA (64 * KB * KB)
#define L2_A(i) dm(L2_PA + (i) * 64 * KB)

static void l2_drive(void)
{
	static const unsigned int k[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
	unsigned int i, r;

	begin();
	for (i = 0; i < 8; i++)
		load(L2_A(i), 8);
	end();
	begin();
	for (i = 0; i < 8; i++)
		load(dm(L2_PA + k[i] * 64 * 64), 8);
	end();
	begin();
	for (i = 0; i < 8; i++)
		load(L2_A(i), 8);
	end();
	begin();
	load(L2_A(8), 8);
	end();
	begin();
	for (r = 0; r < 2; r++)
		for (i = 0; i < 9; i++)
			load(L2_A(i), 8);
	end();
}

static void l2_judge(void)
{
	expect_window(1, "insn=8 ld=8 l1m=8 l2m=8 l3m=8", "8 cold lines of one L2 set");
	expect_window(2, "insn=8 ld=8 l1m=8 l2m=8 l3m=8",
		      "8 cold lines of the same L1 set, other L2 sets");
	expect_window(3, "insn=8 ld=8 l1m=8 l2m=0 l3m=0",
		      "evicted from L1, the 8 lines of one set stay in L2's 8 ways");
	expect_window(4, "insn=1 ld=1 l1m=1 l2m=1 l3m=1", "a 9th line of the L2 set, cold");
	expect_window(5, "insn=18 ld=18 l1m=18 l2m=18 l3m=0",
		      "9 lines of one 8-way L2 set in turn miss L2 and hit L3");
}

/*
 * L3's ways: lines 512 KiB apart from 128 MiB, B0, B1, ..., are 8192
 * lines apart, all in set 0 of every level.  16 fit L3's 16 ways (and
 * thrash L1 and L2); a 17th evicts the least recently used.  The 17th is
 * B17, 8.5 MiB past B0: a direct-mapped 8 MiB L3 would put B16, 8 MiB
 * past, where B0 is, and evict B0 for the wrong reason.
 */
#define L3_PA (128 * KB * KB)
#define L3_B(i) dm(L3_PA + (i) * 512 * KB)

static void l3_drive(void)
{
	unsigned int i;

	begin();
	for (i = 0; i < 16; i++)
		load(L3_B(i), 8);
	end();
	begin();
	for (i = 0; i < 16; i++)
		load(L3_B(i), 8);
	end();
	begin();
	for (i = 0; i < 16; i++)
		load(L3_B(i), 8);
	load(L3_B(17), 8);
	load(L3_B(0), 8);
	end();
}

static void l3_judge(void)
{
	expect_window(1, "insn=16 ld=16 l1m=16 l2m=16 l3m=16", "16 cold lines of one set");
	expect_window(2, "insn=16 ld=16 l1m=16 l2m=16 l3m=0",
		      "16 lines of one set: more than L1's and L2's 8 ways, L3's 16");
	expect_window(3, "insn=18 ld=18 l1m=18 l2m=18 l3m=2",
		      "B17 is cold and evicts B0, the least recently used, which misses again");
}

/*
 * An access that spans two lines is two line accesses (from 160 MiB,
 * cold lines 0 to 6).
 */
#define CROSS_PA (160 * KB * KB)

static void cross_drive(void)
{
	begin();
	load(dm(CROSS_PA + 56), 8);
	end();
	begin();
	load(dm(CROSS_PA + 64 + 60), 8);
	end();
	begin();
	store(dm(CROSS_PA + 3 * 64 + 56), 16);
	end();
	begin();
	load(dm(CROSS_PA + 5 * 64 + 63), 2);
	end();
	begin();
	load(dm(CROSS_PA + 2 * 64), 8);
	load(dm(CROSS_PA + 4 * 64), 8);
	load(dm(CROSS_PA + 6 * 64), 8);
	end();
}

static void cross_judge(void)
{
	expect_window(1, "insn=1 ld=1 l1m=1 l2m=1 l3m=1", "8 bytes at 56: one line");
	expect_window(2, "insn=1 ld=1 l1m=2 l2m=2 l3m=2", "8 bytes at 60 of a line: two lines");
	expect_window(3, "insn=1 st=1 l1m=2 l2m=2 l3m=2", "16 bytes at 56 of a line: two lines");
	expect_window(4, "insn=1 ld=1 l1m=2 l2m=2 l3m=2", "2 bytes at 63 of a line: two lines");
	expect_window(5, "insn=3 ld=3 l1m=0",
		      "the second line of each spanning access was filled");
}

/* Stores: counted as st, simulated as loads are (from 192 MiB). */
#define ST_PA (192 * KB * KB)

static void store_drive(void)
{
	uint64_t off;

	begin();
	for (off = 0; off < 4 * KB; off += 8)
		store(dm(ST_PA + off), 8);
	end();
	begin();
	read_range(ST_PA, 4 * KB, 8);
	end();
	begin();
	for (off = 0; off < 4 * KB; off += 64)
		store(dm(ST_PA + 4 * KB + off), 8);
	for (off = 0; off < 4 * KB; off += 64)
		load(dm(ST_PA + 4 * KB + off), 8);
	end();
}

static void store_judge(void)
{
	expect_window(1, "insn=512 st=512 l1m=64 l2m=64 l3m=64",
		      "512 stores over 64 cold lines miss like loads");
	expect_window(2, "insn=512 ld=512 l1m=0", "the stores filled the lines");
	expect_window(3, "insn=128 st=64 ld=64 l1m=64 l2m=64 l3m=64",
		      "a store per cold line, then a load of each");
	expect("pc 3 0xffffffff81000010", "l1m=64 l2m=64 l3m=64 vmm=0 vmml=0",
	       "the store instruction has the misses");
}

/*
 * cmpxchg16b: classified, and one 16-byte access of it on a cold line (given
 * as a store: QEMU reports an atomic read-modify-write as one).
 */
#define CX_PA (224 * KB * KB)

static void cx16_drive(void)
{
	struct qemu_plugin_insn *lock = insn(PC_OTHER, "f0 48 0f c7 0e");
	struct qemu_plugin_insn *gs = insn(PC_OTHER + 8, "65 48 0f c7 0e");
	struct qemu_plugin_insn *ds = insn(PC_OTHER + 16, "3e 48 0f c7 0e");

	begin();
	exec_access(lock, dm(CX_PA), 16, true);
	end();
	begin();
	exec_access(gs, dm(CX_PA + 16), 16, true);
	end();
	begin();
	exec_access(ds, dm(CX_PA + 64), 16, true);
	end();
}

static void cx16_judge(void)
{
	expect_window(1, "insn=1 cx16l=1 st=1 l1m=1 l2m=1 l3m=1",
		      "lock cmpxchg16b on a cold line: one 16-byte access, one line");
	expect_window(2, "insn=1 cx16=1 st=1 l1m=0", "%gs cmpxchg16b, no LOCK, same line");
	expect_window(3, "insn=1 cx16l=1 st=1 l1m=1 l2m=1 l3m=1",
		      "DS cmpxchg16b (a one-CPU kernel's LOCK_PREFIX) is cx16l");
}

/* Instruction classes: each instruction executed 3 times in a window of its own. */
static const struct {
	const char *bytes, *counter, *what;
} classes[] = {
	{ "9c", "pushf", "pushf" },
	{ "9d", "popf", "popf" },
	{ "fa", "cli", "cli" },
	{ "fb", "sti", "sti" },
	{ "f0 48 0f c7 0e", "cx16l", "lock cmpxchg16b (%rsi)" },
	{ "3e 48 0f c7 0e", "cx16l", "ds cmpxchg16b (%rsi)" },
	{ "48 0f c7 0e", "cx16", "cmpxchg16b (%rsi)" },
	{ "65 48 0f c7 0e", "cx16", "cmpxchg16b %gs:(%rsi)" },
	{ "f0 0f c7 0e", "locked", "lock cmpxchg8b (%rsi), no REX.W" },
	{ "0f c7 0e", NULL, "cmpxchg8b (%rsi)" },
	{ "0f c7 f0", NULL, "rdrand %eax (0f c7 /6, a register)" },
	{ "f0 48 0f b1 0e", "locked", "lock cmpxchg %rcx,(%rsi)" },
	{ "3e 48 0f b1 0e", "locked", "ds cmpxchg %rcx,(%rsi)" },
	{ "f0 48 0f c1 06", "locked", "lock xadd %rax,(%rsi)" },
	{ "f0 0f ba 2e 05", "locked", "lock btsl $5,(%rsi)" },
	{ "3e 0f ba 26 05", NULL, "ds btl $5,(%rsi): bt takes no LOCK" },
	{ "3e 48 ff 06", "locked", "ds incq (%rsi)" },
	{ "f0 ff 0e", "locked", "lock decl (%rsi)" },
	{ "3e 48 ff c0", NULL, "ds inc %rax: no memory operand" },
	{ "3e 48 8b 06", NULL, "ds mov (%rsi),%rax: mov takes no LOCK" },
	{ "3e 01 06", "locked", "ds add %eax,(%rsi)" },
	{ "3e 03 06", NULL, "ds add (%rsi),%eax: the register is written" },
	{ "3e 39 06", NULL, "ds cmp %eax,(%rsi)" },
	{ "3e 83 3e 00", NULL, "ds cmpl $0,(%rsi)" },
	{ "3e 83 0e 01", "locked", "ds orl $1,(%rsi)" },
	{ "3e f7 1e", "locked", "ds negl (%rsi)" },
	{ "3e f7 06 01 00 00 00", NULL, "ds testl $1,(%rsi)" },
	{ "48 87 06", "locked", "xchg %rax,(%rsi): locked without a prefix" },
	{ "86 06", "locked", "xchg %al,(%rsi)" },
	{ "48 87 c6", NULL, "xchg %rax,%rsi" },
	{ "48 8b 06", NULL, "mov (%rsi),%rax" },
	{ "0f 1f 84 00 00 00 00 00", NULL, "nopl 0(%rax,%rax,1): not a marker" },
	{ "0f 1f 84 00 b1 c0 b1 5b", NULL, "nopl with a displacement near the marker's" },
	{ "f3 0f 1e fa", NULL, "endbr64" },
};

#define NCLASSES (sizeof(classes) / sizeof(*classes))

static void class_drive(void)
{
	struct qemu_plugin_insn *tb[3];
	unsigned int c, r;

	/* Each one translated in a block with the two markers, as the guest has them. */
	for (c = 0; c < NCLASSES; c++) {
		tb[0] = insn_new(PC_OTHER + 0x100 * c, "0f 1f 84 00 b1 c0 b1 5a");
		tb[1] = insn_new(PC_OTHER + 0x100 * c + 8, classes[c].bytes);
		tb[2] = insn_new(PC_OTHER + 0x100 * c + 32, "0f 1f 84 00 e1 c0 b1 5a");
		translate(tb, 3);
		run(tb[0]);
		for (r = 0; r < 3; r++)
			run(tb[1]);
		run(tb[2]);
	}
}

static void class_judge(void)
{
	char want[64], why[96];
	unsigned int c;

	for (c = 0; c < NCLASSES; c++) {
		if (classes[c].counter)
			snprintf(want, sizeof(want), "insn=3 %s=3", classes[c].counter);
		else
			snprintf(want, sizeof(want), "insn=3");
		snprintf(why, sizeof(why), "%s, 3 times", classes[c].what);
		expect_window(c + 1, want, why);
	}
}

/*
 * Call counts: the calls file names kmem_cache_alloc at PC_CALL and kfree
 * at PC_CALL + 0x100; instructions run at those addresses and one byte
 * either side of them, each a different number of times.
 */
#define PC_CALL 0xffffffff81200000ull

static const char calls_file[] =
	"ffffffff81200000 kmem_cache_alloc\n"
	"ffffffff81200100 kfree\n"
	"ffffffff81200200 never_run\n";

static void calls_drive(void)
{
	struct qemu_plugin_insn *before = insn(PC_CALL - 1, "90");
	struct qemu_plugin_insn *alloc = insn(PC_CALL, "55");
	struct qemu_plugin_insn *after = insn(PC_CALL + 1, "90");
	struct qemu_plugin_insn *free_before = insn(PC_CALL + 0xff, "90");
	struct qemu_plugin_insn *kfree = insn(PC_CALL + 0x100, "55");
	struct qemu_plugin_insn *free_after = insn(PC_CALL + 0x101, "90");
	unsigned int i;

	for (i = 0; i < 2; i++)
		run(alloc);			/* before the first window */
	begin();
	for (i = 0; i < 2; i++)
		run(before);
	for (i = 0; i < 5; i++)
		run(alloc);
	for (i = 0; i < 3; i++)
		run(after);
	for (i = 0; i < 6; i++)
		run(free_before);
	for (i = 0; i < 4; i++)
		run(free_after);
	end();
	run(kfree);				/* between windows */
	begin();
	for (i = 0; i < 7; i++)
		run(kfree);
	end();
}

static void calls_judge(void)
{
	expect_window(1, "insn=20", "20 instructions");
	expect("call 1", "kmem_cache_alloc=5 kfree=0 never_run=0",
	       "the instruction at an address runs 5 times; at the address +-1: not its calls");
	expect_window(2, "insn=7", "7 instructions");
	expect("call 2", "kmem_cache_alloc=0 kfree=7 never_run=0",
	       "kfree's first instruction 7 times in the window, once outside");
}

/*
 * The vmemmap: accesses by virtual address (vmm) and the distinct lines
 * of it (vmml), per window; the per-instruction lines, busiest first.
 */
static void vmemmap_drive(void)
{
	struct qemu_plugin_insn *a = insn(PC_OTHER, "48 8b 06");
	struct qemu_plugin_insn *b = insn(PC_OTHER + 0x40, "48 8b 07");
	static const unsigned int off_a[] = { 0, 0, 8, 56, 64, 72, 120 };
	unsigned int i;

	load(dm(0), 8);		/* the first marker starts the simulation: not this */
	begin();
	for (i = 0; i < 7; i++)
		exec_access(a, VMEMMAP + off_a[i], 8, false);
	for (i = 0; i < 3; i++)
		exec_access(b, VMEMMAP + 4096 + 8 * i, 8, false);
	end();
	exec_access(b, VMEMMAP + 8192, 8, false);	/* outside: not counted */
	begin();
	for (i = 0; i < 7; i++)
		exec_access(a, VMEMMAP + off_a[i], 8, false);
	end();
}

static void vmemmap_judge(void)
{
	expect_window(1, "insn=10 ld=10 l1m=3 l2m=3 l3m=3 vmm=10 vmml=3",
		      "10 struct page accesses over 3 lines");
	expect("pc 1 0xffffffff81000020", "l1m=2 l2m=2 l3m=2 vmm=7 vmml=2",
	       "the first instruction's share");
	expect("pc 1 0xffffffff81000060", "l1m=1 l2m=1 l3m=1 vmm=3 vmml=1",
	       "the second instruction's share");
	check(find("pc 1 0xffffffff81000020") >= 0 &&
	      find("pc 1 0xffffffff81000020") < find("pc 1 0xffffffff81000060"),
	      "the busiest instruction is not listed first");
	expect_window(2, "insn=7 ld=7 vmm=7 vmml=2",
		      "the same lines again: vmml is per window, the lines are in L1");
}

/*
 * A failed qemu_plugin_get_hwaddr(): the plugin falls back to the virtual
 * address and counts it (nohw) in the window and in the end line; device
 * memory is counted as an access and not simulated.
 */
static void nohw_drive(void)
{
	begin();
	load(NOHW, 8);
	load(NOHW + 8, 8);
	load(NOHW + 16, 8);
	load(NOHW + 64, 8);
	end();
	load(NOHW + 128, 8);			/* between windows */
	begin();
	load(IO, 4);
	store(IO + 4, 4);
	end();
}

static void nohw_judge(void)
{
	expect_window(1, "insn=4 ld=4 nohw=4 l1m=2 l2m=2 l3m=2",
		      "4 accesses without a physical address, 2 lines by their virtual one");
	expect_window(2, "insn=2 ld=1 st=1", "device memory: counted, not simulated");
	expect("slabcost: end", "windows=2 errors=0 nohw=5",
	       "5 failed lookups since the first marker, one between windows");
}

/*
 * The simulation starts at the first marker and then runs between
 * windows too, by physical address.
 */
#define WARM_PA (256 * KB * KB)

static void warm_drive(void)
{
	load(dm(WARM_PA), 8);			/* before the first marker */
	begin();
	load(dm(WARM_PA), 8);
	load(dm(WARM_PA + 8), 8);
	end();
	load(dm(WARM_PA + 64), 8);		/* between windows */
	store(dm(WARM_PA + 128), 8);
	begin();
	load(dm(WARM_PA + 64), 8);
	load(ALIAS + WARM_PA + 128, 8);
	end();
}

static void warm_judge(void)
{
	expect_window(1, "insn=2 ld=2 l1m=1 l2m=1 l3m=1",
		      "the access before the first marker was not simulated");
	expect_window(2, "insn=2 ld=2 l1m=0",
		      "accesses between windows warm the cache; another mapping hits");
}

/* Markers out of order: each an error of the plugin's end line. */
static void errors_drive(void)
{
	begin();
	begin();
	end();
	end();
	begin();
	run(i_load);
}

static void errors_judge(void)
{
	expect_text("slabcost: error: window 2 begins inside window 1");
	expect_text("slabcost: error: a window ends after window 1 ended");
	expect_text("slabcost: error: window 2 never ended");
	expect_window(1, "", "an empty window");
	expect("slabcost: end", "windows=2 errors=3 nohw=0", "three errors");
}

/* What the plugin says it simulates, and that it exports its API version. */
static void start_drive(void)
{
}

static void start_judge(void)
{
	expect("slabcost: start",
	       "api=1..1 l1=64x8 l2=512x8 l3=8192x16 line=64",
	       "L1D 32 KiB 8-way, L2 256 KiB 8-way, L3 8 MiB 16-way");
	expect("slabcost: end", "windows=0 errors=0 nohw=0", "no window");
}

enum refuse { OK, NO_OUT, API_2, TWO_CPUS, USER_MODE, NO_CALLS, MANY_CALLS };

static const struct tcase {
	const char *name;
	enum refuse setup;
	bool calls;
	void (*drive)(void);
	void (*judge)(void);
	const char *refusal;		/* what the plugin says when it refuses */
} cases[] = {
	{ .name = "buffer64k", .drive = buf_drive, .judge = buf_judge },
	{ .name = "conflict", .drive = conflict_drive, .judge = conflict_judge },
	{ .name = "lru-order", .drive = lru_drive, .judge = lru_judge },
	{ .name = "l2-ways", .drive = l2_drive, .judge = l2_judge },
	{ .name = "l3-ways", .drive = l3_drive, .judge = l3_judge },
	{ .name = "stores", .drive = store_drive, .judge = store_judge },
	{ .name = "crossing", .drive = cross_drive, .judge = cross_judge },
	{ .name = "cx16", .drive = cx16_drive, .judge = cx16_judge },
	{ .name = "classes", .drive = class_drive, .judge = class_judge },
	{ .name = "calls", .calls = true, .drive = calls_drive, .judge = calls_judge },
	{ .name = "vmemmap", .drive = vmemmap_drive, .judge = vmemmap_judge },
	{ .name = "nohw", .drive = nohw_drive, .judge = nohw_judge },
	{ .name = "warm", .drive = warm_drive, .judge = warm_judge },
	{ .name = "errors", .drive = errors_drive, .judge = errors_judge },
	{ .name = "start", .drive = start_drive, .judge = start_judge },
	{ .name = "refuse-no-out", .setup = NO_OUT, .refusal = "slabcost: usage: " },
	{ .name = "refuse-api-2", .setup = API_2, .refusal = "QEMU offers plugin API 2..2" },
	{ .name = "refuse-2-vcpus", .setup = TWO_CPUS, .refusal = "one vCPU (x86_64, 2 vCPUs)" },
	{ .name = "refuse-user-mode", .setup = USER_MODE, .refusal = "one vCPU (x86_64, 0 vCPUs)" },
	{ .name = "refuse-no-calls-file", .setup = NO_CALLS, .refusal = "cannot read " },
	{ .name = "refuse-17-calls", .setup = MANY_CALLS, .refusal = "more than 16 addresses" },
};

/* The child: install the plugin, drive it, end it.  Exit 3: install refused. */
static _Noreturn void child(const struct tcase *t, const char *so, const char *out,
			    const char *calls)
{
	qemu_info_t info = {
		.target_name = "x86_64",
		.version = { .min = 1, .cur = 1 },
		.system_emulation = true,
		.system = { .smp_vcpus = 1, .max_vcpus = 1 },
	};
	char arg_out[4200], arg_calls[4200];
	char *argv[2] = { arg_out, arg_calls };
	int (*install)(qemu_plugin_id_t id, const qemu_info_t *qinfo, int argc, char **argv);
	int argc = 1, *version;
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		die("dlopen: %s", dlerror());
	version = dlsym(h, "qemu_plugin_version");
	*(void **)&install = dlsym(h, "qemu_plugin_install");
	if (!version || !install)
		die("the plugin exports no qemu_plugin_version or qemu_plugin_install");
	if (*version != 1)
		die("the plugin's qemu_plugin_version is %d", *version);
	snprintf(arg_out, sizeof(arg_out), "out=%s", out);
	snprintf(arg_calls, sizeof(arg_calls), "calls=%s", calls);
	switch (t->setup) {
	case OK:
		argc = t->calls ? 2 : 1;
		break;
	case NO_OUT:
		argv[0] = arg_calls;
		break;
	case API_2:
		info.version.min = 2;
		info.version.cur = 2;
		break;
	case TWO_CPUS:
		info.system.smp_vcpus = 2;
		break;
	case USER_MODE:
		info.system_emulation = false;
		break;
	case NO_CALLS:
	case MANY_CALLS:
		argc = 2;
		break;
	}
	if (install(PLUGIN_ID, &info, argc, argv))
		_exit(3);
	if (t->setup != OK)
		die("the plugin installed");
	if (!tb_trans || !at_exit)
		die("the plugin registered no translation or atexit callback");
	m_begin = insn(PC_BEGIN, "0f 1f 84 00 b1 c0 b1 5a");
	m_end = insn(PC_END, "0f 1f 84 00 e1 c0 b1 5a");
	i_load = insn(PC_LOAD, "48 8b 06");
	i_store = insn(PC_STORE, "48 89 06");
	t->drive();
	at_exit(PLUGIN_ID, at_exit_udata);
	fflush(stdout);
	_exit(0);
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

static void run_case(const struct tcase *t, const char *so, const char *dir)
{
	char out[4096], calls[4096], err[4096];
	int status;
	pid_t pid;
	unsigned int i;

	cur = t->name;
	snprintf(out, sizeof(out), "%s/%s.out", dir, t->name);
	snprintf(calls, sizeof(calls), "%s/%s.calls", dir, t->name);
	snprintf(err, sizeof(err), "%s/%s.err", dir, t->name);
	unlink(out);
	if (t->setup == MANY_CALLS) {
		char text[17 * 32] = "";

		for (i = 0; i < 17; i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "%llx f%u\n", PC_CALL + i, i);
		check(write_file(calls, text), "cannot write %s", calls);
	} else if (t->setup == NO_CALLS) {
		unlink(calls);
	} else if (t->calls) {
		check(write_file(calls, calls_file), "cannot write %s", calls);
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		check(false, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		/* The plugin's own complaints go to CASE.err. */
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0)
			die("cannot write %s", err);
		close(fd);
		child(t, so, out, calls);
	}
	if (waitpid(pid, &status, 0) != pid) {
		check(false, "waitpid: %s", strerror(errno));
		return;
	}
	if (t->setup != OK) {
		check(WIFEXITED(status) && WEXITSTATUS(status) == 3,
		      "qemu_plugin_install() did not refuse (status %#x)", status);
		read_out(err);
		for (i = 0; i < nlines && !strstr(lines[i], t->refusal); i++)
			;
		check(i < nlines, "the plugin did not say \"%s\" (%s)", t->refusal, err);
		return;
	}
	check(WIFEXITED(status) && !WEXITSTATUS(status), "the run ended with status %#x",
	      status);
	read_out(out);
	check(nlines > 0 && !strncmp(lines[0], "slabcost: start ", 16),
	      "%s does not start with the plugin's start line", out);
	t->judge();
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 3) {
		fprintf(stderr, "usage: slabcost-test PLUGIN.so DIR\n");
		return 2;
	}
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		run_case(&cases[i], argv[1], argv[2]);
	printf("slabcost-test: %u checks passed, %u failed\n", passed, failed);
	return failed || !passed;
}
