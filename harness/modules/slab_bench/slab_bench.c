// SPDX-License-Identifier: GPL-2.0
/*
 * slab_bench: the benchmark module of "make bench".
 *
 * Uses only the public slab API (kmem_cache_*, kmalloc, the bulk calls),
 * so the same source builds against our allocator, upstream SLUB and SLAB.
 * Every figure is a cost per operation, lower is better:
 *
 *   mode=icount  guest instructions.  Under QEMU -icount shift=0 the TSC
 *                counts one tick per guest instruction; the calibration
 *                loop of known length checks it and gives the fixed cost
 *                of reading the clock, which is subtracted.
 *   mode=tcg     nanoseconds of ktime_get_ns().
 *
 * Each case is repeated and the cheapest repetition reported, so a timer
 * tick falling into one repetition does not count.  Results go to the
 * kernel log as "slab_bench: result <group> <key> <cost>"; the harness
 * reads them with dmesg.
 *
 * cases=frag keeps its objects until the module is removed, so that the
 * guest can read the slab pages of its caches from /proc/slabinfo.
 *
 * model=1 (mode=icount under the slabcost plugin, harness/plugin/slabcost.c)
 * marks the last repetition of each single-CPU figure as a plugin window
 * and prints "slab_bench: model <group> <key> window=<n> ops=<ops>".  The
 * markers sit around the repetition's call, outside its clock reads, so
 * the icount figures do not change; a window holds the repetition plus
 * the call and the two clock reads (42 instructions in the fastpath case,
 * 0.042 an operation).  cases=modelcal runs the plugin's own checks:
 * windows whose counts are known exactly ("slab_bench: modelcal <name>
 * window=<n> <counter>=<expected>...").
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/timex.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/irqflags.h>
#include <linux/sizes.h>

static char *mode = "icount";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "icount (guest instructions) or tcg (nanoseconds)");
static char *cases = "calib,fast,kmalloc,allocn,bulk";
module_param(cases, charp, 0444);
MODULE_PARM_DESC(cases, "comma list: calib modelcal fast kmalloc allocn bulk bulkm many remote mt frag");
static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "fewer repetitions");
static bool model;
module_param(model, bool, 0444);
MODULE_PARM_DESC(model, "mark plugin windows (harness/plugin/slabcost.c)");

/*
 * The slabcost plugin's markers: "nopl disp32(%rax,%rax,1)" with the
 * displacement of SLABCOST_BEGIN or SLABCOST_END in slabcost.c.
 */
#define SLABCOST_BEGIN_ASM	".byte 0x0f,0x1f,0x84,0x00\n\t.long 0x5ab1c0b1\n\t"
#define SLABCOST_END_ASM	".byte 0x0f,0x1f,0x84,0x00\n\t.long 0x5ab1c0e1\n\t"
static unsigned int model_windows;
module_param_named(window_base, model_windows, uint, 0444);
MODULE_PARM_DESC(window_base, "plugin windows of the boot before this module's");

/* Open a window if this repetition @r of @reps is the marked one. */
static bool model_begin(unsigned int r, unsigned int reps)
{
	if (!model || r != reps)
		return false;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM ::: "memory");
	return true;
}

static void model_end(bool open)
{
	if (open)
		asm volatile(SLABCOST_END_ASM ::: "memory");
}

static void model_result(const char *group, unsigned int key, u64 ops)
{
	if (model)
		pr_info("slab_bench: model %s %u window=%u ops=%llu\n", group,
			key, model_windows, ops);
}

static bool bench_icount;
/* Fixed cost of a clock read pair, in clock units, and units per insn x 1000. */
static u64 clock_overhead;
static u64 clock_milli_per_insn = 1000;

#define SIZES_NR 5
static const unsigned int bench_sizes[SIZES_NR] = { 8, 64, 256, 1024, 4096 };
static const unsigned int bulk_steps[] = {
	1, 2, 3, 4, 8, 16, 30, 32, 34, 48, 64, 128, 158, 250
};

#define ALLOCN_MAX 4096
#define BULK_MAX 250
/* The object size of the alloc-N, bulk, remote and all-CPU cases. */
#define BENCH_OBJ 256

static u64 bench_now(void)
{
	return bench_icount ? get_cycles() : ktime_get_ns();
}

/* Cost per op of @delta clock units over @ops ops, in 1/1000 units. */
static u64 bench_milli_per_op(u64 delta, u64 ops)
{
	delta = delta > clock_overhead ? delta - clock_overhead : 0;
	if (bench_icount)
		return div64_u64(delta * 1000000ULL, clock_milli_per_insn * ops);
	return div64_u64(delta * 1000ULL, ops);
}

