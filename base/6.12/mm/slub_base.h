/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SLUB engine's per-base layer, Linux 6.12.
 *
 * The same names and meanings as 6.1's copy of this header (see there),
 * in 6.12's terms: cmpxchg128 instead of cmpxchg_double, the page type of
 * a slab page, KASAN's new hook arguments.  6.12 moved into the
 * allocator what 6.1's mm/slab.h gave it: struct kmem_cache_node, the
 * per-object allocation and free hooks and cache_from_obj().  This
 * header gives the engine those in the shape it calls on every base.
 *
 * Slab object extensions (CONFIG_SLAB_OBJ_EXT) live here and in this
 * base's mm/slub_entry.c: a slab's vector of one struct slabobj_ext per
 * object, in slab->obj_exts, which holds the memcg charge of each object
 * (MEMCG) and its allocation tag (MEM_ALLOC_PROFILING).  The engine only
 * calls the hooks.
 *
 * Not carried yet on this base: the tag-based KASAN modes.  A
 * configuration that asks for them stops here rather than build an
 * allocator that ignores them.
 *
 * Included by mm/slub_internal.h, after mm/slab.h.
 */
#ifndef MM_SLUB_BASE_H
#define MM_SLUB_BASE_H

#include <linux/percpu.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/alloc_tag.h>
#include <linux/memcontrol.h>
#include <linux/mempolicy.h>
#include <linux/kmsan.h>
#include <linux/fault-inject.h>
#include <linux/swap.h>
#include <linux/shrinker.h>
#include <linux/stackdepot.h>
#include <linux/vmstat.h>

#if defined(CONFIG_KASAN) && !defined(CONFIG_KASAN_GENERIC)
#error "SLUB engine: only generic KASAN is supported on 6.12 for now"
#endif /* CONFIG_KASAN && !CONFIG_KASAN_GENERIC */

/*
 * The slab lists of one node: partial slabs, the array depot and, with
 * SLUB_DEBUG, the full list and the node's counts.  kn->list_lock
 * guards the lists (THEORY 2).
 */
struct kmem_cache_node {
	spinlock_t list_lock;		/* the lists and nr_partial */
	unsigned long nr_partial;
	struct list_head partial;
	struct slub_depot depot;	/* arrays of the front end */
#ifdef CONFIG_SLUB_DEBUG
	atomic_long_t nr_slabs;
	atomic_long_t total_objects;
	struct list_head full;
#endif /* CONFIG_SLUB_DEBUG */
};

static inline struct kmem_cache_node *get_node(struct kmem_cache *cache,
					       int node)
{
	return cache->node[node];
}

/* The first node structure of @cache from node *@node on, or NULL. */
static inline struct kmem_cache_node *slub_node_from(struct kmem_cache *cache,
						     int *node)
{
	for (; *node < nr_node_ids; (*node)++)
		if (cache->node[*node])
			return cache->node[*node];
	return NULL;
}

/* Start a node walk at node 0; returns @node. */
static inline int *slub_node_first(int *node)
{
	*node = 0;
	return node;
}

/* Each node of @cache that has a node structure, as (@node, @kn). */
#define for_each_kmem_cache_node(cache, node, kn)			\
	for (int *__node = slub_node_first(&(node));			\
	     ((kn) = slub_node_from(cache, __node)); (*__node)++)

/*
 * A flag that keeps a new cache from merging, for the engine's KUnit
 * caches.  A usercopy region does so here only with HARDENED_USERCOPY.
 */
#define SLUB_NO_MERGE	SLAB_NO_MERGE

/*
 * The kmalloc red zone past the requested size (mm/slub_internal.h):
 * 6.12's ksize() calls skip_orig_size_check() when it hands a caller
 * the whole object.
 */
#define SLUB_KMALLOC_REDZONE	1

/*
 * Whether a SLAB_TYPESAFE_BY_RCU cache's creator may name the word of
 * its objects that the free pointer takes: kmem_cache_args.freeptr_offset (mm/slub_entry.c).
 */
#define SLUB_HAS_FREEPTR_OFFSET	1

/* Slab orders are 0 .. SLUB_NR_ORDERS - 1. */
#define SLUB_NR_ORDERS	NR_PAGE_ORDERS

/*
 * 6.12 names the order and debug parameters slab_*= and keeps slub_*=
 * as their legacy names (kernel-parameters.txt): the engine takes both.
 */
#define slub_setup_alias(str, id, fn)	__setup_param(str, id, fn, 0)

/* The kmalloc caches, at the end of kmem_cache_init(). */
static inline void __init slub_create_kmalloc_caches(void)
{
	create_kmalloc_caches();
}

/* slub_debug=U at boot: the stack depot must be set up early. */
static inline void __init slub_stack_depot_early_init(void)
{
	stack_depot_request_early_init();
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
	struct shrinker *shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "%s", name);

	if (!shrinker)
		return false;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(shrinker);
	return true;
}

