// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the array front end: the transitions of a cpu's loaded
 * and spare arrays and of the node depot, the nesting fallback, the
 * bulk paths and draining.
 *
 * This file is #included at the end of mm/slub_array.c when
 * CONFIG_SLUB_ENGINE_KUNIT_TEST is set.  Each test gives a private cache
 * small arrays (whatever front end the kernel booted with) and drives
 * the array fastpaths directly, so that it runs the same on a kernel
 * whose static key is off.  The test thread is pinned to one cpu, whose
 * arrays it inspects; nothing else uses the private cache.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/mempolicy.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#define KTA_SIZE	8	/* objects per array in the tests */
#define KTA_MAX_OBJS	256

struct kta_ctx {
	struct kmem_cache *cache;
	struct kmem_cache_cpu *pcpu;	/* the test cpu's state */
	struct slub_depot *depot;	/* the test cpu's node depot */
	unsigned int nr;
	void *objs[KTA_MAX_OBJS];	/* held by the test */
};

static int kta_init(struct kunit *test)
{
	struct kta_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int cpu;

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	/*
	 * Unmergeable (SLUB_NO_MERGE or the usercopy region, whichever the
	 * base honours), and no debug cache whatever slub_debug= says.
	 */
	ctx->cache = kmem_cache_create_usercopy("slub_array_test", 256, 0,
						SLAB_NO_USER_FLAGS |
						SLUB_NO_MERGE, 0, 256, NULL);
	if (!ctx->cache)
		return -ENOMEM;
	cpu = raw_smp_processor_id();
	if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		return -EINVAL;
	cpu = raw_smp_processor_id();
	/* Replace the boot-time arrays, if any, by small ones. */
	array_cache_release(ctx->cache);
	array_cache_attach(ctx->cache, KTA_SIZE);
	ctx->pcpu = per_cpu_ptr(ctx->cache->cpu_slab, cpu);
	ctx->depot = local_depot(ctx->cache);
	return ctx->depot ? 0 : -EINVAL;
}

/*
 * The test's objects never went through the allocation hooks (KASAN
 * still sees them as free): they go back the same way, not by
 * kmem_cache_free().
 */
static void kta_exit(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	void *obj;

	if (!ctx || !ctx->cache)
		return;
	while (ctx->nr) {
		obj = ctx->objs[--ctx->nr];
		if (!array_free_fast(ctx->cache, virt_to_slab(obj), obj))
			slub_free_freelist(ctx->cache, obj);
	}
	kmem_cache_destroy(ctx->cache);
}

static void *kta_alloc(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	void *obj = NULL;

	KUNIT_ASSERT_TRUE(test, array_alloc_fast(ctx->cache, GFP_KERNEL,
						 NUMA_NO_NODE, 0, &obj));
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_LT(test, ctx->nr, KTA_MAX_OBJS);
	ctx->objs[ctx->nr++] = obj;
	return obj;
}

/* Free the test's newest object through the array fastpath. */
static void kta_free(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	void *obj;

	KUNIT_ASSERT_GT(test, ctx->nr, 0U);
	obj = ctx->objs[--ctx->nr];
	KUNIT_ASSERT_TRUE(test, array_free_fast(ctx->cache, virt_to_slab(obj), obj));
}

static unsigned int kta_loaded(struct kta_ctx *ctx)
{
	return ctx->pcpu->array ? ctx->pcpu->array->count : ~0U;
}

static unsigned int kta_spare(struct kta_ctx *ctx)
{
	return ctx->pcpu->spare ? ctx->pcpu->spare->count : ~0U;
}

/*
 * Take @n objects, empty the cpu's arrays and the depot, then give
 * @back of them to the arrays through the free fastpath: the arrays
 * hold exactly those.
 */
static void kta_fill_fresh(struct kunit *test, unsigned int n,
			   unsigned int back)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < n; i++)
		kta_alloc(test);
	array_drain_local(ctx->cache);
	array_depot_drain(ctx->cache);
	for (i = 0; i < back; i++)
		kta_free(test);
}

/* An empty cpu refills half an array from the slabs and pops one. */
static void kta_refill_half(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	kta_alloc(test);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), KTA_SIZE / 2 - 1);
	kta_free(test);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), KTA_SIZE / 2);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
}

/* A full loaded array swaps with an empty spare, and back. */
static void kta_spare_swap(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < KTA_SIZE + 1; i++)
		kta_alloc(test);
	/* Whatever the refills did, give back until loaded is full. */
	while (kta_loaded(ctx) < KTA_SIZE)
		kta_free(test);
	KUNIT_ASSERT_EQ(test, kta_spare(ctx), 0U);
	kta_free(test);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 1U);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), (unsigned int)KTA_SIZE);
	/* Empty the loaded one: the full spare comes back. */
	kta_alloc(test);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	kta_alloc(test);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), KTA_SIZE - 1U);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
}

/*
 * The reaper runs under slab_mutex: the tests that call it, and those
 * that count what a depot holds, hold it too from before their first
 * step, so that the reaper's own runs cannot come in between (a depot
 * left untouched for two reap intervals is drained, and under TCG a
 * stalled vCPU can see two intervals pass in one step of a test).
 */
static void kta_reap_lock(void)
{
	cpus_read_lock();
	mutex_lock(&slab_mutex);
}

static void kta_reap_unlock(void)
{
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
}

/*
 * One reap of the test cpu, as its own reap work does it, with the
 * depot's interval taken as passed (a test makes its reaps back to back).
 */
static void kta_reap(struct kta_ctx *ctx)
{
	WRITE_ONCE(ctx->depot->next_reap, jiffies);
	array_reap_cache(ctx->cache, false);
}

/*
 * Both arrays full: the next free puts one full array in the depot (with
 * a new empty one); allocating it all back takes it out again and leaves
 * an empty array in the depot.
 */
