// SPDX-License-Identifier: GPL-2.0
/*
 * The SLUB engine's entry points as Linux 6.12 names them: the *_noprof
 * object and kmalloc calls that <linux/slab.h> wraps in alloc_hooks(),
 * kfree() and the large kmalloc, which 6.12 moved from mm/slab_common.c
 * into the allocator, and the cache creation hook of mm/slab.h.  Each
 * base has its own copy of this file (see mm/slub_base.h); the engine
 * underneath is the same.
 *
 * Without slab object extensions (see mm/slub_base.h) there are no
 * allocation tags to record: the *_noprof calls are the whole calls.
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
 * @objp: the object
 * @gfpflags: allocation flags of the charge
 *
 * Without memcg accounting of slab objects there is nothing to charge.
 *
 * Return: true, the object stays charged as it was.
 */
bool kmem_cache_charge(void *objp, gfp_t gfpflags)
{
	return true;
}
EXPORT_SYMBOL(kmem_cache_charge);

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

/* An object of @cache for a kmalloc of @size bytes. */
static __always_inline void *kmalloc_from(struct kmem_cache *cache,
					  size_t size, gfp_t flags, int node,
					  unsigned long caller)
{
	void *ret = slab_alloc_node(cache, NULL, flags, node, size, caller);

	if (unlikely(slub_debug_cache(cache)))
		slub_debug_kmalloc_size(cache, ret, size);
	ret = kasan_kmalloc(cache, ret, size, flags);
	trace_kmalloc(caller, ret, size, cache->size, flags, node);
	return ret;
}

/* kmalloc of a size known only at run time, from bucket set @b. */
static __always_inline void *kmalloc_any(size_t size, kmem_buckets *b,
					 gfp_t flags, int node,
					 unsigned long caller)
{
	struct kmem_cache *cache;

	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE))
		return kmalloc_large_slowpath(size, flags, node, caller);
	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	cache = kmalloc_slab(size, b, flags, caller);
	return kmalloc_from(cache, size, flags, node, caller);
}

void *__kmalloc_noprof(size_t size, gfp_t flags)
{
	return kmalloc_any(size, NULL, flags, NUMA_NO_NODE, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc_noprof);

void *__kmalloc_node_noprof(DECL_BUCKET_PARAMS(size, b), gfp_t flags, int node)
{
	return kmalloc_any(size, PASS_BUCKET_PARAM(b), flags, node, _RET_IP_);
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
	return kmalloc_from(cache, size, flags, NUMA_NO_NODE, _RET_IP_);
}
EXPORT_SYMBOL(__kmalloc_cache_noprof);

void *__kmalloc_cache_node_noprof(struct kmem_cache *cache, gfp_t flags,
				  int node, size_t size)
{
	return kmalloc_from(cache, size, flags, node, _RET_IP_);
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
	struct slab *slab;

	trace_kfree(_RET_IP_, x);
	if (unlikely(ZERO_OR_NULL_PTR(x)))
		return;
	slab = virt_to_slab(x);
	if (unlikely(!slab)) {
		free_large_kmalloc(virt_to_folio(x), x);
		return;
	}
	slab_free_one(slab->slab_cache, slab, x, _RET_IP_);
}
EXPORT_SYMBOL(kfree);

/* ---- Cache creation: the hook of mm/slab.h ---- */

slab_flags_t kmem_cache_flags(slab_flags_t flags, const char *name)
{
	return slub_cache_flags(flags, name);
}

/*
 * A new cache: mm/slab_common.c has checked @args (align already through
 * calculate_alignment()) and set the refcount; the engine sets the rest.
 * A free pointer offset (args->freeptr_offset) is not used: the engine
 * keeps the free pointer of TYPESAFE_BY_RCU caches after the object,
 * which costs such a cache one word per object.
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
	return slub_cache_create(cache, slub_cache_flags(flags, name));
}

/* ---- Hooks of mm/slab_common.c ---- */

/*
 * ksize() gave the caller the whole of @object: no kmalloc red zone past
 * the size its kmalloc asked for any more.
 */
void skip_orig_size_check(struct kmem_cache *cache, const void *object)
{
	slub_debug_kmalloc_size(cache, (void *)object, cache->object_size);
}

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
