// SPDX-License-Identifier: GPL-2.0
/*
 * The SLUB engine's entry points as Linux 6.12 names them: the *_noprof
 * object and kmalloc calls that <linux/slab.h> wraps in alloc_hooks(),
 * kfree() and the large kmalloc, which 6.12 moved from mm/slab_common.c
 * into the allocator, and the cache creation hook of mm/slab.h.  Each
 * base has its own copy of this file (see mm/slub_base.h); the engine
 * underneath is the same.
 *
 * The *_noprof calls run inside the alloc_hooks() of <linux/slab.h>,
 * which made current->alloc_tag the caller's: the post-alloc hook counts
 * each object to it (mm/slub_base.h).  The vectors of slab object
 * extensions are made and freed here.
 *
 * Included by mm/slub.c, after the paths it inlines into these.
 */

/* ---- Objects of a cache ---- */

/**
 * kmem_cache_alloc_noprof - allocate an object
 * @cache: the cache
 * @gfpflags: allocation flags
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc_noprof(struct kmem_cache *cache, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(cache, NULL, gfpflags, NUMA_NO_NODE,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_noprof);

/**
 * kmem_cache_alloc_lru_noprof - allocate an object charged to a list_lru
 * @cache: the cache
 * @lru: the list_lru the object will go on (memcg aware)
 * @gfpflags: allocation flags
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc_lru_noprof(struct kmem_cache *cache,
				  struct list_lru *lru, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(cache, lru, gfpflags, NUMA_NO_NODE,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_lru_noprof);

/**
 * kmem_cache_alloc_node_noprof - allocate an object on a node
 * @cache: the cache
 * @gfpflags: allocation flags
 * @node: the preferred node, or NUMA_NO_NODE
 *
 * The object comes from @node when it has memory, else from any node.
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc_node_noprof(struct kmem_cache *cache, gfp_t gfpflags,
				   int node)
{
	void *ret = slab_alloc_node(cache, NULL, gfpflags, node,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, node);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_node_noprof);

/**
 * kmem_cache_alloc_bulk_noprof - allocate several objects
 * @cache: the cache
 * @flags: allocation flags
 * @size: number of objects wanted
 * @p: array receiving the objects
 *
 * All objects or none.  Interrupts must be enabled by the caller.
 *
 * Return: @size on success, 0 on failure.
 */
int kmem_cache_alloc_bulk_noprof(struct kmem_cache *cache, gfp_t flags,
				 size_t size, void **p)
{
	return slub_alloc_bulk(cache, flags, size, p);
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk_noprof);

/**
 * kmem_cache_charge - charge an allocated object to the current memcg
 * @objp: the object, of a cache or a large kmalloc
 * @gfpflags: allocation flags of the charge
 *
 * For an object allocated without __GFP_ACCOUNT that its user now wants
 * charged.  Objects already charged, and those of the plain kmalloc
 * caches (whose vectors come from those caches), are left as they are.
 *
 * Return: false only if the charge failed.
 */
bool kmem_cache_charge(void *objp, gfp_t gfpflags)
{
#ifdef CONFIG_MEMCG
	if (memcg_kmem_online())
		return slub_memcg_charge_late(objp, gfpflags);
#endif /* CONFIG_MEMCG */
	return true;
}
EXPORT_SYMBOL(kmem_cache_charge);

/* ---- Slab pages: vmstat, reclaim and the extension vector ---- */

/* The vmstat count of a new slab's pages, and its vector if memcg wants one. */
void slub_pages_account(struct kmem_cache *cache, struct slab *slab,
			unsigned int order, gfp_t gfp)
{
#ifdef CONFIG_SLAB_OBJ_EXT
	/* Without MEMCG the word is not the page allocator's memcg_data. */
	slab->obj_exts = 0;
#ifdef CONFIG_MEMCG
	/*
	 * Accounted caches get the vector with the slab; a failure leaves
	 * it to the first charge, as any other cache's.
	 */
	if (memcg_kmem_online() && (cache->flags & SLAB_ACCOUNT))
		alloc_slab_obj_exts(slab, cache, gfp, true);
#endif /* CONFIG_MEMCG */
#endif /* CONFIG_SLAB_OBJ_EXT */
	mod_node_page_state(slab_pgdat(slab), cache_vmstat_idx(cache),
			    PAGE_SIZE << order);
}

/*
 * The pages of a slab go back: what vmstat and reclaim count of them.
 * The vector goes too, whatever its objects' tags and charges: the page
 * allocator refuses a page whose memcg_data is not 0.
 */