static void bench_result(const char *group, unsigned int key, u64 milli)
{
	pr_info("slab_bench: result %s %u %llu.%03llu\n", group, key,
		milli / 1000, milli % 1000);
}

static unsigned int bench_reps(void)
{
	return quick ? 3 : 7;
}

/* ---- Calibration: a loop of exactly 2 instructions per iteration ---- */

static noinline u64 calib_loop(unsigned long n)
{
	u64 t0, t1;

	t0 = bench_now();
	asm volatile("1:\n\tdec %0\n\tjnz 1b\n" : "+r" (n) : : "cc");
	t1 = bench_now();
	return t1 - t0;
}

static void bench_calibrate(void)
{
	const unsigned long n1 = 100000, n2 = 1100000;
	u64 d1 = U64_MAX, d2 = U64_MAX, d;
	unsigned int i;

	for (i = 0; i < bench_reps(); i++) {
		d = calib_loop(n1);
		d1 = min(d1, d);
		d = calib_loop(n2);
		d2 = min(d2, d);
	}
	/* Slope: clock units per loop instruction. */
	clock_milli_per_insn = div64_u64((d2 - d1) * 1000ULL, 2 * (n2 - n1));
	if (!clock_milli_per_insn)
		clock_milli_per_insn = 1;
	/* The overhead: two clock reads back to back. */
	clock_overhead = U64_MAX;
	for (i = 0; i < bench_reps(); i++) {
		d = bench_now();
		d = bench_now() - d;
		clock_overhead = min(clock_overhead, d);
	}
	if (!bench_icount) {
		/* ns per loop insn tells the TCG speed; costs stay in ns. */
		pr_info("slab_bench: calib tcg ns_per_insn=%llu.%03llu overhead_ns=%llu\n",
			clock_milli_per_insn / 1000, clock_milli_per_insn % 1000,
			clock_overhead);
		clock_milli_per_insn = 1000;
		return;
	}
	pr_info("slab_bench: calib icount loop_insns=%lu,%lu ticks=%llu,%llu ticks_per_insn=%llu.%03llu overhead=%llu\n",
		2 * n1, 2 * n2, d1, d2, clock_milli_per_insn / 1000,
		clock_milli_per_insn % 1000, clock_overhead);
}

/* ---- Single-CPU cases ---- */

/*
 * The caches of the cases are private: SLAB_NOLEAKTRACE (a no-op without
 * kmemleak) keeps them from merging into a kmalloc cache, so that what the
 * case measures starts from an empty cache and depends on the allocator
 * alone, not on the boot's history in a shared cache.  Only "bulkm" uses
 * default flags, merged or not as the kernel's merge policy says.
 */
static struct kmem_cache *bench_cache_create(const char *fmt, unsigned int size,
					     bool mergeable)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, size);
	return kmem_cache_create(name, size, 0, mergeable ? 0 : SLAB_NOLEAKTRACE,
				 NULL);
}

static noinline u64 fast_cache_once(struct kmem_cache *s, unsigned int iters)
{
	u64 t0 = bench_now();
	unsigned int i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = kmem_cache_alloc(s, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kmem_cache_free(s, p);
	}
	return bench_now() - t0;
}

