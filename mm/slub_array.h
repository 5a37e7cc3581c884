/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The array front end of the SLUB-style engine: per-cpu arrays of free
 * objects in front of the slabs, chosen at boot by slub_frontend=.  The
 * fastpaths below are inlined into mm/slub.c; the slow paths, the depot,
 * draining and the boot parameter are in mm/slub_array.c.  See THEORY 2
 * (pcpu->array_held) and THEORY 6 in mm/slub.c for the rules.
 */
#ifndef MM_SLUB_ARRAY_H
#define MM_SLUB_ARRAY_H

#include <linux/jump_label.h>
#include <linux/kfence.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include "slab.h"
#include "slub_internal.h"

/*
 * On when any cache may have arrays: the fastpaths look for them.  On
 * from the start, when no cache has any yet, and turned off at
 * array_init_late() if no cache is to have them, so that the default,
 * arrays, pays no jump on the fastpaths and slub_frontend=freelist one.
 */
DECLARE_STATIC_KEY_TRUE(slub_arrays);

/*
 * Taking the arrays of a cpu: with preemption off, the taker checks that
 * pcpu->array_held is clear, sets it, and only then reads pcpu->array.
 * An interrupt that comes before the flag is set runs to completion,
 * whatever it does to the arrays, before the taker reads them; one that
 * comes after finds the flag set and takes the freelist path.  No atomic
 * instruction is needed, and none disables interrupts.  This is 6.1's
 * stand-in for local_trylock(), and lockdep sees it as a trylock.  A
 * cache without arrays has pcpu->array NULL.
 *
 * The fastpaths reach the flag and the arrays through the per-cpu
 * segment (__this_cpu_read() of cache->cpu_slab->...), not through
 * this_cpu_ptr(): that saves the add of this_cpu_off, one instruction of
 * every operation.  The pointer they hand back for the slow paths is
 * computed only where one of those uses it.
 */
static __always_inline void
array_map_acquire(struct kmem_cache_cpu __percpu *cpu_slab)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_acquire_try(this_cpu_ptr(&cpu_slab->array_map));
#endif /* CONFIG_DEBUG_LOCK_ALLOC */
}

static __always_inline void
array_map_release(struct kmem_cache_cpu __percpu *cpu_slab)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lock_map_release(this_cpu_ptr(&cpu_slab->array_map));
#endif /* CONFIG_DEBUG_LOCK_ALLOC */
}

/*
 * Disable preemption and take this cpu's arrays of @cache; *@pcpup is the
 * cpu's state.  NULL, with preemption enabled again, when the cache has
 * no array here or an interrupted task holds it.  The holder gives them
 * back with array_put() or array_release_this_cpu(), then
 * preempt_enable().
 */
static __always_inline struct slub_array *
array_take_this_cpu(struct kmem_cache *cache, struct kmem_cache_cpu **pcpup)
{
	struct kmem_cache_cpu __percpu *cpu_slab = cache->cpu_slab;
	struct slub_array *a;

	preempt_disable();
	*pcpup = this_cpu_ptr(cpu_slab);
	if (unlikely(__this_cpu_read(cpu_slab->array_held)))
		goto busy;
	__this_cpu_write(cpu_slab->array_held, true);
	/* The arrays are read after the flag is set, never before. */
	barrier();
	a = __this_cpu_read(cpu_slab->array);
	if (unlikely(!a)) {
		barrier();
		__this_cpu_write(cpu_slab->array_held, false);
		goto busy;
	}
	array_map_acquire(cpu_slab);
	return a;
busy:
	preempt_enable();
	return NULL;
}

/*
 * The slow paths hold a cpu's arrays across the depot lock and the slab
 * layer (kn->list_lock, slab allocation and freeing).  On PREEMPT_RT
 * those spinlock_t sleep, so there the holder keeps its task on the cpu
 * with migrate_disable() instead of preemption off, once the flag is
 * set: a task that preempts it finds the flag set, as an interrupt
 * does, and takes the freelist path.  Elsewhere array_hold() is
 * array_take_this_cpu().  Give them back with array_put() or
 * array_release_this_cpu(), then array_unhold().
 */
static __always_inline struct slub_array *
array_hold(struct kmem_cache *cache, struct kmem_cache_cpu **pcpup)
{
	struct slub_array *a = array_take_this_cpu(cache, pcpup);

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && a) {
		migrate_disable();
		preempt_enable();
	}
	return a;
}

static __always_inline void array_unhold(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_enable();
	else
		preempt_enable();
}

/*
 * pcpu->array_state with array_held clear and array_touched set: one
 * 32-bit store of an immediate lets go of the arrays and tells the
 * reaper they are in use, so that the fastpaths mark a busy cpu at no
 * extra instruction.  (A 16-bit store would take gcc two: it avoids the
 * length-changing prefix of movw with an immediate.)
 */
#ifdef __LITTLE_ENDIAN
#define ARRAY_STATE_TOUCHED	0x00000100U
#else
#define ARRAY_STATE_TOUCHED	0x00010000U
#endif /* __LITTLE_ENDIAN */

/*
 * Let go of this cpu's arrays of the cache whose cache->cpu_slab is
 * @cpu_slab, the loaded one unchanged; mark them used.  @cpu_slab is
 * read before the barrier, so that the compiler need not load it again
 * after it.
 */
static __always_inline void
array_release_this_cpu(struct kmem_cache_cpu __percpu *cpu_slab)
{
	array_map_release(cpu_slab);
	/* Every change of the arrays is done before the flag is cleared. */
	barrier();
	__this_cpu_write(cpu_slab->array_state, ARRAY_STATE_TOUCHED);
}