void slub_pages_unaccount(struct kmem_cache *cache, struct slab *slab,
			  unsigned int order)
{
	slub_obj_exts_free(slab);
	mm_account_reclaimed_pages(1UL << order);
	mod_node_page_state(slab_pgdat(slab), cache_vmstat_idx(cache),
			    -(PAGE_SIZE << order));
}

#ifdef CONFIG_SLAB_OBJ_EXT
/*
 * The bits of a vector's word: MEMCG_DATA_OBJEXTS with MEMCG, so that
 * memcg tells a slab's word from a charged page's.  OBJEXTS_ALLOC_FAIL
 * alone marks a slab whose vector could not be made, under
 * MEM_ALLOC_PROFILING_DEBUG: objects allocated then have no tag.
 */
#ifdef CONFIG_MEMCG
#define SLUB_OBJEXTS_BITS	MEMCG_DATA_OBJEXTS
#else
#define SLUB_OBJEXTS_BITS	0UL
#endif /* CONFIG_MEMCG */

/* Flags of the caller's allocation that the vector must not take. */
#define SLUB_OBJEXTS_GFP_DROP	(__GFP_DMA | __GFP_RECLAIMABLE | \
				 __GFP_ACCOUNT | __GFP_NOFAIL)

/*
 * The vector could not be made: with MEM_ALLOC_PROFILING_DEBUG, mark the
 * slab so that a vector made later knows its live objects have no tags.
 * Returns true if another CPU installed a vector meanwhile.
 */
static bool obj_exts_alloc_failed(struct slab *slab)
{
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		cmpxchg(&slab->obj_exts, 0, OBJEXTS_ALLOC_FAIL);
	return slab_obj_exts(slab);
}

/*
 * @vec replaces the word @old of a live slab.  If @old marks a failed
 * vector, the objects allocated meanwhile have no tag: their entries
 * are marked empty, so that their frees do not report a missing tag.
 */
static void obj_exts_prepare(unsigned long old, struct slabobj_ext *vec,
			     unsigned int objects)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
	unsigned int i;

	if (old != OBJEXTS_ALLOC_FAIL)
		return;
	for (i = 0; i < objects; i++)
		set_codetag_empty(&vec[i].ref);
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG */
}

/**
 * alloc_slab_obj_exts - give a slab its vector of object extensions
 * @slab: the slab
 * @s: its cache
 * @gfp: flags of the allocation that needs the vector
 * @new_slab: true while nobody else can see @slab yet
 *
 * The vector, zeroed, is kmalloc'ed on the slab's node: from the caches
 * without extensions for a plain kmalloc cache, whose own vectors would
 * otherwise come from itself.  A live slab may get its vector from two
 * CPUs at once: the first installed wins, the other is freed.
 *
 * Return: 0 if @slab has a vector, -ENOMEM if not.
 */
int alloc_slab_obj_exts(struct slab *slab, struct kmem_cache *s, gfp_t gfp,
			bool new_slab)
{
	unsigned int objects = objs_per_slab(s, slab);
	struct slabobj_ext *vec;
	unsigned long old, word;

	gfp &= ~SLUB_OBJEXTS_GFP_DROP;
	if (is_kmalloc_normal(s))
		gfp |= __GFP_NO_OBJ_EXT;
	vec = kcalloc_node(objects, sizeof(*vec), gfp, slab_nid(slab));
	if (!vec)
		return obj_exts_alloc_failed(slab) ? 0 : -ENOMEM;
	/* struct page is not scanned: the vector is referenced from there. */
	kmemleak_not_leak(vec);
	word = (unsigned long)vec | SLUB_OBJEXTS_BITS;
	if (new_slab) {
		slab->obj_exts = word;
		return 0;
	}
	old = READ_ONCE(slab->obj_exts);
	do {
		if (old & ~OBJEXTS_FLAGS_MASK) {
			kfree(vec);	/* another CPU's is in place */
			return 0;
		}
		obj_exts_prepare(old, vec, objects);
	} while (!try_cmpxchg(&slab->obj_exts, &old, word));
	return 0;
}

/* The slab goes back to the page allocator: its vector, or mark, goes. */
void slub_obj_exts_free(struct slab *slab)
{
	kfree(slab_obj_exts(slab));
	slab->obj_exts = 0;
}
#endif /* CONFIG_SLAB_OBJ_EXT */