static noinline u64 fast_kmalloc_once(unsigned int size, unsigned int iters)
{
	u64 t0 = bench_now();
	unsigned int i;
	void *p;

	for (i = 0; i < iters; i++) {
		p = kmalloc(size, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
	}
	return bench_now() - t0;
}

static int bench_fast(bool use_kmalloc)
{
	unsigned int iters = bench_icount ? 1000 : 20000;
	unsigned int i, r;
	u64 best, d;

	for (i = 0; i < SIZES_NR; i++) {
		struct kmem_cache *s = NULL;

		if (!use_kmalloc) {
			s = bench_cache_create("bench_fast_%u", bench_sizes[i], false);
			if (!s)
				return -ENOMEM;
		}
		best = U64_MAX;
		/* Repetition 0 warms up: the first slab comes from the page allocator. */
		for (r = 0; r <= bench_reps(); r++) {
			bool w = model_begin(r, bench_reps());

			d = use_kmalloc ? fast_kmalloc_once(bench_sizes[i], iters) :
					  fast_cache_once(s, iters);
			model_end(w);
			if (r)
				best = min(best, d);
		}
		bench_result(use_kmalloc ? "kmalloc" : "fast", bench_sizes[i],
			     bench_milli_per_op(best, iters));
		model_result(use_kmalloc ? "kmalloc" : "fast", bench_sizes[i], iters);
		kmem_cache_destroy(s);
	}
	return 0;
}

static noinline u64 allocn_once(struct kmem_cache *s, void **objs, unsigned int n)
{
	u64 t0 = bench_now();
	unsigned int i;

	for (i = 0; i < n; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	return bench_now() - t0;
}

static int bench_allocn(void **objs)
{
	struct kmem_cache *s;
	unsigned int n, r;
	u64 best, d;

	s = bench_cache_create("bench_allocn_%u", BENCH_OBJ, false);
	if (!s)
		return -ENOMEM;
	for (n = 16; n <= ALLOCN_MAX; n *= 2) {
		best = U64_MAX;
		for (r = 0; r <= bench_reps(); r++) {
			bool w = model_begin(r, bench_reps());

			d = allocn_once(s, objs, n);
			model_end(w);
			if (r)
				best = min(best, d);
		}
		/* Cost of one object: its allocation plus its free. */
		bench_result("allocn", n, bench_milli_per_op(best, n));
		model_result("allocn", n, n);
	}
	kmem_cache_destroy(s);
	return 0;
}

static noinline u64 bulk_once(struct kmem_cache *s, void **objs,
			      unsigned int n, unsigned int loops)
{
	u64 t0 = bench_now();
	unsigned int i;

	for (i = 0; i < loops; i++) {
		if (kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs) != n)
			return U64_MAX;
		kmem_cache_free_bulk(s, n, objs);
	}
	return bench_now() - t0;
}

/*
 * Many caches: one object of each of MANY_CACHES private caches of
 * different sizes, allocated round the caches and freed, so that every
 * operation finds another cache's per-cpu state.  Per alloc+free pair.
 */
#define MANY_CACHES	64
#define MANY_ROUNDS	16

static noinline u64 many_once(struct kmem_cache **caches, void **objs)
{
	u64 t0 = bench_now();
	unsigned int i, r;

	for (r = 0; r < MANY_ROUNDS; r++) {
		for (i = 0; i < MANY_CACHES; i++)
			objs[i] = kmem_cache_alloc(caches[i], GFP_KERNEL);
		for (i = 0; i < MANY_CACHES; i++)
			kmem_cache_free(caches[i], objs[i]);
	}
	return bench_now() - t0;
}

static int bench_many(void **objs)
{
	struct kmem_cache *caches[MANY_CACHES];
	unsigned int i, r;
	u64 best = U64_MAX, d;
	int ret = 0;

	for (i = 0; i < MANY_CACHES; i++) {
		caches[i] = bench_cache_create("bench_many_%u", 40 + 24 * i, false);
		if (!caches[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (r = 0; r <= bench_reps(); r++) {
		bool w = model_begin(r, bench_reps());

		d = many_once(caches, objs);
		model_end(w);
		if (r)
			best = min(best, d);
	}
	bench_result("many", MANY_CACHES,
		     bench_milli_per_op(best, MANY_CACHES * MANY_ROUNDS));
	model_result("many", MANY_CACHES, MANY_CACHES * MANY_ROUNDS);
out:
	while (i--)
		kmem_cache_destroy(caches[i]);
	return ret;
}

static int bench_bulk(void **objs, bool mergeable)
{
	const char *group = mergeable ? "bulkm" : "bulk";
	unsigned int i, r, n, loops;
	struct kmem_cache *s;
	u64 best, d;

	s = bench_cache_create(mergeable ? "bench_bulkm_%u" : "bench_bulk_%u",
			       BENCH_OBJ, mergeable);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(bulk_steps); i++) {
		n = bulk_steps[i];
		loops = DIV_ROUND_UP(bench_icount ? 2000 : 40000, n);
		best = U64_MAX;
		for (r = 0; r <= bench_reps(); r++) {
			bool w = model_begin(r, bench_reps());

			d = bulk_once(s, objs, n, loops);
			model_end(w);
			if (r)
				best = min(best, d);
		}
		if (best == U64_MAX) {
			pr_err("slab_bench: bulk allocation of %u failed\n", n);
			break;
		}
		/* Cost of one object through kmem_cache_alloc_bulk + free_bulk. */
		bench_result(group, n, bench_milli_per_op(best, (u64)n * loops));
		model_result(group, n, (u64)n * loops);
	}
	kmem_cache_destroy(s);
	return 0;
}

/* ---- Multi-CPU cases (mode=tcg) ---- */

#define REMOTE_BATCH 256
#define REMOTE_SLOTS 4

struct remote_ctx {
	struct kmem_cache *s;
	void *slot[REMOTE_SLOTS][REMOTE_BATCH];
	int full[REMOTE_SLOTS];
	unsigned int batches;
	struct completion done[2];
	u64 t_end;
};

/*
 * A slot is handed over with release/acquire on its flag: the consumer
 * sees the pointers the producer stored, the producer the slot emptied.
 */
static void remote_wait(int *flag, int want)
{
	/* Pairs with smp_store_release() of the other side. */
	while (smp_load_acquire(flag) != want)
		cpu_relax();
}

static int remote_producer(void *arg)
{
	struct remote_ctx *c = arg;
	unsigned int b, i, k;

	for (b = 0; b < c->batches; b++) {
		k = b % REMOTE_SLOTS;
		remote_wait(&c->full[k], 0);
		for (i = 0; i < REMOTE_BATCH; i++)
			c->slot[k][i] = kmem_cache_alloc(c->s, GFP_KERNEL);
		/* Publish the batch; pairs with remote_wait(). */
		smp_store_release(&c->full[k], 1);
	}
	complete(&c->done[0]);
	return 0;
}

static int remote_consumer(void *arg)
{
	struct remote_ctx *c = arg;
	unsigned int b, i, k;

	for (b = 0; b < c->batches; b++) {
		k = b % REMOTE_SLOTS;
		remote_wait(&c->full[k], 1);
		for (i = 0; i < REMOTE_BATCH; i++)
			kmem_cache_free(c->s, c->slot[k][i]);
		/* Give the slot back; pairs with remote_wait(). */
		smp_store_release(&c->full[k], 0);
	}
	c->t_end = ktime_get_ns();
	complete(&c->done[1]);
	return 0;
}

static struct task_struct *bench_thread_on(int (*fn)(void *), void *arg,
					   unsigned int cpu, const char *what)
{
	struct task_struct *t;

	t = kthread_create(fn, arg, "slab_bench_%s/%u", what, cpu);
	if (IS_ERR(t))
		return t;
	kthread_bind(t, cpu);
	return t;
}

static int bench_remote(void)
{
	struct task_struct *prod, *cons;
	unsigned int c0, c1, r;
	struct remote_ctx *c;
	u64 t0, best = U64_MAX;
	int ret = 0;

	if (num_online_cpus() < 2) {
		pr_info("slab_bench: remote needs 2 cpus, skipped\n");
		return 0;
	}
	c0 = cpumask_first(cpu_online_mask);
	c1 = cpumask_next(c0, cpu_online_mask);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->s = bench_cache_create("bench_remote_%u", BENCH_OBJ, false);
	if (!c->s) {
		kfree(c);
		return -ENOMEM;
	}
	c->batches = quick ? 200 : 400;
	for (r = 0; r <= bench_reps() && !ret; r++) {
		memset(c->full, 0, sizeof(c->full));
		init_completion(&c->done[0]);
		init_completion(&c->done[1]);
		prod = bench_thread_on(remote_producer, c, c0, "prod");
		cons = bench_thread_on(remote_consumer, c, c1, "cons");
		if (IS_ERR(prod) || IS_ERR(cons)) {
			/* A created thread that never ran is stopped unrun. */
			if (!IS_ERR(prod))
				kthread_stop(prod);
			if (!IS_ERR(cons))
				kthread_stop(cons);
			ret = -ENOMEM;
			break;
		}
		t0 = ktime_get_ns();
		wake_up_process(cons);
		wake_up_process(prod);
		wait_for_completion(&c->done[0]);
		wait_for_completion(&c->done[1]);
		if (r)
			best = min(best, c->t_end - t0);
	}
	if (!ret)
		bench_result("remote", BENCH_OBJ,
			     bench_milli_per_op(best, (u64)c->batches * REMOTE_BATCH));
	kmem_cache_destroy(c->s);
	kfree(c);
	return ret;
}

#define MT_BATCH 32

struct mt_ctx {
	struct kmem_cache *s;
	unsigned int loops;
	atomic_t ready, running;
	struct completion done;
	u64 t_end;
};

static int mt_worker(void *arg)
{
	struct mt_ctx *c = arg;
	void *objs[MT_BATCH];
	unsigned int i, l;

	/* Start together: every worker spins until all are there. */
	atomic_dec(&c->ready);
	while (atomic_read(&c->ready) > 0)
		cpu_relax();
	for (l = 0; l < c->loops; l++) {
		for (i = 0; i < MT_BATCH; i++)
			objs[i] = kmem_cache_alloc(c->s, GFP_KERNEL);
		for (i = 0; i < MT_BATCH; i++)
			kmem_cache_free(c->s, objs[i]);
	}
	if (atomic_dec_and_test(&c->running)) {
		c->t_end = ktime_get_ns();
		complete(&c->done);
	}
	return 0;
}

static int bench_mt(void)
{
	unsigned int cpu, r, n = num_online_cpus();
	struct task_struct *t;
	struct mt_ctx c = { };
	u64 t0, best = U64_MAX;

	c.s = bench_cache_create("bench_mt_%u", BENCH_OBJ, false);
	if (!c.s)
		return -ENOMEM;
	c.loops = quick ? 1000 : 2000;
	for (r = 0; r <= bench_reps(); r++) {
		atomic_set(&c.ready, n);
		atomic_set(&c.running, n);
		init_completion(&c.done);
		t0 = ktime_get_ns();
		for_each_online_cpu(cpu) {
			t = bench_thread_on(mt_worker, &c, cpu, "mt");
			if (IS_ERR(t)) {
				/* Never started: the others wait forever otherwise. */
				pr_err("slab_bench: mt: no thread for cpu %u\n", cpu);
				kmem_cache_destroy(c.s);
				return PTR_ERR(t);
			}
			wake_up_process(t);
		}
		wait_for_completion(&c.done);
		if (r)
			best = min(best, c.t_end - t0);
	}
	/* Wall time per alloc+free pair of one cpu, all cpus running. */
	bench_result("mt", n, bench_milli_per_op(best, (u64)c.loops * MT_BATCH));
	kmem_cache_destroy(c.s);
	return 0;
}

/* ---- Fragmentation: caches the guest reads back from /proc/slabinfo ---- */

#define FRAG_CACHES 4
#define FRAG_OBJS 8192
static const unsigned int frag_sizes[FRAG_CACHES] = { 64, 192, 700, 2000 };
static struct kmem_cache *frag_cache[FRAG_CACHES];
static void **frag_objs[FRAG_CACHES];

static void frag_ctor(void *obj)
{
	/* Its only job: a cache with a constructor is never merged. */
}

static void bench_frag_free(void)
{
	unsigned int i, j;

	for (i = 0; i < FRAG_CACHES; i++) {
		if (frag_objs[i]) {
			for (j = 0; j < FRAG_OBJS; j++)
				if (frag_objs[i][j])
					kmem_cache_free(frag_cache[i], frag_objs[i][j]);
			vfree(frag_objs[i]);
			frag_objs[i] = NULL;
		}
		kmem_cache_destroy(frag_cache[i]);
		frag_cache[i] = NULL;
	}
}

/*
 * A fixed workload for each cache: allocate FRAG_OBJS objects, then free
 * three of every four.  The slab pages still held measure how well the
 * allocator packs what stays.
 */
static int bench_frag(void)
{
	char name[32];
	unsigned int i, j;

	for (i = 0; i < FRAG_CACHES; i++) {
		snprintf(name, sizeof(name), "bench_frag_%u", frag_sizes[i]);
		frag_cache[i] = kmem_cache_create(name, frag_sizes[i], 0, 0, frag_ctor);
		frag_objs[i] = vzalloc(FRAG_OBJS * sizeof(void *));
		if (!frag_cache[i] || !frag_objs[i])
			goto fail;
		for (j = 0; j < FRAG_OBJS; j++) {
			frag_objs[i][j] = kmem_cache_alloc(frag_cache[i], GFP_KERNEL);
			if (!frag_objs[i][j])
				goto fail;
		}
		for (j = 0; j < FRAG_OBJS; j++) {
			if (j % 4) {
				kmem_cache_free(frag_cache[i], frag_objs[i][j]);
				frag_objs[i][j] = NULL;
			}
		}
	}
	pr_info("slab_bench: frag ready: %u objects of each cache allocated, 3 of 4 freed\n",
		FRAG_OBJS);
	return 0;
fail:
	bench_frag_free();
	return -ENOMEM;
}

/* ---- The plugin's own checks (cases=modelcal, model=1) ---- */

/*
 * Each window is one asm statement between its markers, run with
 * interrupts off, so that what it executes is known to the instruction.
 * The guest runs these last in a boot (harness/guest/init), when the
 * plugin's simulated caches have run for the whole boot, so that the
 * eviction sweep is itself simulated and "cold" means what it says.  The
 * lines come from one physically contiguous block of CAL_ORDER, whose
 * line N falls in set N mod sets of each modelled level:
 *
 *   cold    one load from each of CAL_LINES lines at offset 0, after a
 *           sweep of CAL_EVICT blocks of CAL_ORDER that puts exactly 32
 *           other lines into every set of the modelled L3 (16 ways): a
 *           miss at every level per load;
 *   hot     CAL_HOT lines loaded twice, the second pass measured: they fit
 *           the modelled L1 (4 lines a set of 8 ways), no miss;
 *   l2      CAL_L2_LINES (128 KiB) at 1 MiB loaded twice, the second pass
 *           measured: 32 lines a set of the 8-way L1, so every load misses
 *           L1, and 4 a set of the 8-way L2, so every one hits L2;
 *   l3      CAL_L3_LINES (1 MiB) at 2 MiB, the same: 32 lines a set of
 *           the 8-way L2 (every load misses it), 2 a set of the 16-way L3
 *           (every one hits it);
 *   store   CAL_HOT lines at 3.5 MiB loaded, then one store to each,
 *           measured: stores counted as stores, no miss;
 *   storecold
 *           one store to each of CAL_LINES lines at 3 MiB, which nothing
 *           touched since the sweep: a miss at every level per store
 *           (every level allocates on a write);
 *   lock, xchg, cx16l, cx16, uplock, irq
 *           CAL_OPS of each: lock incl, xchg with memory, lock cmpxchg16b,
 *           cmpxchg16b, "ds incl; ds cmpxchg16b" (a one-CPU boot's
 *           LOCK_PREFIX, counted as locked), and "pushf; cli; popf; sti;
 *           cli" (sti's shadow covers the cli that follows, so no
 *           interrupt gets in);
 *   vmemmap the first word of each struct page of a 1024-page block: 1024
 *           vmemmap accesses, on as many distinct lines as the layout puts
 *           them (1024 with 64-byte pages, 897 or 896 with 56-byte ones);
 *   calls   CAL_CALLS kmem_cache_alloc() and kmem_cache_free() pairs on a
 *           cache of the module's: the plugin's call counters (calls=)
 *           must count each entry point CAL_CALLS times.
 */
#define CAL_ORDER	10		/* 4 MiB blocks */
#define CAL_LINES	4096		/* 256 KiB: past the modelled L1 and L2 */
#define CAL_HOT		256		/* 16 KiB */
#define CAL_L2_LINES	2048		/* 128 KiB */
#define CAL_L3_LINES	16384		/* 1 MiB */
#define CAL_OPS		1000
#define CAL_CALLS	100
#define CAL_EVICT	4		/* 16 MiB: twice the modelled L3 */

#define CAL_LOOP(body)	"1:\n\t" body "dec %[n]\n\tjnz 1b\n\t"

static void modelcal_print(const char *name, const char *fmt, ...)
{
	char expect[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(expect, sizeof(expect), fmt, ap);
	va_end(ap);
	pr_info("slab_bench: modelcal %s window=%u %s\n", name, model_windows,
		expect);
}

#define CAL_READ	CAL_LOOP("mov (%[p]), %%rax\n\tadd $64, %[p]\n\t")
#define CAL_WRITE	CAL_LOOP("mov %%rax, (%[p])\n\tadd $64, %[p]\n\t")

/* Load one word of each of @n lines from @buf on, as a window if @mark. */
static void cal_read(char *buf, unsigned long n, bool mark)
{
	unsigned long p = (unsigned long)buf;

	if (!mark) {
		asm volatile(CAL_READ : [p] "+r" (p), [n] "+r" (n) : : "rax", "memory", "cc");
		return;
	}
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_READ SLABCOST_END_ASM
		     : [p] "+r" (p), [n] "+r" (n) : : "rax", "memory", "cc");
}

/* Store one word to each of @n lines from @buf on, as a window. */
static void cal_write(char *buf, unsigned long n)
{
	unsigned long p = (unsigned long)buf;

	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_WRITE SLABCOST_END_ASM
		     : [p] "+r" (p), [n] "+r" (n) : : "rax", "memory", "cc");
}

static void modelcal_lines(char *buf, struct page **evict)
{
	unsigned int i;

	for (i = 0; i < CAL_EVICT; i++)
		memset(page_address(evict[i]), i + 1, PAGE_SIZE << CAL_ORDER);
	cal_read(buf, CAL_LINES, true);
	modelcal_print("cold", "insn=%u ld=%u st=0 l1m=%u l2m=%u l3m=%u vmm=0",
		       4 * CAL_LINES, CAL_LINES, CAL_LINES, CAL_LINES, CAL_LINES);
	cal_read(buf, CAL_HOT, false);
	cal_read(buf, CAL_HOT, true);
	modelcal_print("hot", "insn=%u ld=%u st=0 l1m=0", 4 * CAL_HOT, CAL_HOT);
	cal_read(buf + SZ_1M, CAL_L2_LINES, false);
	cal_read(buf + SZ_1M, CAL_L2_LINES, true);
	modelcal_print("l2", "insn=%u ld=%u st=0 l1m=%u l2m=0", 4 * CAL_L2_LINES,
		       CAL_L2_LINES, CAL_L2_LINES);
	cal_read(buf + SZ_2M, CAL_L3_LINES, false);
	cal_read(buf + SZ_2M, CAL_L3_LINES, true);
	modelcal_print("l3", "insn=%u ld=%u st=0 l1m=%u l2m=%u l3m=0", 4 * CAL_L3_LINES,
		       CAL_L3_LINES, CAL_L3_LINES, CAL_L3_LINES);
	cal_read(buf + SZ_2M + SZ_1M + SZ_512K, CAL_HOT, false);
	cal_write(buf + SZ_2M + SZ_1M + SZ_512K, CAL_HOT);
	modelcal_print("store", "insn=%u ld=0 st=%u l1m=0", 4 * CAL_HOT, CAL_HOT);
	cal_write(buf + SZ_2M + SZ_1M, CAL_LINES);
	modelcal_print("storecold", "insn=%u ld=0 st=%u l1m=%u l2m=%u l3m=%u",
		       4 * CAL_LINES, CAL_LINES, CAL_LINES, CAL_LINES, CAL_LINES);
}

static void modelcal_events(u64 *pair)
{
	unsigned long n, flags;

	n = CAL_OPS;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("lock incl (%[m])\n\t") SLABCOST_END_ASM
		     : [n] "+r" (n) : [m] "r" (pair) : "memory", "cc");
	modelcal_print("lock", "insn=%u locked=%u cx16l=0 cx16=0", 3 * CAL_OPS, CAL_OPS);

	n = CAL_OPS;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("xchg %%rax, (%[m])\n\t") SLABCOST_END_ASM
		     : [n] "+r" (n) : [m] "r" (pair) : "rax", "memory", "cc");
	modelcal_print("xchg", "insn=%u locked=%u cx16l=0 cx16=0", 3 * CAL_OPS, CAL_OPS);

	n = CAL_OPS;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("lock cmpxchg16b (%[m])\n\t") SLABCOST_END_ASM
		     : [n] "+r" (n) : [m] "r" (pair) : "rax", "rdx", "rbx", "rcx", "memory", "cc");
	modelcal_print("cx16l", "insn=%u locked=0 cx16l=%u cx16=0", 3 * CAL_OPS, CAL_OPS);

	n = CAL_OPS;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("cmpxchg16b (%[m])\n\t") SLABCOST_END_ASM
		     : [n] "+r" (n) : [m] "r" (pair) : "rax", "rdx", "rbx", "rcx", "memory", "cc");
	modelcal_print("cx16", "insn=%u locked=0 cx16l=0 cx16=%u", 3 * CAL_OPS, CAL_OPS);

	/* A one-CPU boot's LOCK_PREFIX: the DS prefix the lock became. */
	n = CAL_OPS;
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP(".byte 0x3e\n\tincl (%[m])\n\t"
						 ".byte 0x3e\n\tcmpxchg16b (%[m])\n\t")
		     SLABCOST_END_ASM
		     : [n] "+r" (n) : [m] "r" (pair) : "rax", "rdx", "rbx", "rcx", "memory", "cc");
	modelcal_print("uplock", "insn=%u locked=%u cx16l=%u cx16=0", 4 * CAL_OPS, CAL_OPS,
		       CAL_OPS);

	n = CAL_OPS;
	local_irq_save(flags);
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("pushf\n\tcli\n\tpopf\n\tsti\n\tcli\n\t")
		     SLABCOST_END_ASM : [n] "+r" (n) : : "memory", "cc");
	local_irq_restore(flags);
	modelcal_print("irq", "insn=%u pushf=%u popf=%u cli=%u sti=%u locked=0",
		       7 * CAL_OPS, CAL_OPS, CAL_OPS, 2 * CAL_OPS, CAL_OPS);
}

