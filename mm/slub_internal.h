/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions shared by the files of the SLUB-style engine.  Not for use
 * outside mm/slub*.
 *
 * The engine proper is mm/slub.c (slab states, allocation and free),
 * mm/slub_lifecycle.c (caches and nodes as they come and go),
 * mm/slub_sync.c (slub_fastpath=, slub_pair=), mm/slub_cache.c (cache
 * geometry) and mm/slub_introspect.c (read-only views of a cache).  The
 * other mm/slub_*.c files are parts on top of it: they call the services
 * the engine declares here, and the engine reaches a part only through
 * the hooks declared here with it, which are stubs where the
 * configuration leaves the part out.
 */
#ifndef MM_SLUB_INTERNAL_H
#define MM_SLUB_INTERNAL_H

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/swab.h>
#include <linux/kasan.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/stackdepot.h>
#include "slab.h"
#include "slub_base.h"

/* The pair can be committed by cmpxchg_double, given a CPU that has it. */
#if defined(CONFIG_HAVE_CMPXCHG_DOUBLE) && \
	(defined(CONFIG_HAVE_ALIGNED_STRUCT_PAGE) || \
	 defined(CONFIG_STRUCT_PAGE_INTERNAL_ALIGN))
#define SLAB_PAIR_CAN_CMPXCHG	1
#else
#define SLAB_PAIR_CAN_CMPXCHG	0
#endif /* CONFIG_HAVE_CMPXCHG_DOUBLE && (aligned || internal) */

/* A snapshot of the pair, as read and as committed. */
struct slab_pair {
	void *freelist;
	union slab_counters cnt;
};

void slab_pair_read(const struct slab *slab, struct slab_pair *p);

/* Order and objects packed into kmem_cache_order_objects. */
#define SLUB_OO_SHIFT	16
#define SLUB_OO_MASK	((1U << SLUB_OO_SHIFT) - 1)
/* Limited by the objects and inuse fields: 32767, or 2047 typed. */
#define SLUB_MAX_OBJS	((1U << SLAB_COUNT_BITS) - 1)

static inline unsigned int oo_order(struct slab_oo oo)
{
	return oo.x >> SLUB_OO_SHIFT;
}

static inline unsigned int oo_objects(struct slab_oo oo)
{
	return oo.x & SLUB_OO_MASK;
}

static inline struct slab_oo oo_make(unsigned int order, unsigned int size)
{
	unsigned int nr = min_t(unsigned int, (PAGE_SIZE << order) / size,
				SLUB_MAX_OBJS);
	struct slab_oo x = {
		.x = (order << SLUB_OO_SHIFT) + nr,
	};

	return x;
}

/* ---- Free pointers ---- */

/*
 * With FREELIST_HARDENED the stored value is ptr ^ per-cache key ^
 * byte-swapped storage address: a leaked value reveals neither the
 * pointer nor the key, and a value copied to another slot decodes to
 * garbage.  The operation is its own inverse.
 */
static inline void *fp_code(const struct kmem_cache *cache, void *ptr,
			    unsigned long slot)
{
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	return (void *)((unsigned long)ptr ^ cache->random ^
			swab((unsigned long)kasan_reset_tag((void *)slot)));
#else
	return ptr;
#endif /* CONFIG_SLAB_FREELIST_HARDENED */
}

static inline unsigned long fp_slot(const struct kmem_cache *cache, void *obj)
{
	return (unsigned long)kasan_reset_tag(obj) + cache->offset;
}

static inline void *obj_next(const struct kmem_cache *cache, void *obj)
{
	unsigned long slot = fp_slot(cache, obj);

	return fp_code(cache, *(void **)slot, slot);
}

static inline void obj_set_next(const struct kmem_cache *cache, void *obj,
				void *next)
{
	unsigned long slot = fp_slot(cache, obj);

	*(void **)slot = fp_code(cache, next, slot);
}

/* Length of a cpu partial list, kept in its first slab. */
static inline unsigned int cpu_partial_len(const struct slab *head)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	return head ? READ_ONCE(head->slabs) : 0;
#else
	return 0;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

/* Racy peek at the cpu partial list of any cpu, for flush and reports. */
static inline struct slab *cpu_partial_peek(struct kmem_cache_cpu *pcpu)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	return READ_ONCE(pcpu->partial);
#else
	return NULL;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

