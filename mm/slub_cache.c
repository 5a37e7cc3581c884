// SPDX-License-Identifier: GPL-2.0
/*
 * Cache geometry for the SLUB-style engine: how big a cache's slots and
 * slabs are (the slub_min_order, slub_max_order and slub_min_objects
 * boot parameters, with upstream semantics), where the free pointer and
 * the red zones go, and the partial list limits.  The read-only views of
 * a cache are in mm/slub_introspect.c.  Nothing here runs on the fast
 * paths.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/kasan.h>
#include <linux/reciprocal_div.h>

#include "slab.h"
#include "slub_internal.h"

/* Bounds of the per-node partial list that is kept even when empty. */
#define NODE_PARTIAL_MIN	5
#define NODE_PARTIAL_MAX	10

unsigned int slub_min_order;		/* lowest order of any slab */
unsigned int slub_max_order = PAGE_ALLOC_COSTLY_ORDER;	/* preferred max */
unsigned int slub_min_objects;		/* 0: derived from nr_cpu_ids */

static void __init param_uint(char *arg, unsigned int *val)
{
	int v;

	if (get_option(&arg, &v) && v >= 0)
		*val = v;
}

static int __init param_min_order(char *arg)
{
	param_uint(arg, &slub_min_order);
	return 1;
}
__setup("slub_min_order=", param_min_order);
slub_setup_alias("slab_min_order=", slab_min_order, param_min_order);

static int __init param_max_order(char *arg)
{
	param_uint(arg, &slub_max_order);
	if (slub_max_order >= SLUB_NR_ORDERS)
		slub_max_order = SLUB_NR_ORDERS - 1;
	return 1;
}
__setup("slub_max_order=", param_max_order);
slub_setup_alias("slab_max_order=", slab_max_order, param_max_order);

static int __init param_min_objects(char *arg)
{
	param_uint(arg, &slub_min_objects);
	return 1;
}
__setup("slub_min_objects=", param_min_objects);
slub_setup_alias("slab_min_objects=", slab_min_objects, param_min_objects);

/*
 * Lowest order >= slub_min_order holding @min_objects objects of @size
 * whose unused tail is at most 1/@frac of the slab, and no more objects
 * than the counters count (SLUB_MAX_OBJS); > @max_order if none.
 */
static unsigned int order_search(unsigned int size, unsigned int min_objects,
				 unsigned int max_order, unsigned int frac)
{
	unsigned int order, bytes;

	if (((PAGE_SIZE << slub_min_order) / size) > SLUB_MAX_OBJS)
		return get_order(size * SLUB_MAX_OBJS) - 1;

	order = max_t(unsigned int, slub_min_order, get_order(min_objects * size));
	for (; order <= max_order; order++) {
		bytes = PAGE_SIZE << order;
		if (bytes / size > SLUB_MAX_OBJS)
			return max_order + 1;
		if (bytes % size <= bytes / frac)
			break;
	}
	return order;
}

/*
 * Pick the slab order for objects of @size: aim for @min_objects objects
 * (slub_min_objects; 0: more with more cpus), no more than the counters
 * count, and at most 1/16 waste, relaxing first the waste bound down to
 * 1/4, then the object count, then the maximum order.
 */
int slab_order_for(unsigned int size, unsigned int min_objects)
{
	unsigned int max_objects, order, frac;

	if (!min_objects)
		min_objects = 4 * (fls(nr_cpu_ids) + 1);
	max_objects = min_t(unsigned int, (PAGE_SIZE << slub_max_order) / size,
			    SLUB_MAX_OBJS);
	if (min_objects > max_objects)
		min_objects = max_objects;

	for (; min_objects > 1; min_objects--) {
		for (frac = 16; frac >= 4; frac /= 2) {
			order = order_search(size, min_objects, slub_max_order,
					     frac);
			if (order <= slub_max_order)
				return order;
		}
	}
	order = order_search(size, 1, slub_max_order, 1);
	if (order <= slub_max_order)
		return order;
	order = order_search(size, 1, SLUB_NR_ORDERS, 1);
	if (order < SLUB_NR_ORDERS)
		return order;
	return -EINVAL;
}

/*
 * Slot layout, offsets from the slot start (the object pointer points at
 * the object, past the left red zone):
 *
 *   left red zone       red_left_pad bytes                 (SLAB_RED_ZONE)
 *   object              object_size bytes, free pointer inside it unless
 *                       the contents must survive being free; in a
 *                       SLAB_TYPESAFE_BY_RCU cache at the word its
 *                       creator named (kmem_cache_args.freeptr_offset),
 *                       if it did
 *   right red zone      up to inuse, at least a word       (SLAB_RED_ZONE)
 *   free pointer        here if outside the object
 *   alloc, free track   2 x struct slub_track              (SLAB_STORE_USER)
 *   KASAN metadata
 *   padding             to the alignment
 */
