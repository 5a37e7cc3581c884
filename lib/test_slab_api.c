// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the public slab allocator API.
 *
 * It uses nothing but what include/linux/slab.h exports, so the same source
 * can be built against any slab allocator implementation and its results
 * compared.  The phase to run is chosen with the "phase" module parameter:
 *
 *   basic   caches of many sizes, alignments and flags, constructors,
 *           SLAB_TYPESAFE_BY_RCU, alloc/free orders, kmalloc size classes
 *   bulk    kmem_cache_alloc_bulk()/kmem_cache_free_bulk() and kfree_bulk()
 *   stress  concurrent allocation and (cross-CPU) freeing from one thread
 *           per online CPU plus a thread creating and destroying caches;
 *           with hold=N, N objects stay allocated in "test_slab_api_stress"
 *           until the module is removed; with inject=1 the threads ask
 *           for fault injection (failslab) in the middle third of the run
 *   debug   provoke the reports of a SLUB debug cache (sanity checks, red
 *           zones, poison, user tracking): a red zone overwrite caught on
 *           free, a write after free caught by validate_slab_cache(), a
 *           double free.  Only for kernels with CONFIG_SLUB_DEBUG, whose
 *           checks contain each case; the kselftest reads the reports
 *           from the kernel log
 *   badinput one misuse of the API, named by case=, on any allocator:
 *           the harness runs each in a boot of its own (several crash
 *           upstream SLUB) and compares what the kernels report and
 *           whether they survive (harness/badinput.sh)
 *   names   caches of every kind destroyed and created again at once
 *           under one name, checking their /sys/kernel/slab entries
 *   numa    run under a memory policy or in a cpuset (numa_mode=,
 *           numa_nodes=): the slabs of a new cache must follow it
 *   leak    leak objects that were freed and allocated again, for
 *           kmemleak to find: their addresses go to the kernel log, and
 *           they are freed when the module is removed
 *   park    allocate and free objects of a cache nobody else uses, so
 *           that the allocator's per-cpu caches hold them until the
 *           module is removed or something empties them
 *   objext  hold objects allocated from known call sites, for the
 *           kselftest to find in /proc/allocinfo (allocation profiling)
 *           and in the memory.stat of the task's memcg: count= objects
 *           of an accounted cache one at a time (objext_one()) and as
 *           many in one kmem_cache_alloc_bulk() (objext_bulk()), count=
 *           kmalloc(128) (objext_kmalloc()) and one large kmalloc
 *           (objext_large()); writing 1 to the objext_release
 *           parameter frees them all
 *
 * module_init() returns 0 when every check of the phase passed, -EINVAL when
 * a check failed and -ENOMEM when memory could not be allocated.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/nodemask.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

/*
 * Flags of a cache that must not merge with another: SLAB_NO_MERGE
 * where the kernel has it (6.5 on), and a usercopy region as well, which
 * keeps a cache apart before 6.5 and, later, with HARDENED_USERCOPY.
 */
#ifdef SLAB_NO_MERGE
#define TSA_APART	SLAB_NO_MERGE
#else
#define TSA_APART	0
#endif /* SLAB_NO_MERGE */

static char *phase = "basic";
module_param(phase, charp, 0444);
MODULE_PARM_DESC(phase, "test phase to run: basic, bulk, stress, debug, badinput, names, numa, leak, park or objext (default basic)");

static unsigned int seconds = 10;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "stress: minimum run time in seconds (default 10)");

static unsigned long ops = 1000000;
module_param(ops, ulong, 0444);
MODULE_PARM_DESC(ops, "stress: minimum number of operations (default 1000000)");

static unsigned int max_seconds;
module_param(max_seconds, uint, 0444);
MODULE_PARM_DESC(max_seconds, "stress: stop after this many seconds even if ops is not reached (default 3 * seconds + 30)");

static unsigned int hold;
module_param(hold, uint, 0444);
MODULE_PARM_DESC(hold, "stress: objects of test_slab_api_stress kept allocated until rmmod (default 0)");

static bool inject;
module_param(inject, bool, 0444);
MODULE_PARM_DESC(inject, "stress: the stress threads ask for fault injection (make-it-fail) during the middle third of the run; failslab, configured with task-filter, then fails some of their allocations, which must come back NULL and leak nothing (default off)");

static char *badcase = "";
module_param_named(case, badcase, charp, 0444);
MODULE_PARM_DESC(case, "badinput: the misuse to commit");

static char *numa_mode = "bind";
module_param(numa_mode, charp, 0444);
MODULE_PARM_DESC(numa_mode, "numa: the memory policy modprobe runs under, bind or interleave (or a label: cpuset)");

static char *numa_nodes = "0";
module_param(numa_nodes, charp, 0444);
MODULE_PARM_DESC(numa_nodes, "numa: the nodes of that policy, a node list");

static bool irq;
module_param(irq, bool, 0444);
MODULE_PARM_DESC(irq, "stress: also allocate and free from hardirq and softirq context");

static unsigned long seed = 0x5eed51abUL;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the pseudo random generators");

/* Failures printed in full; later ones are only counted. */
#define TSA_MAX_REPORTS		32

static atomic_long_t checks_passed;
static atomic_long_t checks_failed;
static atomic_t reports;

static __printf(1, 2) void tsa_fail(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_long_inc(&checks_failed);
	if (atomic_inc_return(&reports) > TSA_MAX_REPORTS)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("FAIL: %pV\n", &vaf);
	va_end(args);
}

/* Count one check; print what failed when @cond is false. */
#define CHECK(cond, fmt, ...)						\
({									\
	bool __ok = !!(cond);						\
	if (__ok)							\
		atomic_long_inc(&checks_passed);			\
	else								\
		tsa_fail("%s:%d: " fmt, __func__, __LINE__, ##__VA_ARGS__); \
	__ok;								\
})

/* Byte pattern of object @idx of a test: never 0 so that zeroing is seen. */
static u8 pattern_of(unsigned long idx, unsigned int salt)
{
	return (u8)((idx * 151 + salt * 31 + 0x5a) % 255) + 1;
}

static bool check_fill(const void *p, u8 c, size_t size, const char *what,
		       unsigned int objsize, unsigned long idx)
{
	const u8 *bad = memchr_inv(p, c, size);

	return CHECK(!bad, "%s size %u object %lu: byte %td is %#x, expected %#x",
		     what, objsize, idx, bad - (const u8 *)p, bad ? *bad : 0, c);
}

/* ------------------------------------------------------------------ */
/* phase=basic                                                          */
/* ------------------------------------------------------------------ */

#define CTOR_MAGIC	0xc7042b17c7042b17ULL
#define RCU_MAGIC	0x7e5afe5a7e5afe5aULL

static atomic_long_t ctor_calls;

/* Constructs the first word only: the smallest cache has 8 byte objects. */
static void basic_ctor(void *obj)
{
	*(u64 *)obj = CTOR_MAGIC;
	atomic_long_inc(&ctor_calls);
}

static const unsigned int basic_sizes[] = {
	8, 16, 24, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
	17, 100, 1000,
};

struct basic_align {
	unsigned int align;
	slab_flags_t flags;
	const char *name;
};

static const struct basic_align basic_aligns[] = {
	{ 0, 0, "default" },
	{ 8, 0, "8" },
	{ 64, 0, "64" },
	{ 0, SLAB_HWCACHE_ALIGN, "hwcache" },
	{ 256, 0, "256" },
};

struct basic_cache {
	struct kmem_cache *s;
	unsigned int size;
	unsigned int align;	/* alignment every object must have */
	bool ctor;
	char what[48];
	void **objs;
	unsigned int nr_objs;	/* capacity of objs */
	struct rnd_state rnd;
};

/* The alignment kmem_cache_create() documents for the given arguments. */
static unsigned int expected_align(unsigned int size, unsigned int align,
				   slab_flags_t flags)
{
	unsigned int a = align;

	if (flags & SLAB_HWCACHE_ALIGN) {
		unsigned int line = cache_line_size();

		while (size <= line / 2)
			line /= 2;
		a = max(a, line);
	}
	return max_t(unsigned int, a, sizeof(void *));
}

/* Allocate object @idx of @bc and fill it; NULL on allocation failure. */
static void *basic_alloc(struct basic_cache *bc, unsigned long idx)
{
	void *p = kmem_cache_alloc(bc->s, GFP_KERNEL);

	if (!CHECK(p, "%s: kmem_cache_alloc returned NULL", bc->what))
		return NULL;
	CHECK(IS_ALIGNED((unsigned long)p, bc->align),
	      "%s: object %p not aligned to %u", bc->what, p, bc->align);
	CHECK(ksize(p) >= bc->size, "%s: ksize %zu < size %u",
	      bc->what, ksize(p), bc->size);
	if (bc->ctor)
		CHECK(*(u64 *)p == CTOR_MAGIC,
		      "%s: object %p not constructed (first word %#llx)",
		      bc->what, p, *(u64 *)p);
	memset(p, pattern_of(idx, bc->size), bc->size);
	return p;
}

/* Verify object @idx of @bc, restore its constructed state and free it. */
static void basic_free(struct basic_cache *bc, void *p, unsigned long idx)
{
	check_fill(p, pattern_of(idx, bc->size), bc->size, bc->what,
		   bc->size, idx);
	if (bc->ctor)
		*(u64 *)p = CTOR_MAGIC;
	kmem_cache_free(bc->s, p);
}

static void basic_verify_all(struct basic_cache *bc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (bc->objs[i])
			check_fill(bc->objs[i], pattern_of(i, bc->size),
				   bc->size, bc->what, bc->size, i);
}

static int basic_lifo_fifo(struct basic_cache *bc, unsigned int n, bool lifo)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		bc->objs[i] = basic_alloc(bc, i);
		if (!bc->objs[i]) {
			ret = -ENOMEM;
			break;
		}
	}
	n = i;
	/* Every object filled: a write past any of them shows up here. */
	basic_verify_all(bc, n);
	for (i = 0; i < n; i++) {
		unsigned int j = lifo ? n - 1 - i : i;

		basic_free(bc, bc->objs[j], j);
		bc->objs[j] = NULL;
	}
	return ret;
}