static void kta_depot_put_get(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int i, held;

	kta_reap_lock();
	/* 2 * KTA_SIZE fill both arrays, one more overflows. */
	kta_fill_fresh(test, 3 * KTA_SIZE, 2 * KTA_SIZE);
	held = ctx->nr + 2 * KTA_SIZE;
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), (unsigned int)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), (unsigned int)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);
	kta_free(test);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 1U);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 1U);
	KUNIT_EXPECT_EQ(test, held - ctx->nr, 2 * KTA_SIZE + 1U);

	/* Allocate all 2 * KTA_SIZE + 1 back: the depot's array is used. */
	for (i = 0; i < 2 * KTA_SIZE + 1; i++)
		kta_alloc(test);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_empty, 1U);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
	kta_reap_unlock();
}

/* With the depot at its bound, an overflow gives half back to the slabs. */
static void kta_flush_half(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int need = (DEPOT_MAX + 2) * KTA_SIZE + 1;

	kta_reap_lock();
	kta_fill_fresh(test, need, need);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, (unsigned int)DEPOT_MAX);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), (unsigned int)KTA_SIZE);
	/* The last free found everything full and flushed half. */
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), KTA_SIZE / 2 + 1U);
	kta_reap_unlock();
}

/*
 * An interrupt that finds the array taken by the task it interrupted
 * takes the freelist path: here the test takes the array itself.
 */
static void kta_nested_fallback(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;
	void *obj = NULL, *x;

	x = kta_alloc(test);
	/* As a task that preempted the holder on PREEMPT_RT, or interrupted it. */
	a = array_hold(ctx->cache, &pcpu);
	KUNIT_EXPECT_NOT_NULL(test, a);
	KUNIT_EXPECT_PTR_EQ(test, pcpu, ctx->pcpu);
	KUNIT_EXPECT_FALSE(test, array_alloc_fast(ctx->cache, GFP_ATOMIC,
						  NUMA_NO_NODE, 0, &obj));
	KUNIT_EXPECT_NULL(test, obj);
	KUNIT_EXPECT_FALSE(test, array_free_fast(ctx->cache, virt_to_slab(x), x));
	/* The slow path falls back too, and the object is good. */
	obj = array_alloc_slowpath(ctx->cache, GFP_ATOMIC, NUMA_NO_NODE, 0);
	KUNIT_EXPECT_NOT_NULL(test, obj);
	if (a) {
		array_put(ctx->cache, a);
		array_unhold();
	}
	if (obj)
		ctx->objs[ctx->nr++] = obj;
}

/* Bulk paths move objects between the caller's array and the cpu's. */
static void kta_bulk(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	void *p[2 * KTA_SIZE];
	unsigned int i;
	size_t n;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kta_alloc(test);
	ctx->nr -= ARRAY_SIZE(p);
	array_drain_local(ctx->cache);
	array_depot_drain(ctx->cache);
	/* Fills the loaded array, swaps in the spare, fills that too. */
	n = array_free_bulk(ctx->cache, ARRAY_SIZE(p), p, numa_mem_id());
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(p));
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), (unsigned int)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), (unsigned int)KTA_SIZE);
	/* Empties the loaded array, then the spare, a whole array at a time. */
	n = array_alloc_bulk(ctx->cache, ARRAY_SIZE(p), p);
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(p));
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
	for (i = 0; i < n; i++)
		ctx->objs[ctx->nr++] = p[i];
}

/*
 * Allocate more objects than both arrays hold and free all but @keep:
 * the cpu's arrays are full and the depot holds full arrays.
 */
static void kta_fill_depot(struct kunit *test, unsigned int keep)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < (DEPOT_MAX + 2) * KTA_SIZE; i++)
		kta_alloc(test);
	while (ctx->nr > keep)
		kta_free(test);
	KUNIT_EXPECT_GT(test, ctx->depot->nr_full, 0U);
}

/* Shrinking gives every cached object back: the cache ends up empty. */
static void kta_shrink_drains(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;

	kta_fill_depot(test, 0);
	KUNIT_EXPECT_FALSE(test, __kmem_cache_empty(ctx->cache));
	kmem_cache_shrink(ctx->cache);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);
	KUNIT_EXPECT_TRUE(test, __kmem_cache_empty(ctx->cache));
}

/*
 * Fill a new array with objects from the slabs and put it on the full
 * list of @kn's depot, as a cpu's full array would be.  False, with
 * nothing changed, without memory.
 */
static bool kta_depot_add_full(struct kta_ctx *ctx, struct kmem_cache_node *kn)
{
	struct slub_array *a = array_new(KTA_SIZE, NUMA_NO_NODE, GFP_KERNEL);
	unsigned long flags;
	size_t got;

	if (!a)
		return false;
	while (a->count < KTA_SIZE) {
		got = slub_objects_take(ctx->cache, GFP_KERNEL,
					KTA_SIZE - a->count, a->objs + a->count);
		if (!got) {
			array_empty(ctx->cache, a);
			kfree(a);
			return false;
		}
		a->count += got;
	}
	spin_lock_irqsave(&kn->depot.lock, flags);
	list_add(&a->list, &kn->depot.full);
	kn->depot.nr_full++;
	spin_unlock_irqrestore(&kn->depot.lock, flags);
	return true;
}

/*
 * THEORY 6: the reaper leaves the arrays of a cpu that used them, even
 * if only through the fastpaths, and empties them once it stops.
 */
static void kta_reap_busy_cpu(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int busy;

	kta_reap_lock();
	kta_alloc(test);	/* a refill: the loaded array has objects */
	busy = kta_loaded(ctx);
	KUNIT_EXPECT_GT(test, busy, 0U);
	/* Begins an interval: the arrays were used, they stay. */
	kta_reap(ctx);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), busy);
	/* One free and one allocation, both on the fastpaths. */
	kta_free(test);
	kta_alloc(test);
	kta_reap(ctx);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), busy,
			    "the reaper emptied the arrays of a cpu that used them");
	/* Unused for an interval now: emptied. */
	kta_reap(ctx);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 0U);
	kta_reap_unlock();
}

/*
 * THEORY 6: each node's depot is reaped on its own; one that nobody used
 * is emptied while another node's is busy.
 */
