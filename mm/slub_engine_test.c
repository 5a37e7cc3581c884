// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the SLUB engine internals.
 *
 * This file is #included at the end of mm/slub.c when
 * CONFIG_SLUB_ENGINE_KUNIT_TEST is set, so that it can call the static
 * helpers of the engine (free pointer coding, the slab pair accessors,
 * slab_new(), bulk grouping) without exporting any of them.
 *
 * Every test works on private caches created for it and on slabs it owns:
 * either slabs of its private cache driven through the real alloc and
 * free paths, or a slab made by slab_new() that is never published on any
 * list and can be corrupted on purpose, then restored and discarded.  The
 * test thread is pinned to one cpu so that the per-cpu state it inspects
 * is its own.  Nothing here triggers a WARN: slab_validate() reports with
 * pr_err(), and the tests read those reports back from the printk buffer.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kmsg_dump.h>
#include <linux/sched.h>
#include <linux/string.h>

#define KT_OBJ_SIZE	256	/* order-0 slabs of 16 objects by default */
#define KT_MAX_OBJS	512	/* objects a test may hold */
#define KT_MAX_SLABS	8	/* full slabs a test may ask for */
#define KT_MAX_PER_SLAB	64	/* geometry beyond this skips the test */

struct kt_ctx {
	struct kmem_cache *cache;	/* private cache of the test */
	struct kmem_cache *other;	/* second cache, if a test needs one */
	int cpu;			/* the test thread is pinned here */
	int node;			/* node of that cpu, for allocations */
	struct slab *own;		/* unpublished slab made by slab_new() */
	struct slab_pair own_pair;	/* its pair as built */
	u64 log_seq;			/* printk sequence before a check */
	void **bulk;			/* array for bulk frees, freed at exit */
	size_t nr_bulk;
	unsigned int nr_objs;
	void *objs[KT_MAX_OBJS];	/* live objects, freed at exit */
};

/* ---- Helpers ---- */

static struct kmem_cache *kt_cache_create_size(const char *name,
					       unsigned int size)
{
	struct kmem_cache *cache;

	/*
	 * A usercopy region (on 6.1) or SLUB_NO_MERGE (where the region
	 * needs HARDENED_USERCOPY to count) keeps the cache from being
	 * merged with another one; SLAB_NO_USER_FLAGS keeps slub_debug=
	 * from making it a debug cache, which would bypass the cpu slabs
	 * these tests examine.
	 */
	cache = kmem_cache_create_usercopy(name, size, 0,
					   SLAB_NO_USER_FLAGS | SLUB_NO_MERGE,
					   0, size, NULL);
	/* These tests examine the freelist front end, whatever the boot's. */
	if (cache && cache->array_size) {
		array_cache_release(cache);
		slub_cache_set_partial_limits(cache);
	}
	return cache;
}

static struct kmem_cache *kt_cache_create(const char *name)
{
	return kt_cache_create_size(name, KT_OBJ_SIZE);
}

static int kt_init(struct kunit *test)
{
	struct kt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	ctx->cache = kt_cache_create("slub_engine_test");
	if (!ctx->cache)
		return -ENOMEM;
	/* Pin the test thread; it exits with the test case. */
	ctx->cpu = raw_smp_processor_id();
	if (set_cpus_allowed_ptr(current, cpumask_of(ctx->cpu)))
		return -EINVAL;
	ctx->cpu = raw_smp_processor_id();
	ctx->node = numa_mem_id();
	return 0;
}

static void kt_exit(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	unsigned int i;

	if (!ctx)
		return;
	if (ctx->bulk)
		kmem_cache_free_bulk(ctx->cache, ctx->nr_bulk, ctx->bulk);
	for (i = 0; i < ctx->nr_objs; i++)
		if (ctx->objs[i])
			kmem_cache_free(ctx->cache, ctx->objs[i]);
	if (ctx->own) {
		slab_pair_set(ctx->own, &ctx->own_pair);
		slab_discard(ctx->cache, ctx->own);
	}
	kmem_cache_destroy(ctx->other);
	kmem_cache_destroy(ctx->cache);
}

/* Allocate @n objects on the node of the test cpu; returns the first index. */
static unsigned int kt_alloc(struct kunit *test, unsigned int n)
{
	struct kt_ctx *ctx = test->priv;
	unsigned int first = ctx->nr_objs;
	void *obj;

	while (n--) {
		KUNIT_ASSERT_LT(test, ctx->nr_objs, (unsigned int)KT_MAX_OBJS);
		obj = kmem_cache_alloc_node(ctx->cache, GFP_KERNEL, ctx->node);
		KUNIT_ASSERT_NOT_NULL(test, obj);
		ctx->objs[ctx->nr_objs++] = obj;
		/* A KFENCE object is outside our slabs: keep it, take another. */
		if (is_kfence_address(obj))
			n++;
	}
	return first;
}

/* An array of @nr entries whose objects kt_exit() frees. */
static void kt_bulk_array(struct kunit *test, size_t nr)
{
	struct kt_ctx *ctx = test->priv;

	ctx->bulk = kunit_kcalloc(test, nr, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->bulk);
	ctx->nr_bulk = nr;
}

static void kt_free(struct kt_ctx *ctx, unsigned int i)
{
	kmem_cache_free(ctx->cache, ctx->objs[i]);
	ctx->objs[i] = NULL;
}

static struct kmem_cache_cpu *kt_pcpu(struct kt_ctx *ctx)
{
	return per_cpu_ptr(ctx->cache->cpu_slab, ctx->cpu);
}

static struct kmem_cache_node *kt_node(struct kt_ctx *ctx)
{
	return get_node(ctx->cache, ctx->node);
}

/*
 * Allocate until @nr slabs have been filled and left behind by the cpu:
 * on return slabs[0..nr) are full and on no list, and the cpu slab is a
 * further slab with one object taken.  Needs a fresh cache.
 */
static void kt_fill_slabs(struct kunit *test, struct slab **slabs,
			  unsigned int nr)
{
	struct kt_ctx *ctx = test->priv;
	unsigned int seen = 0, i;
	struct slab *slab, *last = NULL;

	KUNIT_ASSERT_LE(test, nr, (unsigned int)KT_MAX_SLABS);
	if (oo_objects(ctx->cache->oo) > KT_MAX_PER_SLAB)
		kunit_skip(test, "%u objects per slab: too many for this test",
			   oo_objects(ctx->cache->oo));
	while (seen <= nr) {
		i = kt_alloc(test, 1);
		if (is_kfence_address(ctx->objs[i]))
			continue;
		slab = virt_to_slab(ctx->objs[i]);
		if (slab == last)
			continue;
		if (seen < nr)
			slabs[seen] = slab;
		last = slab;
		seen++;
	}
}

/* Index in ctx->objs of each live object of @slab, at most @max of them. */
static unsigned int kt_objs_of(struct kt_ctx *ctx, struct slab *slab,
			       unsigned int *idx, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < ctx->nr_objs && n < max; i++)
		if (ctx->objs[i] && !is_kfence_address(ctx->objs[i]) &&
		    virt_to_slab(ctx->objs[i]) == slab)
			idx[n++] = i;
	return n;
}

/* The slab pair as plain integers: KUnit cannot take typeof a bit field. */
struct kt_pair {
	void *freelist;
	unsigned int inuse, objects, frozen;
};

static struct kt_pair kt_pair(struct slab *slab)
{
	struct slab_pair p;

	slab_pair_read(slab, &p);
	return (struct kt_pair){
		.freelist = p.freelist,
		.inuse = p.cnt.inuse,
		.objects = p.cnt.objects,
		.frozen = p.cnt.frozen,
	};
}

/* Length of a free chain, stopping at @max + 1. */
static unsigned int kt_chain_len(struct kmem_cache *cache, void *head,
				 unsigned int max)
{
	unsigned int n = 0;

	for (; head && n <= max; head = obj_next(cache, head))
		n++;
	return n;
}

static bool kt_on_node_list(struct kmem_cache_node *kn, struct slab *slab)
{
	struct slab *pos;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&kn->list_lock, flags);
	list_for_each_entry(pos, &kn->partial, slab_list)
		if (pos == slab)
			found = true;
	spin_unlock_irqrestore(&kn->list_lock, flags);
	return found;
}

static bool kt_on_cpu_partial(struct kt_ctx *ctx, struct slab *slab)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	struct slab *pos = READ_ONCE(kt_pcpu(ctx)->partial);
	unsigned int n;

	for (n = 0; pos && n < KT_MAX_SLABS * 2; pos = pos->next, n++)
		if (pos == slab)
			return true;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
	return false;
}

