/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SLUB_DEF_H
#define _LINUX_SLUB_DEF_H

/*
 * Data structures of the SLUB-style slab engine (mm/slub.c).
 *
 * This header is included by mm/slab.h only.  Code outside the engine
 * reads a few of the fields below (object_size, size, offset, align,
 * useroffset, usersize, name, flags, list, ctor, inuse, random,
 * reciprocal_size) and the small inline helpers at the end of the file.
 */
#include <linux/kfence.h>
#include <linux/kobject.h>
#include <linux/reciprocal_div.h>
#include <linux/local_lock.h>

/* Event counters, kept per CPU when CONFIG_SLUB_STATS is set. */
enum stat_item {
	ALLOC_FASTPATH,		/* object taken from the cpu freelist */
	ALLOC_SLOWPATH,		/* object needed the out of line path */
	FREE_FASTPATH,		/* object pushed onto the cpu freelist */
	FREE_SLOWPATH,		/* object pushed onto a slab freelist */
	FREE_FROZEN,		/* ... of a slab owned by some cpu */
	FREE_ADD_PARTIAL,	/* free moved a full slab to a node list */
	FREE_REMOVE_PARTIAL,	/* free emptied a slab on a node list */
	ALLOC_FROM_PARTIAL,	/* cpu slab taken from a node list */
	ALLOC_SLAB,		/* cpu slab taken from the page allocator */
	ALLOC_REFILL,		/* cpu freelist refilled from its slab */
	ALLOC_NODE_MISMATCH,	/* cpu slab dropped for a node request */
	FREE_SLAB,		/* slab returned to the page allocator */
	CPUSLAB_FLUSH,		/* cpu slab dropped by a flush */
	DEACTIVATE_FULL,	/* dropped cpu slab had no free object */
	DEACTIVATE_EMPTY,	/* dropped cpu slab had no used object */
	DEACTIVATE_TO_HEAD,	/* dropped cpu slab went to list head */
	DEACTIVATE_TO_TAIL,	/* dropped cpu slab went to list tail */
	DEACTIVATE_REMOTE_FREES,/* dropped cpu slab had remote frees */
	DEACTIVATE_BYPASS,	/* cpu slab ran out and was let go */
	ORDER_FALLBACK,		/* slab allocated at the fallback order */
	CMPXCHG_DOUBLE_CPU_FAIL,/* per-cpu commit had to be retried */
	CMPXCHG_DOUBLE_FAIL,	/* slab pair commit had to be retried */
	CPU_PARTIAL_ALLOC,	/* cpu slab taken from the cpu partials */
	CPU_PARTIAL_FREE,	/* free parked a slab on the cpu partials */
	CPU_PARTIAL_NODE,	/* node list slab parked on cpu partials */
	CPU_PARTIAL_DRAIN,	/* cpu partials spilled to node lists */
	NR_SLUB_STAT_ITEMS };

/*
 * Per-cpu state of a cache.
 *
 * @freelist and @tid are committed together by this_cpu_cmpxchg_double()
 * and must stay the first two words, aligned to twice the word size.
 * @slab, @partial and changes of @freelist outside the fastpath are
 * serialised by @lock (irqs off); every such change also bumps @tid.
 */
struct kmem_cache_cpu {
	void **freelist;	/* next free object of @slab */
	unsigned long tid;	/* transaction id, unique per cpu */
	struct slab *slab;	/* cpu slab, frozen */
#ifdef CONFIG_SLUB_CPU_PARTIAL
	struct slab *partial;	/* frozen slabs with free objects */
#endif /* CONFIG_SLUB_CPU_PARTIAL */
	local_lock_t lock;	/* slow path serialisation */
#ifdef CONFIG_SLUB_STATS
	unsigned int stat[NR_SLUB_STAT_ITEMS];
#endif /* CONFIG_SLUB_STATS */
};

/* Slab order and objects per slab, packed in one word: order << 16 | n */
struct slab_oo {
	unsigned int x;
};

/*
 * A cache.  Object layout inside a slab of @size byte slots:
 *
 *   [0, object_size)   the object proper
 *   [offset]           free pointer (inside the object, or at @inuse
 *                      when the object must survive being free)
 *   [inuse, size)      free pointer slot if outside, then padding
 */
