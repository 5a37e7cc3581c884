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
	ARRAY_ALLOC,		/* object popped from the cpu array */
	ARRAY_FREE,		/* object pushed onto the cpu array */
	ARRAY_BUSY,		/* cpu array held by the interrupted task */
	ARRAY_REFILL,		/* cpu array refilled from slabs */
	ARRAY_FLUSH,		/* cpu array objects returned to slabs */
	ARRAY_DEPOT_GET,	/* cpu array exchanged with the depot */
	ARRAY_DEPOT_PUT,	/* full cpu array given to the depot */
	NR_SLUB_STAT_ITEMS };

/*
 * A per-cpu array of free objects (mm/slub_array.c): a stack of @count
 * objects, at most @size.  Arrays move whole between a cpu and the depot
 * of its node.
 */
struct slub_array {
	unsigned int count;
	unsigned int size;
	union {
		struct list_head list;	/* in a depot */
		struct rcu_head rcu;	/* being freed: another cpu may look */
	};
	void *objs[];
};

/* Full and empty arrays of one node, struct kmem_cache_node.depot. */
struct slub_depot {
	spinlock_t lock;	/* irqsave: arrays move from any context */
	unsigned int nr_full;
	unsigned int nr_empty;
	bool touched;		/* an array moved since the last reap */
	unsigned long next_reap;	/* jiffies: its next reap, by a cpu of its node */
	struct list_head full;
	struct list_head empty;
};

/*
 * Per-cpu state of a cache.
 *
 * @freelist and @tid are committed together by this_cpu_cmpxchg_double()
 * and must stay the first two words, aligned to twice the word size.
 * @slab, @partial and changes of @freelist outside the fastpath are
 * serialised by @lock (irqs off); every such change also bumps @tid.
 * @array and @spare belong to whoever set @array_held on this cpu with
 * preemption off, see mm/slub_array.h.  Letting go of them clears
 * @array_held and sets @array_touched with one store of @array_state.
 */
struct kmem_cache_cpu {
	void **freelist;	/* next free object of @slab */
	unsigned long tid;	/* transaction id, unique per cpu */
	struct slub_array *array;	/* loaded array, NULL: no arrays */
	struct slub_array *spare;	/* second array, with @array */
	struct slab *slab;	/* cpu slab, frozen */
#ifdef CONFIG_SLUB_CPU_PARTIAL
	struct slab *partial;	/* frozen slabs with free objects */
#endif /* CONFIG_SLUB_CPU_PARTIAL */
	local_lock_t lock;	/* slow path serialisation */
	union {
		struct {
			bool array_held;	/* @array and @spare are taken */
			bool array_touched;	/* arrays used since the last reap */
		};
		u32 array_state;	/* both, stored at once on release */
	};
	unsigned short array_batch;	/* objects the next refill takes */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map array_map;	/* holding @array */
#endif /* CONFIG_DEBUG_LOCK_ALLOC */
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
 *                      when the object must survive being free, unless
 *                      its creator named a word that may be lost)
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
	unsigned int array_size;	/* objects per cpu array, 0: none */
	int refcount;			/* merged users, see slab_common.c */
	void (*ctor)(void *obj);
	unsigned int inuse;		/* offset of the metadata */
	unsigned int align;
	unsigned int red_left_pad;	/* left red zone (debug) */
	bool pair_atomic;		/* slab pair via cmpxchg_double */
	bool use_freeptr_offset;	/* @freeptr_offset given (RCU cache) */
	unsigned int freeptr_offset;	/* the creator's free pointer place */
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
#define SLAB_SUPPORTS_SYSFS	1	/* tested by #ifdef and __is_defined() */
void sysfs_slab_unlink(struct kmem_cache *cache);
void sysfs_slab_release(struct kmem_cache *cache);
int sysfs_slab_alias(struct kmem_cache *cache, const char *name);
#else
static inline void sysfs_slab_unlink(struct kmem_cache *cache)
{
}

static inline void sysfs_slab_release(struct kmem_cache *cache)
{
}

static inline int sysfs_slab_alias(struct kmem_cache *cache, const char *name)
{
	return 0;
}
#endif /* CONFIG_SYSFS */

void *fixup_red_left(struct kmem_cache *cache, void *obj);