static void kt_set_cpu_partial(struct kmem_cache *cache, unsigned int slabs)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	cache->cpu_partial_slabs = slabs;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

/* A private, unpublished slab of the test cache: all objects free. */
static struct slab *kt_own_slab(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;

	ctx->own = slab_new(ctx->cache, GFP_KERNEL, ctx->node);
	KUNIT_ASSERT_NOT_NULL(test, ctx->own);
	slab_pair_read(ctx->own, &ctx->own_pair);
	return ctx->own;
}

/* Last object of a free chain. */
static void *kt_chain_tail(struct kmem_cache *cache, void *head)
{
	while (head && obj_next(cache, head))
		head = obj_next(cache, head);
	return head;
}

static void kt_log_mark(struct kt_ctx *ctx)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	ctx->log_seq = iter.next_seq;
}

/* One pass over the lines readable from kt_log_mark() on. */
static bool kt_logged_once(struct kt_ctx *ctx, const char *a, const char *b)
{
	struct kmsg_dump_iter iter = { .cur_seq = ctx->log_seq };
	char line[256];
	size_t len;

	while (kmsg_dump_get_line(&iter, false, line, sizeof(line) - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, a) && strstr(line, b))
			return true;
	}
	return false;
}

/*
 * Did a line logged since kt_log_mark() contain both @a and @b?
 *
 * A reader of the printk ring stops at the first record not yet
 * finalized.  A record another cpu reserved before the mark and has not
 * committed yet hides every later one, ours included, until that cpu
 * gets to run again: under TCG on a loaded host, that is a few
 * milliseconds.  Measured with a second cpu printing without pause
 * (2026-12-04, series-aligned, 2 vCPUs): 88 of 60,000 scans right after
 * the print missed the line, and each found it at a retry 10 ms later
 * (the printing cpu paused meanwhile, or it would wrap the ring).  So a
 * miss is retried for up to a second before it counts.
 */
static bool kt_logged(struct kt_ctx *ctx, const char *a, const char *b)
{
	int tries;

	if (!IS_ENABLED(CONFIG_PRINTK))
		return true;
	for (tries = 0; tries < 50; tries++) {
		if (kt_logged_once(ctx, a, b))
			return true;
		msleep(20);
	}
	return false;
}

/* ---- Free pointer coding ---- */

static void kt_freelist_plain(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	void *a, *b, *c;
	unsigned int i;

	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "CONFIG_SLAB_FREELIST_HARDENED=y: plain coding compiled out");
	i = kt_alloc(test, 3);
	a = ctx->objs[i];
	b = ctx->objs[i + 1];
	c = ctx->objs[i + 2];

	obj_set_next(cache, a, b);
	KUNIT_ASSERT_PTR_EQ(test, *(void **)fp_slot(cache, a), b);
	KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, a), b);
	KUNIT_ASSERT_PTR_EQ(test, fp_code(cache, b, fp_slot(cache, c)), b);
	obj_set_next(cache, a, NULL);
	KUNIT_ASSERT_PTR_EQ(test, *(void **)fp_slot(cache, a), NULL);
	KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, a), NULL);
	/* Unprotected: a stored value moved to another slot still decodes. */
	obj_set_next(cache, a, b);
	*(void **)fp_slot(cache, c) = *(void **)fp_slot(cache, a);
	KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, c), b);
}

static void kt_freelist_hardened(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	unsigned long slot, raw;
	void *a, *b, *c, *moved;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "CONFIG_SLAB_FREELIST_HARDENED is not set");
	i = kt_alloc(test, 3);
	a = ctx->objs[i];
	b = ctx->objs[i + 1];
	c = ctx->objs[i + 2];
	slot = fp_slot(cache, a);

	obj_set_next(cache, a, b);
	raw = *(unsigned long *)slot;
	KUNIT_ASSERT_NE(test, raw, (unsigned long)b);
	KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, a), b);
	KUNIT_ASSERT_TRUE(test, fp_plausible(cache, a, b));

	/* A stored value copied to another slot decodes to garbage... */
	*(unsigned long *)fp_slot(cache, c) = raw;
	moved = obj_next(cache, c);
	KUNIT_ASSERT_PTR_NE(test, moved, b);
	/* ...which the allocator recognises as a corrupted pointer. */
	KUNIT_ASSERT_FALSE(test, fp_plausible(cache, c, moved));

	/* The end of a chain is not stored as a recognisable zero. */
	obj_set_next(cache, a, NULL);
	KUNIT_ASSERT_NE(test, *(unsigned long *)slot, 0UL);
	KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, a), NULL);

#ifdef CONFIG_SLAB_FREELIST_HARDENED
	/* The coding: pointer ^ cache key ^ byte-swapped slot address. */
	KUNIT_ASSERT_EQ(test, raw, (unsigned long)b ^ cache->random ^
			swab((unsigned long)kasan_reset_tag((void *)slot)));
#endif /* CONFIG_SLAB_FREELIST_HARDENED */
}

/* A new slab chains every slot exactly once, in random order if asked. */
static void kt_freelist_new_slab(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	DECLARE_BITMAP(seen, KT_MAX_PER_SLAB) = { };
	struct slab *slab = kt_own_slab(test);
	unsigned int n = 0, idx, objects, in_order = 0;
	void *base = slab_address(slab), *p, *prev = NULL;
	struct kt_pair pair = kt_pair(slab);
	unsigned long off;

	objects = pair.objects;
	KUNIT_ASSERT_GT(test, objects, 0U);
	KUNIT_ASSERT_LE(test, objects, (unsigned int)KT_MAX_PER_SLAB);
	KUNIT_ASSERT_EQ(test, objects, slab_objects(slab));
	KUNIT_ASSERT_EQ(test, pair.inuse, 0U);
	KUNIT_ASSERT_EQ(test, pair.frozen, 0U);
	KUNIT_ASSERT_PTR_EQ(test, slab->slab_cache, cache);

	for (p = pair.freelist; p && n < objects; p = obj_next(cache, p)) {
		off = p - base;
		KUNIT_ASSERT_TRUE(test, p >= base);
		KUNIT_ASSERT_EQ(test, off % cache->size, 0UL);
		idx = off / cache->size;
		KUNIT_ASSERT_LT(test, idx, objects);
		KUNIT_ASSERT_FALSE(test, test_and_set_bit(idx, seen));
		if (prev) {
			KUNIT_ASSERT_TRUE(test, fp_plausible(cache, prev, p));
			in_order += p == prev + cache->size;
		}
		prev = p;
		n++;
	}
	KUNIT_ASSERT_PTR_EQ(test, p, NULL);
	KUNIT_ASSERT_EQ(test, n, objects);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	/* Address order has probability 1/(n-1)!; don't test tiny slabs. */
	if (cache->random_seq && objects >= 8)
		KUNIT_ASSERT_LT(test, in_order, objects - 1);
#else
	KUNIT_ASSERT_EQ(test, in_order, objects - 1);
#endif /* CONFIG_SLAB_FREELIST_RANDOM */
}

/* ---- Counters packing ---- */

struct kt_counters {
	unsigned int inuse, objects, frozen;
};

/*
 * The counters word as <linux/slub_def.h> draws it: objects in bits
 * 0 to B-1, frozen in bit B, inuse in bits B+1 to 2B, B = 15, and above
 * them the fixed bits: bit 31 always clear, so that the word over
 * page_type never reads as a page type; or, B = 11 where the base marks
 * slab pages by page_type (CONFIG_SLUB_TYPED_COUNTERS), bit 23 clear and
 * PGTY_slab in bits 24-31, so that it always reads as a slab page.  The
 * upper half belongs to whatever the window overlaps (_refcount in the
 * shifted position) and is only ever written back as read.  @slab is
 * left with @own, its pair before the test.
 */