/* Whether the 32-bit @word, read as page_type, marks a page type. */
static inline bool slub_is_page_type(u32 word)
{
	return (word >> 24) >= PGTY_buddy;
}

/*
 * A slab page is marked by page_type, at the offset the pair's counters
 * take in a struct page at 8 mod 16.  That position exists only where
 * struct page is not a multiple of 16 bytes: there the counters must
 * carry the type (CONFIG_SLUB_TYPED_COUNTERS, mm/Kconfig).
 */
static_assert(IS_ENABLED(CONFIG_SLUB_TYPED_COUNTERS) ||
	      !IS_ENABLED(CONFIG_STRUCT_PAGE_INTERNAL_ALIGN) ||
	      sizeof(struct page) % 16 == 0,
	      "a 56-byte struct page needs CONFIG_SLUB_TYPED_COUNTERS");

#ifdef CONFIG_NUMA
/* Whether a task with mempolicy @pol spreads its pages over nodes. */
static inline bool slub_mpol_interleaves(const struct mempolicy *pol)
{
	return pol->mode == MPOL_INTERLEAVE ||
	       pol->mode == MPOL_WEIGHTED_INTERLEAVE;
}
#endif /* CONFIG_NUMA */

/* Whether the CPU has the double-word cmpxchg of the slab pair. */
#define slub_cpu_has_pair_cmpxchg()	system_has_cmpxchg128()

/* Two words as the one 128-bit value cmpxchg128 compares. */
union slub_pair128 {
	struct {
		unsigned long lo;
		unsigned long hi;
	};
	u128 full;
};

/* Commit @pair (two adjacent words, 16-byte aligned) if it still holds old. */
static __always_inline bool slub_pair_cmpxchg(unsigned long *pair,
					      unsigned long old0,
					      unsigned long old1,
					      unsigned long new0,
					      unsigned long new1)
{
	union slub_pair128 old = { .lo = old0, .hi = old1 };
	union slub_pair128 new = { .lo = new0, .hi = new1 };

	return try_cmpxchg128((u128 *)pair, &old.full, new.full);
}

/*
 * This cpu's (freelist, tid) of @cache: from (@of, @ot) to (@nf, @nt)
 * if unchanged, as one cmpxchg16b on %gs, preemptible.  struct
 * kmem_cache_cpu keeps the two words first and 16-byte aligned.
 *
 * On x86-64 not this_cpu_try_cmpxchg128(): its operands are u128
 * locals, and a 16-byte aligned local makes gcc realign the stack of
 * the function it is inlined into (the kernel's stack is only 8-byte
 * aligned), for an operation that keeps its operands in registers
 * anyway: one instruction of every allocation and free on either front
 * end, two of a kmalloc() and kfree() pair (bench.config, gcc 12).  The
 * same instruction, and the same fallback without CX16 (the kernel's
 * this_cpu_cmpxchg16b_emu: old in rdx:rax, new in rcx:rbx, the per-cpu
 * address in rsi, ZF set on success), with the words apart.
 */
#ifdef CONFIG_X86_64
#define slub_cpu_pair_cmpxchg(cache, of, ot, nf, nt)			\
({									\
	struct kmem_cache_cpu __percpu *__pc = (cache)->cpu_slab;	\
	unsigned long __lo = (unsigned long)(of);			\
	unsigned long __hi = (ot);					\
	bool __ok;							\
									\
	asm volatile(ALTERNATIVE("call this_cpu_cmpxchg16b_emu",	\
				 "cmpxchg16b " __percpu_arg([pair]),	\
				 X86_FEATURE_CX16)			\
		     CC_SET(z)						\
		     : ALT_OUTPUT_SP(CC_OUT(z) (__ok),			\
				     [pair] "+m" (__my_cpu_var(		\
					*(u128 __percpu *)&__pc->freelist)), \
				     "+a" (__lo), "+d" (__hi))		\
		     : "b" ((unsigned long)(nf)),			\
		       "c" ((unsigned long)(nt)),			\
		       "S" (&__pc->freelist)				\
		     : "memory");					\
	__ok;								\
})
#else
#define slub_cpu_pair_cmpxchg(cache, of, ot, nf, nt)			\
({									\
	union slub_pair128 __old = { .lo = (unsigned long)(of),		\
				     .hi = (ot) };			\
	union slub_pair128 __new = { .lo = (unsigned long)(nf),		\
				     .hi = (nt) };			\
									\
	this_cpu_try_cmpxchg128(*(u128 __percpu *)			\
				&(cache)->cpu_slab->freelist,		\
				&__old.full, __new.full);		\
})
#endif /* CONFIG_X86_64 */