struct kmem_cache {
	struct kmem_cache_cpu __percpu *cpu_slab;	/* per-cpu state */
	slab_flags_t flags;
	unsigned long min_partial;	/* node partial slabs kept when empty */
	unsigned int size;		/* slot size, including metadata */
	unsigned int object_size;	/* size requested by the creator */
	struct reciprocal_value reciprocal_size;	/* divides by @size */
	unsigned int offset;		/* free pointer offset */
#ifdef CONFIG_SLUB_CPU_PARTIAL
	unsigned int cpu_partial;	/* objects kept on cpu partials */
	unsigned int cpu_partial_slabs;	/* bound of the cpu partial list */
#endif /* CONFIG_SLUB_CPU_PARTIAL */
	struct slab_oo oo;	/* preferred order */
	struct slab_oo min;	/* fallback order */
	gfp_t allocflags;		/* added to every page allocation */
	int refcount;			/* merged users, see slab_common.c */
	void (*ctor)(void *obj);
	unsigned int inuse;		/* offset of the metadata */
	unsigned int align;
	unsigned int red_left_pad;	/* left red zone (debug) */
	bool pair_atomic;		/* slab pair via cmpxchg_double */
	const char *name;
	struct list_head list;		/* entry in slab_caches */
#ifndef CONFIG_SLUB_DEBUG
	atomic_long_t nr_slabs;		/* all nodes; per node with SLUB_DEBUG */
#endif /* CONFIG_SLUB_DEBUG */
#ifdef CONFIG_SYSFS
	struct kobject kobj;		/* /sys/kernel/slab/<name> */
#endif /* CONFIG_SYSFS */
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	unsigned long random;		/* free pointer obfuscation key */
#endif /* CONFIG_SLAB_FREELIST_HARDENED */
#ifdef CONFIG_NUMA
	unsigned int remote_node_defrag_ratio;	/* 0..1000, remote partials */
#endif /* CONFIG_NUMA */
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	unsigned int *random_seq;
#endif /* CONFIG_SLAB_FREELIST_RANDOM */
#ifdef CONFIG_KASAN
	struct kasan_cache kasan_info;	/* KASAN metadata layout */
#endif /* CONFIG_KASAN */
	unsigned int useroffset;	/* usercopy region offset */
	unsigned int usersize;		/* usercopy region size */

	struct kmem_cache_node *node[MAX_NUMNODES];	/* NULL: no memory */
};

#ifdef CONFIG_SYSFS
#define SLAB_SUPPORTS_SYSFS
void sysfs_slab_unlink(struct kmem_cache *cache);
void sysfs_slab_release(struct kmem_cache *cache);
#else
static inline void sysfs_slab_unlink(struct kmem_cache *cache)
{
}

static inline void sysfs_slab_release(struct kmem_cache *cache)
{
}
#endif /* CONFIG_SYSFS */

void *fixup_red_left(struct kmem_cache *cache, void *obj);

/* Objects in @slab; this half-word of the counters never changes. */
static inline unsigned int slab_objects(const struct slab *slab)
{
	return slab->objects;
}

/**
 * nearest_obj - find the start of the object containing an address
 * @cache: cache of @slab
 * @slab: slab containing @x
 * @x: any address inside the slab
 *
 * Return: the object start (after a left red zone) that @x falls into,
 * clamped to the last object of the slab.
 */
static inline void *nearest_obj(struct kmem_cache *cache,
				const struct slab *slab, void *x)
{
	void *base = slab_address(slab);
	unsigned long idx = (unsigned long)(x - base) / cache->size;

	if (idx >= slab_objects(slab))
		idx = slab_objects(slab) - 1;
	return fixup_red_left(cache, base + idx * cache->size);
}

/* Index of @obj in a slab starting at @addr. */
static inline unsigned int __obj_to_index(const struct kmem_cache *s,
					  void *base, void *obj)
{
	return reciprocal_divide(kasan_reset_tag(obj) - base,
				 s->reciprocal_size);
}

/**
 * obj_to_index - index of an object in its slab
 * @s: cache of @slab
 * @slab: slab containing @obj
 * @obj: object
 *
 * Return: the slot number of @obj (0 for KFENCE objects).
 */
static inline unsigned int obj_to_index(const struct kmem_cache *s,
					const struct slab *slab, void *obj)
{
	/* A KFENCE "slab" holds a single object. */
	return is_kfence_address(obj) ? 0 :
		__obj_to_index(s, slab_address(slab), obj);
}

static inline int objs_per_slab(const struct kmem_cache *s,
				const struct slab *slab)
{
	return slab_objects(slab);
}
#endif /* _LINUX_SLUB_DEF_H */
