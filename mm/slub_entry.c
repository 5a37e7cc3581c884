// SPDX-License-Identifier: GPL-2.0
/*
 * The SLUB engine's entry points as Linux 6.1 names them: the object
 * allocation calls of <linux/slab.h>, the kmalloc and kfree backends
 * that mm/slab_common.c calls, and the cache creation and merge hooks of
 * mm/slab.h.  Each base has its own copy of this file (see
 * mm/slub_base.h); the engine underneath is the same.
 *
 * Included by mm/slub.c, after the paths it inlines into these.
 */

/**
 * kmem_cache_alloc - allocate an object
 * @cache: the cache
 * @gfpflags: allocation flags
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(cache, NULL, gfpflags, NUMA_NO_NODE,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc);

/**
 * kmem_cache_alloc_lru - allocate an object charged to a list_lru
 * @cache: the cache
 * @lru: the list_lru the object will go on (memcg aware)
 * @gfpflags: allocation flags
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc_lru(struct kmem_cache *cache, struct list_lru *lru,
			   gfp_t gfpflags)
{
	void *ret = slab_alloc_node(cache, lru, gfpflags, NUMA_NO_NODE,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_lru);

/**
 * kmem_cache_alloc_node - allocate an object on a node
 * @cache: the cache
 * @gfpflags: allocation flags
 * @node: the preferred node, or NUMA_NO_NODE
 *
 * The object comes from @node when it has memory, else from any node.
 *
 * Return: a pointer to the object or NULL.
 */
void *kmem_cache_alloc_node(struct kmem_cache *cache, gfp_t gfpflags, int node)
{
	void *ret = slab_alloc_node(cache, NULL, gfpflags, node,
				    cache->object_size, 0);

	trace_kmem_cache_alloc(_RET_IP_, ret, cache, gfpflags, node);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

/* kmalloc backend, see mm/slab_common.c. */
void *__kmem_cache_alloc_node(struct kmem_cache *cache, gfp_t gfpflags,
			      int node, size_t orig_size,
			      unsigned long caller)
{
	return slab_alloc_node(cache, NULL, gfpflags, node, orig_size, caller);
}

/* kfree backend, see mm/slab_common.c. */
void __kmem_cache_free(struct kmem_cache *cache, void *x, unsigned long caller)
{
	slab_free_one(cache, virt_to_slab(x), x, caller);
}

/* kfree() backend for a slab kfree() has already looked up. */
void __kmem_cache_free_slab(struct kmem_cache *cache, struct slab *slab,
			    void *x, unsigned long caller)
{
	slab_free_one(cache, slab, x, caller);
}

/**
 * kmem_cache_alloc_bulk - allocate several objects
 * @cache: the cache
 * @flags: allocation flags
 * @size: number of objects wanted
 * @p: array receiving the objects
 *
 * All objects or none.  Interrupts must be enabled by the caller.
 *
 * Return: @size on success, 0 on failure.
 */
int kmem_cache_alloc_bulk(struct kmem_cache *cache, gfp_t flags, size_t size,
			  void **p)
{
	return slub_alloc_bulk(cache, flags, size, p);
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

/* ---- Cache creation and merging: the hooks of mm/slab.h ---- */

slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags,
			      const char *name)
{
	return slub_cache_flags(flags, name);
}

/* mm/slab_common.c has set the creator's fields of @cache. */
int __kmem_cache_create(struct kmem_cache *cache, slab_flags_t flags)
{
	return slub_cache_create(cache, slub_cache_flags(flags, cache->name));
}

struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size,
				      unsigned int align, slab_flags_t flags,
				      void (*ctor)(void *))
{
	struct kmem_cache *cache = find_mergeable(size, align, flags, name, ctor);

	if (!cache)
		return NULL;
	cache->refcount++;
	/* The merged cache now also serves objects of @size bytes. */
	cache->object_size = max(cache->object_size, size);
	cache->inuse = max(cache->inuse, ALIGN(size, sizeof(void *)));
	if (sysfs_slab_alias(cache, name)) {
		cache->refcount--;
		return NULL;
	}
	return cache;
}

#ifdef CONFIG_SLUB_DEBUG
/* ---- /proc/slabinfo, which has nothing to tune with this engine ---- */

/* No per-cache statistics columns in /proc/slabinfo. */
void slabinfo_show_stats(struct seq_file *m, struct kmem_cache *cache)
{
}

/* No tunables to write: /proc/slabinfo is read-only with SLUB. */
ssize_t slabinfo_write(struct file *file, const char __user *ubuf,
		       size_t len, loff_t *ppos)
{
	return -EIO;
}
#endif /* CONFIG_SLUB_DEBUG */