/* Around a constructor call: the object is open to it. */
static __always_inline void slub_kasan_ctor_begin(struct kmem_cache *cache,
						  void *obj)
{
	kasan_unpoison_new_object(cache, obj);
}

static __always_inline void slub_kasan_ctor_end(struct kmem_cache *cache,
						void *obj)
{
	kasan_poison_new_object(cache, obj);
}

/*
 * Before a free touches @obj: true if KASAN found the free invalid (a
 * double free, or a pointer into an object) and reported it; the
 * object is then left alone.
 */
static __always_inline bool slub_kasan_pre_free(struct kmem_cache *cache,
						void *obj)
{
	return kasan_slab_pre_free(cache, obj);
}

/*
 * KASAN's part of a free: true when it keeps the object (quarantine).
 * An object RCU readers may still read (@still_accessible: of a
 * SLAB_TYPESAFE_BY_RCU cache, before a grace period) is not poisoned.
 */
static __always_inline bool slub_kasan_free(struct kmem_cache *cache,
					    void *obj, bool init,
					    bool still_accessible)
{
	return kasan_slab_free(cache, obj, init, still_accessible);
}

/* A free delayed by SLUB_RCU_DEBUG: KASAN's reports will name it. */
static inline void slub_kasan_note_deferred_free(void *obj)
{
	kasan_record_aux_stack_noalloc(obj);
}

/* KASAN metadata kept inside a free object: never kmalloc red zone. */
static inline size_t slub_kasan_in_object_size(struct kmem_cache *cache)
{
	return kasan_metadata_size(cache, true);
}

/* KASAN metadata after the object, for the debug layout. */
static inline size_t slub_kasan_metadata_size(struct kmem_cache *cache)
{
	return kasan_metadata_size(cache, false);
}

void slub_pages_account(struct kmem_cache *cache, struct slab *slab,
			unsigned int order, gfp_t gfp);
void slub_pages_unaccount(struct kmem_cache *cache, struct slab *slab,
			  unsigned int order);

/* ---- Slab object extensions: memcg and allocation tags ---- */

#ifdef CONFIG_SLAB_OBJ_EXT
/* The extension of @obj, in the vector of its @slab, or NULL if none. */
static __always_inline struct slabobj_ext *
slub_obj_ext(struct kmem_cache *cache, struct slab *slab, void *obj)
{
	struct slabobj_ext *vec = slab_obj_exts(slab);

	return vec ? vec + obj_to_index(cache, slab, obj) : NULL;
}

void slub_obj_exts_free(struct slab *slab);
#else
static inline void slub_obj_exts_free(struct slab *slab)
{
}
#endif /* CONFIG_SLAB_OBJ_EXT */

#ifdef CONFIG_MEM_ALLOC_PROFILING
void slub_tag_objects(struct kmem_cache *cache, gfp_t gfp, size_t n,
		      void **p);

/*
 * Each of the @n objects in @p (NULL slots skipped) is counted to the
 * caller's allocation tag, cache->size bytes and one call, as 6.12's
 * SLUB counts them; the caches of the vectors themselves and those of
 * kmemleak (SLAB_NOLEAKTRACE) are not.
 */
static __always_inline void slub_tag_alloc(struct kmem_cache *cache,
					   gfp_t gfp, size_t n, void **p)
{
	if (mem_alloc_profiling_enabled() &&
	    !(cache->flags & (SLAB_NO_OBJ_EXT | SLAB_NOLEAKTRACE)) &&
	    !(gfp & __GFP_NO_OBJ_EXT))
		slub_tag_objects(cache, gfp, n, p);
}

/* The tags of @n objects of @slab being freed go down again. */
static __always_inline void slub_tag_free(struct kmem_cache *cache,
					  struct slab *slab, void **p, int n)
{
	struct slabobj_ext *ext;
	int i;

	if (!mem_alloc_profiling_enabled() ||
	    (cache->flags & (SLAB_NO_OBJ_EXT | SLAB_NOLEAKTRACE)) ||
	    !slab_obj_exts(slab))
		return;
	for (i = 0; i < n; i++) {
		ext = slub_obj_ext(cache, slab, p[i]);
		alloc_tag_sub(&ext->ref, cache->size);
	}
}
#else
static __always_inline void slub_tag_alloc(struct kmem_cache *cache,
					   gfp_t gfp, size_t n, void **p)
{
}

static __always_inline void slub_tag_free(struct kmem_cache *cache,
					  struct slab *slab, void **p, int n)
{
}
#endif /* CONFIG_MEM_ALLOC_PROFILING */

#ifdef CONFIG_MEMCG
/*
 * Charge the objects of an accounted allocation to the current memcg,
 * after they are taken (6.12 has no charge in advance): @n objects in
 * @p, of which trailing NULL slots are ones the engine could not take.
 * False if the charge (or the list_lru's) failed: the objects must go.
 */