static void kta_reap_depot_per_node(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kmem_cache_node *busy, *idle = NULL, *kn;
	int node;

	busy = get_node(ctx->cache, numa_mem_id());
	for_each_kmem_cache_node(ctx->cache, node, kn)
		if (kn != busy)
			idle = kn;
	if (!busy || !idle)
		kunit_skip(test, "one memory node: no other depot to reap");
	kta_reap_lock();
	if (kta_depot_add_full(ctx, busy) && kta_depot_add_full(ctx, idle)) {
		WRITE_ONCE(busy->depot.touched, true);
		WRITE_ONCE(idle->depot.touched, false);
		/* As the first cpu of each node to come to its reap does it. */
		WRITE_ONCE(busy->depot.next_reap, jiffies);
		WRITE_ONCE(idle->depot.next_reap, jiffies);
		array_reap_depot(ctx->cache, &busy->depot, false);
		array_reap_depot(ctx->cache, &idle->depot, false);
		KUNIT_EXPECT_EQ(test, busy->depot.nr_full, 1U);
		KUNIT_EXPECT_EQ_MSG(test, idle->depot.nr_full, 0U,
				    "an idle depot was kept because another node's was used");
		/* Another cpu of the node, within the interval: nothing. */
		array_reap_depot(ctx->cache, &busy->depot, false);
		KUNIT_EXPECT_EQ_MSG(test, busy->depot.nr_full, 1U,
				    "a depot was reaped twice in one interval");
		WRITE_ONCE(busy->depot.next_reap, jiffies);
		array_reap_depot(ctx->cache, &busy->depot, false);
		KUNIT_EXPECT_EQ(test, busy->depot.nr_full, 0U);
	} else {
		KUNIT_FAIL(test, "no memory for the depots' arrays");
	}
	kta_reap_unlock();
}

struct kta_gfp_seen {
	struct task_struct *task;
	unsigned int allocs;
	unsigned int nofail_nomemalloc;
};

static void kta_page_alloc_probe(void *data, struct page *page,
				 unsigned int order, gfp_t gfp, int migratetype)
{
	struct kta_gfp_seen *seen = data;
	const gfp_t both = __GFP_NOFAIL | __GFP_NOMEMALLOC;

	if (current != seen->task)
		return;
	seen->allocs++;
	if ((gfp & both) == both)
		seen->nofail_nomemalloc++;
}

/*
 * A refill keeps no __GFP_NOFAIL beside its __GFP_NOMEMALLOC: the page
 * allocator would loop for it above the reserves an OOM victim may use.
 * The cache's order is its minimum here, where slab_new() passes the
 * flags on unchanged; the mm_page_alloc tracepoint shows them.
 */
static void kta_refill_nofail(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kta_gfp_seen seen = { .task = current };
	struct slab_oo oo = ctx->cache->oo;
	void *obj = NULL;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no CONFIG_TRACEPOINTS: cannot see the page allocator's flags");
	ctx->cache->oo = ctx->cache->min;
	ret = register_trace_mm_page_alloc(kta_page_alloc_probe, &seen);
	if (!ret) {
		array_alloc_fast(ctx->cache, GFP_KERNEL | __GFP_NOFAIL,
				 NUMA_NO_NODE, 0, &obj);
		unregister_trace_mm_page_alloc(kta_page_alloc_probe, &seen);
		tracepoint_synchronize_unregister();
	}
	ctx->cache->oo = oo;
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	ctx->objs[ctx->nr++] = obj;
	KUNIT_EXPECT_GT_MSG(test, seen.allocs, 0U, "the refill made no slab");
	KUNIT_EXPECT_EQ_MSG(test, seen.nofail_nomemalloc, 0U,
			    "a refill asked for __GFP_NOFAIL without the reserves");
}

/*
 * An array that a cpu held and the depot has no room for is freed after
 * a grace period, since array_cpu_has_objects() on another cpu may be
 * reading it.  Read here under rcu_read_lock() after the drop, KASAN
 * reports the use after free of an array freed at once.
 */
static void kta_dropped_array_rcu(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct slub_array *a;
	void *obj = NULL;
	unsigned int i;
	bool ready;

	if (!IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN is off: nothing sees a read of a freed array");
	kta_alloc(test);	/* the cpu's arrays are made */
	kta_reap_lock();
	/* The depot: DEPOT_MAX empty arrays and a full one. */
	ready = kta_depot_add_full(ctx, get_node(ctx->cache, numa_mem_id()));
	for (i = 0; ready && i < DEPOT_MAX; i++) {
		a = array_new(KTA_SIZE, NUMA_NO_NODE, GFP_KERNEL);
		ready = a && depot_put_empty(ctx->cache, ctx->depot, a);
		if (a && !ready)
			kfree(a);
	}
	KUNIT_EXPECT_TRUE(test, ready);
	/* Both of the cpu's arrays empty: the next allocation drops one. */
	array_drain_local(ctx->cache);
	rcu_read_lock();
	a = READ_ONCE(ctx->pcpu->array);
	KUNIT_EXPECT_TRUE(test, array_alloc_fast(ctx->cache, GFP_ATOMIC,
						 NUMA_NO_NODE, 0, &obj));
	KUNIT_EXPECT_PTR_NE(test, READ_ONCE(ctx->pcpu->array), a);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_empty, (unsigned int)DEPOT_MAX);
	/* What array_cpu_has_objects() reads. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(a->count), 0U);
	rcu_read_unlock();
	kta_reap_unlock();
	if (obj)
		ctx->objs[ctx->nr++] = obj;
}

/*
 * An allocation for this cpu's own node is served by its arrays, as one
 * for any node is; one for another node is not.
 */
static void kta_alloc_node_local(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	int node = numa_mem_id(), other;
	unsigned int before;
	void *obj;

	if (!static_branch_unlikely(&slub_arrays))
		kunit_skip(test, "the array front end is off: kmem_cache_alloc_node() never looks");
	kta_alloc(test);	/* a refill: the loaded array has objects */
	before = kta_loaded(ctx);
	KUNIT_ASSERT_GT(test, before, 0U);
	obj = kmem_cache_alloc_node(ctx->cache, GFP_KERNEL | __GFP_THISNODE, node);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	if (!is_kfence_address(obj)) {
		KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), before - 1,
				    "kmem_cache_alloc_node() for the cpu's node passed its array by");
		KUNIT_EXPECT_EQ(test, slab_nid(virt_to_slab(obj)), node);
	}
	kmem_cache_free(ctx->cache, obj);

	other = next_node_in(node, node_states[N_NORMAL_MEMORY]);
	if (other == node || other == MAX_NUMNODES)
		return;
	obj = NULL;
	KUNIT_EXPECT_FALSE(test, array_alloc_fast(ctx->cache, GFP_KERNEL,
						  other, 0, &obj));
	KUNIT_EXPECT_NULL(test, obj);
}