/* Random interleaving of allocations and frees over the slots of objs. */
static int basic_random(struct basic_cache *bc, unsigned int slots,
			unsigned int steps)
{
	unsigned int i;
	int ret = 0;

	memset(bc->objs, 0, slots * sizeof(void *));
	for (i = 0; i < steps; i++) {
		unsigned int j = prandom_u32_state(&bc->rnd) % slots;

		if (bc->objs[j]) {
			basic_free(bc, bc->objs[j], j);
			bc->objs[j] = NULL;
		} else {
			bc->objs[j] = basic_alloc(bc, j);
			if (!bc->objs[j]) {
				ret = -ENOMEM;
				break;
			}
		}
	}
	basic_verify_all(bc, slots);
	for (i = 0; i < slots; i++) {
		if (bc->objs[i])
			basic_free(bc, bc->objs[i], i);
		bc->objs[i] = NULL;
	}
	return ret;
}

static int basic_one_cache(unsigned int size, const struct basic_align *ba,
			   bool ctor, void **objs, unsigned int nr_objs)
{
	struct basic_cache bc = {
		.size = size,
		.ctor = ctor,
		.objs = objs,
		.nr_objs = nr_objs,
	};
	unsigned int n;
	long calls;
	int ret;

	snprintf(bc.what, sizeof(bc.what), "cache size %u align %s%s",
		 size, ba->name, ctor ? " ctor" : "");
	bc.align = expected_align(size, ba->align, ba->flags);
	prandom_seed_state(&bc.rnd, seed ^ size ^ ((u64)ba->align << 32));

	calls = atomic_long_read(&ctor_calls);
	bc.s = kmem_cache_create("test_slab_api_basic", size, ba->align,
				 ba->flags, ctor ? basic_ctor : NULL);
	if (!CHECK(bc.s, "%s: kmem_cache_create failed", bc.what))
		return -ENOMEM;
	CHECK(kmem_cache_size(bc.s) >= size, "%s: kmem_cache_size %u < %u",
	      bc.what, kmem_cache_size(bc.s), size);

	/* Fewer objects of the larger sizes: about 1 MiB per pattern. */
	n = clamp_t(unsigned int, SZ_1M / size, 64, nr_objs);
	ret = basic_lifo_fifo(&bc, n, true);
	if (!ret)
		ret = basic_lifo_fifo(&bc, n, false);
	if (!ret)
		ret = basic_random(&bc, min(n, 512U), 4 * min(n, 512U));
	if (!ret) {
		/* Alloc-all-then-free: a few thousand objects at once. */
		n = clamp_t(unsigned int, SZ_4M / size, 256, nr_objs);
		ret = basic_lifo_fifo(&bc, n, false);
	}
	if (ctor)
		CHECK(atomic_long_read(&ctor_calls) > calls,
		      "%s: constructor never called", bc.what);
	/* Merged caches keep other users' slabs: the result may be 1. */
	kmem_cache_shrink(bc.s);

	/* kmem_cache_zalloc() returns zeroed objects in ctor-less caches. */
	if (!ret && !ctor) {
		void *p = kmem_cache_zalloc(bc.s, GFP_KERNEL);

		if (CHECK(p, "%s: kmem_cache_zalloc failed", bc.what)) {
			check_fill(p, 0, size, "kmem_cache_zalloc", size, 0);
			kmem_cache_free(bc.s, p);
		} else {
			ret = -ENOMEM;
		}
	}
	kmem_cache_destroy(bc.s);
	return ret;
}

struct rcu_obj {
	unsigned long pad[2];
	u64 type;
	unsigned long payload[5];
};

static void rcu_obj_ctor(void *obj)
{
	struct rcu_obj *o = obj;

	o->type = RCU_MAGIC;
}

/*
 * SLAB_TYPESAFE_BY_RCU: a freed object may be reused, but only for an object
 * of the same type, and its memory stays valid until a grace period has
 * passed.  So fields that users keep in their constructed state can be read
 * under rcu_read_lock() after kmem_cache_free().
 */
static int basic_rcu(void **objs, unsigned int nr)
{
	struct kmem_cache *s;
	struct rcu_obj *o;
	unsigned int i, n = nr;
	int ret = 0;

	s = kmem_cache_create("test_slab_api_rcu", sizeof(struct rcu_obj), 0,
			      SLAB_TYPESAFE_BY_RCU, rcu_obj_ctor);
	if (!CHECK(s, "kmem_cache_create(SLAB_TYPESAFE_BY_RCU) failed"))
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		o = kmem_cache_alloc(s, GFP_KERNEL);
		if (!CHECK(o, "rcu cache: allocation %u failed", i)) {
			ret = -ENOMEM;
			break;
		}
		CHECK(o->type == RCU_MAGIC, "rcu cache: object %p not constructed",
		      o);
		memset(o->payload, 0xa5, sizeof(o->payload));
		objs[i] = o;
	}
	n = i;

	/* Free them all inside one read-side section, then read them back. */
	rcu_read_lock();
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	for (i = 0; i < n; i++) {
		o = objs[i];
		CHECK(READ_ONCE(o->type) == RCU_MAGIC,
		      "rcu cache: freed object %p type %#llx under rcu_read_lock",
		      o, READ_ONCE(o->type));
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)
		objs[i] = NULL;

	/* Alloc, free and read back one at a time. */
	for (i = 0; i < 64 && !ret; i++) {
		o = kmem_cache_alloc(s, GFP_KERNEL);
		if (!CHECK(o, "rcu cache: allocation failed")) {
			ret = -ENOMEM;
			break;
		}
		rcu_read_lock();
		kmem_cache_free(s, o);
		CHECK(READ_ONCE(o->type) == RCU_MAGIC,
		      "rcu cache: freed object %p lost its type", o);
		rcu_read_unlock();
	}
	/* kmem_cache_destroy() waits for the pending RCU frees itself. */
	kmem_cache_destroy(s);
	return ret;
}

static int basic_kmalloc_size(size_t size, unsigned int nr, void **objs)
{
	unsigned int i, n;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		void *p = kmalloc(size, GFP_KERNEL);

		if (!CHECK(p, "kmalloc(%zu) failed", size)) {
			ret = -ENOMEM;
			break;
		}
		objs[i] = p;
		CHECK(ksize(p) >= size, "kmalloc(%zu): ksize %zu", size, ksize(p));
		CHECK(IS_ALIGNED((unsigned long)p, ARCH_KMALLOC_MINALIGN),
		      "kmalloc(%zu) = %p not aligned to ARCH_KMALLOC_MINALIGN",
		      size, p);
		/* Power of two sizes are aligned to their size. */
		if (is_power_of_2(size))
			CHECK(IS_ALIGNED((unsigned long)p, size),
			      "kmalloc(%zu) = %p not naturally aligned", size, p);
		memset(p, pattern_of(i, size), size);
	}
	n = i;
	for (i = 0; i < n; i++) {
		check_fill(objs[i], pattern_of(i, size), size, "kmalloc", size, i);
		kfree(objs[i]);
		objs[i] = NULL;
	}
	if (ret)
		return ret;

	/* kzalloc() zeroes the whole requested size. */
	objs[0] = kzalloc(size, GFP_KERNEL);
	if (!CHECK(objs[0], "kzalloc(%zu) failed", size))
		return -ENOMEM;
	check_fill(objs[0], 0, size, "kzalloc", size, 0);
	kfree(objs[0]);
	objs[0] = NULL;
	return 0;
}

static int basic_kmalloc(void **objs, unsigned int nr)
{
	unsigned int shift;
	size_t size;
	void *p;
	int ret;

	/* kmalloc(0) is ZERO_SIZE_PTR, which kfree() and ksize() accept. */
	p = kmalloc(0, GFP_KERNEL);
	CHECK(p == ZERO_SIZE_PTR, "kmalloc(0) returned %p, not ZERO_SIZE_PTR", p);
	if (p == ZERO_SIZE_PTR)
		CHECK(ksize(p) == 0, "ksize(ZERO_SIZE_PTR) = %zu", ksize(p));
	kfree(p);
	kfree(NULL);
	CHECK(!kmalloc_array(SIZE_MAX / 2, 4, GFP_KERNEL | __GFP_NOWARN),
	      "kmalloc_array() with an overflowing size succeeded");

	/* Every size class, its neighbours and the odd classes 96 and 192. */
	for (shift = 3; shift <= KMALLOC_SHIFT_HIGH; shift++) {
		size_t sizes[] = { (1UL << shift) - 1, 1UL << shift,
				   (1UL << shift) + 1, 3UL << (shift - 2) };
		unsigned int i, n;

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			size = sizes[i];
			if (size > KMALLOC_MAX_CACHE_SIZE)
				continue;
			n = clamp_t(unsigned int, SZ_256K / size, 1, min(nr, 64U));
			ret = basic_kmalloc_size(size, n, objs);
			if (ret)
				return ret;
		}
	}

	/* Beyond KMALLOC_MAX_CACHE_SIZE kmalloc() takes pages directly. */
	for (size = KMALLOC_MAX_CACHE_SIZE + 1; size <= KMALLOC_MAX_SIZE &&
	     size <= 8 * KMALLOC_MAX_CACHE_SIZE + 1; size = size * 2 - 1) {
		ret = basic_kmalloc_size(size, 4, objs);
		if (ret)
			return ret;
		p = kmalloc(size, GFP_KERNEL);
		if (!CHECK(p, "kmalloc(%zu) failed", size))
			return -ENOMEM;
		CHECK(IS_ALIGNED((unsigned long)p, PAGE_SIZE),
		      "large kmalloc(%zu) = %p not page aligned", size, p);
		kfree(p);
	}
	return 0;
}

#define BASIC_MAX_OBJS	4096

static int run_basic(void)
{
	unsigned int i, j;
	void **objs;
	int ret = 0;

	objs = vzalloc(BASIC_MAX_OBJS * sizeof(void *));
	if (!objs)
		return -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(basic_sizes) && !ret; i++) {
		for (j = 0; j < ARRAY_SIZE(basic_aligns) && !ret; j++) {
			ret = basic_one_cache(basic_sizes[i], &basic_aligns[j],
					      false, objs, BASIC_MAX_OBJS);
			if (!ret)
				ret = basic_one_cache(basic_sizes[i],
						      &basic_aligns[j], true,
						      objs, BASIC_MAX_OBJS);
		}
	}
	if (!ret)
		ret = basic_rcu(objs, 2048);
	if (!ret)
		ret = basic_kmalloc(objs, BASIC_MAX_OBJS);
	vfree(objs);
	return ret;
}