static void modelcal_vmemmap(struct page *pages)
{
	unsigned long n = 1UL << CAL_ORDER, p = (unsigned long)pages, line, last = 0;
	unsigned int i, lines = 0;

	for (i = 0; i < n; i++) {
		line = (unsigned long)&pages[i] >> 6;
		if (!i || line != last)
			lines++;
		last = line;
	}
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM CAL_LOOP("mov (%[p]), %%rax\n\tadd %[sz], %[p]\n\t")
		     SLABCOST_END_ASM
		     : [p] "+r" (p), [n] "+r" (n) : [sz] "r" (sizeof(struct page))
		     : "rax", "memory", "cc");
	modelcal_print("vmemmap", "insn=%lu ld=%lu vmm=%lu vmml=%u struct_page=%zu",
		       4UL << CAL_ORDER, 1UL << CAL_ORDER, 1UL << CAL_ORDER, lines,
		       sizeof(struct page));
}

/*
 * CAL_CALLS alloc/free pairs in a window, after one pair outside it has
 * given the cache a slab: the entry points' first instructions run
 * CAL_CALLS times each, and nothing else in the window (interrupts off)
 * calls them.
 */
static int modelcal_calls(void)
{
	struct kmem_cache *c = kmem_cache_create("slab_bench_cal", 64, 0, 0, NULL);
	unsigned long flags;
	unsigned int i;
	void *obj;

	if (!c)
		return -ENOMEM;
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	if (!obj) {
		kmem_cache_destroy(c);
		return -ENOMEM;
	}
	kmem_cache_free(c, obj);
	local_irq_save(flags);
	model_windows++;
	asm volatile(SLABCOST_BEGIN_ASM ::: "memory");
	for (i = 0; i < CAL_CALLS; i++) {
		obj = kmem_cache_alloc(c, GFP_ATOMIC);
		if (!obj)
			break;
		kmem_cache_free(c, obj);
	}
	asm volatile(SLABCOST_END_ASM ::: "memory");
	local_irq_restore(flags);
	kmem_cache_destroy(c);
	if (i < CAL_CALLS) {
		pr_err("slab_bench: error: modelcal calls: allocation %u of %u failed\n",
		       i + 1, CAL_CALLS);
		return -ENOMEM;
	}
	modelcal_print("calls", "call:kmem_cache_alloc=%u call:kmem_cache_free=%u",
		       CAL_CALLS, CAL_CALLS);
	return 0;
}