static void kt_counters_cases(struct kunit *test, struct slab *slab,
			      const struct slab_pair *own)
{
	static const struct kt_counters cases[] = {
		{ 0, 1, 0 }, { 1, 2, 1 }, { 0x123, 0x345, 0 },
		{ SLUB_MAX_OBJS, SLUB_MAX_OBJS, 1 }, { 0, SLUB_MAX_OBJS, 0 },
		{ SLUB_MAX_OBJS, 0, 0 },
	};
	void *freelist = own->freelist;
	unsigned long upper = slab_pair_words(slab)[1] & ~0xffffffffUL;
	const struct kt_counters *k;
	struct slab_pair p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		k = &cases[i];
		p.freelist = freelist;
		p.cnt.word = upper | SLAB_COUNTERS_FIXED;
		p.cnt.inuse = k->inuse;
		p.cnt.objects = k->objects;
		p.cnt.frozen = k->frozen;
		KUNIT_ASSERT_EQ(test, p.cnt.word, upper | SLAB_COUNTERS_FIXED |
				k->objects |
				(unsigned long)k->frozen << SLAB_COUNT_BITS |
				(unsigned long)k->inuse << (SLAB_COUNT_BITS + 1));
		/* A page type exactly where the base marks slabs by one. */
		KUNIT_ASSERT_EQ(test, slub_is_page_type(p.cnt.low),
				IS_ENABLED(CONFIG_SLUB_TYPED_COUNTERS));
		slab_pair_set(slab, &p);
		KUNIT_ASSERT_TRUE(test, folio_test_slab(slab_folio(slab)));
		KUNIT_ASSERT_EQ(test, slab_objects(slab), k->objects);
		KUNIT_ASSERT_EQ(test, slab_pair_words(slab)[1], p.cnt.word);
		KUNIT_ASSERT_PTR_EQ(test, (void *)slab_pair_words(slab)[0], freelist);

		slab_pair_read(slab, &p);
		KUNIT_ASSERT_EQ(test, (unsigned int)p.cnt.inuse, k->inuse);
		KUNIT_ASSERT_EQ(test, (unsigned int)p.cnt.objects, k->objects);
		KUNIT_ASSERT_EQ(test, (unsigned int)p.cnt.frozen, k->frozen);
		KUNIT_ASSERT_EQ(test, p.cnt.low & SLAB_COUNTERS_FIXED_MASK,
				SLAB_COUNTERS_FIXED);
		KUNIT_ASSERT_PTR_EQ(test, p.freelist, freelist);
	}
	slab_pair_set(slab, own);
	KUNIT_ASSERT_EQ(test, slab_validate(slab->slab_cache, slab), 0);
}

/*
 * The cases in each position of the pair that the struct page size
 * allows: a 56-byte page puts the counters over page_type at 8 mod 16,
 * the struct page of an odd pfn.  The slabs tried are held until one in
 * the other position turns up: a slab given back at once would be the
 * page the next one gets.
 */
static void kt_counters_packing(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct slab *slab = kt_own_slab(test), *tried[32], *other = NULL;
	struct slab_pair p;
	unsigned int n, i;

	kt_counters_cases(test, slab, &ctx->own_pair);
	if (sizeof(struct page) % (2 * sizeof(long)) == 0 || slab_order(slab))
		return;		/* every slab of the cache at 0 mod 16 */
	for (n = 0; n < ARRAY_SIZE(tried); n++) {
		tried[n] = slab_new(ctx->cache, GFP_KERNEL, ctx->node);
		if (!tried[n] || slab_pair_pos(tried[n]) != slab_pair_pos(slab))
			break;
	}
	if (n < ARRAY_SIZE(tried))
		other = tried[n];
	for (i = 0; i < n; i++)
		slab_discard(ctx->cache, tried[i]);
	KUNIT_ASSERT_NOT_NULL_MSG(test, other, "no slab in position %u of %u",
				  !slab_pair_pos(slab), n);
	slab_pair_read(other, &p);
	kt_counters_cases(test, other, &p);
	slab_discard(ctx->cache, other);
}

/*
 * A slab never holds more objects than the counters count, whatever
 * slab_min_objects= asks for: an order past SLUB_MAX_OBJS objects would
 * leave its tail unused (half of each slab of kmalloc-8 at
 * slab_min_objects=4096 with 11-bit counters).  It still holds at least
 * half of what the counters, the maximum order and the wish allow.
 */
static void kt_order_objects_cap(struct kunit *test)
{
	static const unsigned int sizes[] = { 8, 16, 24, 64, 192, 4096 };
	static const unsigned int wants[] = { 0, 16, 4096, 65535 };
	unsigned int i, j, objs, best;
	int order;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(wants); j++) {
			order = slab_order_for(sizes[i], wants[j]);
			KUNIT_ASSERT_GE(test, order, 0);
			objs = (PAGE_SIZE << order) / sizes[i];
			KUNIT_EXPECT_LE_MSG(test, objs, SLUB_MAX_OBJS,
					    "size %u, min_objects %u: order %d",
					    sizes[i], wants[j], order);
			best = min3(wants[j] ? wants[j] : 16U, SLUB_MAX_OBJS,
				    (unsigned int)((PAGE_SIZE << slub_max_order) /
						   sizes[i]));
			KUNIT_EXPECT_GE_MSG(test, 2 * objs, best,
					    "size %u, min_objects %u: order %d",
					    sizes[i], wants[j], order);
		}
	}
}

/* ---- Slab state transitions through the real alloc and free paths ---- */

static void kt_need_direct_free(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "the KASAN quarantine delays frees");
}

static void kt_expect_full(struct kunit *test, struct slab *slab)
{
	struct kt_ctx *ctx = test->priv;
	struct kt_pair p = kt_pair(slab);

	KUNIT_ASSERT_PTR_EQ(test, p.freelist, NULL);
	KUNIT_ASSERT_EQ(test, p.inuse, p.objects);
	KUNIT_ASSERT_EQ(test, p.frozen, 0U);
	KUNIT_ASSERT_FALSE(test, kt_on_node_list(kt_node(ctx), slab));
	KUNIT_ASSERT_FALSE(test, kt_on_cpu_partial(ctx, slab));
	KUNIT_ASSERT_EQ(test, slab_validate(ctx->cache, slab), 0);
}

/*
 * A free to a full slab makes it partial: parked on the freeing cpu's
 * partial list when cpu partials are on, else on its node list.  Once the
 * cpu slab runs out, that slab becomes the cpu slab again.
 */
static void kt_full_to_partial_and_back(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kmem_cache_node *kn = kt_node(ctx);
	unsigned int idx[KT_MAX_PER_SLAB], n, i, objects;
	struct slab *slab, *cpu_slab;
	struct kt_pair p;
	void *freed;

	kt_need_direct_free(test);
	kt_fill_slabs(test, &slab, 1);
	cpu_slab = READ_ONCE(kt_pcpu(ctx)->slab);
	KUNIT_ASSERT_NOT_NULL(test, cpu_slab);
	KUNIT_ASSERT_PTR_NE(test, cpu_slab, slab);
	kt_expect_full(test, slab);

	objects = slab_objects(slab);
	n = kt_objs_of(ctx, slab, idx, KT_MAX_PER_SLAB);
	KUNIT_ASSERT_EQ(test, n, objects);
	freed = ctx->objs[idx[0]];
	kt_free(ctx, idx[0]);
	p = kt_pair(slab);
	KUNIT_ASSERT_PTR_EQ(test, p.freelist, freed);
	KUNIT_ASSERT_EQ(test, p.inuse, objects - 1);
	KUNIT_ASSERT_EQ(test, p.frozen, (unsigned int)cpu_partial_enabled(cache));
	KUNIT_ASSERT_EQ(test, kt_on_cpu_partial(ctx, slab), cpu_partial_enabled(cache));
	KUNIT_ASSERT_NE(test, kt_on_node_list(kn, slab), cpu_partial_enabled(cache));
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);

	/* Drain the cpu slab; the next object is the one just freed. */
	n = kt_objs_of(ctx, cpu_slab, idx, KT_MAX_PER_SLAB);
	kt_alloc(test, slab_objects(cpu_slab) - n);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->slab), cpu_slab);
	i = kt_alloc(test, 1);
	KUNIT_ASSERT_PTR_EQ(test, ctx->objs[i], freed);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->slab), slab);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->freelist), NULL);
	p = kt_pair(slab);
	KUNIT_ASSERT_PTR_EQ(test, p.freelist, NULL);
	KUNIT_ASSERT_EQ(test, p.inuse, objects);
	KUNIT_ASSERT_EQ(test, p.frozen, 1U);
	KUNIT_ASSERT_FALSE(test, kt_on_cpu_partial(ctx, slab));
	KUNIT_ASSERT_FALSE(test, kt_on_node_list(kn, slab));
	/* The old cpu slab was let go full. */
	kt_expect_full(test, cpu_slab);
}

/*
 * Node partial slabs that become empty are freed while the node keeps
 * min_partial others, and kept on the list below that.
 */