/* Per-cache statistics, compiled away without CONFIG_SLUB_STATS. */
static inline void stat(const struct kmem_cache *cache, enum stat_item item)
{
#ifdef CONFIG_SLUB_STATS
	raw_cpu_inc(cache->cpu_slab->stat[item]);
#endif /* CONFIG_SLUB_STATS */
}

/*
 * Slab pair cmpxchg16b commits counted by pair position (the bit-locked
 * commits of debug caches are not counted), see <linux/slub_def.h>,
 * shown in /sys/kernel/debug/slab_pair.  Counting is off until that file
 * turns it on.  The switch is a plain flag, a load and a branch on the
 * slab-level paths only, not a static key: switching a static key
 * rewrites those paths while other cpus run them, and a QEMU TCG guest
 * took an int3 oops at the patched site when the selftest switched
 * counting off right after a stress.
 */
#ifdef CONFIG_DEBUG_FS
struct slab_pair_stats {
	unsigned long slabs[2];		/* slabs allocated */
	unsigned long commits[2];	/* cmpxchg16b commits that succeeded */
	unsigned long retries[2];	/* ... that failed and were retried */
};

DECLARE_PER_CPU(struct slab_pair_stats, slab_pair_stats);
extern bool slab_pair_counting;

static __always_inline void slab_pair_count_new(const struct slab *slab)
{
	if (unlikely(READ_ONCE(slab_pair_counting)))
		this_cpu_inc(slab_pair_stats.slabs[slab_pair_pos(slab)]);
}

static __always_inline void slab_pair_count_cmpxchg(const struct slab *slab,
						    bool done)
{
	if (unlikely(READ_ONCE(slab_pair_counting))) {
		if (done)
			this_cpu_inc(slab_pair_stats.commits[slab_pair_pos(slab)]);
		else
			this_cpu_inc(slab_pair_stats.retries[slab_pair_pos(slab)]);
	}
}
#else
static inline void slab_pair_count_new(const struct slab *slab)
{
}

static inline void slab_pair_count_cmpxchg(const struct slab *slab, bool done)
{
}
#endif /* CONFIG_DEBUG_FS */

/* ---- Debug caches, mm/slub_debug.c ---- */

struct kmem_obj_info;

/* Who last allocated or freed an object: slub_debug=U, SLAB_STORE_USER. */
struct slub_track {
	unsigned long addr;		/* caller of the slab API */
#ifdef CONFIG_STACKDEPOT
	depot_stack_handle_t stack;	/* full stack, in the stack depot */
#endif /* CONFIG_STACKDEPOT */
	int cpu;
	int pid;
	unsigned long when;		/* jiffies */
};

enum slub_track_item { TRACK_ALLOC, TRACK_FREE };

/* The debug flags that add bytes to a slot. */
#define SLAB_DEBUG_METADATA	(SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)

/* Poisoned objects: SLAB_POISON without a ctor or RCU to keep them. */
#define SLUB_OBJECT_POISON	((slab_flags_t __force)0x80000000U)

/*
 * A kmalloc cache with red zones and tracks also keeps, after the
 * tracks, the size each allocation asked for, and checks the bytes from
 * there to object_size as red zone (the "kmalloc Redzone"), where the
 * base lets the allocator know when ksize() hands a caller the whole
 * object (mm/slub_base.h, SLUB_KMALLOC_REDZONE).
 */
#define SLUB_KMALLOC_RZ_FLAGS	(SLAB_KMALLOC | SLAB_RED_ZONE | SLAB_STORE_USER)

static inline bool slub_kmalloc_redzone(slab_flags_t flags)
{
	return SLUB_KMALLOC_REDZONE &&
	       (flags & SLUB_KMALLOC_RZ_FLAGS) == SLUB_KMALLOC_RZ_FLAGS;
}

/*
 * A cache with any SLAB_DEBUG_FLAGS never gets a cpu slab: its cpu
 * freelist stays empty and pcpu->slab NULL, so both fastpaths fall
 * through to the slow paths, which hand the cache to slub_debug_alloc()
 * and slub_debug_free() before touching per-cpu state.  The fastpaths
 * themselves test nothing.
 */