static int bench_modelcal(void)
{
	static u64 pair[2] __aligned(16);
	struct page *pages, *evict[CAL_EVICT] = { };
	unsigned long flags;
	int i, ret = -ENOMEM;

	/* Windows nobody counts would leave the report's checks nothing. */
	if (!model) {
		pr_err("slab_bench: error: cases=modelcal needs model=1\n");
		return -EINVAL;
	}
	pages = alloc_pages(GFP_KERNEL, CAL_ORDER);
	for (i = 0; i < CAL_EVICT; i++)
		evict[i] = alloc_pages(GFP_KERNEL, CAL_ORDER);
	if (!pages || !evict[CAL_EVICT - 1]) {
		pr_err("slab_bench: error: modelcal: no order-%d blocks\n", CAL_ORDER);
		goto out;
	}
	local_irq_save(flags);
	modelcal_lines(page_address(pages), evict);
	local_irq_restore(flags);
	local_irq_save(flags);
	modelcal_events(pair);
	modelcal_vmemmap(pages);
	local_irq_restore(flags);
	ret = modelcal_calls();
out:
	for (i = 0; i < CAL_EVICT; i++)
		if (evict[i])
			__free_pages(evict[i], CAL_ORDER);
	if (pages)
		__free_pages(pages, CAL_ORDER);
	return ret;
}