static void kt_empty_freed_beyond_min_partial(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kmem_cache_node *kn = kt_node(ctx);
	unsigned int idx[KT_MAX_PER_SLAB], n, i, s;
	unsigned long slabs_now, want_partial;
	const unsigned int nr = 4, min_partial = 2;
	struct slab *slabs[4];
	struct kt_pair p;
	bool kept;

	kt_need_direct_free(test);
	kt_set_cpu_partial(cache, 0);
	WRITE_ONCE(cache->min_partial, min_partial);
	kt_fill_slabs(test, slabs, nr);
	KUNIT_ASSERT_EQ(test, kn->nr_partial, 0UL);
	/* The full slabs and the cpu slab. */
	slabs_now = slub_node_slabs(kn);
	KUNIT_ASSERT_EQ(test, slabs_now, nr + 1UL);

	/* One free each: full -> node partial. */
	for (s = 0; s < nr; s++) {
		kt_objs_of(ctx, slabs[s], idx, 1);
		kt_free(ctx, idx[0]);
		p = kt_pair(slabs[s]);
		KUNIT_ASSERT_EQ(test, p.frozen, 0U);
		KUNIT_ASSERT_EQ(test, p.inuse, p.objects - 1);
		KUNIT_ASSERT_TRUE(test, kt_on_node_list(kn, slabs[s]));
		KUNIT_ASSERT_EQ(test, kn->nr_partial, s + 1UL);
		KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[s]), 0);
	}

	/*
	 * Empty them in turn.  A slab is freed if the node has at least
	 * min_partial partial slabs, itself included; else it is kept.
	 */
	for (s = 0; s < nr; s++) {
		want_partial = kn->nr_partial;
		kept = want_partial < min_partial;
		if (!kept) {
			want_partial--;
			slabs_now--;
		}
		n = kt_objs_of(ctx, slabs[s], idx, KT_MAX_PER_SLAB);
		for (i = 0; i < n; i++)
			kt_free(ctx, idx[i]);
		KUNIT_ASSERT_EQ(test, kn->nr_partial, want_partial);
		KUNIT_ASSERT_EQ(test, slub_node_slabs(kn), slabs_now);
		KUNIT_ASSERT_EQ(test, kt_on_node_list(kn, slabs[s]), kept);
	}
	/* Only the last one was kept, empty, unfrozen and whole. */
	KUNIT_ASSERT_EQ(test, kn->nr_partial, min_partial - 1UL);
	p = kt_pair(slabs[nr - 1]);
	KUNIT_ASSERT_EQ(test, p.inuse, 0U);
	KUNIT_ASSERT_EQ(test, p.frozen, 0U);
	KUNIT_ASSERT_EQ(test, kt_chain_len(cache, p.freelist, p.objects),
			p.objects);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[nr - 1]), 0);
}

/*
 * Frees to full slabs park them on the cpu partial list, which never
 * exceeds its bound: a full list is handed to the node lists, no slab
 * lost on the way.
 */
static void kt_cpu_partial_bounded(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kmem_cache_node *kn = kt_node(ctx);
	const unsigned int bound = 2, nr = 2 * 2 + 1;
	struct slab *slabs[2 * 2 + 1];
	unsigned int idx[1], s, len;
	struct kt_pair p;

	if (!IS_ENABLED(CONFIG_SLUB_CPU_PARTIAL))
		kunit_skip(test, "CONFIG_SLUB_CPU_PARTIAL is not set");
	kt_need_direct_free(test);
	kt_set_cpu_partial(cache, bound);
	kt_fill_slabs(test, slabs, nr);
	KUNIT_ASSERT_EQ(test, kn->nr_partial, 0UL);

	for (s = 0; s < nr; s++) {
		kt_objs_of(ctx, slabs[s], idx, 1);
		kt_free(ctx, idx[0]);
		len = cpu_partial_len(cpu_partial_peek(kt_pcpu(ctx)));
		KUNIT_ASSERT_GE(test, len, 1U);
		KUNIT_ASSERT_LE(test, len, bound);
		KUNIT_ASSERT_EQ(test, len + kn->nr_partial, s + 1UL);
		KUNIT_ASSERT_TRUE(test, kt_on_cpu_partial(ctx, slabs[s]));
		p = kt_pair(slabs[s]);
		KUNIT_ASSERT_EQ(test, p.frozen, 1U);
		KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[s]), 0);
	}
	/* Two spills of a full list, one slab still parked. */
	KUNIT_ASSERT_EQ(test, kn->nr_partial, 2UL * bound);
	for (s = 0; s < 2 * bound; s++) {
		p = kt_pair(slabs[s]);
		KUNIT_ASSERT_EQ(test, p.frozen, 0U);
		KUNIT_ASSERT_TRUE(test, kt_on_node_list(kn, slabs[s]));
		KUNIT_ASSERT_FALSE(test, kt_on_cpu_partial(ctx, slabs[s]));
	}
}

/* ---- Bulk free ---- */

#define KT_BULK_SLABS	3	/* interleaved: closer than BULK_LOOKAHEAD */
#define KT_BULK_EACH	4

/* What is wrong with a bulk group, checked before its commit, or NULL. */
static const char *kt_group_fault(struct kmem_cache *cache,
				  const struct bulk_group *g, void **p,
				  size_t size, void **orig, size_t nr)
{
	unsigned int n = 0;
	void *obj, *last = NULL;
	size_t i;

	if (g->cache != cache)
		return "group of another cache";
	if (g->cnt != KT_BULK_EACH)
		return "group is not all the objects of its slab";
	for (obj = g->head; obj && n <= g->cnt; obj = obj_next(cache, obj)) {
		if (virt_to_slab(obj) != g->slab)
			return "chain leaves the slab";
		last = obj;
		n++;
	}
	if (n != g->cnt || last != g->tail)
		return "chain is not head..tail of cnt objects";
	for (i = nr; i-- > 0;)
		if (virt_to_slab(orig[i]) == g->slab)
			break;
	if (g->tail != orig[i])
		return "tail is not the last entry of its slab";
	for (i = 0; i < size; i++)
		if (p[i] && virt_to_slab(p[i]) == g->slab)
			return "an object of the slab was left out";
	return NULL;
}

/*
 * Objects of three slabs, interleaved, are grouped into one chain per
 * slab, and each chain is committed at once.
 */
static void kt_bulk_groups_by_slab(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	const size_t nr = KT_BULK_SLABS * KT_BULK_EACH;
	unsigned int idx[KT_BULK_EACH], s, j, n, groups = 0;
	struct slab *slabs[KT_BULK_SLABS];
	struct kt_pair before, after;
	struct bulk_group g;
	void *orig[KT_BULK_SLABS * KT_BULK_EACH];
	const char *fault;
	size_t size;

	BUILD_BUG_ON(KT_BULK_SLABS > BULK_LOOKAHEAD);
	kt_need_direct_free(test);
	kt_fill_slabs(test, slabs, KT_BULK_SLABS);
	kt_bulk_array(test, nr);
	for (s = 0; s < KT_BULK_SLABS; s++) {
		n = kt_objs_of(ctx, slabs[s], idx, KT_BULK_EACH);
		KUNIT_ASSERT_EQ(test, n, (unsigned int)KT_BULK_EACH);
		for (j = 0; j < KT_BULK_EACH; j++) {
			ctx->bulk[j * KT_BULK_SLABS + s] = ctx->objs[idx[j]];
			ctx->objs[idx[j]] = NULL;
		}
	}
	memcpy(orig, ctx->bulk, sizeof(orig));

	size = nr;
	while (size) {
		size = bulk_group_build(cache, size, ctx->bulk, &g, true);
		if (!g.cnt)
			continue;
		groups++;
		/* A group taken must be committed before any assertion. */
		fault = kt_group_fault(cache, &g, ctx->bulk, size, orig, nr);
		before = kt_pair(g.slab);
		do_slab_free(g.cache, g.slab, g.head, g.tail, g.cnt, _RET_IP_);
		after = kt_pair(g.slab);
		KUNIT_ASSERT_TRUE_MSG(test, !fault, "group %u: %s", groups, fault);
		/* One commit: the whole chain on top of the old freelist. */
		KUNIT_ASSERT_EQ(test, after.inuse, before.inuse - g.cnt);
		KUNIT_ASSERT_PTR_EQ(test, after.freelist, g.head);
		KUNIT_ASSERT_PTR_EQ(test, obj_next(cache, g.tail), before.freelist);
		KUNIT_ASSERT_EQ(test, slab_validate(cache, g.slab), 0);
	}
	KUNIT_ASSERT_EQ(test, groups, (unsigned int)KT_BULK_SLABS);
}