#if defined(CONFIG_SLUB_DEBUG) && IS_ENABLED(CONFIG_KUNIT)
bool slab_add_kunit_errors(void);
bool slub_kunit_counts_errors(void);
#else
static inline bool slab_add_kunit_errors(void)
{
	return false;
}

static inline bool slub_kunit_counts_errors(void)
{
	return false;
}
#endif /* CONFIG_SLUB_DEBUG && CONFIG_KUNIT */

#ifdef CONFIG_SLUB_DEBUG
static inline bool slub_debug_cache(struct kmem_cache *cache)
{
	return kmem_cache_debug_flags(cache, SLAB_DEBUG_FLAGS);
}

void *slub_debug_alloc(struct kmem_cache *cache, gfp_t gfp, int node,
		       unsigned long addr);
void slub_debug_free(struct kmem_cache *cache, struct slab *slab, void *head,
		     void *tail, int cnt, unsigned long addr);
void slub_debug_slab_init(struct kmem_cache *cache, struct slab *slab);
void slub_debug_mark_allocated(struct kmem_cache *cache, void *obj,
			       unsigned long addr);
bool slub_debug_higher_order_off(void);
void slub_debug_kmalloc_size(struct kmem_cache *cache, void *obj,
			     size_t size);
void slub_debug_report_leaks(struct kmem_cache *cache);
void slub_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *cache,
			 void *object);
#else
static inline bool slub_debug_cache(struct kmem_cache *cache)
{
	return false;
}

static inline void *slub_debug_alloc(struct kmem_cache *cache, gfp_t gfp,
				     int node, unsigned long addr)
{
	return NULL;
}

static inline void slub_debug_free(struct kmem_cache *cache,
				   struct slab *slab, void *head, void *tail,
				   int cnt, unsigned long addr)
{
}

static inline void slub_debug_slab_init(struct kmem_cache *cache,
					struct slab *slab)
{
}

static inline void slub_debug_mark_allocated(struct kmem_cache *cache,
					     void *obj, unsigned long addr)
{
}

static inline bool slub_debug_higher_order_off(void)
{
	return false;
}

static inline void slub_debug_kmalloc_size(struct kmem_cache *cache,
					   void *obj, size_t size)
{
}

static inline void slub_debug_report_leaks(struct kmem_cache *cache)
{
}
#endif /* CONFIG_SLUB_DEBUG */

#if defined(CONFIG_SLUB_DEBUG) && defined(CONFIG_DEBUG_FS)
struct slub_track_visit {
	void (*fn)(const struct slub_track *t, int node, void *arg);
	void *arg;
	enum slub_track_item item;
};

int slub_debug_visit_tracks(struct kmem_cache *cache,
			    struct slub_track_visit *v);
void slub_debugfs_add(struct kmem_cache *cache);
#else
static inline void slub_debugfs_add(struct kmem_cache *cache)
{
}
#endif /* CONFIG_SLUB_DEBUG && CONFIG_DEBUG_FS */

/* Engine services for the debug caches' locked paths, mm/slub.c. */
struct slab *slab_new(struct kmem_cache *cache, gfp_t gfp, int node);
void slab_discard(struct kmem_cache *cache, struct slab *slab);
void slab_pair_set(struct slab *slab, const struct slab_pair *p);
void node_add_partial(struct kmem_cache_node *kn, struct slab *slab, bool tail);
void node_del_partial(struct kmem_cache_node *kn, struct slab *slab);

/* Engine services for the cache lifecycle, mm/slub.c. */
void node_init(struct kmem_cache_node *kn);
void node_account(struct kmem_cache *cache, int node, long slabs,
		  long objects);
unsigned long cache_slabs(struct kmem_cache *cache);
void slab_unfreeze(struct kmem_cache *cache, struct slab *slab, void *head);
struct slab *cpu_detach(struct kmem_cache_cpu *pcpu, void **head,
			struct slab **partial);
#ifdef CONFIG_SLUB_CPU_PARTIAL
void cpu_partial_unfreeze_all(struct kmem_cache *cache, struct slab *list);
#else
static inline void cpu_partial_unfreeze_all(struct kmem_cache *cache,
					    struct slab *list)
{
}
#endif /* CONFIG_SLUB_CPU_PARTIAL */

/* A cpu's first transaction id: the low bits are its number (THEORY 4). */
static inline unsigned long tid_initial(int cpu)
{
	return cpu;
}