/* ---- Driver ---- */

static bool bench_want(const char *name)
{
	const char *p = cases;
	size_t len = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == cases || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

static int __init slab_bench_init(void)
{
	void **objs;
	int ret = 0;

	bench_icount = !strcmp(mode, "icount");
	pr_info("slab_bench: start mode=%s cases=%s quick=%d reps=%u cpus=%u\n",
		mode, cases, quick, bench_reps(), num_online_cpus());
	bench_calibrate();

	objs = vmalloc(ALLOCN_MAX * sizeof(void *));
	if (!objs)
		return -ENOMEM;
	if (!ret && bench_want("fast"))
		ret = bench_fast(false);
	if (!ret && bench_want("kmalloc"))
		ret = bench_fast(true);
	if (!ret && bench_want("allocn"))
		ret = bench_allocn(objs);
	if (!ret && bench_want("bulk"))
		ret = bench_bulk(objs, false);
	if (!ret && bench_want("bulkm"))
		ret = bench_bulk(objs, true);
	if (!ret && bench_want("many"))
		ret = bench_many(objs);
	if (!ret && bench_want("remote"))
		ret = bench_remote();
	if (!ret && bench_want("mt"))
		ret = bench_mt();
	vfree(objs);
	if (!ret && bench_want("frag"))
		ret = bench_frag();
	/* Last, with the simulated caches warm from everything before. */
	if (!ret && bench_want("modelcal"))
		ret = bench_modelcal();
	pr_info("slab_bench: end ret=%d\n", ret);
	return ret;
}

static void __exit slab_bench_exit(void)
{
	bench_frag_free();
}

module_init(slab_bench_init);
module_exit(slab_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab allocator benchmark of the slab harness (make bench)");