/* kmem_cache_free_bulk() of whole slabs, interleaved and with holes. */
static void kt_bulk_free_whole_slabs(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kmem_cache_node *kn = kt_node(ctx);
	unsigned int idx[KT_MAX_PER_SLAB], s, j, n, objects;
	struct slab *slabs[KT_BULK_SLABS];
	size_t size;

	kt_need_direct_free(test);
	/* Keep the emptied slabs on the node list to look at them. */
	kt_set_cpu_partial(cache, 0);
	WRITE_ONCE(cache->min_partial, KT_BULK_SLABS + 1);
	kt_fill_slabs(test, slabs, KT_BULK_SLABS);
	objects = slab_objects(slabs[0]);
	/* Every (KT_BULK_SLABS + 1)-th entry is a NULL hole. */
	size = objects * (KT_BULK_SLABS + 1);
	kt_bulk_array(test, size);
	for (s = 0; s < KT_BULK_SLABS; s++) {
		n = kt_objs_of(ctx, slabs[s], idx, KT_MAX_PER_SLAB);
		KUNIT_ASSERT_EQ(test, n, objects);
		for (j = 0; j < n; j++) {
			ctx->bulk[j * (KT_BULK_SLABS + 1) + s] = ctx->objs[idx[j]];
			ctx->objs[idx[j]] = NULL;
		}
	}
	kmem_cache_free_bulk(cache, size, ctx->bulk);

	KUNIT_ASSERT_EQ(test, kn->nr_partial, (unsigned long)KT_BULK_SLABS);
	for (s = 0; s < KT_BULK_SLABS; s++) {
		struct kt_pair q = kt_pair(slabs[s]);

		KUNIT_ASSERT_EQ(test, q.inuse, 0U);
		KUNIT_ASSERT_EQ(test, q.frozen, 0U);
		KUNIT_ASSERT_EQ(test, kt_chain_len(cache, q.freelist, objects),
				objects);
		KUNIT_ASSERT_TRUE(test, kt_on_node_list(kn, slabs[s]));
		KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[s]), 0);
	}
}

/* ---- The cpu freelist and its tid ---- */

/*
 * Every change of the cpu freelist moves the tid on, so that a fastpath
 * that read (freelist, tid) before an interruption fails its cmpxchg
 * instead of committing over a freelist changed meanwhile.  The lockless
 * fastpaths move it by exactly one step.
 */
static void kt_expect_tid_moved(struct kunit *test, unsigned long before)
{
	struct kt_ctx *ctx = test->priv;
	unsigned long now = READ_ONCE(kt_pcpu(ctx)->tid);

	if (slub_fastpath_locked())
		KUNIT_EXPECT_NE(test, now, before);
	else
		KUNIT_EXPECT_EQ(test, now, tid_next(before));
}

static void kt_fastpath_tid_alloc(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache_cpu *pcpu = kt_pcpu(ctx);
	unsigned long tid;
	unsigned int i;
	void *head;

	kt_alloc(test, 1);		/* a cpu slab with free objects */
	head = READ_ONCE(pcpu->freelist);
	KUNIT_ASSERT_NOT_NULL(test, head);
	tid = READ_ONCE(pcpu->tid);
	i = kt_alloc(test, 1);
	KUNIT_ASSERT_PTR_EQ(test, ctx->objs[i], head);
	kt_expect_tid_moved(test, tid);
}

static void kt_fastpath_tid_free(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache_cpu *pcpu = kt_pcpu(ctx);
	unsigned long tid;
	unsigned int i;
	void *obj;

	kt_need_direct_free(test);
	i = kt_alloc(test, 2);
	obj = ctx->objs[i + 1];
	KUNIT_ASSERT_PTR_EQ(test, virt_to_slab(obj), READ_ONCE(pcpu->slab));
	tid = READ_ONCE(pcpu->tid);
	kt_free(ctx, i + 1);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(pcpu->freelist), obj);
	kt_expect_tid_moved(test, tid);
}

/* ---- slab_validate() ---- */

/* Good slabs in every state pass; the cpu freelist lies in the cpu slab. */
static void kt_validate_good(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kmem_cache_cpu *pcpu = kt_pcpu(ctx);
	unsigned int idx[1], n = 0;
	struct slab *slabs[2], *cpu_slab;
	void *obj;

	KUNIT_ASSERT_EQ(test, slab_validate(cache, kt_own_slab(test)), 0);
	kt_need_direct_free(test);
	kt_fill_slabs(test, slabs, ARRAY_SIZE(slabs));
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[0]), 0);
	cpu_slab = READ_ONCE(pcpu->slab);
	KUNIT_ASSERT_NOT_NULL(test, cpu_slab);
	/* Objects on the cpu freelist count as in use in the cpu slab. */
	KUNIT_ASSERT_EQ(test, kt_pair(cpu_slab).inuse, slab_objects(cpu_slab));
	KUNIT_ASSERT_EQ(test, slab_validate(cache, cpu_slab), 0);
	for (obj = READ_ONCE(pcpu->freelist); obj && n < slab_objects(cpu_slab);
	     obj = obj_next(cache, obj), n++)
		KUNIT_ASSERT_PTR_EQ(test, virt_to_slab(obj), cpu_slab);
	KUNIT_ASSERT_EQ(test, n, slab_objects(cpu_slab) - 1);

	kt_objs_of(ctx, slabs[1], idx, 1);
	kt_free(ctx, idx[0]);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slabs[1]), 0);
	/* Flushes the cpu state to the node lists and checks them. */
	KUNIT_ASSERT_EQ(test, validate_slab_cache(cache), 0L);
	KUNIT_ASSERT_EQ(test, kt_node(ctx)->nr_partial, 2UL);
}

/* Expect one report naming the cache and saying @what. */
static void kt_expect_invalid(struct kunit *test, struct kmem_cache *cache,
			      struct slab *slab, const char *what)
{
	struct kt_ctx *ctx = test->priv;
	char prefix[64];
	int errors;

	snprintf(prefix, sizeof(prefix), "SLUB %s: ", cache->name);
	kt_log_mark(ctx);
	/*
	 * Console scanners (harness/parse-results.py) check that the region
	 * holds a report of an invalid slab and no other report, and fail
	 * the engine's reports outside such regions.
	 */
	pr_err("HARNESS: expect-splat-begin %s slub-invalid\n", test->name);
	errors = slab_validate(cache, slab);
	pr_err("HARNESS: expect-splat-end %s\n", test->name);
	KUNIT_ASSERT_EQ(test, errors, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kt_logged(ctx, prefix, what),
			      "no report \"%s\" from %s", what, cache->name);
}

/* inuse + |freelist| != objects: counted too many or lost objects. */
static void kt_validate_bad_count(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct slab *slab = kt_own_slab(test);
	struct slab_pair p = ctx->own_pair;
	unsigned int objects = p.cnt.objects;
	char what[64];
	void *obj, *next;

	p.cnt.inuse = 1;
	slab_pair_set(slab, &p);
	snprintf(what, sizeof(what), "inuse 1 + free %u != objects %u",
		 objects, objects);
	kt_expect_invalid(test, cache, slab, what);
	slab_pair_set(slab, &ctx->own_pair);

	/* Cut the chain after the second object. */
	obj = obj_next(cache, ctx->own_pair.freelist);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	next = obj_next(cache, obj);
	obj_set_next(cache, obj, NULL);
	snprintf(what, sizeof(what), "inuse 0 + free 2 != objects %u", objects);
	kt_expect_invalid(test, cache, slab, what);
	obj_set_next(cache, obj, next);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);
}

/* Free pointers leaving the slab or missing an object start. */
static void kt_validate_bad_pointer(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct slab *slab = kt_own_slab(test);
	void *base = slab_address(slab), *obj, *next, *bad[4];
	unsigned int i;

	i = kt_alloc(test, 1);
	bad[0] = base + slab_size(slab);		/* just past the slab */
	bad[1] = base - cache->size;			/* just before it */
	bad[2] = base + sizeof(void *);			/* inside an object */
	bad[3] = ctx->objs[i];				/* object of another slab */
	KUNIT_ASSERT_PTR_NE(test, virt_to_slab(bad[3]), slab);

	/* Corrupt the free pointer of the second object. */
	obj = obj_next(cache, ctx->own_pair.freelist);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	next = obj_next(cache, obj);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		obj_set_next(cache, obj, bad[i]);
		kt_expect_invalid(test, cache, slab, "(2 free seen)");
	}
	obj_set_next(cache, obj, next);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);
}