/*
 * The slab pair
 * =============
 * The engine commits a slab's (freelist, counters) pair with one
 * cmpxchg_double, which needs the pair at a 16-byte boundary.  The pair
 * lives in a 3-word window of the slab's struct page, struct slab's
 * pair_window[] and the word of _mapcount and _refcount after it, and
 * sits at whichever 16-byte boundary falls inside it.  Offsets for
 * x86-64, MEMCG and SLAB_OBJ_EXT off; struct page and struct slab fields
 * that share an offset overlay.  The two bases order the first words of
 * struct slab differently (6.1 marks a slab by PG_slab, 6.12 by the
 * page type PGTY_slab in the top byte of page_type):
 *
 * CONFIG_STRUCT_PAGE_ALIGNED: 64 bytes, aligned to 16, pair always at 32.
 *
 *   off  struct page           struct slab, 6.1       struct slab, 6.12
 *     0  flags                 __page_flags           __page_flags
 *     8  compound_head, lru    slab_list, rcu_head,   slab_cache
 *                              next
 *    16  lru                   slab_list, rcu_head,   slab_list, rcu_head,
 *                              slabs                  next
 *    24  mapping               slab_cache             slab_list, rcu_head,
 *                                                     slabs
 *    32  index                 freelist, 0 mod 16     freelist, 0 mod 16
 *    40  private               counters               counters
 *    48  _mapcount, page_type  -1, untouched          PGTY_slab, untouched
 *    52  _refcount             _refcount              _refcount
 *    56  padding               padding                padding
 *
 * With MEMCG or SLAB_OBJ_EXT the last word is memcg_data (obj_exts on
 * 6.12) and the page is 64 bytes with either choice below.
 *
 * CONFIG_STRUCT_PAGE_INTERNAL_ALIGN: 56 bytes, 8-byte aligned, so a
 * struct page sits at 0 or 8 mod 16 (memmap entries alternate):
 *
 *   off  struct page             page at 0 mod 16      page at 8 mod 16
 *   0-31 as above                as above              as above
 *    32  index                   freelist  0 mod 16    unused
 *    40  private                 counters              freelist  0 mod 16
 *    48  _mapcount, page_type    as above              counters bits 0-31
 *    52  _refcount               _refcount             counters bits 32-63
 *
 * The position is (page address & 8) / 8; one AND and one ADD find it.
 *
 * What the shifted pair overlaps, and why that is safe:
 * - The engine's counters are the low 32 bits of the counters word.  The
 *   high 32 bits are not the engine's: in the shifted position they are
 *   _refcount, elsewhere they stay 0 (post_alloc_hook() clears private).
 *   The engine writes them only through cmpxchg_double, with the value it
 *   read: a speculative get_page_unless_zero()/put_page() meanwhile (page
 *   cache lookups and pfn walkers do that on any page) makes the cmpxchg
 *   fail and retry, and no refcount change is ever lost.  Every other
 *   store (new slab, bit-locked commit, KFENCE) writes the low 32 bits
 *   alone.
 * - The low 32 bits overlay _mapcount/page_type.  Bit 31 is a bit field
 *   that is always 0 and that no arithmetic on the other fields reaches
 *   (inuse is 15 bits, and objects <= 32767 fits).  A page type needs
 *   bits 28-31 set (PAGE_TYPE_BASE), so PageBuddy() and the other lockless
 *   page type tests stay false, and page_has_type() too.  page_mapped()
 *   sees a mapcount >= 0, as it always did for SLAB's 'active' at the
 *   same offset; /proc/kpage* check PageSlab() first.  Nobody else writes
 *   _mapcount of a slab page: slab pages cannot be mapped to user space.
 * - slab_pages_free() resets _mapcount to -1 before the page goes back
 *   to the page allocator, whose free checks would report a bad page.
 * - Where the base marks a slab page by a page type in that word rather
 *   than by a page flag (CONFIG_SLUB_TYPED_COUNTERS: the top byte of
 *   page_type, PGTY_slab, with the low 24 bits left to the page's owner),
 *   the word must go on reading as a slab page: the counters carry the
 *   type in their top byte, in both positions, and the fields shrink to
 *   11 bits (objects:11 frozen:1 inuse:11, bit 23 always 0), so a slab
 *   holds at most 2047 objects.  __folio_set_slab() writes the type
 *   before the engine's first store, every store keeps it (the fixed
 *   bits below, asserted at each commit under DEBUG_VM) and
 *   __folio_clear_slab() finds it at free and resets the word to -1.
 *   Only a 56-byte page has the shifted position: with MEMCG or
 *   SLAB_OBJ_EXT the counters stay untyped, with 15 bits each.
 * - index and private are the page allocator's only while the page is
 *   free, as for upstream SLUB's pair at the same offsets.
 */
#ifdef CONFIG_SLUB_TYPED_COUNTERS
#define SLAB_COUNT_BITS		11
#define SLAB_COUNTERS_FIXED	((u32)PGTY_slab << 24)	/* bit 23 clear */
#else
#define SLAB_COUNT_BITS		15
#define SLAB_COUNTERS_FIXED	0U	/* bit 31 clear: never a page type */
#endif /* CONFIG_SLUB_TYPED_COUNTERS */
/* The bits above inuse: SLAB_COUNTERS_FIXED's, the same in every store. */
#define SLAB_FIXED_SHIFT	(2 * SLAB_COUNT_BITS + 1)
#define SLAB_COUNTERS_FIXED_MASK	(~0U << SLAB_FIXED_SHIFT)