/*
 * A new array_size at run time: the depots are emptied at once; the cpu
 * retires its old arrays at its next slow path (their objects back in
 * the slabs) or reap, and makes arrays of the new size on its next use;
 * none is lost, and sizes out of range change nothing.
 */
static void kta_resize(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	const unsigned int size = 2 * KTA_SIZE;

	kta_fill_depot(test, KTA_SIZE);
	KUNIT_EXPECT_EQ(test, array_cache_resize(ctx->cache, ARRAY_SIZE_MIN - 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, array_cache_resize(ctx->cache, ARRAY_SIZE_MAX + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ctx->cache->array_size, (unsigned int)KTA_SIZE);

	KUNIT_ASSERT_EQ(test, array_cache_resize(ctx->cache, size), 0);
	KUNIT_EXPECT_EQ(test, ctx->cache->array_size, size);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_empty, 0U);
	/*
	 * The arrays are full: the first free takes the slow path, which
	 * retires them (unless the cpu's reap came first) and makes new
	 * ones; the frees after it fill the new array.
	 */
	while (ctx->nr)
		kta_free(test);
	KUNIT_EXPECT_EQ(test, ctx->pcpu->array->size, size);
	KUNIT_EXPECT_EQ(test, ctx->pcpu->spare->size, size);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), (unsigned int)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), 0U);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);

	/* Back to the old size: the cpu's reap retires the arrays, busy. */
	KUNIT_ASSERT_EQ(test, array_cache_resize(ctx->cache, KTA_SIZE), 0);
	kta_reap_lock();
	WRITE_ONCE(ctx->pcpu->array_touched, true);
	kta_reap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(ctx->pcpu->array), &array_unmade);
	KUNIT_EXPECT_NULL(test, READ_ONCE(ctx->pcpu->spare));
	kta_reap_unlock();
	/* Nothing was lost: once shrunk, the cache holds no object. */
	kmem_cache_shrink(ctx->cache);
	KUNIT_EXPECT_TRUE(test, __kmem_cache_empty(ctx->cache));
}

/* Wait up to 3 s for the test cpu's reap to leave @want in its spare. */
static bool kta_wait_spare(struct kta_ctx *ctx, unsigned int want)
{
	unsigned int i;

	for (i = 0; i < 150 && kta_spare(ctx) != want; i++)
		msleep(20);
	return kta_spare(ctx) == want;
}

/*
 * THEORY 6: under reclaim the shrinker takes what the node's depots hold
 * up to nr_to_scan, no more, and asks the node's cpus to reap at once
 * without waiting for them: the test cpu's own reap then empties the
 * spare of the arrays it used.  Other caches' depots on the node count
 * too, so the figures of a scan are bounds; the test cache's depot
 * answers nr_to_scan exactly.  The shrinker's trylock fails while
 * another task holds slab_mutex (a cpu's reap, a cache being created):
 * try again a few times.  With the array front end off (only the test's
 * cache has arrays) no cpu reaps at all.
 */
static void kta_shrinker(struct kunit *test)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL, .nr_to_scan = ULONG_MAX / 2,
				     .nid = numa_mem_id() };
	struct kta_ctx *ctx = test->priv;
	unsigned long freed = SHRINK_STOP;
	unsigned int i, full;

	kta_fill_depot(test, 0);
	full = ctx->depot->nr_full;
	KUNIT_EXPECT_GE(test, array_shrink_count(NULL, &sc), (unsigned long)full * KTA_SIZE);
	/* Asked for KTA_SIZE objects, a depot gives one full array. */
	KUNIT_EXPECT_EQ(test, depot_shrink(ctx->cache, ctx->depot, KTA_SIZE),
			(unsigned long)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, full - 1);
	KUNIT_EXPECT_EQ(test, kta_spare(ctx), (unsigned int)KTA_SIZE);

	/* Used just now: the reap the shrinker asks for finds it so. */
	kta_alloc(test);
	kta_free(test);
	for (i = 0; i < 50 && freed == SHRINK_STOP; i++) {
		freed = array_shrink_scan(NULL, &sc);
		if (freed == SHRINK_STOP)
			msleep(20);
	}
	KUNIT_ASSERT_NE_MSG(test, freed, SHRINK_STOP, "the shrinker never got its locks");
	KUNIT_EXPECT_GE(test, freed, (unsigned long)(full - 1) * KTA_SIZE);
	KUNIT_EXPECT_EQ(test, sc.nr_scanned, freed);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 0U);
	if (!static_branch_unlikely(&slub_arrays)) {
		/* No cache but the test's has arrays: no cpu reaps, none is asked. */
		KUNIT_EXPECT_FALSE_MSG(test, per_cpu(array_reap_up, raw_smp_processor_id()),
				       "a cpu reaps with the array front end off");
		return;
	}
	/* The cpu used its arrays: its reap under pressure keeps the loaded one. */
	KUNIT_EXPECT_TRUE_MSG(test, kta_wait_spare(ctx, 0),
			      "the cpu's reap did not empty its spare within 3 s of the shrinker");
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), (unsigned int)KTA_SIZE);
}

/*
 * A refill of a cpu that was idle takes ARRAY_BATCH_MIN objects and each
 * next one twice the last, up to half an array; the reaper, from its own
 * cpu, starts a cpu it finds idle over (pcpu->array_batch).
 */