/* A freelist cycle is caught, not walked forever. */
static void kt_validate_loop(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct slab *slab = kt_own_slab(test);
	void *head = ctx->own_pair.freelist, *tail, *second;
	unsigned int objects = ctx->own_pair.cnt.objects;
	char what[32];

	snprintf(what, sizeof(what), "(%u free seen)", objects);
	tail = kt_chain_tail(cache, head);
	obj_set_next(cache, tail, head);
	kt_expect_invalid(test, cache, slab, what);
	obj_set_next(cache, tail, NULL);

	/* The shortest one: an object pointing at itself. */
	second = obj_next(cache, head);
	obj_set_next(cache, head, head);
	kt_expect_invalid(test, cache, slab, what);
	obj_set_next(cache, head, second);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);
}

/* Slab of another cache, impossible counters. */
static void kt_validate_bad_slab(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct slab *slab = kt_own_slab(test);
	struct slab_pair p = ctx->own_pair;
	unsigned int objects = p.cnt.objects;
	unsigned int fit = slab_size(slab) / cache->size;
	char what[64];

	ctx->other = kt_cache_create("slub_engine_test2");
	KUNIT_ASSERT_NOT_NULL(test, ctx->other);
	kt_expect_invalid(test, ctx->other, slab, "is not a slab of this cache");

	p.cnt.objects = 0;
	slab_pair_set(slab, &p);
	kt_expect_invalid(test, cache, slab, "bad counters: objects 0 inuse 0");

	p.cnt.objects = fit + 1;
	slab_pair_set(slab, &p);
	snprintf(what, sizeof(what), "bad counters: objects %u inuse 0", fit + 1);
	kt_expect_invalid(test, cache, slab, what);

	p.cnt.objects = objects;
	p.cnt.inuse = objects + 1;
	slab_pair_set(slab, &p);
	snprintf(what, sizeof(what), "bad counters: objects %u inuse %u",
		 objects, objects + 1);
	kt_expect_invalid(test, cache, slab, what);

	/* The lowest fixed bit: never set, and not the page type's. */
	p = ctx->own_pair;
	p.cnt.low ^= 1U << SLAB_FIXED_SHIFT;
	slab_pair_set(slab, &p);
	snprintf(what, sizeof(what), "bad counters: objects %u inuse %u (word %#x)",
		 objects, (unsigned int)p.cnt.inuse, p.cnt.low);
	kt_expect_invalid(test, cache, slab, what);

	slab_pair_set(slab, &ctx->own_pair);
	KUNIT_ASSERT_EQ(test, slab_validate(cache, slab), 0);
}

/* ---- Boot of node_cache ---- */

/*
 * The boot of node_cache, replayed on a copy of a cache of node
 * structures (larger than the test cache's objects where spinlock_t is,
 * as on PREEMPT_RT with lockdep): each node structure carved from a slab
 * of the cache itself.  Every such slab is counted once, and the
 * statistics of those slabs (an order fallback here: the preferred order
 * cannot be had) land in the cache's per-cpu counters, which exist by
 * then.
 */
static void kt_node_bootstrap(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache_node *kn;
	struct kmem_cache *nc;
	unsigned int nodes = 0;
	unsigned long flags;
	struct slab *slab;
	int node;
	bool ok;

	ctx->other = kt_cache_create_size("slub_engine_node",
					  sizeof(struct kmem_cache_node));
	KUNIT_ASSERT_NOT_NULL(test, ctx->other);
	nc = kunit_kzalloc(test, kmem_cache->object_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nc);
	memcpy(nc, ctx->other, kmem_cache->object_size);
	nc->cpu_slab = NULL;
	memset(nc->node, 0, nr_node_ids * sizeof(nc->node[0]));
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	nc->random_seq = NULL;
#endif /* CONFIG_SLAB_FREELIST_RANDOM */
#ifndef CONFIG_SLUB_DEBUG
	atomic_long_set(&nc->nr_slabs, 0);
#endif /* CONFIG_SLUB_DEBUG */
	/* An order the page allocator refuses quietly: always fall back. */
	nc->oo = oo_make(SLUB_NR_ORDERS, nc->size);

	mutex_lock(&slab_mutex);
	ok = cache_alloc_state(nc, true);
	mutex_unlock(&slab_mutex);
	KUNIT_ASSERT_TRUE(test, ok);
	for_each_node_mask(node, slub_nodes) {
		kn = get_node(nc, node);
		KUNIT_ASSERT_NOT_NULL(test, kn);
		nodes++;
		KUNIT_EXPECT_EQ(test, kn->nr_partial, 1UL);
#ifdef CONFIG_SLUB_DEBUG
		KUNIT_EXPECT_EQ(test, slub_node_slabs(kn), 1UL);
#endif /* CONFIG_SLUB_DEBUG */
	}
	KUNIT_EXPECT_EQ(test, cache_slabs(nc), (unsigned long)nodes);
#ifdef CONFIG_SLUB_STATS
	{
		unsigned long fallbacks = 0;
		int cpu;

		for_each_possible_cpu(cpu)
			fallbacks += per_cpu_ptr(nc->cpu_slab, cpu)->stat[ORDER_FALLBACK];
		KUNIT_EXPECT_EQ(test, fallbacks, (unsigned long)nodes);
	}
#endif /* CONFIG_SLUB_STATS */

	for_each_node_mask(node, slub_nodes) {
		struct slab_pair p;

		kn = get_node(nc, node);
		slab = virt_to_slab(kn);
		spin_lock_irqsave(&kn->list_lock, flags);
		node_del_partial(kn, slab);
		spin_unlock_irqrestore(&kn->list_lock, flags);
		/* The node structure in it dies with the slab. */
		slab_pair_read(slab, &p);
		p.cnt.inuse = 0;
		slab_pair_set(slab, &p);
		slab_discard(nc, slab);
		nc->node[node] = NULL;
	}
	free_percpu(nc->cpu_slab);
}

/*
 * A slab whose vector of object extensions could not be made is marked
 * (MEM_ALLOC_PROFILING_DEBUG); the vector that a later allocation makes
 * marks every entry empty, as objects allocated meanwhile have no tag.
 * An object that was free then and is allocated now takes its tag, as
 * the one allocated then keeps its empty mark.  Before the fix this
 * allocation read a tag at address 1 (6.12's alloc_tag_add_check()).
 */
static void kt_objexts_late_vector(struct kunit *test)
{
#if defined(CONFIG_MEM_ALLOC_PROFILING_DEBUG) && defined(CONFIG_SLAB_OBJ_EXT)
	struct kt_ctx *ctx = test->priv;
	unsigned int i = ctx->nr_objs;
	struct slabobj_ext *ext;
	struct slab *slab;

	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "allocation profiling is off at boot");
	/* Two objects of the new cache's first slab (not KFENCE's). */
	KUNIT_ASSERT_LT(test, i + 1, (unsigned int)KT_MAX_OBJS);
	ctx->objs[i] = kmem_cache_alloc(ctx->cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->objs[i]);
	ctx->objs[i + 1] = kmem_cache_alloc(ctx->cache, GFP_KERNEL);
	ctx->nr_objs += 2;
	KUNIT_ASSERT_NOT_NULL(test, ctx->objs[i + 1]);
	KUNIT_ASSERT_FALSE(test, is_kfence_address(ctx->objs[i]) ||
			   is_kfence_address(ctx->objs[i + 1]));
	slab = virt_to_slab(ctx->objs[i]);
	KUNIT_ASSERT_PTR_EQ(test, slab, virt_to_slab(ctx->objs[i + 1]));
	KUNIT_ASSERT_NOT_NULL(test, slab_obj_exts(slab));
	/* objs[i + 1] free again, objs[i] as if allocated without a vector. */
	kmem_cache_free(ctx->cache, ctx->objs[i + 1]);
	ctx->objs[i + 1] = NULL;
	alloc_tag_sub(&slub_obj_ext(ctx->cache, slab, ctx->objs[i])->ref,
		      ctx->cache->size);
	slub_obj_exts_free(slab);
	slab->obj_exts = OBJEXTS_ALLOC_FAIL;

	ctx->objs[i + 1] = kmem_cache_alloc(ctx->cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->objs[i + 1]);
	KUNIT_ASSERT_PTR_EQ(test, virt_to_slab(ctx->objs[i + 1]), slab);
	KUNIT_ASSERT_NOT_NULL(test, slab_obj_exts(slab));
	ext = slub_obj_ext(ctx->cache, slab, ctx->objs[i + 1]);
	KUNIT_EXPECT_NOT_NULL(test, ext->ref.ct);
	KUNIT_EXPECT_FALSE(test, is_codetag_empty(&ext->ref));
	ext = slub_obj_ext(ctx->cache, slab, ctx->objs[i]);
	KUNIT_EXPECT_TRUE(test, is_codetag_empty(&ext->ref));