union slab_counters {
	unsigned long word;	/* compared and swapped as a whole */
	u32 low;		/* the engine's part: the fields below */
	struct {
		unsigned int objects:SLAB_COUNT_BITS;	/* slots, fixed */
		unsigned int frozen:1;			/* owned by a cpu */
		unsigned int inuse:SLAB_COUNT_BITS;	/* not on the freelist */
		unsigned int fixed:32 - SLAB_FIXED_SHIFT; /* see above */
	};
};

#define SLAB_PAIR_OFFSET	(4 * sizeof(long))	/* of pair_window[] */

/* The diagrams, proven against struct page. */
static_assert(offsetof(struct slab, pair_window) == SLAB_PAIR_OFFSET);
static_assert(offsetof(struct page, index) == SLAB_PAIR_OFFSET);
static_assert(SLAB_PAIR_OFFSET % (2 * sizeof(long)) == 0);
static_assert(sizeof(union slab_counters) == sizeof(long));
static_assert((SLAB_COUNTERS_FIXED & ~SLAB_COUNTERS_FIXED_MASK) == 0);
#ifdef CONFIG_STRUCT_PAGE_INTERNAL_ALIGN
#if defined(CONFIG_HAVE_ALIGNED_STRUCT_PAGE) || defined(__BIG_ENDIAN) || \
	!defined(CONFIG_64BIT)
#error "internal alignment needs an unpadded, 64-bit little-endian struct page"
#endif /* CONFIG_HAVE_ALIGNED_STRUCT_PAGE || __BIG_ENDIAN || !CONFIG_64BIT */
/* The third word of the window: _mapcount, then _refcount, then no more. */
static_assert(offsetof(struct page, _mapcount) == SLAB_PAIR_OFFSET + 16);
static_assert(offsetof(struct page, _refcount) == SLAB_PAIR_OFFSET + 20);
static_assert(offsetof(struct slab, __page_refcount) == SLAB_PAIR_OFFSET + 20);
#ifdef CONFIG_MEMCG
static_assert(offsetof(struct page, memcg_data) == SLAB_PAIR_OFFSET + 24);
#endif /* CONFIG_MEMCG */
/* Every struct page sits at 0 or 8 mod 16: one window position fits. */
static_assert(__alignof__(struct page) == sizeof(long));
static_assert(sizeof(struct page) % sizeof(long) == 0);
#if !defined(CONFIG_MEMCG) && !defined(CONFIG_SLAB_OBJ_EXT) && \
	!defined(CONFIG_KMSAN) && !defined(LAST_CPUPID_NOT_IN_PAGE_FLAGS) && \
	!defined(WANT_PAGE_VIRTUAL)
static_assert(sizeof(struct page) == 56);
#endif /* !CONFIG_MEMCG && !CONFIG_SLAB_OBJ_EXT && ... */
#elif defined(CONFIG_HAVE_ALIGNED_STRUCT_PAGE)
/* Every struct page sits at 0 mod 16: the pair is always at the start. */
static_assert(__alignof__(struct page) == 2 * sizeof(long));
#endif /* CONFIG_STRUCT_PAGE_INTERNAL_ALIGN */

/* 1 when the pair is a word into the window, else 0. */
static __always_inline unsigned int slab_pair_pos(const struct slab *slab)
{
#ifdef CONFIG_STRUCT_PAGE_INTERNAL_ALIGN
	return ((unsigned long)slab / sizeof(long)) & 1;
#else
	return 0;
#endif /* CONFIG_STRUCT_PAGE_INTERNAL_ALIGN */
}

/* The pair of @slab: word 0 the freelist, word 1 the counters word. */
static __always_inline unsigned long *slab_pair_words(const struct slab *slab)
{
	unsigned long addr = (unsigned long)slab->pair_window;

#ifdef CONFIG_STRUCT_PAGE_INTERNAL_ALIGN
	addr += addr & sizeof(long);
#endif /* CONFIG_STRUCT_PAGE_INTERNAL_ALIGN */
	return (unsigned long *)addr;
}

static __always_inline union slab_counters *
slab_counters_ptr(const struct slab *slab)
{
	return (union slab_counters *)(slab_pair_words(slab) + 1);
}

/* Objects in @slab; this field of the counters never changes. */
static inline unsigned int slab_objects(const struct slab *slab)
{
	union slab_counters c = { .low = READ_ONCE(slab_counters_ptr(slab)->low) };

	return c.objects;
}

/*
 * Set the counters of a slab nobody else uses yet: @objects slots, none
 * in use, not frozen.  For KFENCE, whose "slabs" hold one object.
 */
static inline void slab_init_objects(struct slab *slab, unsigned int objects)
{
	union slab_counters c = { .low = SLAB_COUNTERS_FIXED };

	c.objects = objects;
	WRITE_ONCE(slab_counters_ptr(slab)->low, c.low);
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