static void kta_refill_batch(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	const unsigned int size = 8 * ARRAY_BATCH_MIN;
	unsigned int batch, want;

	KUNIT_ASSERT_EQ(test, array_cache_resize(ctx->cache, size), 0);
	kta_reap_lock();
	/* The first reap may find the cpu used; the second resets it. */
	kta_reap(ctx);
	kta_reap(ctx);
	for (batch = ARRAY_BATCH_MIN; batch <= size; batch *= 2) {
		/* Both arrays empty, and the depot: this one refills. */
		kta_alloc(test);
		want = min(batch, size / 2);
		KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), want - 1,
				    "refill %u of an idle cpu", batch / ARRAY_BATCH_MIN);
		while (kta_loaded(ctx))
			kta_alloc(test);
	}
	kta_reap(ctx);
	kta_reap(ctx);
	kta_alloc(test);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), ARRAY_BATCH_MIN - 1,
			    "the reaper did not start an idle cpu's batch over");
	kta_reap_unlock();
}

struct kta_kmalloc_seen {
	struct task_struct *task;
	size_t bytes;
	unsigned int allocs;
	unsigned int locked;	/* of them under slab_mutex (lockdep) */
	gfp_t gfp;
};

static void kta_kmalloc_probe(void *data, unsigned long call_site,
			      const void *ptr, size_t bytes_req,
			      size_t bytes_alloc, gfp_t gfp, int node)
{
	struct kta_kmalloc_seen *seen = data;

	if (current != seen->task || bytes_req != seen->bytes)
		return;
	seen->allocs++;
	seen->gfp |= gfp;
#ifdef CONFIG_LOCKDEP
	if (lockdep_is_held(&slab_mutex))
		seen->locked++;
#endif
}

/*
 * A free that needs an empty array for the depot makes one without
 * reclaim, kswapd or the reserves: kswapd's shrinkers free objects, and
 * kfree() must not spend memory it cannot do without.  The kmalloc
 * tracepoint shows the flags of the array's allocation.
 */
static void kta_free_gfp(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kta_kmalloc_seen seen = {
		.task = current,
		.bytes = struct_size_t(struct slub_array, objs, KTA_SIZE),
	};
	const gfp_t reclaim = __GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no CONFIG_TRACEPOINTS: cannot see kmalloc's flags");
	/* Both arrays full, the depot empty: the next free makes an array. */
	kta_fill_fresh(test, 2 * KTA_SIZE + 1, 2 * KTA_SIZE);
	ret = register_trace_kmalloc(kta_kmalloc_probe, &seen);
	if (!ret) {
		kta_free(test);
		unregister_trace_kmalloc(kta_kmalloc_probe, &seen);
		tracepoint_synchronize_unregister();
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->depot->nr_full, 1U);
	KUNIT_ASSERT_GT_MSG(test, seen.allocs, 0U, "the free made no array");
	KUNIT_EXPECT_EQ_MSG(test, seen.gfp & reclaim, 0U,
			    "kfree() may reclaim or wake kswapd for an array");
	KUNIT_EXPECT_TRUE_MSG(test, seen.gfp & __GFP_NOMEMALLOC,
			      "kfree() may take an array from the reserves");
}

/*
 * A resize allocates nothing and waits on no cpu: each cpu makes its
 * arrays of the new size itself, on its first use after it retired the
 * old ones.  It used to make two arrays for each cpu with arrays (for
 * every possible cpu at first: 16 MiB at array_size=1024 and 512
 * possible cpus) and to wait on a worker of every online cpu, under
 * slab_mutex and cpus_read_lock().  lockdep tells whether an allocation
 * ran under slab_mutex.
 */
static void kta_resize_allocs(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	const unsigned int size = 2 * KTA_SIZE;
	struct kta_kmalloc_seen seen = {
		.task = current,
		.bytes = struct_size_t(struct slub_array, objs, size),
	};
	unsigned int by_resize = 0;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no CONFIG_TRACEPOINTS: cannot see the allocations");
	kta_alloc(test);	/* this cpu's first use makes its arrays */
	KUNIT_ASSERT_TRUE(test, array_made(ctx->pcpu->array));
	ret = register_trace_kmalloc(kta_kmalloc_probe, &seen);
	if (!ret) {
		ret = array_cache_resize(ctx->cache, size);
		by_resize = READ_ONCE(seen.allocs);
		/* The cpu's reap retires its arrays, the next use makes two. */
		kta_reap_lock();
		kta_reap(ctx);
		kta_reap_unlock();
		kta_alloc(test);
		unregister_trace_kmalloc(kta_kmalloc_probe, &seen);
		tracepoint_synchronize_unregister();
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, ctx->pcpu->array->size, size);
	KUNIT_EXPECT_EQ_MSG(test, by_resize, 0U,
			    "a resize made %u arrays itself", by_resize);
	KUNIT_EXPECT_EQ_MSG(test, seen.allocs, 2U,
			    "%u arrays of the new size made, 2 expected", seen.allocs);
	KUNIT_EXPECT_EQ_MSG(test, seen.locked, 0U,
			    "arrays made under slab_mutex");
}

/*
 * array_free_bulk() refuses a batch picked for another node than this
 * cpu's: a task that moved meanwhile would fill the array with remote
 * objects.
 */
static void kta_bulk_wrong_node(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	int node = numa_mem_id();
	void *p[KTA_SIZE / 2];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kta_alloc(test);
	ctx->nr -= ARRAY_SIZE(p);
	array_drain_local(ctx->cache);
	KUNIT_EXPECT_EQ(test, array_free_bulk(ctx->cache, ARRAY_SIZE(p), p,
					      node + 1), (size_t)0);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), 0U,
			    "objects picked for node %d went into node %d's array",
			    node + 1, node);
	slub_objects_return(ctx->cache, p, ARRAY_SIZE(p));
}

/*
 * kmem_cache_free_bulk() puts only the objects of this cpu's node into
 * its arrays and sends the other node's to their slabs, whichever page
 * the object before was on.
 */