#else
	kunit_skip(test, "needs MEM_ALLOC_PROFILING_DEBUG (6.12 on)");
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG && CONFIG_SLAB_OBJ_EXT */
}

/*
 * An interleaving task's search of other nodes' partial slabs takes no
 * step of its interleave (THEORY 6): any_partial_search_node() starts it
 * from the cpu's node and leaves current->il_prev alone, so that the
 * slab allocated after a fruitless search lands on the next node of the
 * interleave rather than the one after it.  mempolicy_slab_node() itself
 * takes a step, which is what makes a change of il_prev visible here.
 */
static void kt_partial_search_interleave(struct kunit *test)
{
#ifdef CONFIG_NUMA
	struct mempolicy pol = {}, *saved;
	int node, before;

	if (num_node_state(N_MEMORY) < 2)
		kunit_skip(test, "one memory node: an interleave takes no step");
	pol.mode = MPOL_INTERLEAVE;
	pol.nodes = node_states[N_MEMORY];
	saved = current->mempolicy;
	task_lock(current);
	current->mempolicy = &pol;
	task_unlock(current);

	before = current->il_prev;
	mempolicy_slab_node();
	KUNIT_EXPECT_NE_MSG(test, current->il_prev, before,
			    "mempolicy_slab_node() took no interleave step");
	before = current->il_prev;
	node = any_partial_search_node();
	KUNIT_EXPECT_EQ(test, current->il_prev, before);
	KUNIT_EXPECT_EQ(test, node, numa_mem_id());

	task_lock(current);
	current->mempolicy = saved;
	task_unlock(current);
	/* Without an interleave the search starts where the policy says. */
	KUNIT_EXPECT_EQ(test, any_partial_search_node(), mempolicy_slab_node());
#else
	kunit_skip(test, "no CONFIG_NUMA: no mempolicy");
#endif /* CONFIG_NUMA */
}

/* ---- Errors caught on the way ---- */

/*
 * A chain whose last object is already the head of the slab freelist (a
 * double free caught by FREELIST_HARDENED): that object is dropped, the
 * others are freed.  The chain is built by hand, as a bulk free would,
 * and committed by do_slab_free() directly: no KASAN hook sees it.
 */
static void kt_double_free_in_chain(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	unsigned int idx[KT_MAX_PER_SLAB], n;
	struct kunit_resource res;
	struct kt_pair before, after;
	void *a, *b, *c;
	struct slab *slab;
	int errors = 0;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "CONFIG_SLAB_FREELIST_HARDENED is not set: no check");
	kt_need_direct_free(test);
	kt_fill_slabs(test, &slab, 1);
	n = kt_objs_of(ctx, slab, idx, KT_MAX_PER_SLAB);
	KUNIT_ASSERT_GE(test, n, 3U);
	a = ctx->objs[idx[0]];
	b = ctx->objs[idx[1]];
	c = ctx->objs[idx[2]];
	/* a is freed: the slab freelist is a. */
	kt_free(ctx, idx[0]);
	before = kt_pair(slab);
	KUNIT_ASSERT_PTR_EQ(test, before.freelist, a);

	/* b -> c -> a, a again as the tail. */
	ctx->objs[idx[1]] = NULL;
	ctx->objs[idx[2]] = NULL;
	obj_set_next(cache, b, c);
	obj_set_next(cache, c, a);
	kunit_add_named_resource(test, NULL, NULL, &res, "slab_errors", &errors);
	do_slab_free(cache, slab, b, a, 3, _RET_IP_);
	kunit_remove_resource(test, &res);
	after = kt_pair(slab);

	KUNIT_EXPECT_EQ(test, errors, 1);
	KUNIT_EXPECT_EQ(test, after.inuse, before.inuse - 2);
	KUNIT_EXPECT_PTR_EQ(test, after.freelist, b);
	KUNIT_EXPECT_PTR_EQ(test, obj_next(cache, b), c);
	KUNIT_EXPECT_PTR_EQ(test, obj_next(cache, c), a);
	KUNIT_EXPECT_EQ(test, slab_validate(cache, slab), 0);
	if (after.inuse == before.inuse) {
		/* Not freed: give them back to kt_exit(). */
		ctx->objs[idx[1]] = b;
		ctx->objs[idx[2]] = c;
	}
}

/* What kt_page_free_probe() saw of the one page it watches. */
struct kt_page_seen {
	struct page *page;
	bool freed;
	bool by_worker;
};

/*
 * A SLAB_TYPESAFE_BY_RCU cache whose creator names a word of the object
 * for the free pointer (kmem_cache_args.freeptr_offset) keeps it there
 * and takes no word more; without one it goes after the object.
 */
static void kt_rcu_freeptr_offset(struct kunit *test)
{
#if SLUB_HAS_FREEPTR_OFFSET
	struct kmem_cache_args args = {
		.freeptr_offset = 2 * sizeof(void *),
		.use_freeptr_offset = true,
	};
	const slab_flags_t flags = SLAB_TYPESAFE_BY_RCU | SLAB_NO_USER_FLAGS |
				   SLUB_NO_MERGE;
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *given;
	void *obj;

	given = __kmem_cache_create_args("slub_engine_rcu_fp", KT_OBJ_SIZE,
					 &args, flags);
	KUNIT_ASSERT_NOT_NULL(test, given);
	ctx->other = kmem_cache_create("slub_engine_rcu", KT_OBJ_SIZE, 0,
				       flags, NULL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->other);
	KUNIT_EXPECT_EQ(test, given->offset, 2 * (unsigned int)sizeof(void *));
	KUNIT_EXPECT_LT(test, given->offset, given->object_size);
	KUNIT_EXPECT_GE(test, ctx->other->offset, ctx->other->inuse);
	/* KASAN's metadata may fill the word saved up to the alignment. */
	if (IS_ENABLED(CONFIG_KASAN))
		KUNIT_EXPECT_LE(test, given->size, ctx->other->size);
	else
		KUNIT_EXPECT_LT(test, given->size, ctx->other->size);
	/* Its objects come and go through the free pointer's word. */
	obj = kmem_cache_alloc(given, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, obj);
	kmem_cache_free(given, obj);
	kmem_cache_destroy(given);
#else
	kunit_skip(test, "no kmem_cache_args.freeptr_offset on this base");
#endif /* SLUB_HAS_FREEPTR_OFFSET */
}

static void kt_page_free_probe(void *data, struct page *page,
			       unsigned int order)
{
	struct kt_page_seen *seen = data;

	if (page != seen->page)
		return;
	seen->freed = true;
	seen->by_worker = in_task() && (current->flags & PF_WQ_WORKER);
}

/*
 * A flush gives back each cpu's state from a work item on that cpu, not
 * from an IPI: unfreezing and page freeing run in task context, also on
 * the cpu that asked (THEORY 6).  An empty cpu slab beyond min_partial
 * is freed by the flush; the mm_page_free tracepoint shows by whom.
 */
static void kt_flush_in_worker(struct kunit *test)
{
	struct kt_ctx *ctx = test->priv;
	struct kmem_cache *cache = ctx->cache;
	struct kt_page_seen seen = { };
	struct slab *slab;
	unsigned int i;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no CONFIG_TRACEPOINTS: cannot see who frees the page");
	kt_need_direct_free(test);
	kt_set_cpu_partial(cache, 0);
	WRITE_ONCE(cache->min_partial, 0);
	kt_alloc(test, 1);
	i = ctx->nr_objs - 1;
	slab = virt_to_slab(ctx->objs[i]);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->slab), slab);
	kt_free(ctx, i);
	KUNIT_ASSERT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->slab), slab);

	seen.page = slab_page(slab);
	ret = register_trace_mm_page_free(kt_page_free_probe, &seen);
	KUNIT_ASSERT_EQ(test, ret, 0);
	slub_flush_all(cache);
	unregister_trace_mm_page_free(kt_page_free_probe, &seen);
	tracepoint_synchronize_unregister();

	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(kt_pcpu(ctx)->slab), NULL);
	KUNIT_EXPECT_TRUE(test, seen.freed);
	KUNIT_EXPECT_TRUE_MSG(test, seen.by_worker,
			      "the cpu slab's page was freed outside a workqueue worker");
}