static __always_inline bool slub_memcg_charge(struct kmem_cache *cache,
					      struct list_lru *lru, gfp_t gfp,
					      size_t n, void **p)
{
	if (likely(!memcg_kmem_online()))
		return true;
	if (likely(!(gfp & __GFP_ACCOUNT) && !(cache->flags & SLAB_ACCOUNT)))
		return true;
	while (n && !p[n - 1])
		n--;
	return !n || __memcg_slab_post_alloc_hook(cache, lru, gfp, n, p);
}

/* The charges of @n objects of @slab being freed, if they have any. */
static __always_inline void slub_memcg_uncharge(struct kmem_cache *cache,
						struct slab *slab, void **p,
						int n)
{
	struct slabobj_ext *vec;

	if (likely(!memcg_kmem_online()))
		return;
	vec = slab_obj_exts(slab);
	if (vec)
		__memcg_slab_free_hook(cache, slab, p, n, vec);
}

bool slub_memcg_charge_late(void *obj, gfp_t gfp);
#else
static __always_inline bool slub_memcg_charge(struct kmem_cache *cache,
					      struct list_lru *lru, gfp_t gfp,
					      size_t n, void **p)
{
	return true;
}

static __always_inline void slub_memcg_uncharge(struct kmem_cache *cache,
						struct slab *slab, void **p,
						int n)
{
}
#endif /* CONFIG_MEMCG */

/* ---- The per-object hooks the engine calls (as on 6.1) ---- */

/*
 * What the pre-alloc hook hands to the post-alloc hook: 6.12's memcg
 * charges after the objects are taken, for the list_lru the caller
 * named, so the post hook needs that list_lru.
 */
struct slub_hook_ctx {
	struct list_lru *lru;
};

static __always_inline bool slub_pre_alloc_hook(struct kmem_cache *cache,
						struct list_lru *lru,
						struct slub_hook_ctx *ctx,
						size_t n, gfp_t gfp)
{
	ctx->lru = lru;
	return true;
}

/*
 * After the engine took @n objects into @p (a NULL slot is one it could
 * not take): KASAN (which may tag the pointers, so it comes first),
 * zeroing when @init, kmemleak, KMSAN and the allocation tag of each,
 * then the memcg charge of them all.  False if the charge failed: the
 * engine frees the objects, with their hooks, and the allocation fails.
 */
static __always_inline bool slub_post_alloc_hook(struct kmem_cache *cache,
						 struct slub_hook_ctx ctx,
						 gfp_t gfp, size_t n, void **p,
						 bool init)
{
	size_t i;

	gfp &= gfp_allowed_mask;
	for (i = 0; i < n; i++) {
		p[i] = kasan_slab_alloc(cache, p[i], gfp, init);
		if (p[i] && init && !kasan_has_integrated_init())
			memset(p[i], 0, cache->object_size);
		kmemleak_alloc_recursive(p[i], cache->object_size, 1,
					 cache->flags, gfp);
		kmsan_slab_alloc(cache, p[i], gfp);
	}
	slub_tag_alloc(cache, gfp, n, p);
	return slub_memcg_charge(cache, ctx.lru, gfp, n, p);
}

/*
 * The first hook of a free of @n objects of @slab, before KASAN may keep
 * them: the memcg charge and the allocation tag go at the free call.
 */
static __always_inline void slub_free_account(struct kmem_cache *cache,
					      struct slab *slab, void **p,
					      int n)
{
	slub_memcg_uncharge(cache, slab, p, n);
	slub_tag_free(cache, slab, p, n);
}

/*
 * Flags of the engine's own boot caches (kmem_cache, kmem_cache_node):
 * no extension vectors, as upstream's.
 */
#define SLUB_BOOT_CACHE_FLAGS	SLAB_NO_OBJ_EXT

/*
 * The cache @x really belongs to, for kmem_cache_free(@cache, @x) with
 * hardening or consistency checks: a mismatch is reported (with the
 * object's owners) and the object's own cache is used; NULL if @x is in
 * no slab at all, whatever @cache is (NULL too, as upstream allows).
 */
static inline struct kmem_cache *cache_from_obj(struct kmem_cache *cache,
						void *x)
{
	struct slab *slab = virt_to_slab(x);
	struct kmem_cache *owner = slab ? slab->slab_cache : NULL;
	/* LKDTM's SLAB_FREE_PAGE frees a page to no cache at all. */
	const char *name = cache ? cache->name : "(null)";

	if (WARN_ONCE(!slab, "%s: object %p of cache %s is not in a slab\n",
		      __func__, x, name))
		return NULL;
	if (WARN(owner != cache, "%s: Wrong slab cache. %s but object is from %s\n",
		 __func__, name, owner->name))
		print_tracking(owner, x);
	return owner;
}

void free_large_kmalloc(struct folio *folio, void *object);

#endif /* MM_SLUB_BASE_H */