static void kta_bulk_node_mixed(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	int node = numa_mem_id(), other;
	unsigned int i, local = 0, remote = 0;
	void *p[KTA_SIZE];
	struct slub_array *a;

	other = next_node_in(node, node_states[N_NORMAL_MEMORY]);
	if (other == node || other == MAX_NUMNODES)
		kunit_skip(test, "one memory node: no other node's objects");
	if (!static_branch_unlikely(&slub_arrays))
		kunit_skip(test, "the array front end is off: bulk frees never look");
	/* Every other object from the other node. */
	for (i = 0; i < KTA_SIZE; i++) {
		p[i] = kmem_cache_alloc_node(ctx->cache, GFP_KERNEL | __GFP_THISNODE,
					     i & 1 ? other : node);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		if (is_kfence_address(p[i]))
			continue;
		if (slab_nid(virt_to_slab(p[i])) == node)
			local++;
		else
			remote++;
	}
	KUNIT_ASSERT_GT(test, remote, 0U);
	array_drain_local(ctx->cache);
	kmem_cache_free_bulk(ctx->cache, KTA_SIZE, p);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), local,
			    "%u local and %u remote objects freed in bulk",
			    local, remote);
	a = ctx->pcpu->array;
	for (i = 0; a && i < a->count; i++)
		KUNIT_EXPECT_EQ(test, slab_nid(virt_to_slab(a->objs[i])), node);
}

/*
 * The decision of array_refill_local(): a task may refill from this
 * node unless its cpuset or its mempolicy leaves the node out, or its
 * mempolicy interleaves.
 */
static void kta_policy_allows(struct kunit *test)
{
#ifdef CONFIG_NUMA
	nodemask_t both = NODE_MASK_NONE, only0 = nodemask_of_node(0);
	nodemask_t only1 = nodemask_of_node(1);
	struct mempolicy pol = {};

	if (MAX_NUMNODES < 2)
		kunit_skip(test, "one possible node: no policy can leave one out");
	node_set(0, both);
	node_set(1, both);
	KUNIT_EXPECT_TRUE(test, array_policy_allows(NULL, &both, 0));
	KUNIT_EXPECT_FALSE_MSG(test, array_policy_allows(NULL, &only1, 0),
			       "a cpuset without the node");
	pol.mode = MPOL_LOCAL;
	KUNIT_EXPECT_TRUE(test, array_policy_allows(&pol, &both, 0));
	pol.mode = MPOL_BIND;
	pol.nodes = only1;
	KUNIT_EXPECT_FALSE_MSG(test, array_policy_allows(&pol, &both, 0),
			       "bound to another node");
	pol.nodes = both;
	KUNIT_EXPECT_TRUE(test, array_policy_allows(&pol, &both, 0));
	KUNIT_EXPECT_FALSE_MSG(test, array_policy_allows(&pol, &only0, 1),
			       "bound to both, a cpuset without the node");
	pol.mode = MPOL_PREFERRED;
	pol.nodes = only1;
	KUNIT_EXPECT_FALSE_MSG(test, array_policy_allows(&pol, &both, 0),
			       "preferring another node");
	/* Its slabs alternate nodes: a refill would keep the local ones. */
	pol.mode = MPOL_INTERLEAVE;
	pol.nodes = both;
	KUNIT_EXPECT_FALSE_MSG(test, array_policy_allows(&pol, &both, 1),
			       "interleaving over the node");
#else
	kunit_skip(test, "no CONFIG_NUMA: no mempolicy");
#endif /* CONFIG_NUMA */
}

#ifdef CONFIG_NUMA
/* Give the test thread @pol as set_mempolicy() would, or none. */
static void kta_set_policy(struct mempolicy *pol)
{
	task_lock(current);
	current->mempolicy = pol;
	task_unlock(current);
}
#endif /* CONFIG_NUMA */

/*
 * A task bound to another node gets its objects there, by the freelist
 * path, and takes no refill: each would bring only remote objects and
 * give them all back (a refill doubles pcpu->array_batch).  Nor does a
 * task without a policy while the cpu slab it left is remote: that slab
 * serves the freelist path until it is used up.  After it, a refill is
 * still the first of an idle cpu, and local.
 */
static void kta_policy_remote(struct kunit *test)
{
#ifdef CONFIG_NUMA
	struct kta_ctx *ctx = test->priv;
	const unsigned int size = 8 * ARRAY_BATCH_MIN;
	struct mempolicy pol = { .mode = MPOL_BIND };
	int node = numa_mem_id(), other;
	unsigned int i, got = 0, wrong = 0;
	unsigned short batch;
	void *obj;

	other = next_node_in(node, node_states[N_NORMAL_MEMORY]);
	if (other == node || other == MAX_NUMNODES)
		kunit_skip(test, "one memory node: no other node to bind to");
	if (current->mempolicy)
		kunit_skip(test, "the test thread has a mempolicy of its own");
	KUNIT_ASSERT_EQ(test, array_cache_resize(ctx->cache, size), 0);
	kta_reap_lock();
	kta_reap(ctx);
	kta_reap(ctx);
	kta_fill_fresh(test, 0, 0);
	/* The reaper, the only other writer, is held off. */
	batch = ctx->pcpu->array_batch;
	atomic_set(&pol.refcnt, 1);
	pol.nodes = nodemask_of_node(other);
	/* No assertion until the policy is gone: it lives on our stack. */
	kta_set_policy(&pol);
	for (i = 0; i < 4 && ctx->nr < KTA_MAX_OBJS; i++) {
		obj = NULL;
		if (!array_alloc_fast(ctx->cache, GFP_KERNEL, NUMA_NO_NODE, 0, &obj) ||
		    !obj)
			break;
		ctx->objs[ctx->nr++] = obj;
		got++;
		if (!is_kfence_address(obj) && slab_nid(virt_to_slab(obj)) != other)
			wrong++;
	}
	kta_set_policy(NULL);
	KUNIT_EXPECT_EQ(test, got, 4U);
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0U, "objects of a task bound to node %d", other);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), 0U, "a bound task filled the arrays");
	KUNIT_EXPECT_EQ_MSG(test, ctx->pcpu->array_batch, batch,
			    "a task bound to another node took refills");

	obj = kta_alloc(test);
	if (!is_kfence_address(obj))
		KUNIT_EXPECT_EQ_MSG(test, slab_nid(virt_to_slab(obj)), other,
				    "the remote cpu slab did not serve");
	KUNIT_EXPECT_EQ_MSG(test, ctx->pcpu->array_batch, batch,
			    "a refill started from another node's cpu slab");

	/*
	 * Without a cpu slab, the refill is local.  The shrink takes
	 * cpus_read_lock() itself; the reaper, let in meanwhile, finds this
	 * cpu busy and leaves its batch alone.
	 */
	kta_reap_unlock();
	kmem_cache_shrink(ctx->cache);
	kta_reap_lock();
	obj = kta_alloc(test);
	KUNIT_EXPECT_EQ_MSG(test, kta_loaded(ctx), ARRAY_BATCH_MIN - 1,
			    "the first refill after the bound task");
	if (!is_kfence_address(obj))
		KUNIT_EXPECT_EQ(test, slab_nid(virt_to_slab(obj)), node);
	kta_reap_unlock();