#ifdef CONFIG_MEM_ALLOC_PROFILING
/*
 * Count @n objects (NULL slots skipped) to current->alloc_tag.  A slab
 * whose vector cannot be made leaves its object untagged, with one
 * message that names the cache: out of memory is no kernel bug, so no
 * WARN (6.12's SLUB WARNs each time, which panic_on_warn turns into a
 * panic under memory pressure).  An entry that obj_exts_prepare() marked
 * empty belonged to an object that was free then (one allocated then
 * is not being allocated now): its mark goes, or 6.12's
 * MEM_ALLOC_PROFILING_DEBUG check would take it for an uncleared tag
 * and read a tag at address 1.
 */
void slub_tag_objects(struct kmem_cache *cache, gfp_t gfp, size_t n,
		      void **p)
{
	struct slabobj_ext *ext;
	struct slab *slab;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!p[i])
			continue;
		slab = virt_to_slab(p[i]);
		if (!slab_obj_exts(slab) &&
		    alloc_slab_obj_exts(slab, cache, gfp, false)) {
			pr_warn_once("SLUB: %s: no memory for a slab's object extensions, objects left untagged\n",
				     cache->name);
			continue;
		}
		ext = slub_obj_ext(cache, slab, p[i]);
		if (is_codetag_empty(&ext->ref))
			ext->ref.ct = NULL;
		alloc_tag_add(&ext->ref, current->alloc_tag, cache->size);
	}
}
#endif /* CONFIG_MEM_ALLOC_PROFILING */

#ifdef CONFIG_MEMCG
/* kmem_cache_charge() of a large kmalloc: charge its pages, once. */
static bool memcg_charge_large(struct folio *folio, gfp_t gfp)
{
	long bytes = folio_size(folio);

	if (folio_memcg_kmem(folio))
		return true;
	if (__memcg_kmem_charge_page(folio_page(folio, 0), gfp,
				     folio_order(folio)))
		return false;
	/* The node counted the pages at allocation; now the memcg does too. */
	node_stat_mod_folio(folio, NR_SLAB_UNRECLAIMABLE_B, -bytes);
	lruvec_stat_mod_folio(folio, NR_SLAB_UNRECLAIMABLE_B, bytes);
	return true;
}

/*
 * kmem_cache_charge() with memcg kmem accounting on.  A plain kmalloc
 * object is not charged: its slab's vector comes from a plain kmalloc
 * cache, which such a charge could keep from ever being freed.
 */
bool slub_memcg_charge_late(void *obj, gfp_t gfp)
{
	struct folio *folio = virt_to_folio(obj);
	struct slabobj_ext *ext;
	struct kmem_cache *cache;
	struct slab *slab;

	if (!folio_test_slab(folio))
		return memcg_charge_large(folio, gfp);
	slab = folio_slab(folio);
	cache = slab->slab_cache;
	if (is_kmalloc_normal(cache))
		return true;
	ext = slub_obj_ext(cache, slab, obj);
	if (ext && ext->objcg)
		return true;	/* charged already */
	return __memcg_slab_post_alloc_hook(cache, NULL, gfp, 1, &obj);
}
#endif /* CONFIG_MEMCG */

/* ---- kmalloc ---- */

/*
 * Beyond the largest kmalloc cache: whole pages, a compound folio that
 * kfree() tells from a slab by its page type.
 */
static noinline void *kmalloc_large_slowpath(size_t size, gfp_t gfp,
					     int node, unsigned long caller)
{
	const unsigned int order = get_order(size);
	struct page *page;
	void *ret = NULL;

	if (gfp & GFP_SLAB_BUG_MASK)
		gfp = kmalloc_fix_flags(gfp);
	gfp |= __GFP_COMP;
	page = node == NUMA_NO_NODE ? alloc_pages_noprof(gfp, order) :
		__alloc_pages_noprof(gfp, order, node, NULL);
	if (page) {
		ret = page_address(page);
		lruvec_stat_mod_folio(page_folio(page), NR_SLAB_UNRECLAIMABLE_B,
				      PAGE_SIZE << order);
	}
	/* KASAN may tag the pointer: kmemleak sees the tagged one. */
	ret = kasan_kmalloc_large(ret, size, gfp);
	kmemleak_alloc(ret, size, 1, gfp);
	kmsan_kmalloc_large(ret, size, gfp);
	trace_kmalloc(caller, ret, size, PAGE_SIZE << order, gfp, node);
	return ret;
}

