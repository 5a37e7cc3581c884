/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SLUB engine's per-base layer, Linux 6.1.
 *
 * The engine's files are one source for every base the series supports.
 * What a base names or spells its own way is reached through this header
 * only: the double-word cmpxchg on the slab pair and on the per-cpu
 * (freelist, tid), the KASAN hooks the engine calls with a base's
 * arguments, the page allocator's bookkeeping of a slab's pages and the
 * highest slab order.  Each base has its own copy of this header (under
 * base/V/ in the series' repository, for a base V other than 6.1), with
 * the same names and meanings.  The allocation and free hooks the engine runs
 * around each object are 6.1's own, from mm/slab.h; a later base's copy
 * gives them the same shape.
 *
 * Included by mm/slub_internal.h, after mm/slab.h.
 */
#ifndef MM_SLUB_BASE_H
#define MM_SLUB_BASE_H

#include <linux/percpu.h>
#include <linux/kasan.h>
#include <linux/mempolicy.h>
#include <linux/swap.h>
#include <linux/shrinker.h>
#include <linux/stackdepot.h>

/*
 * A flag that keeps a new cache from merging, for the engine's KUnit
 * caches.  6.1 has no SLAB_NO_MERGE: their usercopy region does it.
 */
#define SLUB_NO_MERGE	0

/*
 * 6.1's ksize() does not tell the allocator that its caller may now use
 * the whole object, so the size each kmalloc asked for is not kept: the
 * bytes past it could be written legitimately (see mm/slub_internal.h).
 */
#define SLUB_KMALLOC_REDZONE	0

/*
 * Whether a SLAB_TYPESAFE_BY_RCU cache's creator may name the word of
 * its objects that the free pointer takes: 6.1 has no kmem_cache_args.
 */
#define SLUB_HAS_FREEPTR_OFFSET	0

/* Slab orders are 0 .. SLUB_NR_ORDERS - 1. */
#define SLUB_NR_ORDERS	MAX_ORDER

/*
 * slub_setup_alias(str, id, fn): the base's own name for a boot
 * parameter of the engine, besides its slub_* one.  6.1 has only the
 * slub_* names.
 */
#define slub_setup_alias(str, id, fn)	static_assert(1)

/* The kmalloc caches, at the end of kmem_cache_init(). */
static inline void __init slub_create_kmalloc_caches(void)
{
	create_kmalloc_caches(0);
}

/* slub_debug=U at boot: the stack depot must be set up early. */
static inline void __init slub_stack_depot_early_init(void)
{
	stack_depot_want_early_init();
}

/*
 * Register a shrinker of the engine's own (the cpu arrays), once, at
 * boot, NUMA aware: it is asked node by node.  Returns false if it could
 * not be.
 */
static inline bool __init
slub_shrinker_register(unsigned long (*count)(struct shrinker *,
					      struct shrink_control *),
		       unsigned long (*scan)(struct shrinker *,
					     struct shrink_control *),
		       const char *name)
{
	static struct shrinker shrinker;

	shrinker.count_objects = count;
	shrinker.scan_objects = scan;
	shrinker.seeks = DEFAULT_SEEKS;
	shrinker.flags = SHRINKER_NUMA_AWARE;
	return !register_shrinker(&shrinker, name);
}

/* Whether the 32-bit @word, read as page_type, marks a page type. */
static inline bool slub_is_page_type(u32 word)
{
	return (word & PAGE_TYPE_BASE) == PAGE_TYPE_BASE;
}

#ifdef CONFIG_NUMA
/* Whether a task with mempolicy @pol spreads its pages over nodes. */
static inline bool slub_mpol_interleaves(const struct mempolicy *pol)
{
	return pol->mode == MPOL_INTERLEAVE;
}
#endif /* CONFIG_NUMA */

/* Whether the CPU has the double-word cmpxchg of the slab pair. */
#define slub_cpu_has_pair_cmpxchg()	system_has_cmpxchg_double()

/* Commit @pair (two adjacent words, 16-byte aligned) if it still holds old. */
static __always_inline bool slub_pair_cmpxchg(unsigned long *pair,
					      unsigned long old0,
					      unsigned long old1,
					      unsigned long new0,
					      unsigned long new1)
{
	return cmpxchg_double(&pair[0], &pair[1], old0, old1, new0, new1);
}

/*
 * This cpu's (freelist, tid) of @cache: from (@of, @ot) to (@nf, @nt)
 * if unchanged, as one cmpxchg16b on %gs, preemptible.
 */
#define slub_cpu_pair_cmpxchg(cache, of, ot, nf, nt)			\
({									\
	struct kmem_cache_cpu __percpu *__pcpu = (cache)->cpu_slab;	\
									\
	this_cpu_cmpxchg_double(__pcpu->freelist, __pcpu->tid,		\
				of, ot, nf, nt);			\
})

/* Around a constructor call: the object is open to it. */
static __always_inline void slub_kasan_ctor_begin(struct kmem_cache *cache,
						  void *obj)
{
	kasan_unpoison_object_data(cache, obj);
}

static __always_inline void slub_kasan_ctor_end(struct kmem_cache *cache,
						void *obj)
{
	kasan_poison_object_data(cache, obj);
}

/*
 * Before a free touches @obj: true if KASAN found the free invalid and
 * reported it, and the object must be left alone.  6.1's KASAN checks
 * that in kasan_slab_free() itself.
 */
static __always_inline bool slub_kasan_pre_free(struct kmem_cache *cache,
						void *obj)
{
	return false;
}

/*
 * KASAN's part of a free: true when it keeps the object (quarantine).
 * 6.1's KASAN leaves the objects of SLAB_TYPESAFE_BY_RCU caches alone
 * itself, whatever @still_accessible says.
 */
static __always_inline bool slub_kasan_free(struct kmem_cache *cache,
					    void *obj, bool init,
					    bool still_accessible)
{
	return kasan_slab_free(cache, obj, init);
}

/* KASAN metadata kept inside a free object: never kmalloc red zone. */
static inline size_t slub_kasan_in_object_size(struct kmem_cache *cache)
{
	return 0;	/* unused: no kmalloc red zone on 6.1 */
}

/* KASAN metadata after the object, for the debug layout. */
static inline size_t slub_kasan_metadata_size(struct kmem_cache *cache)
{
	return kasan_metadata_size(cache);
}

/*
 * The pages of a slab go back: what the page allocator and reclaim count
 * of them.  The shifted pair's counters overlay _mapcount, which the page
 * allocator's free checks expect at -1.
 */
static inline void slub_pages_unaccount(struct kmem_cache *cache,
					struct slab *slab, unsigned int order)
{
	page_mapcount_reset(slab_page(slab));
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += 1UL << order;
	unaccount_slab(slab, order, cache);
}

/* The vmstat (and memcg) count of a new slab's pages. */
static inline void slub_pages_account(struct kmem_cache *cache,
				      struct slab *slab, unsigned int order,
				      gfp_t gfp)
{
	account_slab(slab, order, cache, gfp);
}

/*
 * The per-object hooks around an allocation: what the pre-alloc hook
 * hands to the post-alloc hook.  6.1's memcg charges the objects in
 * advance, so the post hook needs the objcg charged.
 */
struct slub_hook_ctx {
	struct obj_cgroup *objcg;
};

/* Before @n objects are taken: false refuses the allocation. */
static __always_inline bool slub_pre_alloc_hook(struct kmem_cache *cache,
						struct list_lru *lru,
						struct slub_hook_ctx *ctx,
						size_t n, gfp_t gfp)
{
	return memcg_slab_pre_alloc_hook(cache, lru, &ctx->objcg, n, gfp);
}

/*
 * After the engine took @n objects into @p (a NULL slot is one it could
 * not take): KASAN, zeroing when @init, kmemleak, KMSAN and memcg.
 * False would mean that the objects must be freed: never on 6.1, whose
 * memcg charged them before.
 */
static __always_inline bool slub_post_alloc_hook(struct kmem_cache *cache,
						 struct slub_hook_ctx ctx,
						 gfp_t gfp, size_t n, void **p,
						 bool init)
{
	slab_post_alloc_hook(cache, ctx.objcg, gfp, n, p, init);
	return true;
}

/* The first hook of a free of @n objects of @slab: memcg's uncharge. */
static __always_inline void slub_free_account(struct kmem_cache *cache,
					      struct slab *slab, void **p,
					      int n)
{
	memcg_slab_free_hook(cache, slab, p, n);
}

/* Flags of the engine's own boot caches (kmem_cache, kmem_cache_node). */
#define SLUB_BOOT_CACHE_FLAGS	0

#endif /* MM_SLUB_BASE_H */