#else
	kunit_skip(test, "one memory node: no CONFIG_NUMA");
#endif /* CONFIG_NUMA */
}

/*
 * Taking a cache's arrays away (array_cache_free_arrays(), as a destroy
 * does after its drain) gives back the objects they still hold: none is
 * lost, and every cpu is left without arrays.
 */
static void kta_free_arrays(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	unsigned int cpu;

	kta_fill_fresh(test, 2 * KTA_SIZE, 2 * KTA_SIZE);
	KUNIT_ASSERT_EQ(test, kta_loaded(ctx) + kta_spare(ctx), 2U * KTA_SIZE);
	array_cache_free_arrays(ctx->cache);
	ctx->cache->array_size = 0;
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_NULL(test, per_cpu_ptr(ctx->cache->cpu_slab, cpu)->array);
	kmem_cache_shrink(ctx->cache);
	KUNIT_EXPECT_TRUE_MSG(test, __kmem_cache_empty(ctx->cache),
			      "objects in the arrays were lost with them");
}

/*
 * A cpu's arrays are made on its first use of the cache: until then its
 * loaded array is array_unmade, which both fastpaths pass to the slow
 * paths, and while another call makes them (array_making) the cpu takes
 * the freelist path.  A first free makes them as a first allocation does.
 */
static void kta_first_use(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;
	void *obj = NULL;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_PTR_EQ_MSG(test, per_cpu_ptr(ctx->cache->cpu_slab, cpu)->array,
					&array_unmade, "cpu %u has arrays it never used", cpu);
	KUNIT_EXPECT_NULL(test, ctx->pcpu->spare);

	a = array_take_this_cpu(ctx->cache, &pcpu);
	KUNIT_ASSERT_NOT_NULL(test, a);
	if (a != &array_unmade) {
		array_release_unused(ctx->cache->cpu_slab);
		preempt_enable();
		KUNIT_FAIL(test, "the test cpu's arrays were made before any use");
		return;
	}
	array_put(ctx->cache, &array_making);
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, array_alloc_fast(ctx->cache, GFP_KERNEL,
						 NUMA_NO_NODE, 0, &obj));
	KUNIT_EXPECT_NOT_NULL(test, obj);
	KUNIT_EXPECT_PTR_EQ_MSG(test, ctx->pcpu->array, &array_making,
				"arrays made while another call was making them");
	if (obj)
		KUNIT_EXPECT_TRUE(test, array_free_fast(ctx->cache, virt_to_slab(obj), obj));
	KUNIT_EXPECT_PTR_EQ(test, ctx->pcpu->array, &array_making);
	a = array_take_this_cpu(ctx->cache, &pcpu);
	KUNIT_ASSERT_NOT_NULL(test, a);
	if (a == &array_making)
		array_put(ctx->cache, &array_unmade);
	else
		array_release_unused(ctx->cache->cpu_slab);
	preempt_enable();
	KUNIT_ASSERT_PTR_EQ(test, a, &array_making);

	/* The first allocation makes both arrays and refills one. */
	kta_alloc(test);
	KUNIT_ASSERT_TRUE(test, array_made(ctx->pcpu->array));
	KUNIT_EXPECT_EQ(test, ctx->pcpu->array->size, (unsigned int)KTA_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, ctx->pcpu->spare);
	KUNIT_EXPECT_EQ(test, ctx->pcpu->spare->size, (unsigned int)KTA_SIZE);
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), KTA_SIZE / 2 - 1);

	/* Again with a free first. */
	array_drain_local(ctx->cache);
	array_cache_release(ctx->cache);
	array_cache_attach(ctx->cache, KTA_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, ctx->pcpu->array, &array_unmade);
	kta_free(test);
	KUNIT_ASSERT_TRUE(test, array_made(ctx->pcpu->array));
	KUNIT_EXPECT_EQ(test, kta_loaded(ctx), 1U);
	KUNIT_EXPECT_NOT_NULL(test, ctx->pcpu->spare);
}

struct kta_pin_seen {
	struct task_struct *task;
	size_t bytes;
	unsigned int allocs;
	unsigned int unpinned;
	unsigned int reclaim;
};

/* Whether the running task may not move (migrate_disable()). */
static bool kta_pinned(void)
{
#ifdef CONFIG_SMP
	return current->migration_disabled;
#else
	return true;
#endif /* CONFIG_SMP */
}

static void kta_pin_probe(void *data, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp, int node)
{
	struct kta_pin_seen *seen = data;

	if (current != seen->task || bytes_req != seen->bytes)
		return;
	seen->allocs++;
	if (!kta_pinned())
		seen->unpinned++;
	if (gfp & __GFP_DIRECT_RECLAIM)
		seen->reclaim++;
}

/* Give the test cpu its placeholder back, as before its first use. */
static void kta_unmake(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;

	array_drain_local(ctx->cache);
	array_cache_release(ctx->cache);
	array_cache_attach(ctx->cache, KTA_SIZE);
	KUNIT_ASSERT_PTR_EQ(test, ctx->pcpu->array, &array_unmade);
}