/* Let go of arrays that were not used after all: array_touched stays. */
static __always_inline void
array_release_unused(struct kmem_cache_cpu __percpu *cpu_slab)
{
	array_map_release(cpu_slab);
	barrier();
	__this_cpu_write(cpu_slab->array_held, false);
}

/*
 * Install @a as this cpu's loaded array of @cache and let go of the
 * arrays, marked used.  A single store: another cpu's
 * array_cpu_objects() may read the pointer meanwhile.
 */
static __always_inline void array_put(struct kmem_cache *cache,
				      struct slub_array *a)
{
	struct kmem_cache_cpu __percpu *cpu_slab = cache->cpu_slab;

	__this_cpu_write(cpu_slab->array, a);
	array_release_this_cpu(cpu_slab);
}

void *array_alloc_slowpath(struct kmem_cache *cache, gfp_t gfp, int node,
			   unsigned long addr);
void array_free_slowpath(struct kmem_cache *cache, void *obj);
void array_double_free(struct kmem_cache *cache, void *obj);

/*
 * Pop an object off this cpu's array into *@objp.  False when the cache
 * has no array here, the array is held by the task this interrupt
 * interrupted, @node is neither NUMA_NO_NODE nor this cpu's memory node,
 * or, with *@empty set, the array is empty.  Array objects are all of
 * this cpu's node (THEORY 6), which is compared with preemption off.  No
 * call: the allocation fastpath that inlines it saves no register for it.
 */
static __always_inline bool array_pop(struct kmem_cache *cache, int node,
				      void **objp, bool *empty)
{
	struct kmem_cache_cpu __percpu *cpu_slab = cache->cpu_slab;
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;

	*empty = false;
	a = array_take_this_cpu(cache, &pcpu);
	if (unlikely(!a))
		return false;
	if (node != NUMA_NO_NODE && unlikely(node != numa_mem_id())) {
		array_release_unused(cpu_slab);
		preempt_enable();
		return false;
	}
	if (unlikely(!a->count)) {
		array_release_this_cpu(cpu_slab);
		preempt_enable();
		*empty = true;
		return false;
	}
	*objp = a->objs[--a->count];
	array_release_this_cpu(cpu_slab);
	preempt_enable();
	stat(cache, ARRAY_ALLOC);
	return true;
}

/*
 * Allocate from this cpu's array.  False when array_pop() finds no array
 * it may use: the caller takes the freelist path.  Otherwise *@objp is
 * the object, or NULL if no memory could be had.
 */
static __always_inline bool array_alloc_fast(struct kmem_cache *cache,
					     gfp_t gfp, int node,
					     unsigned long addr, void **objp)
{
	bool empty;

	if (likely(array_pop(cache, node, objp, &empty)))
		return true;
	if (!empty)
		return false;
	*objp = array_alloc_slowpath(cache, gfp, node, addr);
	return true;
}

/*
 * Objects go into an array only if any allocation may get them: from a
 * slab of this cpu's memory node, not from the pfmemalloc reserves, and
 * not KFENCE's.  All others go back to their slab.  The node and the
 * pfmemalloc mark (PG_active, see slab_test_pfmemalloc()) come from one
 * load of the slab's flags, rather than from slab_nid() and
 * slab_test_pfmemalloc(), which would load them twice; where the flags
 * have no node field (NODE_NOT_IN_PAGE_FLAGS), from those two.  Called with
 * preemption off, so that numa_mem_id() is the node of the cpu whose
 * array the object enters.
 */
static __always_inline bool array_accepts_node(struct slab *slab, void *obj,
					       int node)
{
#ifdef NODE_NOT_IN_PAGE_FLAGS
	/* The flags have no room for the node: the section table has it. */
	if (slab_nid(slab) != node || slab_test_pfmemalloc(slab))
		return false;
#else
	unsigned long flags = READ_ONCE(slab->__page_flags);

	/* Compared as ints: no sign extension of @node. */
	if ((int)((flags >> NODES_PGSHIFT) & NODES_MASK) != node ||
	    (flags & (1UL << PG_active)))
		return false;
#endif /* NODE_NOT_IN_PAGE_FLAGS */
	return !is_kfence_address(obj);
}

static __always_inline bool array_accepts(struct slab *slab, void *obj)
{
	return array_accepts_node(slab, obj, numa_mem_id());
}

/* Push an object onto this cpu's array; false: take the freelist path. */
static __always_inline bool array_free_fast(struct kmem_cache *cache,
					    struct slab *slab, void *obj)
{
	struct kmem_cache_cpu __percpu *cpu_slab = cache->cpu_slab;
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;

	a = array_take_this_cpu(cache, &pcpu);
	if (unlikely(!a))
		return false;
	if (unlikely(!array_accepts(slab, obj))) {
		array_release_unused(cpu_slab);
		preempt_enable();
		return false;
	}
	/* The cheap half of the hardened free list's double free check. */
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && a->count &&
	    unlikely(a->objs[a->count - 1] == obj)) {
		array_release_this_cpu(cpu_slab);
		preempt_enable();
		array_double_free(cache, obj);
		return true;
	}
	if (likely(a->count < a->size)) {
		a->objs[a->count++] = obj;
		array_release_this_cpu(cpu_slab);
		preempt_enable();
		stat(cache, ARRAY_FREE);
		return true;
	}
	array_release_this_cpu(cpu_slab);
	preempt_enable();
	array_free_slowpath(cache, obj);
	return true;
}

size_t array_alloc_bulk(struct kmem_cache *cache, size_t size, void **p);
size_t array_free_bulk(struct kmem_cache *cache, size_t size, void **p,
		       int node);

#endif /* MM_SLUB_ARRAY_H */