/* ------------------------------------------------------------------ */
/* phase=bulk                                                           */
/* ------------------------------------------------------------------ */

#define BULK_MAX	256
#define BULK_MIXED	2048

static int cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Check that @n objects of at least @size bytes are non-NULL and pairwise
 * disjoint; @scratch receives a sorted copy of @objs.
 */
static void bulk_check_disjoint(void **objs, void **scratch, unsigned int n,
				unsigned int size, const char *what)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CHECK(objs[i], "%s: object %u of %u is NULL", what, i, n);
	memcpy(scratch, objs, n * sizeof(void *));
	sort(scratch, n, sizeof(void *), cmp_ptr, NULL);
	for (i = 1; i < n; i++)
		CHECK((unsigned long)scratch[i] - (unsigned long)scratch[i - 1] >= size,
		      "%s: objects %p and %p overlap (size %u)", what,
		      scratch[i - 1], scratch[i], size);
}

static void bulk_fill_verify(void **objs, unsigned int n, unsigned int size,
			     unsigned int salt, const char *what)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		memset(objs[i], pattern_of(i, salt), size);
	for (i = 0; i < n; i++)
		check_fill(objs[i], pattern_of(i, salt), size, what, size, i);
}

static const unsigned int bulk_extra_counts[] = { 96, 128, 158, 200, 250, 256 };
static const unsigned int bulk_obj_sizes[] = { 8, 64, 192, 200, 1000, 4096 };

static int bulk_counts(struct kmem_cache *s, unsigned int size, void **objs,
		       void **scratch, const char *what)
{
	unsigned int k, n;
	int got;

	for (k = 0; k < 64 + ARRAY_SIZE(bulk_extra_counts); k++) {
		n = k < 64 ? k + 1 : bulk_extra_counts[k - 64];
		memset(objs, 0, n * sizeof(void *));
		got = kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs);
		/* All or nothing. */
		if (!CHECK(got == n || got == 0,
			   "%s: alloc_bulk(%u) returned %d", what, n, got)) {
			/* Free what the allocator claims to have given us. */
			if (got > 0 && got < n)
				kmem_cache_free_bulk(s, got, objs);
			return -EINVAL;
		}
		if (!CHECK(got, "%s: alloc_bulk(%u) allocated nothing", what, n))
			return -ENOMEM;
		bulk_check_disjoint(objs, scratch, n, size, what);
		bulk_fill_verify(objs, n, size, n, what);
		kmem_cache_free_bulk(s, n, objs);
	}
	return 0;
}

/* Objects from many slabs, allocated singly and in bulk, freed in bulk. */
static int bulk_mixed(struct kmem_cache *s, unsigned int size, void **objs,
		      void **scratch, struct rnd_state *rnd, const char *what)
{
	unsigned int i = 0, n, done;
	int ret = 0;

	while (i < BULK_MIXED) {
		n = min(1 + prandom_u32_state(rnd) % 64, BULK_MIXED - i);
		if (prandom_u32_state(rnd) & 1) {
			if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs + i)) {
				ret = -ENOMEM;
				break;
			}
			i += n;
		} else {
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
			if (!objs[i]) {
				ret = -ENOMEM;
				break;
			}
			i++;
		}
	}
	n = i;
	CHECK(!ret, "%s: allocation for mixed bulk free failed", what);
	if (n) {
		bulk_check_disjoint(objs, scratch, n, size, what);
		bulk_fill_verify(objs, n, size, 7, what);
	}
	/* Shuffle so that every bulk free spans many slabs. */
	for (i = n; i > 1; i--) {
		unsigned int j = prandom_u32_state(rnd) % i;

		swap(objs[i - 1], objs[j]);
	}
	for (done = 0; done < n; done += i) {
		i = min(1 + prandom_u32_state(rnd) % BULK_MAX, n - done);
		kmem_cache_free_bulk(s, i, objs + done);
	}
	return ret;
}

static int bulk_kfree(void **objs, void **scratch, struct rnd_state *rnd)
{
	unsigned int i, n, round;
	size_t size;
	int ret = 0;

	for (round = 0; round < 16 && !ret; round++) {
		n = 1 + prandom_u32_state(rnd) % BULK_MAX;
		for (i = 0; i < n; i++) {
			size = 8 + prandom_u32_state(rnd) %
			       min_t(size_t, KMALLOC_MAX_CACHE_SIZE, 8192);
			objs[i] = kmalloc(size, GFP_KERNEL);
			if (!CHECK(objs[i], "kmalloc(%zu) for kfree_bulk failed", size)) {
				ret = -ENOMEM;
				break;
			}
			memset(objs[i], pattern_of(i, round), 8);
		}
		n = i;
		for (i = 0; i < n; i++)
			check_fill(objs[i], pattern_of(i, round), 8, "kfree_bulk",
				   8, i);
		if (n)
			bulk_check_disjoint(objs, scratch, n, 8, "kfree_bulk");
		kfree_bulk(n, objs);
	}
	return ret;
}

static int run_bulk(void)
{
	struct rnd_state rnd;
	void **objs, **scratch;
	unsigned int i;
	int ret = 0;

	prandom_seed_state(&rnd, seed);
	objs = vzalloc(BULK_MIXED * sizeof(void *));
	scratch = vzalloc(BULK_MIXED * sizeof(void *));
	if (!objs || !scratch) {
		ret = -ENOMEM;
		goto out;
	}

	for (i = 0; i < 2 * ARRAY_SIZE(bulk_obj_sizes) && !ret; i++) {
		unsigned int size = bulk_obj_sizes[i / 2];
		bool ctor = i & 1;
		struct kmem_cache *s;
		char what[48];

		snprintf(what, sizeof(what), "bulk cache size %u%s", size,
			 ctor ? " ctor" : "");
		s = kmem_cache_create("test_slab_api_bulk", size, 0, 0,
				      ctor ? basic_ctor : NULL);
		if (!CHECK(s, "%s: kmem_cache_create failed", what)) {
			ret = -ENOMEM;
			break;
		}
		ret = bulk_counts(s, size, objs, scratch, what);
		if (!ret)
			ret = bulk_mixed(s, size, objs, scratch, &rnd, what);
		kmem_cache_destroy(s);
	}
	if (!ret)
		ret = bulk_kfree(objs, scratch, &rnd);
out:
	vfree(scratch);
	vfree(objs);
	return ret;
}

/* ------------------------------------------------------------------ */
/* phase=stress                                                         */
/* ------------------------------------------------------------------ */

/*
 * Every object handed out by the stress test carries a tag.  The allocator
 * may keep its free pointer in a free object, at offset 0 or elsewhere, so
 * the tag starts two words in and a LIVE tag needs two matching words: a
 * free pointer over one of them cannot make a free object look LIVE.
 */
#define TAG_LIVE	0x4c4956456c697665ULL
#define TAG_FREE	0x465245456672ee65ULL
#define TAG_CHECK	0x9e3779b97f4a7c15ULL

enum { KIND_STRESS, KIND_NOCTOR, KIND_KMALLOC, NR_KINDS };

struct stress_tag {
	unsigned long pad[2];	/* where a free pointer may go */
	u64 magic;
	u32 owner;		/* thread that allocated the object */
	u32 kind;
	u64 seq;		/* owner's allocation sequence number */
	u32 size;		/* bytes in use */
	u32 cpu;		/* CPU that allocated it */
	u64 check;		/* hash of the fields above and the address */
	struct llist_node node;	/* while handed to another thread */
};

#define STRESS_SIZE	200	/* odd size, with a ctor: never merged */
#define NOCTOR_SIZE	136
#define POOL_SIZE	128
#define BULK_STRESS	32
#define PAYLOAD_CHECK	256

struct stress_obj {
	struct stress_tag *tag;
	u64 seq;
};

struct stress_thread {
	unsigned int id;
	struct task_struct *task;
	struct completion done;
	struct llist_head inbox;
	struct rnd_state rnd;
	u64 seq;
	unsigned int nr_pool;
	struct stress_obj pool[POOL_SIZE];
	void *bulk[BULK_STRESS];
	/* Counters: written by the thread only, read by the controller. */
	unsigned long allocs, frees, sent, received, xcpu_frees, bulk_ops;
	unsigned long double_handouts, corruptions, alloc_failures;
	unsigned long checks;
};

static struct kmem_cache *stress_cache;
static struct kmem_cache *noctor_cache;
static struct stress_thread *threads;
static unsigned int nr_threads;
static bool stress_stop;
static bool stress_inject_now;	/* the middle third of an inject=1 run */
static atomic_t senders_done;
static void **held;
static unsigned int nr_held;

/* Cache churn thread state. */
static struct task_struct *churn_task;
static struct completion churn_done;
static unsigned long caches_created, churn_objs;

static void stress_ctor(void *obj)
{
	struct stress_tag *t = obj;

	memset(t, 0, sizeof(*t));
	t->magic = TAG_FREE;
}

static u64 tag_hash(const struct stress_tag *t)
{
	u64 h = TAG_CHECK ^ (unsigned long)t;

	h = (h ^ t->magic) * TAG_CHECK;
	h = (h ^ ((u64)t->owner << 32 | t->kind)) * TAG_CHECK;
	h = (h ^ t->seq) * TAG_CHECK;
	h = (h ^ ((u64)t->size << 32 | t->cpu)) * TAG_CHECK;
	return h ^ (h >> 29);
}

static void stress_bad(struct stress_thread *th, unsigned long *counter,
		       const struct stress_tag *t, const char *what)
{
	(*counter)++;
	tsa_fail("thread %u: %s: object %p magic %#llx owner %u kind %u seq %llu size %u cpu %u",
		 th->id, what, t, t->magic, t->owner, t->kind, t->seq,
		 t->size, t->cpu);
}