/*
 * THEORY 6: a first use makes the cpu's arrays with array_making in
 * place, and the task stays on the cpu until they are in, on every path
 * that makes them (a free, a bulk free, an allocation): a task that
 * moved meanwhile would leave array_making on the cpu for good, which
 * would take the freelist path for the cache from then on.  Pinned, it
 * does no direct reclaim, for which a cpu going offline would wait.
 * The kmalloc tracepoint sees the arrays being made.
 */
static void kta_first_use_pinned(struct kunit *test)
{
	struct kta_ctx *ctx = test->priv;
	struct kta_pin_seen seen = {
		.task = current,
		.bytes = struct_size_t(struct slub_array, objs, KTA_SIZE),
	};
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "no CONFIG_TRACEPOINTS: cannot see the arrays made");
	if (!IS_ENABLED(CONFIG_SMP))
		kunit_skip(test, "no CONFIG_SMP: no task moves");
	kta_alloc(test);
	kta_alloc(test);
	kta_alloc(test);
	kta_unmake(test);
	ret = register_trace_kmalloc(kta_pin_probe, &seen);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* A free, then a bulk free, then an allocation, each a first use. */
	kta_free(test);
	kta_unmake(test);
	ctx->nr--;
	KUNIT_EXPECT_EQ(test, array_free_bulk(ctx->cache, 1, &ctx->objs[ctx->nr],
					      numa_mem_id()), (size_t)1);
	kta_unmake(test);
	kta_alloc(test);
	unregister_trace_kmalloc(kta_pin_probe, &seen);
	tracepoint_synchronize_unregister();
	KUNIT_EXPECT_GE_MSG(test, seen.allocs, 6U, "three first uses, two arrays each");
	KUNIT_EXPECT_EQ_MSG(test, seen.unpinned, 0U,
			    "a first use made arrays with the task free to move");
	KUNIT_EXPECT_EQ_MSG(test, seen.reclaim, 0U,
			    "a first use may reclaim while its task is pinned");
}

/*
 * The capacity rule (THEORY 6): slots by object size within a byte
 * budget, the budget by the machine, and the kmalloc caches sized by it
 * at boot.
 */
static void kta_capacity(struct kunit *test)
{
	static const unsigned int sizes[][2] = {
		{ 8, 125 }, { 64, 125 }, { 96, 61 }, { 128, 61 },
		{ 256, 29 }, { 512, 13 }, { 1024, 5 }, { 1600, 5 },
		{ 1700, 4 }, { 4096, 4 },
	};
	unsigned int i, size, bytes, slots, prev, checked = 0;
	struct kmem_cache *cache;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		KUNIT_EXPECT_EQ_MSG(test, array_slots_for(sizes[i][0], SZ_8K),
				    sizes[i][1], "size %u", sizes[i][0]);
	/* Never more bytes than the budget, but for the 4-object floor. */
	for (bytes = 8; bytes <= ARRAY_BYTES_MAX; bytes *= 4) {
		prev = ARRAY_SIZE_MAX;
		for (size = 8; size <= 2 * PAGE_SIZE; size += 8) {
			slots = array_slots_for(size, bytes);
			KUNIT_EXPECT_LE(test, slots, prev);
			KUNIT_EXPECT_GE(test, slots, (unsigned int)ARRAY_SIZE_MIN);
			KUNIT_EXPECT_LE_MSG(test, slots * size,
					    max(bytes, ARRAY_SIZE_MIN * size),
					    "size %u, budget %u", size, bytes);
			prev = slots;
		}
	}
	/* 1 GiB: 2 cpus get the cap, 16 half of it, 512 128 bytes. */
	KUNIT_EXPECT_EQ(test, array_budget(SZ_1G >> PAGE_SHIFT, 2),
			(unsigned int)ARRAY_BYTES_MAX);
	KUNIT_EXPECT_EQ(test, array_budget(SZ_1G >> PAGE_SHIFT, 16),
			(unsigned int)SZ_4K);
	KUNIT_EXPECT_EQ(test, array_budget(SZ_1G >> PAGE_SHIFT, 512), 128U);
	KUNIT_EXPECT_EQ(test, array_budget(6, 4), (unsigned int)sizeof(void *));
	/* This boot's kmalloc caches got what the rule gives them. */
	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++) {
		cache = kmalloc_caches[KMALLOC_NORMAL][i];
		if (!cache || !cache->array_size)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, cache->array_size,
				    array_size_fixed ?:
				    array_slots_for(cache->size, array_bytes),
				    "%s", cache->name);
		checked++;
	}
	if (!checked)
		kunit_skip(test, "no kmalloc cache has arrays");
}

static struct kunit_case kta_cases[] = {
	KUNIT_CASE(kta_refill_half),
	KUNIT_CASE(kta_spare_swap),
	KUNIT_CASE(kta_depot_put_get),
	KUNIT_CASE(kta_flush_half),
	KUNIT_CASE(kta_nested_fallback),
	KUNIT_CASE(kta_bulk),
	KUNIT_CASE(kta_shrink_drains),
	KUNIT_CASE(kta_reap_busy_cpu),
	KUNIT_CASE(kta_reap_depot_per_node),
	KUNIT_CASE(kta_refill_nofail),
	KUNIT_CASE(kta_dropped_array_rcu),
	KUNIT_CASE(kta_alloc_node_local),
	KUNIT_CASE(kta_resize),
	KUNIT_CASE(kta_shrinker),
	KUNIT_CASE(kta_refill_batch),
	KUNIT_CASE(kta_free_gfp),
	KUNIT_CASE(kta_resize_allocs),
	KUNIT_CASE(kta_bulk_wrong_node),
	KUNIT_CASE(kta_bulk_node_mixed),
	KUNIT_CASE(kta_free_arrays),
	KUNIT_CASE(kta_first_use),
	KUNIT_CASE(kta_first_use_pinned),
	KUNIT_CASE(kta_policy_allows),
	KUNIT_CASE(kta_policy_remote),
	KUNIT_CASE(kta_capacity),
	{}
};

static struct kunit_suite kta_suite = {
	.name = "slub_array",
	.init = kta_init,
	.exit = kta_exit,
	.test_cases = kta_cases,
};

kunit_test_suite(kta_suite);