/* Caches and nodes as they come and go, mm/slub_lifecycle.c. */
extern struct kmem_cache *node_cache;
extern nodemask_t slub_nodes;
bool cache_alloc_state(struct kmem_cache *cache, bool boot);

/* Synchronisation strategy, chosen at boot: mm/slub_sync.c */
DECLARE_STATIC_KEY_FALSE(slub_fastpath_irqoff);

/*
 * Whether the cpu freelists change only under the cpu's lock: with
 * slub_fastpath=irqoff, and always on PREEMPT_RT, where pcpu->lock
 * leaves interrupts and preemption on, so that the lockless fastpath of
 * a task that preempted a locked path could run between its change of
 * pcpu->freelist and its tid bump (THEORY 4).
 */
static __always_inline bool slub_fastpath_locked(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) ||
	       static_branch_unlikely(&slub_fastpath_irqoff);
}

void __init slub_sync_init(void);
bool slub_pair_cmpxchg_enabled(void);
const char *slub_sync_banner(void);
ssize_t slub_sync_show(struct kmem_cache *cache, char *buf);

/* Cache geometry, mm/slub_cache.c */
extern unsigned int slub_min_order, slub_max_order, slub_min_objects;
int slab_order_for(unsigned int size, unsigned int min_objects);
bool slub_cache_layout(struct kmem_cache *cache);
slab_flags_t slub_cache_flags(slab_flags_t flags, const char *name);
int slub_cache_create(struct kmem_cache *cache, slab_flags_t flags);
long slub_obj_offset(struct kmem_cache *cache, unsigned long offset,
		     bool kfence);
void slub_cache_set_partial_limits(struct kmem_cache *cache);
int slub_cache_set_cpu_partial(struct kmem_cache *cache, unsigned int objs);

/* Engine services used by sysfs and debug code. */
void slub_flush_all(struct kmem_cache *cache);
void slub_flush_cpus_locked(struct kmem_cache *cache, const struct cpumask *cpus);
unsigned long slub_count_partial(struct kmem_cache_node *kn,
				 unsigned long *free_objs,
				 unsigned long *used_objs);
unsigned long slub_node_slabs(struct kmem_cache_node *kn);
unsigned long slub_node_objects(struct kmem_cache_node *kn);
int slab_validate(struct kmem_cache *cache, struct slab *slab);

/* Engine services for the array front end, mm/slub_array.c. */
size_t slub_objects_take(struct kmem_cache *cache, gfp_t gfp, size_t n,
			 void **p);
void slub_objects_return(struct kmem_cache *cache, void **p, size_t n);
void *slub_alloc_freelist(struct kmem_cache *cache, gfp_t gfp, int node,
			  unsigned long addr);
void slub_free_freelist(struct kmem_cache *cache, void *obj);

/* The array front end, mm/slub_array.c; fastpaths in mm/slub_array.h. */
void array_depot_init(struct slub_depot *d);
void array_cache_create(struct kmem_cache *cache);
void array_cache_release(struct kmem_cache *cache);
void array_drain_local(struct kmem_cache *cache);
void array_drain_dead(struct kmem_cache *cache, unsigned int cpu);
void array_depot_drain(struct kmem_cache *cache);
bool array_cpu_has_objects(struct kmem_cache *cache, unsigned int cpu);
unsigned int array_cpu_objects(struct kmem_cache *cache, unsigned int cpu);
unsigned long array_depot_objects(struct kmem_cache *cache, int node);
int array_cache_resize(struct kmem_cache *cache, unsigned int size);
void __init array_init_late(void);
const char * __init slub_frontend_banner(void);
const char *slub_frontend_show(struct kmem_cache *cache);

#ifdef CONFIG_SYSFS
int sysfs_slab_add(struct kmem_cache *cache);
#if IS_ENABLED(CONFIG_SLUB_ENGINE_KUNIT_TEST)
ssize_t slub_sysfs_store(struct kmem_cache *cache, const char *name,
			 const char *buf);
#endif /* CONFIG_SLUB_ENGINE_KUNIT_TEST */
#else
static inline int sysfs_slab_add(struct kmem_cache *cache)
{
	return 0;
}
#endif /* CONFIG_SYSFS */

#endif /* MM_SLUB_INTERNAL_H */