/*
 * Does @t hold the tag of an object that a thread of this run owns?  The
 * magic alone is not enough: an object without a ctor starts with whatever
 * the page held before, and that may be an earlier load of this module's
 * text, where the magic stands as the immediate of a movabs.  A tag that
 * stress_tag_new() wrote has a valid hash, or is being written (the owner
 * and kind are stored before the hash).
 */
static bool stress_tag_is_live(const struct stress_tag *t)
{
	if (READ_ONCE(t->magic) != TAG_LIVE)
		return false;
	return t->check == tag_hash(t) ||
	       (t->owner < nr_threads && t->kind < NR_KINDS);
}

/* A fresh object: it must not be LIVE; ctor objects must still be FREE. */
static void stress_tag_new(struct stress_thread *th, struct stress_tag *t,
			   unsigned int kind, unsigned int size)
{
	const size_t payload = min_t(size_t, size, PAYLOAD_CHECK) - sizeof(*t);

	th->allocs++;
	th->checks++;
	if (stress_tag_is_live(t))
		stress_bad(th, &th->double_handouts, t, "handed out while LIVE");
	else if (kind == KIND_STRESS && t->magic != TAG_FREE)
		stress_bad(th, &th->corruptions, t, "constructed free object changed");

	t->magic = TAG_LIVE;
	t->owner = th->id;
	t->kind = kind;
	t->seq = ++th->seq;
	t->size = size;
	t->cpu = raw_smp_processor_id();
	t->check = tag_hash(t);
	/* Fill the first bytes after the tag and the last word. */
	memset(t + 1, (u8)t->seq | 1, payload);
	if (size >= sizeof(*t) + sizeof(u64))
		memset((u8 *)t + size - sizeof(u64), (u8)t->seq | 1, sizeof(u64));
}

/* Verify a LIVE tag (owner/seq when known), mark it FREE. */
static void stress_tag_free(struct stress_thread *th, struct stress_tag *t,
			    int owner, u64 seq)
{
	const size_t payload = min_t(size_t, t->size, PAYLOAD_CHECK) - sizeof(*t);
	u8 c = (u8)t->seq | 1;

	th->checks++;
	if (t->magic != TAG_LIVE || t->check != tag_hash(t) ||
	    (owner >= 0 && (t->owner != owner || t->seq != seq)) ||
	    t->owner >= nr_threads || t->kind >= NR_KINDS) {
		stress_bad(th, &th->corruptions, t, "LIVE tag corrupted");
	} else if (memchr_inv(t + 1, c, payload) ||
		   (t->size >= sizeof(*t) + sizeof(u64) &&
		    memchr_inv((u8 *)t + t->size - sizeof(u64), c, sizeof(u64)))) {
		stress_bad(th, &th->corruptions, t, "payload corrupted");
	}
	if (t->cpu != raw_smp_processor_id())
		th->xcpu_frees++;
	memset(&t->magic, 0xee, sizeof(*t) - offsetof(struct stress_tag, magic));
	t->magic = TAG_FREE;
	th->frees++;
}

static void stress_release(struct stress_tag *t)
{
	switch (t->kind) {
	case KIND_STRESS:
		kmem_cache_free(stress_cache, t);
		break;
	case KIND_NOCTOR:
		kmem_cache_free(noctor_cache, t);
		break;
	default:
		kfree(t);
		break;
	}
}

static struct stress_tag *stress_alloc(struct stress_thread *th)
{
	unsigned int kind = prandom_u32_state(&th->rnd) % NR_KINDS;
	unsigned int size;
	struct stress_tag *t;

	switch (kind) {
	case KIND_STRESS:
		size = STRESS_SIZE;
		t = kmem_cache_alloc(stress_cache, GFP_KERNEL);
		break;
	case KIND_NOCTOR:
		size = NOCTOR_SIZE;
		t = kmem_cache_alloc(noctor_cache, GFP_KERNEL);
		break;
	default: {
		/* A random size in a random class from 64 bytes to 8 KiB. */
		unsigned int shift = 6 + prandom_u32_state(&th->rnd) % 8;

		size = 1U << shift;
		if (size > KMALLOC_MAX_CACHE_SIZE)
			size = KMALLOC_MAX_CACHE_SIZE;
		size -= prandom_u32_state(&th->rnd) % (size / 4);
		size = max_t(unsigned int, size, 64);
		t = kmalloc(size, GFP_KERNEL);
		break;
	}
	}
	if (!t) {
		th->alloc_failures++;
		return NULL;
	}
	stress_tag_new(th, t, kind, size);
	return t;
}

static void stress_free_pool_slot(struct stress_thread *th, unsigned int i)
{
	struct stress_obj *o = &th->pool[i];

	stress_tag_free(th, o->tag, th->id, o->seq);
	stress_release(o->tag);
	*o = th->pool[--th->nr_pool];
}

static void stress_drain_inbox(struct stress_thread *th)
{
	struct llist_node *list = llist_del_all(&th->inbox);
	struct stress_tag *t, *next;

	llist_for_each_entry_safe(t, next, list, node) {
		th->received++;
		stress_tag_free(th, t, -1, 0);
		stress_release(t);
	}
}

/* Hand a pool object to another thread, which verifies and frees it. */
static void stress_send(struct stress_thread *th, unsigned int i)
{
	unsigned int to = th->id;
	struct stress_tag *t = th->pool[i].tag;

	if (nr_threads > 1)
		to = (th->id + 1 + prandom_u32_state(&th->rnd) % (nr_threads - 1)) %
		     nr_threads;
	th->pool[i] = th->pool[--th->nr_pool];
	llist_add(&t->node, &threads[to].inbox);
	th->sent++;
}

static void stress_bulk(struct stress_thread *th)
{
	bool ctor = prandom_u32_state(&th->rnd) & 1;
	struct kmem_cache *s = ctor ? stress_cache : noctor_cache;
	unsigned int size = ctor ? STRESS_SIZE : NOCTOR_SIZE;
	unsigned int n = 1 + prandom_u32_state(&th->rnd) % BULK_STRESS;
	unsigned int i;

	if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, n, th->bulk)) {
		th->alloc_failures++;
		return;
	}
	th->bulk_ops++;
	for (i = 0; i < n; i++)
		stress_tag_new(th, th->bulk[i], ctor ? KIND_STRESS : KIND_NOCTOR,
			       size);
	for (i = 0; i < n; i++) {
		struct stress_tag *t = th->bulk[i];

		stress_tag_free(th, t, th->id, t->seq);
	}
	kmem_cache_free_bulk(s, n, th->bulk);
}

/* Bulk free of pool objects of one cache: allocated at different times. */
static void stress_bulk_free_pool(struct stress_thread *th)
{
	unsigned int kind = prandom_u32_state(&th->rnd) & 1 ? KIND_STRESS : KIND_NOCTOR;
	unsigned int i = 0, n = 0;

	while (i < th->nr_pool && n < BULK_STRESS) {
		struct stress_tag *t = th->pool[i].tag;

		if (t->kind != kind) {
			i++;
			continue;
		}
		stress_tag_free(th, t, th->id, th->pool[i].seq);
		th->bulk[n++] = t;
		th->pool[i] = th->pool[--th->nr_pool];
	}
	if (n) {
		kmem_cache_free_bulk(kind == KIND_STRESS ? stress_cache : noctor_cache,
				     n, th->bulk);
		th->bulk_ops++;
	}
}

static void stress_step(struct stress_thread *th)
{
	unsigned int r = prandom_u32_state(&th->rnd) % 100;
	struct stress_tag *t;

	if (r < 45) {
		/* Local allocation; a full pool first frees a random object. */
		if (th->nr_pool == POOL_SIZE)
			stress_free_pool_slot(th, prandom_u32_state(&th->rnd) % POOL_SIZE);
		t = stress_alloc(th);
		if (t) {
			th->pool[th->nr_pool].tag = t;
			th->pool[th->nr_pool].seq = t->seq;
			th->nr_pool++;
		}
	} else if (r < 70) {
		if (th->nr_pool)
			stress_free_pool_slot(th, prandom_u32_state(&th->rnd) % th->nr_pool);
	} else if (r < 90) {
		if (th->nr_pool)
			stress_send(th, prandom_u32_state(&th->rnd) % th->nr_pool);
	} else if (r < 95) {
		stress_bulk(th);
	} else if (r < 97) {
		stress_bulk_free_pool(th);
	} else {
		/* Allocate and free at once: the hottest path. */
		t = stress_alloc(th);
		if (t) {
			stress_tag_free(th, t, th->id, t->seq);
			stress_release(t);
		}
	}
}

/* Let failslab fail this thread's allocations while asked to. */
static void stress_fault_window(void)
{
#ifdef CONFIG_FAULT_INJECTION
	if (inject)
		current->make_it_fail = READ_ONCE(stress_inject_now);
#endif /* CONFIG_FAULT_INJECTION */
}