/*
 * kmalloc(), kmalloc_node() and a reclaimable kmalloc() of every size from
 * 1 to KMALLOC_MAX_CACHE_SIZE, each a size known only at run time, take
 * an object of the kmalloc cache kmalloc_index() names for the size: of
 * the normal row (or, with RANDOM_KMALLOC_CACHES, one of its copies, which
 * have its object size) and of the reclaimable row.  The entry points
 * find the cache their own way (6.12's kmalloc_cache_of()).
 */
static void kt_kmalloc_size_classes(struct kunit *test)
{
	unsigned int bad = 0;
	size_t size;

	for (size = 1; size <= KMALLOC_MAX_CACHE_SIZE; size++) {
		const unsigned int idx = kmalloc_index(size);
		const struct kmem_cache *want = kmalloc_caches[KMALLOC_NORMAL][idx];
		const struct kmem_cache *rcl = kmalloc_caches[KMALLOC_RECLAIM][idx];
		size_t n = size;
		void *p, *q, *r;

		OPTIMIZER_HIDE_VAR(n);	/* the run-time size path */
		p = kmalloc(n, GFP_KERNEL);
		q = kmalloc_node(n, GFP_KERNEL, numa_mem_id());
		r = kmalloc(n, GFP_KERNEL | __GFP_RECLAIMABLE);
		KUNIT_ASSERT_TRUE(test, p && q && r);
		if (virt_to_slab(p)->slab_cache->object_size != want->object_size ||
		    virt_to_slab(q)->slab_cache->object_size != want->object_size ||
		    virt_to_slab(r)->slab_cache != rcl) {
			if (bad++ < 4)
				kunit_err(test, "kmalloc(%zu): %s, %s and %s, not %s and %s\n",
					  size, virt_to_slab(p)->slab_cache->name,
					  virt_to_slab(q)->slab_cache->name,
					  virt_to_slab(r)->slab_cache->name,
					  want->name, rcl->name);
		}
		kfree(r);
		kfree(q);
		kfree(p);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

#if defined(CONFIG_SLAB_BUCKETS) || defined(CONFIG_RANDOM_KMALLOC_CACHES)
/* The cache of a slab object. */
static struct kmem_cache *kt_obj_cache(const void *obj)
{
	return virt_to_slab(obj)->slab_cache;
}
#endif /* CONFIG_SLAB_BUCKETS || CONFIG_RANDOM_KMALLOC_CACHES */

/*
 * kmem_buckets_alloc() takes an object of the bucket set's own cache for
 * its size (6.12's SLAB_BUCKETS), not of the kmalloc cache of that size.
 */
static void kt_kmalloc_buckets(struct kunit *test)
{
#ifdef CONFIG_SLAB_BUCKETS
	size_t size = 100;
	/* Made once: a bucket set cannot be destroyed. */
	static kmem_buckets *buckets;
	void *obj;

	if (!buckets)
		buckets = kmem_buckets_create("slub_engine_kt", 0, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, buckets);
	OPTIMIZER_HIDE_VAR(size);	/* the run-time size path */
	obj = kmem_buckets_alloc(buckets, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_PTR_EQ(test, kt_obj_cache(obj),
			    (*buckets)[kmalloc_index(100)]);
	KUNIT_EXPECT_STREQ(test, kt_obj_cache(obj)->name, "slub_engine_kt-128");
	kfree(obj);
#else
	kunit_skip(test, "no CONFIG_SLAB_BUCKETS on this kernel");
#endif /* CONFIG_SLAB_BUCKETS */
}

#ifdef CONFIG_RANDOM_KMALLOC_CACHES
/* Whether @cache is one of the copies of the normal kmalloc cache @idx. */
static bool kt_kmalloc_copy(struct kmem_cache *cache, unsigned int idx)
{
	int type;

	for (type = KMALLOC_RANDOM_START; type <= KMALLOC_RANDOM_END; type++)
		if (kmalloc_caches[type][idx] == cache)
			return true;
	return false;
}

/* kmalloc() call site @i of KT_SITES, each its own return address. */
#define KT_SITE(i)	(objs[i] = kmalloc(size, GFP_KERNEL))
#define KT_SITES	16
#endif /* CONFIG_RANDOM_KMALLOC_CACHES */

/*
 * With RANDOM_KMALLOC_CACHES a kmalloc() takes one of sixteen copies of
 * the cache for its size, picked from its call site (the return address
 * of __kmalloc_noprof()): sixteen call sites land in more than one copy.
 * All in one would be 1 in 16^15 with the right call sites; with one
 * address for all (a caller the engine lost, say) it is certain.
 */
static void kt_kmalloc_random_caches(struct kunit *test)
{
#ifdef CONFIG_RANDOM_KMALLOC_CACHES
	struct kmem_cache *seen[KT_SITES];
	unsigned int i, j, copies = 0;
	size_t size = 64;
	void *objs[KT_SITES];

	OPTIMIZER_HIDE_VAR(size);
	KT_SITE(0); KT_SITE(1); KT_SITE(2); KT_SITE(3);
	KT_SITE(4); KT_SITE(5); KT_SITE(6); KT_SITE(7);
	KT_SITE(8); KT_SITE(9); KT_SITE(10); KT_SITE(11);
	KT_SITE(12); KT_SITE(13); KT_SITE(14); KT_SITE(15);
	for (i = 0; i < KT_SITES; i++) {
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		seen[i] = kt_obj_cache(objs[i]);
		KUNIT_EXPECT_TRUE_MSG(test, kt_kmalloc_copy(seen[i], kmalloc_index(64)),
				      "site %u: %s is no copy of kmalloc-64", i,
				      seen[i]->name);
		for (j = 0; j < i && seen[j] != seen[i]; j++)
			;
		copies += j == i;
	}
	for (i = 0; i < KT_SITES; i++)
		kfree(objs[i]);
	KUNIT_EXPECT_GT_MSG(test, copies, 1U,
			    "%u call sites took one copy of kmalloc-64", KT_SITES);
#else
	kunit_skip(test, "no CONFIG_RANDOM_KMALLOC_CACHES on this kernel");
#endif /* CONFIG_RANDOM_KMALLOC_CACHES */
}

static struct kunit_case kt_cases[] = {
	KUNIT_CASE(kt_freelist_plain),
	KUNIT_CASE(kt_freelist_hardened),
	KUNIT_CASE(kt_freelist_new_slab),
	KUNIT_CASE(kt_counters_packing),
	KUNIT_CASE(kt_order_objects_cap),
	KUNIT_CASE(kt_full_to_partial_and_back),
	KUNIT_CASE(kt_empty_freed_beyond_min_partial),
	KUNIT_CASE(kt_cpu_partial_bounded),
	KUNIT_CASE(kt_bulk_groups_by_slab),
	KUNIT_CASE(kt_bulk_free_whole_slabs),
	KUNIT_CASE(kt_fastpath_tid_alloc),
	KUNIT_CASE(kt_fastpath_tid_free),
	KUNIT_CASE(kt_validate_good),
	KUNIT_CASE(kt_validate_bad_count),
	KUNIT_CASE(kt_validate_bad_pointer),
	KUNIT_CASE(kt_validate_loop),
	KUNIT_CASE(kt_validate_bad_slab),
	KUNIT_CASE(kt_node_bootstrap),
	KUNIT_CASE(kt_objexts_late_vector),
	KUNIT_CASE(kt_partial_search_interleave),
	KUNIT_CASE(kt_double_free_in_chain),
	KUNIT_CASE(kt_rcu_freeptr_offset),
	KUNIT_CASE(kt_flush_in_worker),
	KUNIT_CASE(kt_kmalloc_size_classes),
	KUNIT_CASE(kt_kmalloc_buckets),
	KUNIT_CASE(kt_kmalloc_random_caches),
	{}
};

static struct kunit_suite kt_suite = {
	.name = "slub_engine",
	.init = kt_init,
	.exit = kt_exit,
	.test_cases = kt_cases,
};

kunit_test_suite(kt_suite);