/* Free the pages of a large kmalloc; @object is their start. */
void free_large_kmalloc(struct folio *folio, void *object)
{
	const long bytes = folio_size(folio);

	if (WARN_ONCE(!folio_test_large(folio),
		      "%s: object %p is not in a slab or a large kmalloc\n",
		      __func__, object))
		return;
	kmemleak_free(object);
	kasan_kfree_large(object);
	kmsan_kfree_large(object);
	lruvec_stat_mod_folio(folio, NR_SLAB_UNRECLAIMABLE_B, -bytes);
	folio_put(folio);
}

void *__kmalloc_large_noprof(size_t size, gfp_t flags)
{
	return kmalloc_large_slowpath(size, flags, NUMA_NO_NODE, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc_large_noprof);

void *__kmalloc_large_node_noprof(size_t size, gfp_t flags, int node)
{
	return kmalloc_large_slowpath(size, flags, node, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc_large_node_noprof);

/*
 * The kmalloc of @size bytes from @cache with what the object needs after
 * the allocation: its kmalloc red zone, KASAN's poison past @size, the
 * tracepoint.  Out of line, so that kmalloc_from() keeps nothing across
 * the allocation.
 */
static noinline void *kmalloc_from_hooked(struct kmem_cache *cache,
					  size_t size, gfp_t flags, int node,
					  unsigned long caller)
{
	void *ret = slab_alloc_node(cache, NULL, flags, node, size, caller);

	if (slub_debug_cache(cache))
		slub_debug_kmalloc_size(cache, ret, size);
	ret = kasan_kmalloc(cache, ret, size, flags);
	trace_kmalloc(caller, ret, size, cache->size, flags, node);
	return ret;
}

/*
 * An object of @cache for a kmalloc of @size bytes.  Without debugging,
 * KASAN or the tracepoint, nothing but the return follows the
 * allocation: neither @size nor @cache lives across the call of a miss
 * in a register that the entry must save (three pushes and three pops
 * fewer in __kmalloc_noprof(), bench.config, gcc 12).  @caller may be 0
 * for _RET_IP_, read only where it is used.
 */
static __always_inline void *kmalloc_from(struct kmem_cache *cache,
					  size_t size, gfp_t flags, int node,
					  unsigned long caller)
{
	if (unlikely(slub_debug_cache(cache) || kasan_enabled() ||
		     trace_kmalloc_enabled()))
		return kmalloc_from_hooked(cache, size, flags, node,
					   caller_or_ret_ip(caller));
	return slab_alloc_node(cache, NULL, flags, node, size, caller);
}

/*
 * kmalloc_slab() of mm/slab.h for a @size from 1 to KMALLOC_MAX_CACHE_SIZE,
 * with the common case apart: no bucket set, no random kmalloc caches
 * and flags that choose the normal caches.  The same cache, fewer
 * instructions (bench.config, gcc 12): kmalloc_type() let gcc compute
 * the row from @flags (shift, mask and a multiply by the row's length,
 * six of them), here a test and a branch; @size - 1 is computed once,
 * not twice; fls()'s + 1 goes into the load's displacement (__fls(),
 * since the size is past 192 there).  Five instructions of a kmalloc()
 * of up to 192 bytes, seven above.
 */
static __always_inline struct kmem_cache *
kmalloc_cache_of(size_t size, kmem_buckets *b, gfp_t flags,
		 unsigned long caller)
{
	struct kmem_cache *const *row = kmalloc_caches[KMALLOC_NORMAL];
	const size_t last = size - 1;

	if (IS_ENABLED(CONFIG_RANDOM_KMALLOC_CACHES) || b ||
	    (flags & (KMALLOC_NOT_NORMAL_BITS | __GFP_NO_OBJ_EXT)))
		return kmalloc_slab(size, b, flags, caller);
	if (last < 192)
		return row[kmalloc_size_index[last / 8]];
	return (row + 1)[__fls(last)];
}

/*
 * kmalloc of a size known only at run time, from bucket set @b.  One
 * unsigned compare takes out both 0 and the large sizes.
 */
static __always_inline void *kmalloc_any(size_t size, kmem_buckets *b,
					 gfp_t flags, int node,
					 unsigned long caller)
{
	struct kmem_cache *cache;

	if (unlikely(size - 1 >= KMALLOC_MAX_CACHE_SIZE)) {
		if (!size)
			return ZERO_SIZE_PTR;
		return kmalloc_large_slowpath(size, flags, node,
					      caller_or_ret_ip(caller));
	}
	cache = kmalloc_cache_of(size, b, flags, caller_or_ret_ip(caller));
	return kmalloc_from(cache, size, flags, node, caller);
}

void *__kmalloc_noprof(size_t size, gfp_t flags)
{
	return kmalloc_any(size, NULL, flags, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(__kmalloc_noprof);

void *__kmalloc_node_noprof(DECL_BUCKET_PARAMS(size, b), gfp_t flags, int node)
{
	return kmalloc_any(size, PASS_BUCKET_PARAM(b), flags, node, 0);
}
EXPORT_SYMBOL(__kmalloc_node_noprof);

void *__kmalloc_node_track_caller_noprof(DECL_BUCKET_PARAMS(size, b),
					 gfp_t flags, int node,
					 unsigned long caller)
{
	return kmalloc_any(size, PASS_BUCKET_PARAM(b), flags, node, caller);
}
EXPORT_SYMBOL(__kmalloc_node_track_caller_noprof);

/* kmalloc of a constant size: <linux/slab.h> has chosen @cache. */
void *__kmalloc_cache_noprof(struct kmem_cache *cache, gfp_t flags,
			     size_t size)
{
	return kmalloc_from(cache, size, flags, NUMA_NO_NODE, 0);
}
EXPORT_SYMBOL(__kmalloc_cache_noprof);

void *__kmalloc_cache_node_noprof(struct kmem_cache *cache, gfp_t flags,
				  int node, size_t size)
{
	return kmalloc_from(cache, size, flags, node, 0);
}
EXPORT_SYMBOL(__kmalloc_cache_node_noprof);

/**
 * kfree - free memory from kmalloc() or any cache
 * @object: the memory, or NULL
 *
 * An object of a slab goes back to its own cache; a large kmalloc to the
 * page allocator.
 */
void kfree(const void *object)
{
	void *x = (void *)object;
	struct folio *folio;
	struct slab *slab;

	trace_kfree(_RET_IP_, x);
	if (unlikely(ZERO_OR_NULL_PTR(x)))
		return;
	/*
	 * The folio's page type, not virt_to_slab(): a slab found is then
	 * not tested against NULL once more (two instructions, gcc 12).
	 */
	folio = virt_to_folio(x);
	if (unlikely(!folio_test_slab(folio))) {
		free_large_kmalloc(folio, x);
		return;
	}
	slab = folio_slab(folio);
	slab_free_one(slab->slab_cache, slab, x, 0);
}
EXPORT_SYMBOL(kfree);

/* ---- Cache creation: the hook of mm/slab.h ---- */

slab_flags_t kmem_cache_flags(slab_flags_t flags, const char *name)
{
	return slub_cache_flags(flags, name);
}

/*
 * A new cache: mm/slab_common.c has checked @args (align already through
 * calculate_alignment(), a free pointer offset in the object, aligned,
 * and for a TYPESAFE_BY_RCU cache only) and set the refcount; the engine
 * sets the rest.
 */
int do_kmem_cache_create(struct kmem_cache *cache, const char *name,
			 unsigned int size, struct kmem_cache_args *args,
			 slab_flags_t flags)
{
	cache->name = name;
	cache->size = size;
	cache->object_size = size;
	cache->align = args->align;
	cache->ctor = args->ctor;
	cache->useroffset = args->useroffset;
	cache->usersize = args->usersize;
	cache->use_freeptr_offset = args->use_freeptr_offset;
	cache->freeptr_offset = args->freeptr_offset;
	return slub_cache_create(cache, slub_cache_flags(flags, name));
}

/* ---- Hooks of mm/slab_common.c ---- */

#ifdef CONFIG_SLUB_DEBUG
/*
 * ksize() gave the caller the whole of @object: no kmalloc red zone past
 * the size its kmalloc asked for any more.  mm/slab.h declares it, and
 * ksize() calls it, only with SLUB_DEBUG.
 */
void skip_orig_size_check(struct kmem_cache *cache, const void *object)
{
	slub_debug_kmalloc_size(cache, (void *)object, cache->object_size);
}
#endif /* CONFIG_SLUB_DEBUG */

#if IS_ENABLED(CONFIG_SLUB_DEBUG) && IS_ENABLED(CONFIG_KUNIT)
/*
 * Whether a KUnit test that counts slab errors is running:
 * kmem_cache_destroy() then leaves out its warning about objects left
 * in the cache.
 */
bool slab_in_kunit_test(void)
{
	return slub_kunit_counts_errors();
}
#endif /* CONFIG_SLUB_DEBUG && CONFIG_KUNIT */