static int stress_thread_fn(void *arg)
{
	struct stress_thread *th = arg;
	unsigned int i = 0;

	while (!READ_ONCE(stress_stop)) {
		if (!(i & 255))
			stress_fault_window();
		stress_step(th);
		if (!(++i & 15)) {
			stress_drain_inbox(th);
			cond_resched();
		}
	}
	while (th->nr_pool)
		stress_free_pool_slot(th, th->nr_pool - 1);
	/* Nothing is sent after this: the last drains see every object. */
	atomic_inc_return(&senders_done);
	while (atomic_read(&senders_done) < nr_threads) {
		stress_drain_inbox(th);
		schedule_timeout_uninterruptible(1);
	}
	/* Order the read of senders_done before the last llist_del_all(). */
	smp_mb();
	stress_drain_inbox(th);

	complete(&th->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void churn_ctor(void *obj)
{
	*(u64 *)obj = CTOR_MAGIC;
}

/* Create small caches, use them and destroy them, over and over. */
static int churn_thread_fn(void *arg)
{
	struct rnd_state rnd;
	void *objs[64];

	prandom_seed_state(&rnd, seed ^ 0xc0ffee);
	while (!READ_ONCE(stress_stop)) {
		unsigned int size = 8 + prandom_u32_state(&rnd) % 1024;
		unsigned int n = 1 + prandom_u32_state(&rnd) % ARRAY_SIZE(objs);
		bool ctor = prandom_u32_state(&rnd) & 1;
		slab_flags_t flags = prandom_u32_state(&rnd) & 1 ? SLAB_HWCACHE_ALIGN : 0;
		struct kmem_cache *s;
		unsigned int i;

		s = kmem_cache_create("test_slab_api_churn", size, 0, flags,
				      ctor ? churn_ctor : NULL);
		if (!CHECK(s, "churn: kmem_cache_create(%u) failed", size))
			break;
		caches_created++;
		for (i = 0; i < n; i++) {
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
			if (!CHECK(objs[i], "churn: allocation failed"))
				break;
			if (ctor)
				CHECK(*(u64 *)objs[i] == CTOR_MAGIC,
				      "churn: object not constructed");
			memset(objs[i], pattern_of(i, size), size);
		}
		n = i;
		churn_objs += n;
		for (i = 0; i < n; i++) {
			check_fill(objs[i], pattern_of(i, size), size, "churn",
				   size, i);
			if (ctor)
				*(u64 *)objs[i] = CTOR_MAGIC;
			if (i & 1)
				kmem_cache_free(s, objs[i]);
		}
		for (i = 0; i < n; i += 2)
			kmem_cache_free(s, objs[i]);
		kmem_cache_destroy(s);
		cond_resched();
	}

	complete(&churn_done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * Allocations from hardirq and softirq context during the stress: a
 * pinned hrtimer of each kind per cpu allocates and frees a few objects
 * of the cache the stress threads use, so that interrupts arrive while
 * a task on the same cpu is in the middle of an allocator fastpath (the
 * array front end's nesting fallback).  PREEMPT_RT allows no allocation
 * in hardirq context, as upstream's SLUB there: only the softirq timer
 * runs, in its thread, which preempts the stress threads instead.
 */
#define IRQ_STRESS_NS	(1000 * NSEC_PER_USEC)
#define IRQ_STRESS_OBJS	4

struct irq_stresser {
	struct hrtimer hard;
	struct hrtimer soft;
	bool started;
};

static DEFINE_PER_CPU(struct irq_stresser, irq_stressers);
static atomic_long_t irq_allocs, irq_failures;
static bool irq_stress_on;

static enum hrtimer_restart irq_stress_fn(struct hrtimer *timer)
{
	void *objs[IRQ_STRESS_OBJS];
	unsigned int i, n = 0;

	if (!READ_ONCE(irq_stress_on))
		return HRTIMER_NORESTART;
	for (i = 0; i < IRQ_STRESS_OBJS; i++) {
		objs[n] = kmem_cache_alloc(noctor_cache, GFP_ATOMIC | __GFP_NOWARN);
		if (!objs[n]) {
			atomic_long_inc(&irq_failures);
			continue;
		}
		memset(objs[n], 0x5a, NOCTOR_SIZE);
		n++;
	}
	atomic_long_add(n, &irq_allocs);
	while (n)
		kmem_cache_free(noctor_cache, objs[--n]);
	hrtimer_forward_now(timer, ns_to_ktime(IRQ_STRESS_NS));
	return HRTIMER_RESTART;
}

static void irq_stress_start_cpu(void *unused)
{
	struct irq_stresser *is = this_cpu_ptr(&irq_stressers);

	hrtimer_init(&is->hard, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	is->hard.function = irq_stress_fn;
	hrtimer_init(&is->soft, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	is->soft.function = irq_stress_fn;
	is->started = true;
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		hrtimer_start(&is->hard, ns_to_ktime(IRQ_STRESS_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&is->soft, ns_to_ktime(IRQ_STRESS_NS / 2),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

static void irq_stress_start(void)
{
	atomic_long_set(&irq_allocs, 0);
	atomic_long_set(&irq_failures, 0);
	if (!irq)
		return;
	WRITE_ONCE(irq_stress_on, true);
	on_each_cpu(irq_stress_start_cpu, NULL, 1);
}

/* Timers of cpus that went offline have moved on: cancel them all. */
static void irq_stress_stop(void)
{
	struct irq_stresser *is;
	int cpu;

	WRITE_ONCE(irq_stress_on, false);
	for_each_possible_cpu(cpu) {
		is = per_cpu_ptr(&irq_stressers, cpu);
		if (!is->started)
			continue;
		hrtimer_cancel(&is->hard);
		hrtimer_cancel(&is->soft);
		is->started = false;
	}
}

static unsigned long stress_ops_so_far(void)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < nr_threads; i++)
		sum += READ_ONCE(threads[i].allocs) + READ_ONCE(threads[i].frees);
	return sum;
}

static void stress_destroy_caches(void)
{
	kmem_cache_destroy(noctor_cache);
	noctor_cache = NULL;
	kmem_cache_destroy(stress_cache);
	stress_cache = NULL;
}

static void stress_release_held(void)
{
	unsigned int i;

	for (i = 0; i < nr_held; i++)
		kmem_cache_free(stress_cache, held[i]);
	nr_held = 0;
	kvfree(held);
	held = NULL;
}

/* Keep @hold objects allocated for /proc/slabinfo to show. */
static int stress_hold(void)
{
	struct stress_tag *t;

	held = kvcalloc(hold, sizeof(void *), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	for (nr_held = 0; nr_held < hold; nr_held++) {
		t = kmem_cache_alloc(stress_cache, GFP_KERNEL);
		if (!CHECK(t, "hold: allocation %u of %u failed", nr_held, hold)) {
			stress_release_held();
			return -ENOMEM;
		}
		CHECK(t->magic == TAG_FREE, "hold: object %p not free (%#llx)",
		      t, t->magic);
		held[nr_held] = t;
	}
	/* Give back empty slabs and per-CPU caches: the count is exact. */
	kmem_cache_shrink(stress_cache);
	pr_info("stress: holding %u objects in test_slab_api_stress until rmmod\n",
		nr_held);
	return 0;
}

/* The sums of the stress threads' counters. */
struct stress_totals {
	unsigned long allocs, frees, sent, received, xcpu, bulk_ops;
	unsigned long dbl, corrupt, fails;
};

static int stress_create_caches(void)
{
	stress_cache = kmem_cache_create("test_slab_api_stress", STRESS_SIZE, 0,
					 0, stress_ctor);
	noctor_cache = kmem_cache_create("test_slab_api_stress_noctor",
					 NOCTOR_SIZE, 0, 0, NULL);
	if (!stress_cache || !noctor_cache) {
		tsa_fail("stress: kmem_cache_create failed");
		return -ENOMEM;
	}
	return 0;
}

static int stress_alloc_threads(unsigned int cpus)
{
	unsigned int i;

	/*
	 * One thread per CPU that can be online (some may be offline right now
	 * for the CPU hotplug test), at least two so that objects move.
	 */
	nr_threads = max(cpus, 2U);
	threads = vzalloc(nr_threads * sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	WRITE_ONCE(stress_stop, false);
	atomic_set(&senders_done, 0);
	caches_created = 0;
	churn_objs = 0;
	init_completion(&churn_done);
	for (i = 0; i < nr_threads; i++) {
		threads[i].id = i;
		init_completion(&threads[i].done);
		init_llist_head(&threads[i].inbox);
		prandom_seed_state(&threads[i].rnd, seed + i);
	}
	return 0;
}

/* The stress threads and the churn thread, created but not woken yet. */
static int stress_create_threads(void)
{
	unsigned int i;

	/*
	 * Unbound threads: CPUs may go offline and online during the run and
	 * the scheduler moves the threads; tags record the CPU that allocated.
	 */
	for (i = 0; i < nr_threads; i++) {
		threads[i].task = kthread_create(stress_thread_fn, &threads[i],
						 "tsa_stress/%u", i);
		if (IS_ERR(threads[i].task)) {
			tsa_fail("stress: kthread_create failed: %ld",
				 PTR_ERR(threads[i].task));
			goto out_stop_threads;
		}
		get_task_struct(threads[i].task);
	}
	churn_task = kthread_create(churn_thread_fn, NULL, "tsa_churn");
	if (IS_ERR(churn_task)) {
		tsa_fail("stress: kthread_create failed: %ld",
			 PTR_ERR(churn_task));
		churn_task = NULL;
		goto out_stop_threads;
	}
	get_task_struct(churn_task);
	return 0;

out_stop_threads:
	/* Threads never woken never run their function. */
	while (i--) {
		kthread_stop(threads[i].task);
		put_task_struct(threads[i].task);
	}
	return -ENOMEM;
}

/* Wake the threads and wait until the stress has done its work. */
static void stress_run(unsigned long start)
{
	unsigned int limit = max_seconds ? max_seconds : 3 * seconds + 30;
	unsigned long min_end = start + seconds * HZ;
	unsigned long max_end = start + limit * HZ;
	unsigned long total_ops;
	unsigned int i;

	for (i = 0; i < nr_threads; i++)
		wake_up_process(threads[i].task);
	wake_up_process(churn_task);
	irq_stress_start();

	for (;;) {
		msleep(100);
		if (inject)
			WRITE_ONCE(stress_inject_now,
				   time_after(jiffies, start + seconds * HZ / 3) &&
				   time_before(jiffies, start + seconds * HZ * 2 / 3));
		total_ops = stress_ops_so_far();
		if (time_after_eq(jiffies, min_end) && total_ops >= ops)
			break;
		if (time_after_eq(jiffies, max_end)) {
			/* An explicit time limit makes the count a requirement. */
			if (max_seconds)
				tsa_fail("stress: only %lu of %lu operations in %u s",
					 total_ops, ops, limit);
			else
				pr_warn("stress: only %lu of %lu operations in %u s\n",
					total_ops, ops, limit);
			break;
		}
	}
	WRITE_ONCE(stress_inject_now, false);
	irq_stress_stop();
	WRITE_ONCE(stress_stop, true);
}

/* Stop the threads once they have finished and add up their counters. */
static void stress_stop_threads(struct stress_totals *tot)
{
	unsigned int i;

	for (i = 0; i < nr_threads; i++)
		wait_for_completion(&threads[i].done);
	wait_for_completion(&churn_done);
	for (i = 0; i < nr_threads; i++) {
		struct stress_thread *th = &threads[i];

		kthread_stop(th->task);
		put_task_struct(th->task);
		tot->allocs += th->allocs;
		tot->frees += th->frees;
		tot->sent += th->sent;
		tot->received += th->received;
		tot->xcpu += th->xcpu_frees;
		tot->bulk_ops += th->bulk_ops;
		tot->dbl += th->double_handouts;
		tot->corrupt += th->corruptions;
		tot->fails += th->alloc_failures;
		atomic_long_add(th->checks, &checks_passed);
	}
	kthread_stop(churn_task);
	put_task_struct(churn_task);
	churn_task = NULL;
}

static void stress_print_totals(const struct stress_totals *tot,
				unsigned int cpus, unsigned long start)
{
	pr_info("stress: %lu operations, %lu objects, %u CPUs, %u threads, %lu remote frees (%lu cross-CPU frees), %lu bulk ops, %lu caches created (%lu objects), %lu failed allocations, %u.%02u s\n",
		tot->allocs + tot->frees, tot->allocs, cpus, nr_threads,
		tot->received, tot->xcpu, tot->bulk_ops, caches_created,
		churn_objs, tot->fails,
		jiffies_to_msecs(jiffies - start) / 1000,
		jiffies_to_msecs(jiffies - start) % 1000 / 10);
}

static int run_stress(void)
{
	unsigned int cpus = num_present_cpus();
	struct stress_totals tot = {};
	unsigned long start;
	int ret;

	ret = stress_create_caches();
	if (ret)
		goto out_destroy_caches;
	ret = stress_alloc_threads(cpus);
	if (ret)
		goto out_destroy_caches;
	ret = stress_create_threads();
	if (ret)
		goto out_free_threads;

	start = jiffies;
	stress_run(start);
	stress_stop_threads(&tot);
	stress_print_totals(&tot, cpus, start);

	CHECK(tot.allocs == tot.frees, "stress: %lu allocations but %lu frees",
	      tot.allocs, tot.frees);
	CHECK(tot.sent == tot.received, "stress: %lu objects sent, %lu received",
	      tot.sent, tot.received);
	CHECK(!tot.dbl, "stress: %lu objects handed out twice", tot.dbl);
	CHECK(!tot.corrupt, "stress: %lu corrupted objects", tot.corrupt);
	if (inject) {
		/* Failures were asked for: they must have come, as NULL. */
		CHECK(tot.fails, "stress: fault injection asked for, no allocation failed");
	} else {
		CHECK(!tot.fails, "stress: %lu allocations failed", tot.fails);
		if (tot.fails)
			ret = -ENOMEM;
	}
	CHECK(caches_created, "stress: no cache created by the churn thread");
	if (irq) {
		pr_info("stress: %ld objects allocated and freed in %s context, %ld failed\n",
			atomic_long_read(&irq_allocs),
			IS_ENABLED(CONFIG_PREEMPT_RT) ? "softirq" : "hardirq and softirq",
			atomic_long_read(&irq_failures));
		CHECK(atomic_long_read(&irq_allocs),
		      "stress: no allocation from interrupt context");
	}
	if (!ret && hold && !atomic_long_read(&checks_failed))
		ret = stress_hold();

out_free_threads:
	vfree(threads);
	threads = NULL;
out_destroy_caches:
	/* Held objects keep their cache until rmmod. */
	if (!nr_held)
		stress_destroy_caches();
	return ret;
}

/* ------------------------------------------------------------------ */
/* phase=debug                                                          */
/* ------------------------------------------------------------------ */

#define DEBUG_OBJ_SIZE	40

#ifdef CONFIG_SLUB_DEBUG
/* Exported by SLUB for its KUnit test; declared in mm/slab.h only. */
long validate_slab_cache(struct kmem_cache *s);

/*
 * Each case leaves the cache clean, so that it can be destroyed: the
 * checks restore what they find, and an object they refuse to free is
 * freed again once restored.
 */
static int run_debug(void)
{
	struct kmem_cache *cache;
	u8 *p;

	cache = kmem_cache_create("test_slab_api_debug", DEBUG_OBJ_SIZE, 0,
				  SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE |
				  SLAB_POISON | SLAB_STORE_USER, NULL);
	if (!cache)
		return -ENOMEM;

	/* A write one byte past the object, seen when it is freed. */
	p = kmem_cache_alloc(cache, GFP_KERNEL);
	CHECK(p, "debug: allocation failed");
	if (!p)
		goto out;
	pr_info("debug: red zone overwrite\n");
	kasan_disable_current();
	p[DEBUG_OBJ_SIZE] = 0x55;
	kasan_enable_current();
	kmem_cache_free(cache, p);
	kmem_cache_free(cache, p);

	/* A write after free, seen by validation. */
	p = kmem_cache_alloc(cache, GFP_KERNEL);
	CHECK(p, "debug: allocation failed");
	if (!p)
		goto out;
	kmem_cache_free(cache, p);
	pr_info("debug: write after free\n");
	kasan_disable_current();
	p[0] = 0x55;
	kasan_enable_current();
	validate_slab_cache(cache);

	/* A double free, refused. */
	p = kmem_cache_alloc(cache, GFP_KERNEL);
	CHECK(p, "debug: allocation failed");
	if (!p)
		goto out;
	kmem_cache_free(cache, p);
	pr_info("debug: double free\n");
	kmem_cache_free(cache, p);
out:
	kmem_cache_destroy(cache);
	return 0;
}
#else
static int run_debug(void)
{
	pr_err("debug: needs CONFIG_SLUB_DEBUG\n");
	return -EOPNOTSUPP;
}
#endif /* CONFIG_SLUB_DEBUG */

/* ------------------------------------------------------------------ */
/* phase=names                                                          */
/* ------------------------------------------------------------------ */

/*
 * A cache destroyed and created again at once under the same name, with
 * every kind in turn following every kind: its /sys/kernel/slab entry
 * must be the new cache's each time, a directory for a cache that cannot
 * merge, a link to the directory of the cache it merged into otherwise.
 * The second name is listed in the slab_nomerge= of a boot variant
 * (eventpoll_*), so that there even the plain kind gets a directory.
 */
#define NAMES_DIR	"/sys/kernel/slab/"

enum names_kind { NAMES_PLAIN, NAMES_CTOR, NAMES_RCU };

static const char * const names_kind_name[] = { "plain", "ctor", "rcu" };

static void names_ctor(void *obj)
{
	memset(obj, 0x3c, 8);
}

/* Read /sys/kernel/slab/@name/@attr into @buf, following links. */
static int names_read(const char *name, const char *attr, char *buf,
		      size_t len)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), NAMES_DIR "%s/%s", name, attr);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	strim(buf);
	return 0;
}

static long names_read_num(const char *name, const char *attr)
{
	char buf[64];
	long v;

	if (names_read(name, attr, buf, sizeof(buf)) || kstrtol(buf, 10, &v))
		return -1;
	return v;
}

/* 0: no entry, 1: a directory, 2: a link (not followed). */
static int names_entry(const char *name)
{
	char path[96];
	struct path p;
	int type;

	snprintf(path, sizeof(path), NAMES_DIR "%s", name);
	if (kern_path(path, 0, &p))
		return 0;
	type = d_is_symlink(p.dentry) ? 2 : d_is_dir(p.dentry) ? 1 : 3;
	path_put(&p);
	return type;
}

/* The entry of @name describes @cache, of kind @kind and @size bytes. */
static void names_check(const char *name, enum names_kind kind,
			unsigned int size, int step)
{
	const char *what = names_kind_name[kind];
	int type = names_entry(name);
	long osize, rcu;
	char ctor[96];

	if (!CHECK(type == 1 || type == 2,
		   "names: step %d: %s cache %s: /sys/kernel/slab entry is %s",
		   step, what, name, type ? "no directory or link" : "missing"))
		return;
	/* Caches with a constructor or RCU never merge: a directory. */
	CHECK(kind == NAMES_PLAIN || type == 1,
	      "names: step %d: %s cache %s: a link, expected a directory",
	      step, what, name);
	osize = names_read_num(name, "object_size");
	rcu = names_read_num(name, "destroy_by_rcu");
	if (names_read(name, "ctor", ctor, sizeof(ctor)))
		ctor[0] = '?';
	/* Merged into a cache of up to a word more: its object size. */
	if (type == 1)
		CHECK(osize == size,
		      "names: step %d: %s cache %s: object_size %ld, expected %u (stale?)",
		      step, what, name, osize, size);
	else
		CHECK(osize >= size && osize < size + sizeof(void *) + 1,
		      "names: step %d: %s cache %s: object_size %ld through the link, expected %u",
		      step, what, name, osize, size);
	CHECK(rcu == (kind == NAMES_RCU),
	      "names: step %d: %s cache %s: destroy_by_rcu %ld", step, what,
	      name, rcu);
	CHECK(!ctor[0] == (kind != NAMES_CTOR),
	      "names: step %d: %s cache %s: ctor '%s'", step, what, name, ctor);
}

/*
 * Upstream SLUB of 6.1 removes the directory of an RCU cache only after
 * an RCU barrier, in a work, and then by its stale kernfs node: reusing
 * the name at once is what it lacks.  Our engine shows a "sync" file.
 */
static bool names_rcu_reuse(void)
{
	char buf[64];

	return !names_read("kmem_cache", "sync", buf, sizeof(buf));
}

static int names_run(const char *name, const char *seq, int *step)
{
	struct kmem_cache *cache = NULL;
	enum names_kind kind, prev = NAMES_PLAIN;
	unsigned int size;
	const char *c;
	void *obj;
	int type;

	for (c = seq; *c; c++, (*step)++) {
		kind = *c == 'c' ? NAMES_CTOR : *c == 'r' ? NAMES_RCU :
		       NAMES_PLAIN;
		/* A new size each step: a left-over entry shows. */
		size = 200 + 16 * *step;
		if (cache) {
			type = names_entry(name);
			kmem_cache_destroy(cache);
			/* Only a directory is removed with its cache. */
			if (type == 1)
				CHECK(!names_entry(name),
				      "names: step %d: %s cache %s: still in /sys/kernel/slab after kmem_cache_destroy()",
				      *step, names_kind_name[prev], name);
		}
		cache = kmem_cache_create(name, size, 0,
					  kind == NAMES_RCU ? SLAB_TYPESAFE_BY_RCU : 0,
					  kind == NAMES_CTOR ? names_ctor : NULL);
		if (!CHECK(cache, "names: step %d: cannot create %s cache %s",
			   *step, names_kind_name[kind], name))
			return -ENOMEM;
		obj = kmem_cache_alloc(cache, GFP_KERNEL);
		CHECK(obj, "names: step %d: allocation failed", *step);
		if (obj)
			kmem_cache_free(cache, obj);
		names_check(name, kind, size, *step);
		prev = kind;
	}
	kmem_cache_destroy(cache);
	return 0;
}

static int run_names(void)
{
	/* Every kind after every kind: p c r r p p r c c p. */
	const char *seq = "pcrrpprccp";
	int step = 0, ret;

	if (names_entry("kmem_cache") != 1) {
		pr_info("names: no /sys/kernel/slab/kmem_cache directory: nothing to check\n");
		return 0;
	}
	if (!names_rcu_reuse()) {
		/* The kinds after plain and ctor, then RCU last. */
		pr_info("names: upstream SLUB: no name reuse right after an RCU cache\n");
		seq = "pccppr";
	}
	ret = names_run("test_slab_api_name", seq, &step);
	if (!ret)
		ret = names_run("eventpoll_test_slab_api", seq, &step);
	return ret;
}

/* ------------------------------------------------------------------ */
/* phase=numa                                                           */
/* ------------------------------------------------------------------ */

/*
 * Run under a memory policy (test_slab_api.sh starts modprobe through
 * mpol_exec): a new cache's slabs must be placed as the policy says, all
 * on the bound nodes, or spread over the interleaved ones.  Spread means
 * each interleaved node holds at least three quarters of its share of
 * the objects: the task's slabs alternate nodes, so the shares come out
 * even but for the other pages the task allocates meanwhile.  (Upstream
 * SLUB takes a second step of the interleave per new slab when it looks
 * at other nodes' partial slabs, so that its slabs come in runs from one
 * node: 2048/0 in 5 of 17 runs in one boot of 6.1, 1792/256, 2000/48.
 * The kselftest does not ask it for the spread.)
 */
/*
 * 248 bytes and a free pointer after them (the constructor keeps it out
 * of the object): 16 slots of 256 bytes fill a page, so the preferred
 * slab order is the minimum one.  Otherwise a preferred order that the
 * page allocator refuses, as on a fragmented node, costs a second
 * interleave step for the fallback, and with interleave every slab can
 * end up on the same node (upstream SLUB does the same).
 */
#define NUMA_OBJ_SIZE	248
#define NUMA_OBJS	2048

static void numa_ctor(void *obj)
{
	/* A constructor keeps the cache from merging: no slabs of others. */
	memset(obj, 0, 8);
}

static int run_numa(void)
{
	unsigned long *per_node;
	struct kmem_cache *cache;
	unsigned int i;
	nodemask_t want;
	void **objs;
	int node, ret = 0;

	if (nodelist_parse(numa_nodes, want) || nodes_empty(want) ||
	    !nodes_subset(want, node_states[N_ONLINE])) {
		pr_err("numa: numa_nodes=%s is no list of online nodes\n",
		       numa_nodes);
		return -EINVAL;
	}
	objs = vcalloc(NUMA_OBJS, sizeof(*objs));
	per_node = kcalloc(nr_node_ids, sizeof(*per_node), GFP_KERNEL);
	cache = kmem_cache_create("test_slab_api_numa", NUMA_OBJ_SIZE, 0, 0,
				  numa_ctor);
	if (!objs || !per_node || !cache) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < NUMA_OBJS; i++) {
		objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!CHECK(objs[i], "numa: allocation %u failed", i))
			break;
		node = page_to_nid(virt_to_head_page(objs[i]));
		if (node >= 0 && node < nr_node_ids)
			per_node[node]++;
	}
	for_each_node(node) {
		if (!per_node[node])
			continue;
		pr_info("numa: %s %s: %lu objects on node %d\n", numa_mode,
			numa_nodes, per_node[node], node);
		CHECK(node_isset(node, want),
		      "numa: %s %s: %lu objects on node %d", numa_mode,
		      numa_nodes, per_node[node], node);
	}
	if (!strcmp(numa_mode, "interleave")) {
		unsigned long least = 3 * (i / nodes_weight(want)) / 4;

		for_each_node_mask(node, want)
			CHECK(per_node[node] >= least,
			      "numa: interleave %s: %lu objects on node %d, fewer than %lu (three quarters of its share)",
			      numa_nodes, per_node[node], node, least);
	}
	while (i--)
		kmem_cache_free(cache, objs[i]);
out:
	kmem_cache_destroy(cache);
	kfree(per_node);
	vfree(objs);
	return ret;
}

/* ------------------------------------------------------------------ */
/* phase=leak                                                           */
/* ------------------------------------------------------------------ */

/*
 * Objects that kmemleak must report: allocated, freed, allocated again
 * (on an allocator with per-cpu arrays the second allocation pops them
 * off the array they were freed to) and then forgotten.  The module
 * keeps only their addresses inverted, which kmemleak does not take for
 * references, and frees them on removal.  A usercopy region keeps the
 * cache apart, so that nothing else allocates from it.
 */
#define LEAK_OBJS	16
#define LEAK_SIZE	96

static struct kmem_cache *leak_cache;
static unsigned long leak_hidden[LEAK_OBJS];

static int run_leak(void)
{
	void *p[LEAK_OBJS];
	unsigned int i;

	leak_cache = kmem_cache_create_usercopy("test_slab_api_leak", LEAK_SIZE,
						0, TSA_APART, 0, LEAK_SIZE,
						NULL);
	if (!leak_cache)
		return -ENOMEM;
	for (i = 0; i < LEAK_OBJS; i++) {
		p[i] = kmem_cache_alloc(leak_cache, GFP_KERNEL);
		if (!p[i])
			goto nomem;
	}
	for (i = 0; i < LEAK_OBJS; i++)
		kmem_cache_free(leak_cache, p[LEAK_OBJS - 1 - i]);
	for (i = 0; i < LEAK_OBJS; i++) {
		p[i] = kmem_cache_alloc(leak_cache, GFP_KERNEL);
		if (!p[i])
			goto nomem;
	}
	for (i = 0; i < LEAK_OBJS; i++) {
		/* The raw address: the test looks it up in kmemleak's report. */
		pr_info("leak: object %px\n", p[i]);
		leak_hidden[i] = ~(unsigned long)p[i];
	}
	/* No copy on this stack either; the verdict is kmemleak's. */
	memzero_explicit(p, sizeof(p));
	return 0;
nomem:
	while (i--)
		kmem_cache_free(leak_cache, p[i]);
	kmem_cache_destroy(leak_cache);
	leak_cache = NULL;
	return -ENOMEM;
}

static void leak_release(void)
{
	unsigned int i;

	if (!leak_cache)
		return;
	for (i = 0; i < LEAK_OBJS; i++)
		if (leak_hidden[i])
			kmem_cache_free(leak_cache, (void *)~leak_hidden[i]);
	kmem_cache_destroy(leak_cache);
	leak_cache = NULL;
}

/* ------------------------------------------------------------------ */
/* phase=park                                                           */
/* ------------------------------------------------------------------ */

/*
 * Free PARK_OBJS objects of a cache of its own (a usercopy region keeps
 * it unmerged) and keep the cache: an allocator with per-cpu arrays now
 * holds them there, and its array_objects file says so, until the
 * reaper, a shrinker or the module's removal gives them back.
 */
#define PARK_OBJS	512
#define PARK_SIZE	128

static struct kmem_cache *park_cache;

static int run_park(void)
{
	void **p;
	unsigned int i;

	p = kcalloc(PARK_OBJS, sizeof(*p), GFP_KERNEL);
	park_cache = kmem_cache_create_usercopy("test_slab_api_park", PARK_SIZE,
						0, TSA_APART, 0, PARK_SIZE,
						NULL);
	if (!p || !park_cache) {
		kfree(p);
		kmem_cache_destroy(park_cache);
		park_cache = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < PARK_OBJS; i++) {
		p[i] = kmem_cache_alloc(park_cache, GFP_KERNEL);
		if (!p[i])
			break;
	}
	CHECK(i == PARK_OBJS, "park: %u of %d objects allocated", i, PARK_OBJS);
	while (i--)
		kmem_cache_free(park_cache, p[i]);
	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		pr_info("park: the KASAN quarantine holds freed objects first\n");
	kfree(p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* phase=objext                                                         */
/* ------------------------------------------------------------------ */

/*
 * Objects held from four call sites, one function each, which
 * /proc/allocinfo names: the kselftest reads each site's bytes and
 * calls, and the memcg charge of the accounted cache's objects.
 */
#define OBJEXT_SIZE	1000
#define OBJEXT_KMALLOC	128
#define OBJEXT_LARGE	(3 * PAGE_SIZE)

static unsigned int objext_count = 2048;
module_param_named(count, objext_count, uint, 0444);
MODULE_PARM_DESC(count, "objext: objects held from each of the single, bulk and kmalloc sites (default 2048)");

static struct kmem_cache *objext_cache;
static void **objext_objs;	/* count single, count bulk, count kmalloc */
static void *objext_big;

static noinline bool objext_one(void **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(objext_cache, GFP_KERNEL);
		if (!p[i])
			return false;
	}
	return true;
}

static noinline bool objext_bulk(void **p, unsigned int n)
{
	if (kmem_cache_alloc_bulk(objext_cache, GFP_KERNEL, n, p) == n)
		return true;
	memset(p, 0, n * sizeof(*p));	/* a failed bulk holds nothing */
	return false;
}

static noinline bool objext_kmalloc(void **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p[i] = kmalloc(OBJEXT_KMALLOC, GFP_KERNEL);
		if (!p[i])
			return false;
	}
	return true;
}

static noinline void *objext_large(void)
{
	return kmalloc(OBJEXT_LARGE, GFP_KERNEL);
}

static void objext_release_all(void)
{
	unsigned int i, n = objext_count;

	if (objext_objs) {
		/* Each free path must take the tags and charges off. */
		for (i = 0; i < n; i++)
			if (objext_objs[i])
				kmem_cache_free(objext_cache, objext_objs[i]);
		kmem_cache_free_bulk(objext_cache, n, objext_objs + n);
		kfree_bulk(n / 2, objext_objs + 2 * n);
		for (i = 2 * n + n / 2; i < 3 * n; i++)
			kfree(objext_objs[i]);
		vfree(objext_objs);
		objext_objs = NULL;
	}
	kfree(objext_big);
	objext_big = NULL;
	kmem_cache_destroy(objext_cache);
	objext_cache = NULL;
}

static int objext_release_set(const char *val, const struct kernel_param *kp)
{
	bool yes;
	int err = kstrtobool(val, &yes);

	if (err)
		return err;
	if (yes)
		objext_release_all();
	return 0;
}

static const struct kernel_param_ops objext_release_ops = {
	.set = objext_release_set,
};
module_param_cb(objext_release, &objext_release_ops, NULL, 0200);
MODULE_PARM_DESC(objext_release, "objext: write 1 to free the objects held");

static int run_objext(void)
{
	unsigned int n = objext_count;
	bool ok;

	objext_objs = vzalloc(array3_size(3, n, sizeof(void *)));
	objext_cache = kmem_cache_create("test_slab_api_objext", OBJEXT_SIZE,
					 0, SLAB_ACCOUNT | TSA_APART, NULL);
	if (!objext_objs || !objext_cache) {
		objext_release_all();
		return -ENOMEM;
	}
	ok = CHECK(objext_one(objext_objs, n), "objext: single allocations");
	ok = ok && CHECK(objext_bulk(objext_objs + n, n), "objext: bulk of %u", n);
	ok = ok && CHECK(objext_kmalloc(objext_objs + 2 * n, n),
			 "objext: kmalloc(%d)", OBJEXT_KMALLOC);
	objext_big = objext_large();
	ok = ok && CHECK(objext_big, "objext: kmalloc(%lu)", OBJEXT_LARGE);
	if (!ok) {
		objext_release_all();
		return -ENOMEM;
	}
	pr_info("objext: holding %u + %u objects of test_slab_api_objext, %u of kmalloc(%d), one of kmalloc(%lu)\n",
		n, n, n, OBJEXT_KMALLOC, OBJEXT_LARGE);
	return 0;
}

/* ------------------------------------------------------------------ */
/* phase=badinput                                                       */
/* ------------------------------------------------------------------ */

#define BAD_SIZE	64

/* A cache kept apart (TSA_APART): misuse stays in it. */
static struct kmem_cache *bad_cache(const char *name)
{
	return kmem_cache_create_usercopy(name, BAD_SIZE, 0, TSA_APART, 0,
					  BAD_SIZE, NULL);
}

/*
 * Allocate two objects after a misuse and say whether the allocator
 * handed the same memory out twice or returned a pointer it never gave.
 * The observations are printed as errors so that a quiet console, all
 * that is left of a kernel that dies, still shows them.
 */
static void bad_probe(struct kmem_cache *s, const void *victim, bool wild)
{
	void *a = kmem_cache_alloc(s, GFP_KERNEL);
	void *b = kmem_cache_alloc(s, GFP_KERNEL);
	bool bad = (a && a == b) || (wild && (a == victim || b == victim));

	pr_err("badinput %s: then allocated %s%s%s\n", badcase,
	       a && a == b ? "the same object twice" : "two distinct objects",
	       a == victim || b == victim ? ", one of them the misused one" : "",
	       bad ? ": CORRUPT" : "");
	/* Not freed: after a misuse, freeing them could be a misuse too. */
}

static void bad_double_free(struct kmem_cache *s)
{
	void *p = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, p);
	kmem_cache_free(s, p);
	bad_probe(s, p, false);
}

static void bad_invalid_free(struct kmem_cache *s)
{
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, p + 8);
	/* p + 8 is no object: handing it out is corruption. */
	bad_probe(s, p + 8, true);
}

static void bad_cross_cache_free(struct kmem_cache *s)
{
	struct kmem_cache *other = bad_cache("tsa_bad_other");
	void *p = other ? kmem_cache_alloc(other, GFP_KERNEL) : NULL;

	if (!p)
		return;
	kmem_cache_free(s, p);
	bad_probe(s, p, false);
	bad_probe(other, p, false);
}

static void bad_write_after_free(struct kmem_cache *s)
{
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_free(s, p);
	kasan_disable_current();
	memset(p, 0x55, BAD_SIZE);
	kasan_enable_current();
	bad_probe(s, p, false);
}

static void bad_redzone(struct kmem_cache *s)
{
	u8 *p = kmalloc(BAD_SIZE - 4, GFP_KERNEL);

	/* Eight bytes past the 64-byte slot: its neighbour, or a red zone. */
	kasan_disable_current();
	memset(p + BAD_SIZE, 0x55, 8);
	kasan_enable_current();
	kfree(p);
	p = kmalloc(BAD_SIZE - 4, GFP_KERNEL);
	kfree(p);
}

/* Overwrite a free object whole, free pointer included, then allocate. */
static void bad_corrupt_freeptr(struct kmem_cache *s)
{
	void *objs[3];
	unsigned int i;
	u8 *p;

	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	kasan_disable_current();
	memset(p, 0x41, BAD_SIZE);
	kasan_enable_current();
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		pr_err("badinput %s: allocation %u returned %s\n", badcase, i,
		       !objs[i] ? "NULL" : objs[i] == p ? "the overwritten object" :
		       virt_addr_valid(objs[i]) ? "an object" :
		       "a wild pointer: CORRUPT");
	}
}

static void bad_destroy_live(struct kmem_cache *s)
{
	struct kmem_cache *c = bad_cache("tsa_bad_live");

	if (c && kmem_cache_alloc(c, GFP_KERNEL))
		kmem_cache_destroy(c);
}

static void bad_create_absurd(struct kmem_cache *s)
{
	static const struct {
		const char *what;
		unsigned int size, align;
	} tries[] = {
		{ "size 0", 0, 0 },
		{ "size 4 GiB - 1", UINT_MAX, 0 },
		{ "size 2 GiB", 1U << 31, 0 },
		{ "align 3", 64, 3 },
		{ "align 1 MiB", 64, 1U << 20 },
	};
	struct kmem_cache *c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tries); i++) {
		c = kmem_cache_create("tsa_bad_absurd", tries[i].size,
				      tries[i].align, 0, NULL);
		pr_err("badinput %s: %s: %s\n", badcase, tries[i].what,
		       c ? "created" : "refused");
		kmem_cache_destroy(c);
	}
}