static unsigned int slot_layout(struct kmem_cache *cache, slab_flags_t flags)
{
	unsigned int size = ALIGN(cache->object_size, sizeof(void *));

	cache->flags &= ~SLUB_OBJECT_POISON;
	if ((flags & SLAB_POISON) && !(flags & SLAB_TYPESAFE_BY_RCU) &&
	    !cache->ctor)
		cache->flags |= SLUB_OBJECT_POISON;
	if ((flags & SLAB_RED_ZONE) && size == cache->object_size)
		size += sizeof(void *);
	cache->inuse = size;

	if (((flags & SLAB_TYPESAFE_BY_RCU) && !cache->use_freeptr_offset) ||
	    (flags & SLAB_POISON) || cache->ctor ||
	    ((flags & SLAB_RED_ZONE) && cache->object_size < sizeof(void *))) {
		/* Object contents must survive: free pointer after it. */
		cache->offset = size;
		size += sizeof(void *);
	} else if (flags & SLAB_TYPESAFE_BY_RCU) {
		/*
		 * RCU readers may still read a freed object: the creator
		 * named the word they never look at (checked in range and
		 * aligned by kmem_cache_create()).
		 */
		cache->offset = cache->freeptr_offset;
	} else {
		/* Mid-object, away from the edges small overflows hit. */
		cache->offset = ALIGN_DOWN(cache->object_size / 2, sizeof(void *));
	}
#ifdef CONFIG_SLUB_DEBUG
	if (flags & SLAB_STORE_USER)
		size += 2 * sizeof(struct slub_track);
	if (slub_kmalloc_redzone(flags))
		size += sizeof(unsigned long);	/* the requested size */
#endif /* CONFIG_SLUB_DEBUG */

	kasan_cache_create(cache, &size, &cache->flags);
	cache->red_left_pad = 0;
	if (flags & SLAB_RED_ZONE) {
		cache->red_left_pad = ALIGN(sizeof(void *), cache->align);
		size += cache->red_left_pad;
	}
	return ALIGN(size, cache->align);
}

/* Work out cache->size, cache->offset, cache->inuse and the orders. */
bool slub_cache_layout(struct kmem_cache *cache)
{
	slab_flags_t flags = cache->flags;
	unsigned int size;
	int order;

	/*
	 * kmem_cache_create() checks the size only with DEBUG_VM: a zero
	 * size would divide by zero below, one near 4 GiB overflow the
	 * slot size.  No object bigger than the largest slab is possible.
	 * Refused; kmem_cache_create() reports it.
	 */
	if (!cache->object_size ||
	    cache->object_size > (PAGE_SIZE << (SLUB_NR_ORDERS - 1)))
		return false;
	size = slot_layout(cache, flags);

	/* slub_debug=O: no debug metadata where it raises the minimum order. */
	if ((flags & SLAB_DEBUG_METADATA) && slub_debug_higher_order_off() &&
	    get_order(size) > get_order(cache->object_size)) {
		cache->flags &= ~SLAB_DEBUG_METADATA;
		size = slot_layout(cache, cache->flags);
	}
	cache->size = size;
	cache->reciprocal_size = reciprocal_value(size);

	order = slab_order_for(size, slub_min_objects);
	if (order < 0)
		return false;

	cache->allocflags = 0;
	if (order)
		cache->allocflags |= __GFP_COMP;
	if (flags & SLAB_CACHE_DMA)
		cache->allocflags |= GFP_DMA;
	if (flags & SLAB_CACHE_DMA32)
		cache->allocflags |= GFP_DMA32;
	if (flags & SLAB_RECLAIM_ACCOUNT)
		cache->allocflags |= __GFP_RECLAIMABLE;

	cache->oo = oo_make(order, size);
	cache->min = oo_make(get_order(size), size);
	return oo_objects(cache->oo) != 0;
}

/**
 * slub_cache_set_cpu_partial - set how many objects cpu partials keep
 * @cache: the cache
 * @objs: objects; 0 turns the cpu partial lists off
 *
 * Return: 0, or -EINVAL if the cache cannot have cpu partial slabs.
 */
int slub_cache_set_cpu_partial(struct kmem_cache *cache, unsigned int objs)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	/* Debug caches have none, array caches keep objects in arrays. */
	if (objs && ((cache->flags & SLAB_DEBUG_FLAGS) || cache->array_size))
		return -EINVAL;
	WRITE_ONCE(cache->cpu_partial, objs);
	/* Cpu partial slabs are about half full on average. */
	WRITE_ONCE(cache->cpu_partial_slabs, objs ?
		   max(1U, DIV_ROUND_UP(objs * 2, oo_objects(cache->oo))) : 0);
	return 0;
#else
	return objs ? -EINVAL : 0;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

void slub_cache_set_partial_limits(struct kmem_cache *cache)
{
	unsigned int objs;

	cache->min_partial = clamp_t(unsigned long, ilog2(cache->size) / 2,
				     NODE_PARTIAL_MIN, NODE_PARTIAL_MAX);
	/* Fewer cached objects for bigger objects; none for debug caches. */
	if (cache->flags & SLAB_DEBUG_FLAGS)
		objs = 0;
	else if (cache->size >= PAGE_SIZE)
		objs = 6;
	else if (cache->size >= 1024)
		objs = 24;
	else if (cache->size >= 256)
		objs = 52;
	else
		objs = 120;
	if (!IS_ENABLED(CONFIG_SLUB_CPU_PARTIAL))
		objs = 0;
	slub_cache_set_cpu_partial(cache, objs);
}

/* ---- Red zones ---- */

/* Slot start -> object: skip the left red zone of a debug cache. */
void *fixup_red_left(struct kmem_cache *cache, void *p)
{
	if (kmem_cache_debug_flags(cache, SLAB_RED_ZONE))
		p += cache->red_left_pad;
	return p;
}

#ifndef CONFIG_SLUB_DEBUG
/* Without mm/slub_debug.c there is no slub_debug= to add flags. */
slab_flags_t slub_cache_flags(slab_flags_t flags, const char *name)
{
	return flags;
}
#endif /* CONFIG_SLUB_DEBUG */