static void bad_kmalloc_sizes(struct kmem_cache *s)
{
	void *p = kmalloc(0, GFP_KERNEL);

	pr_err("badinput %s: kmalloc(0) returned %s\n", badcase,
	       p == ZERO_SIZE_PTR ? "ZERO_SIZE_PTR" : p ? "memory" : "NULL");
	kfree(p);
	p = kmalloc(KMALLOC_MAX_SIZE + 1, GFP_KERNEL);
	pr_err("badinput %s: kmalloc(KMALLOC_MAX_SIZE + 1) returned %s\n",
	       badcase, p ? "memory" : "NULL");
	kfree(p);
}

static const struct {
	const char *name;
	void (*run)(struct kmem_cache *s);
} bad_cases[] = {
	{ "double_free", bad_double_free },
	{ "invalid_free", bad_invalid_free },
	{ "cross_cache_free", bad_cross_cache_free },
	{ "write_after_free", bad_write_after_free },
	{ "redzone", bad_redzone },
	{ "corrupt_freeptr", bad_corrupt_freeptr },
	{ "destroy_live", bad_destroy_live },
	{ "create_absurd", bad_create_absurd },
	{ "kmalloc_sizes", bad_kmalloc_sizes },
};

/*
 * The cache of the misuse is left behind on purpose: after most cases it
 * cannot be destroyed cleanly, and the boot ends right after.
 */
static int run_badinput(void)
{
	struct kmem_cache *s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++)
		if (!strcmp(badcase, bad_cases[i].name))
			break;
	if (i == ARRAY_SIZE(bad_cases)) {
		pr_err("badinput: unknown case '%s'\n", badcase);
		return -EINVAL;
	}
	s = bad_cache("tsa_bad");
	if (!s)
		return -ENOMEM;
	pr_err("badinput %s: start\n", badcase);
	bad_cases[i].run(s);
	pr_err("badinput %s: survived\n", badcase);
	return 0;
}

static int __init test_slab_api_init(void)
{
	long passed, failed;
	int ret;

	if (!strcmp(phase, "basic")) {
		ret = run_basic();
	} else if (!strcmp(phase, "bulk")) {
		ret = run_bulk();
	} else if (!strcmp(phase, "stress")) {
		ret = run_stress();
	} else if (!strcmp(phase, "debug")) {
		ret = run_debug();
	} else if (!strcmp(phase, "badinput")) {
		ret = run_badinput();
	} else if (!strcmp(phase, "names")) {
		ret = run_names();
	} else if (!strcmp(phase, "numa")) {
		ret = run_numa();
	} else if (!strcmp(phase, "leak")) {
		ret = run_leak();
	} else if (!strcmp(phase, "park")) {
		ret = run_park();
	} else if (!strcmp(phase, "objext")) {
		ret = run_objext();
	} else {
		pr_err("unknown phase '%s' (basic, bulk, stress, debug, badinput, names, numa, leak, park or objext)\n",
		       phase);
		return -EINVAL;
	}

	passed = atomic_long_read(&checks_passed);
	failed = atomic_long_read(&checks_failed);
	if (!ret && failed)
		ret = -EINVAL;
	if (ret && nr_held) {
		stress_release_held();
		stress_destroy_caches();
	}
	if (ret)
		pr_err("%s: %ld checks passed, %ld failed (error %d)\n", phase,
		       passed, failed, ret);
	else
		pr_info("%s: %ld checks passed, 0 failed\n", phase, passed);
	return ret;
}

static void __exit test_slab_api_exit(void)
{
	objext_release_all();
	leak_release();
	kmem_cache_destroy(park_cache);
	if (nr_held) {
		stress_release_held();
		stress_destroy_caches();
	}
}

module_init(test_slab_api_init);
module_exit(test_slab_api_exit);
MODULE_DESCRIPTION("Test of the public slab allocator API");
MODULE_LICENSE("GPL");
