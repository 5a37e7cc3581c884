// SPDX-License-Identifier: GPL-2.0
/*
 * SLUB-style slab allocator engine, written from scratch for this tree.
 * This file holds the slab states and the allocation and free paths;
 * mm/slub_lifecycle.c the caches and nodes as they come and go, and
 * mm/slub_array.c the array front end.
 *
 * The theory of operation follows in six numbered DOC: sections, which
 * Documentation/mm/slub.rst includes, so that there is one copy of it.
 * The code refers to them as "THEORY n".
 */

/**
 * DOC: THEORY 1: nouns
 *
 * cache
 *   struct kmem_cache: objects of one size, layout and ctor.
 * slab
 *   One folio of 2^order pages cut into oo_objects() slots of cache->size
 *   bytes.  Its struct slab holds the *slab pair* (freelist, counters),
 *   counters = {objects, frozen, inuse}, at the 16-byte aligned spot of a
 *   window whose position depends on the struct page layout (diagrams in
 *   include/linux/slub_def.h); only the slab_pair_*() accessors touch it.
 * object
 *   One slot.  A free object stores the address of the next free object
 *   at cache->offset (obfuscated with CONFIG_SLAB_FREELIST_HARDENED).
 * freelist
 *   NULL-terminated chain of free objects through those pointers.
 * cpu slab
 *   The slab a cpu allocates from (pcpu->slab).  Its free objects are
 *   split between pcpu->freelist (owned by the cpu, lockless) and the
 *   slab freelist (objects freed by other cpus).
 * cpu partial list
 *   Frozen slabs with free objects that one cpu keeps (pcpu->partial,
 *   CONFIG_SLUB_CPU_PARTIAL), bounded per cache.
 * node
 *   struct kmem_cache_node: per-NUMA-node list of partial slabs.
 * array
 *   (array front end, mm/slub_array.c) a stack of free objects: each cpu
 *   has a loaded array (pcpu->array) and a spare, made on its first use
 *   of the cache.
 * depot
 *   Per node, kn->depot: lists of full and empty arrays, at most
 *   DEPOT_MAX of each.
 * held object
 *   A freed object whose free has not reached the engine yet: in KASAN's
 *   quarantine, or (SLUB_RCU_DEBUG, 6.12) of a SLAB_TYPESAFE_BY_RCU cache
 *   waiting a grace period.  It counts in its slab's inuse, on no
 *   freelist, as an allocated object does.
 */

/**
 * DOC: THEORY 2: locks
 *
 * Outermost first:
 *
 * slab_mutex
 *   The cache list, cache create/destroy, hotplug callbacks and array
 *   resizes.  Each cpu's array reap
 *   and the array shrinker only try it, and hold no other global lock:
 *   they wait on nobody.
 * pcpu->lock
 *   local_lock of a cpu (irqs off; on PREEMPT_RT a per-cpu sleeping lock
 *   that keeps its holder on the cpu, irqs and preemption on):
 *   pcpu->slab, pcpu->partial and any change of pcpu->freelist outside
 *   the fastpath.  A dead cpu's state is taken over without it, under
 *   slab_mutex, once nothing can run there (slub_cpu_dead()).  No page
 *   is freed and no other cache is entered under it: slabs a cpu lets go
 *   are unfrozen after unlocking.
 * pcpu->array_held
 *   A flag, not a lock: with preemption off the taker finds it clear and
 *   sets it (array_take_this_cpu()), then owns pcpu->array and pcpu->spare
 *   until it clears it.  An interrupt that finds it set takes the freelist
 *   path; one that came before it was set has finished before the taker
 *   reads the arrays.  A lockdep trylock.  Held, it may take the locks
 *   below; pcpu->lock is never held while taking it.  The fastpaths hold
 *   it with preemption off, and so do the slow paths, but on PREEMPT_RT,
 *   where the locks below sleep: there they keep the task on the cpu
 *   instead (array_hold()), and a task that preempts the holder finds the
 *   flag set, as an interrupt does.  Letting go of the arrays clears it
 *   and sets pcpu->array_touched in one 32-bit store (pcpu->array_state),
 *   which tells the reaper the cpu used them.
 * kn->depot.lock
 *   Spinlock (irqsave), a leaf: the depot lists and counts.
 * kn->list_lock
 *   Spinlock (irqsave): kn->partial, kn->nr_partial, and the transitions
 *   of unfrozen slabs onto and off that list.  For debug caches also
 *   kn->full and every change of their slabs' pairs (mm/slub_debug.c).
 * slab_bit_lock()
 *   Bit spinlock PG_locked of the slab folio: guards the slab pair only
 *   where cmpxchg_double is not used (no CX16, slub_pair=bitlock).
 *   Innermost, irqs off while held.
 *
 * With slub_fastpath=irqoff the fastpaths take pcpu->lock too, and change
 * pcpu->freelist under it instead of committing with cmpxchg16b; every
 * other rule stays, the tid bump included.  PREEMPT_RT always does so
 * (THEORY 4).  There the spinlocks above sleep and interrupt handlers
 * run in threads; only the bit lock's section and the arrays' fastpaths
 * still run with interrupts or preemption off, and they take no other
 * lock.
 */

/**
 * DOC: THEORY 3: slab states
 *
 * Who owns a slab, and where it is linked::
 *
 *   state         frozen  linked on      slab freelist   inuse
 *   cpu slab      1       pcpu->slab     remote frees    objects - |remote|
 *   cpu partial   1       pcpu->partial  >= 1 object     <= objects - 1
 *   parking       1       nothing yet    >= 1 object     < objects
 *   node partial  0       kn->partial    >= 1 object     < objects
 *   full          0       nothing        NULL            objects
 *   empty         0       kn->partial while nr_partial < min_partial,
 *                         else freed     all objects     0
 *
 * "Parking" is a full slab that a freer froze with its commit and is
 * about to put on its own cpu partial list (cpu_partial_park()); a cpu
 * partial slab may be empty (a bulk free emptied it).  Only the owner of
 * a frozen slab may allocate from it; anybody may free to any slab.
 * Whenever its node's list_lock is not held, an unfrozen slab with free
 * objects is on that node's list.  The objects on pcpu->freelist count as
 * in use in their (frozen) slab.
 *
 * Debug caches (any SLAB_DEBUG_FLAGS) never get a cpu slab: both
 * fastpaths find nothing and hand them to mm/slub_debug.c, whose slabs
 * are never frozen and sit on kn->partial (free objects) or kn->full.
 */

/**
 * DOC: THEORY 4: commit points
 *
 * The lockless paths commit as follows::
 *
 *   alloc fastpath  this_cpu_cmpxchg_double(pcpu->freelist, pcpu->tid):
 *                   (obj, tid) -> (next(obj), tid + TID_STEP).
 *   free fastpath   same pair: (head, tid) -> (obj, tid + TID_STEP), only
 *                   when the object's slab is pcpu->slab.
 *   free slowpath   slab pair: (prior, cnt) -> (obj, cnt with inuse - n),
 *                   possibly frozen = 1 (the freer parks the slab on its
 *                   cpu partial list); kn->list_lock is taken *before* the
 *                   commit when the slab must move on or off a node list.
 *   refill          slab pair: (list, cnt) -> (NULL, inuse = objects), the
 *                   taker becomes the owner of the whole list; a cpu slab
 *                   with nothing left is released the same way with
 *                   frozen = 0 (full, on no list).
 *   freeze          slab pair, under list_lock: a node partial slab
 *                   becomes frozen = 1, with or without its freelist.
 *   unfreeze        slab pair: (prior, cnt) -> (cpu list ++ prior,
 *                   frozen = 0).
 *   debug caches    none: slab_pair_set() under kn->list_lock.
 *   array alloc,    none: plain loads and stores to the held arrays, seen
 *   array free      by this cpu only; clearing pcpu->array_held publishes
 *                   them.
 *   array refill    the whole cpu freelist, or a slab's, per commit
 *                   (above); the refiller stays on its cpu
 *                   (migrate_disable()) so the spare goes back where it
 *                   came from.
 *   array flush     objects grouped by slab, one free commit per group.
 *   depot moves     under kn->depot.lock: one array for one of the other
 *                   kind.
 *
 * Every change of pcpu->freelist or pcpu->slab outside the fastpath bumps
 * pcpu->tid before pcpu->lock is released (bulk allocation bumps it once
 * for the whole batch), so a fastpath that was preempted or interrupted
 * between its reads and its commit fails the commit and retries.  With
 * CONFIG_PREEMPTION the tid is also unique per cpu (low bits = cpu
 * number), so a fastpath migrated to another cpu fails too; without it a
 * fastpath cannot migrate.  The tid covers a change only if nothing can
 * run on the cpu between it and the bump: pcpu->lock disables
 * interrupts for that.  On PREEMPT_RT it does not, and a task that
 * preempted the holder could commit over its half-made change, so there
 * no fastpath commits locklessly: both take pcpu->lock, as with
 * slub_fastpath=irqoff (slub_fastpath_locked()).
 *
 * The reads before a commit race with other cpus by design, and are
 * marked so that KCSAN, which instruments these files, reports only
 * races nobody intended: READ_ONCE() for the words a commit compares
 * (pcpu->tid, pcpu->freelist, pcpu->slab, the slab pair) and for values
 * read without the lock that guards their writes (kn->nr_partial, the
 * sysfs tunables min_partial, cpu_partial_slabs and
 * remote_node_defrag_ratio); data_race() for the free pointer that the
 * alloc fastpath reads ahead of its commit, in an object another cpu
 * may own by then, and for statistics summed over cpus.
 */

/**
 * DOC: THEORY 5: invariants
 *
 * The invariants, each true whenever the lock of THEORY 2 that guards its
 * fields is not held::
 *
 *   inuse + |slab freelist| == objects            for every slab
 *   objects * cache->size <= PAGE_SIZE << order
 *   counters & SLAB_COUNTERS_FIXED_MASK == SLAB_COUNTERS_FIXED
 *                   (on a typed base: the word reads as PGTY_slab)
 *   frozen == 0 && slab freelist != NULL  =>  slab on kn->partial
 *   pcpu->freelist != NULL  =>  pcpu->slab != NULL, all of it in pcpu->slab
 *   kn->nr_partial == |kn->partial|
 *   nr_slabs(kn) == slabs of the node, total_objects(kn) == their slots
 *                   (CONFIG_SLUB_DEBUG only)
 *   0 <= array->count <= array->size (0 == size for the two
 *                   placeholders, THEORY 6)
 *   array->size == cache->array_size for every array in a depot (a
 *                   cpu's own may predate a resize until it retires them)
 *   kn->depot.nr_full == |full| <= DEPOT_MAX, likewise nr_empty
 *   every array object is allocated in its slab: counted in inuse, and
 *                   on no freelist
 *
 * Where they are checked:
 *
 * - slab_validate() checks the first two for a slab, validate_slab_cache()
 *   the nr_partial count and that no listed slab is frozen (for debug
 *   caches every slab, its objects, and nr_slabs too).
 * - With CONFIG_DEBUG_VM the state changes assert them as they happen:
 *   every slab pair commit (inuse <= objects, and an empty slab freelist
 *   exactly when inuse == objects: the first invariant in O(1); the
 *   fixed bits),
 *   node_add_partial() (the slab is unfrozen and has a free object),
 *   slab_discard() (inuse == 0, not frozen), the depot moves (counts
 *   within DEPOT_MAX, full arrays full and empty ones empty, their size
 *   checked under the depot lock) and the array slow paths (count within
 *   size).
 */

/**
 * DOC: THEORY 6: array front end
 *
 * With slub_frontend=array, the default, per-cpu arrays sit in front of
 * the slabs of THEORY 3, which serve as their source and sink::
 *
 *   array state   where                 objects
 *   unmade        pcpu->array           none: &array_unmade, spare NULL
 *   making        pcpu->array           none: &array_making, spare NULL
 *   loaded        pcpu->array           0..size, popped and pushed
 *   spare         pcpu->spare           0..size, swapped with loaded
 *   refilling     the refiller's hands  0, pcpu->spare NULL meanwhile
 *   depot full    kn->depot.full        size
 *   depot empty   kn->depot.empty       0
 *
 * A cpu makes its two arrays on its first use of the cache: until then
 * its loaded array is the placeholder array_unmade, whose size is 0, so
 * that both fastpaths find it empty and full and take the slow paths
 * unchanged.  The first slow path (an allocation, a free or a bulk free)
 * installs array_making, lets go of the arrays and makes the two with
 * flags that place nothing, take no reserves and do no direct reclaim;
 * meanwhile that cpu takes the freelist path for the cache, which also
 * ends the recursion when the arrays come from the cache itself.  The
 * task stays on the cpu (migrate_disable()) from installing array_making
 * until the arrays replace it, on every path: only it may replace it.
 * Without memory the cpu goes back to array_unmade and tries on a later
 * slow path.  A cache a cpu never uses costs it no array.
 *
 * Objects in arrays count as in use in their slabs (they are off every
 * freelist), as those on pcpu->freelist do, so /proc/slabinfo and the
 * sysfs object counts show them as active.  Only objects of this cpu's
 * node, not from pfmemalloc slabs and not KFENCE's enter an array: a
 * free compares the object's node with the cpu's with preemption off, a
 * bulk free pushes only if it still runs on the node it picked the
 * objects for, and a refill gives back what the cpu slab brought from
 * another node (the local one out of memory).  No refill starts while
 * the cpu slab is another node's, or for a task whose mempolicy or
 * cpuset leaves the cpu's node out: all it would bring is remote; nor
 * for a task that interleaves, whose slabs alternate nodes (looking at
 * other nodes' partial slabs takes no step of its interleave).  Such
 * requests take the freelist path, which follows the task's policy and
 * uses the remote cpu slab up, as SLUB's does; they still pop what the
 * cpu's arrays hold, as SLUB's cpu slab serves whatever node it is on.
 * So an allocation for NUMA_NO_NODE or for the cpu's own node may pop
 * from the array; one for another node takes the freelist path.  Cpu
 * partial lists are off for array caches, so no object is cached twice.
 *
 * A refill asks the slabs for a batch without __GFP_NOFAIL, without
 * the reserves (__GFP_NOMEMALLOC) and without direct reclaim, its task
 * kept on its cpu; if it gets nothing, the request takes the freelist
 * path with its own flags, reserves, NOFAIL and reclaim included, once
 * the task may move again.  No task is pinned while it reclaims.  A
 * free that needs a new empty array asks kmalloc with no reclaim, no
 * kswapd and no reserves, and flushes half an array without one.
 *
 * On PREEMPT_RT a task that holds the arrays may be preempted (THEORY
 * 2), and the task that preempted it finds them held.  So there the
 * first use makes the arrays, and a refill fills the spare, with the
 * cpu's arrays still held, instead of letting go of them and taking them
 * back after, which could find them held: array_making is not used, and
 * other takers on the cpu take the freelist path meanwhile.
 *
 * Arrays are sized to the machine once, at boot (array_budget()): an
 * array's objects may take
 *
 *   bytes = min(8 KiB, memory / cpus / 2^14)
 *
 * and a cache's arrays hold as many objects as fit in bytes, rounded
 * down to 125, 61, 29, 13 or 5 (arrays that fill a kmalloc size), and
 * never fewer than 4; a depot keeps at most DEPOT_MAX (8) arrays of each
 * kind, whatever the cpus of its node (on one cpu it is that cpu's
 * reserve).  slub_array_size= and the array_size file override the
 * count.  Per cache at most
 *
 *   (cpus * 2 + nodes * DEPOT_MAX) * array_size
 *
 * objects sit in arrays: with every cache's arrays full, caches * 2 /
 * 2^14 of the memory for the cpus' arrays (objects bigger than bytes / 4
 * aside) wherever the 8 KiB cap does not bind first, and 8 arrays per
 * node and cache for the depots.  Only the cpus that used a cache have
 * any.
 *
 * Every use of a cpu's arrays, fastpaths included, marks it touched.
 * Each cpu reaps for itself, as SLAB's cache_reap did: a
 * deferrable work item bound to it, every 2 s, that takes slab_mutex
 * with a trylock (and tries again later without it), clears the cpu's
 * marks and empties its arrays of each cache it did not touch since its
 * last reap, and empties its node's depot if no array moved through it
 * since the node's last reap (once an interval per node, by whichever of
 * its cpus comes first: depot.next_reap).  So an idle cpu or node gives
 * its objects back within two reap intervals, whatever the others do,
 * and a cpu whose reap never runs holds up nobody.  Cache shrink and
 * destroy, memory offline and online of a new node, and cpu hot-unplug
 * empty them at once; the flush of per-cpu state runs as a work item on
 * each cpu, in task context.
 *
 * Other cpus look at a cpu's arrays without holding them (the flush asks
 * array_cpu_has_objects() which cpus to visit, sysfs array_objects
 * counts), so an array that a cpu held is freed after an RCU grace
 * period and read under rcu_read_lock().
 *
 * A resize (array_size written) sets cache->array_size under slab_mutex
 * and empties the depots; it waits on no cpu and allocates nothing.  A
 * depot compares an array's size with cache->array_size under its own
 * lock, so once the drain has had a depot's lock no older array enters
 * it.  Each cpu retires its arrays of another size itself, on its next
 * slow path (allocation, free, bulk free) or reap, busy or idle: their
 * objects go back to the slabs, the arrays are freed and the cpu goes
 * back to unmade, to make arrays of the new size as on a first use.
 * Until then its fastpaths keep using the old arrays; a cpu that never
 * takes a slow path and never reaps (a real-time task that never
 * sleeps) keeps them, bounded by the old size, and holds up nobody.  A
 * refill that comes back with a spare of another size than the loaded
 * array's, or to a cpu that has a spare again, gives its objects back
 * and frees it.
 *
 * Under reclaim a NUMA-aware shrinker works on the node it is asked for:
 * it counts the node's depots and what the node's cpus' arrays held at
 * their last reap (O(caches + cpus), a trylock of slab_mutex), takes
 * full arrays off the node's depots up to nr_to_scan, and asks the
 * node's cpus to reap at once under pressure (their untouched arrays
 * emptied, and the spare of touched ones) without waiting for them.
 * Nothing is left to drain in the depots: it stops the pass
 * (SHRINK_STOP).
 *
 * kmemleak scans only an array's depot links: the slots past its count
 * keep pointers to objects that are allocated again, and would hide
 * their leaks.
 */

#include <linux/mm.h>
#include <linux/swap.h>
#include <linux/module.h>
#include <linux/bit_spinlock.h>
#include <linux/interrupt.h>
#include <linux/swab.h>
#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/kcsan-checks.h>
#include <linux/kasan.h>
#include <linux/kmsan.h>
#include <linux/kmemleak.h>
#include <linux/cpu.h>
#include <linux/cpuset.h>
#include <linux/mempolicy.h>
#include <linux/kfence.h>
#include <linux/memory.h>
#include <linux/memcontrol.h>
#include <linux/random.h>
#include <linux/prefetch.h>
#include <linux/debugobjects.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/jump_label.h>
#include <linux/workqueue.h>
#include <trace/events/kmem.h>

#include "internal.h"
#include "slab.h"
#include "slub_internal.h"
#include "slub_array.h"

/* ---- Transaction ids ---- */

#ifdef CONFIG_PREEMPTION
/* Leave room in the low bits for the cpu number. */
#define TID_STEP	roundup_pow_of_two(CONFIG_NR_CPUS) /* > any cpu id */
#else
#define TID_STEP	1
#endif /* CONFIG_PREEMPTION */

static inline unsigned long tid_next(unsigned long tid)
{
	return tid + TID_STEP;
}

/* ---- Free pointers ---- */

/*
 * The alloc fastpath may read the free pointer of an object that another
 * cpu allocated meanwhile (its commit then fails).  With debug_pagealloc
 * the page may even be unmapped, so read it without faulting.  The read
 * races with the new owner's writes by design (THEORY 4): data_race().
 */
static __always_inline void *obj_next_speculative(const struct kmem_cache *cache,
						  void *obj)
{
	unsigned long slot = fp_slot(cache, obj);
	void *raw;

	if (debug_pagealloc_enabled_static()) {
		if (copy_from_kernel_nofault(&raw, (void *)slot, sizeof(raw)))
			return NULL;
	} else {
		/* Stale if another cpu owns @obj by now: the commit fails. */
		raw = data_race(*(void **)slot);
	}
	return fp_code(cache, raw, slot);
}

/*
 * A free pointer must stay inside the naturally aligned block of the
 * largest slab order: anything else is a corrupted free pointer.
 */
static __always_inline bool fp_plausible(const struct kmem_cache *cache,
					 void *obj, void *next)
{
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	unsigned long diff = (unsigned long)kasan_reset_tag(obj) ^
			     (unsigned long)kasan_reset_tag(next);

	return !next || !(diff >> (PAGE_SHIFT + oo_order(cache->oo)));
#else
	return true;
#endif /* CONFIG_SLAB_FREELIST_HARDENED */
}

/*
 * Report a double free of @*tail, the last object of the chain @head of
 * @*cnt objects, and take it off the chain: the others are freed all the
 * same, their hooks (memcg, KASAN) have run.  Returns true when nothing
 * is left to free, else @*tail and @*cnt describe the rest.
 */
static noinline bool fp_double_free_drop(const struct kmem_cache *cache,
					 void *head, void **tail, int *cnt)
{
	void *obj = head;

	if (!slab_add_kunit_errors()) {
		pr_err("SLUB %s: double free of object %p, ignored\n",
		       cache->name, *tail);
		WARN_ON_ONCE(1);
	}
	if (*cnt <= 1)
		return true;
	while (obj_next(cache, obj) != *tail)
		obj = obj_next(cache, obj);
	*tail = obj;
	(*cnt)--;
	return false;
}

static noinline void *fp_corrupted(const struct kmem_cache *cache, void *obj,
				   void *next)
{
	pr_err("SLUB %s: freelist corrupted: object %p has free pointer %p\n",
	       cache->name, obj, next);
	WARN_ON_ONCE(1);
	return NULL;
}

/*
 * Freeing the object that heads a freelist would link it to itself, and
 * the next two allocations would return it twice.  The cheap check.
 */
static __always_inline bool fp_double_free_suspect(void *tail, void *freelist)
{
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && unlikely(tail == freelist);
}

/*
 * The check, and a report and the drop of @*tail if it fails.  Returns
 * true when the chain had nothing else to free.
 */
static __always_inline bool fp_double_free(const struct kmem_cache *cache,
					   void *head, void **tail, int *cnt,
					   void *freelist)
{
	if (likely(!fp_double_free_suspect(*tail, freelist)))
		return false;
	return fp_double_free_drop(cache, head, tail, cnt);
}

static inline void *obj_next_checked(const struct kmem_cache *cache, void *obj)
{
	void *next = obj_next(cache, obj);

	if (unlikely(!fp_plausible(cache, obj, next)))
		return fp_corrupted(cache, obj, next);
	return next;
}

/* ---- The slab pair: the only code touching slab->freelist/counters ---- */

static __always_inline void slab_bit_lock(struct slab *slab)
{
	bit_spin_lock(PG_locked, &slab->__page_flags);
}

static __always_inline void slab_bit_unlock(struct slab *slab)
{
	bit_spin_unlock(PG_locked, &slab->__page_flags);
}

/**
 * slab_pair_read - snapshot the freelist and counters of a slab
 * @slab: the slab
 * @p: where to store the snapshot
 *
 * The two words are read separately; a torn snapshot only makes the next
 * slab_pair_commit() fail.  The counters word is read whole, with the
 * bits above the engine's counters (_refcount in the shifted position),
 * so that a commit can hand them back unchanged.
 */
void slab_pair_read(const struct slab *slab, struct slab_pair *p)
{
	const unsigned long *pair = slab_pair_words(slab);

	p->freelist = (void *)READ_ONCE(pair[0]);
	p->cnt.word = READ_ONCE(pair[1]);
}

/*
 * Store the pair of a slab no other slab user can see (new or being
 * freed).  Only the engine's 32 bits of the counters word are written:
 * the others may be a _refcount that somebody changes speculatively.
 */
void slab_pair_set(struct slab *slab, const struct slab_pair *p)
{
	unsigned long *pair = slab_pair_words(slab);

	WRITE_ONCE(pair[0], (unsigned long)p->freelist);
	WRITE_ONCE(((union slab_counters *)&pair[1])->low, p->cnt.low);
}

static bool slab_pair_commit_locked(struct slab *slab,
				    const struct slab_pair *old,
				    const struct slab_pair *new)
{
	unsigned long *pair = slab_pair_words(slab);
	unsigned long flags;
	bool done = false;

	local_irq_save(flags);
	slab_bit_lock(slab);
	if (pair[0] == (unsigned long)old->freelist &&
	    ((union slab_counters *)&pair[1])->low == old->cnt.low) {
		WRITE_ONCE(pair[0], (unsigned long)new->freelist);
		WRITE_ONCE(((union slab_counters *)&pair[1])->low, new->cnt.low);
		done = true;
	}
	slab_bit_unlock(slab);
	local_irq_restore(flags);
	return done;
}

#if SLAB_PAIR_CAN_CMPXCHG
/*
 * The whole counters word is swapped, with the bits above the engine's
 * counters as read: if somebody changed them (a speculative reference
 * on _refcount in the shifted position), the commit fails and retries.
 */
static __always_inline bool slab_pair_commit_cmpxchg(struct slab *slab,
						     const struct slab_pair *old,
						     const struct slab_pair *new)
{
	unsigned long *pair = slab_pair_words(slab);
	bool done;

	done = slub_pair_cmpxchg(pair, (unsigned long)old->freelist,
				 old->cnt.word, (unsigned long)new->freelist,
				 new->cnt.word);
	slab_pair_count_cmpxchg(slab, done);
	return done;
}
#endif /* SLAB_PAIR_CAN_CMPXCHG */

/*
 * THEORY 5, executed with CONFIG_DEBUG_VM: a pair a commit installs keeps
 * inuse + |slab freelist| == objects, checked in its O(1) form (inuse in
 * range, and the freelist empty exactly when every object is in use).
 * An inuse that wrapped below zero is a double free the head check missed.
 * The fixed bits above inuse never change (<linux/slub_def.h>).
 */
static __always_inline void slab_pair_assert(const struct slab_pair *new)
{
	VM_WARN_ON_ONCE((new->cnt.low & SLAB_COUNTERS_FIXED_MASK) !=
			SLAB_COUNTERS_FIXED);
	VM_WARN_ON_ONCE(new->cnt.inuse > new->cnt.objects);
	VM_WARN_ON_ONCE(!new->freelist != (new->cnt.inuse == new->cnt.objects));
}

/* Replace @old by @new if the slab still holds @old (THEORY 4). */
static inline bool slab_pair_commit(struct kmem_cache *cache, struct slab *slab,
				    const struct slab_pair *old,
				    const struct slab_pair *new)
{
	bool done;

	slab_pair_assert(new);
#if SLAB_PAIR_CAN_CMPXCHG
	if (cache->pair_atomic)
		done = slab_pair_commit_cmpxchg(slab, old, new);
	else
#endif /* SLAB_PAIR_CAN_CMPXCHG */
		done = slab_pair_commit_locked(slab, old, new);

	if (unlikely(!done)) {
		cpu_relax();
		stat(cache, CMPXCHG_DOUBLE_FAIL);
	}
	return done;
}

/* ---- Node lists and counters ---- */

/*
 * THEORY 5 (DEBUG_VM): a slab goes on a node list unfrozen and with a free
 * object; one that is frozen belongs to a cpu, and one that is full is on
 * no list.
 */
static void node_assert_listable(struct slab *slab)
{
	struct slab_pair p;

	if (!IS_ENABLED(CONFIG_DEBUG_VM))
		return;
	slab_pair_read(slab, &p);
	VM_WARN_ON_ONCE(p.cnt.frozen);
	VM_WARN_ON_ONCE(!p.freelist);
}

void node_add_partial(struct kmem_cache_node *kn, struct slab *slab, bool tail)
{
	lockdep_assert_held(&kn->list_lock);
	node_assert_listable(slab);
	kn->nr_partial++;
	if (tail)
		list_add_tail(&slab->slab_list, &kn->partial);
	else
		list_add(&slab->slab_list, &kn->partial);
}

void node_del_partial(struct kmem_cache_node *kn, struct slab *slab)
{
	lockdep_assert_held(&kn->list_lock);
	list_del(&slab->slab_list);
	kn->nr_partial--;
}

/*
 * Count slabs and their slots: per node with CONFIG_SLUB_DEBUG (sysfs and
 * /proc/slabinfo report them), per cache otherwise, so that a cache
 * destroyed with objects in full slabs, which are on no list, is caught.
 */
void node_account(struct kmem_cache *cache, int node, long slabs,
		  long objects)
{
#ifdef CONFIG_SLUB_DEBUG
	struct kmem_cache_node *kn = get_node(cache, node);

	/* NULL only while node_cache itself is bootstrapped. */
	if (likely(kn)) {
		atomic_long_add(slabs, &kn->nr_slabs);
		atomic_long_add(objects, &kn->total_objects);
	}
#else
	atomic_long_add(slabs, &cache->nr_slabs);
#endif /* CONFIG_SLUB_DEBUG */
}

/* Slabs of @cache on all nodes, on lists or not. */
unsigned long cache_slabs(struct kmem_cache *cache)
{
#ifdef CONFIG_SLUB_DEBUG
	struct kmem_cache_node *kn;
	unsigned long nr = 0;
	int node;

	for_each_kmem_cache_node(cache, node, kn)
		nr += atomic_long_read(&kn->nr_slabs);
	return nr;
#else
	return atomic_long_read(&cache->nr_slabs);
#endif /* CONFIG_SLUB_DEBUG */
}

unsigned long slub_node_slabs(struct kmem_cache_node *kn)
{
#ifdef CONFIG_SLUB_DEBUG
	return atomic_long_read(&kn->nr_slabs);
#else
	return 0;
#endif /* CONFIG_SLUB_DEBUG */
}

unsigned long slub_node_objects(struct kmem_cache_node *kn)
{
#ifdef CONFIG_SLUB_DEBUG
	return atomic_long_read(&kn->total_objects);
#else
	return 0;
#endif /* CONFIG_SLUB_DEBUG */
}

void node_init(struct kmem_cache_node *kn)
{
	spin_lock_init(&kn->list_lock);
	kn->nr_partial = 0;
	INIT_LIST_HEAD(&kn->partial);
	array_depot_init(&kn->depot);
#ifdef CONFIG_SLUB_DEBUG
	atomic_long_set(&kn->nr_slabs, 0);
	atomic_long_set(&kn->total_objects, 0);
	INIT_LIST_HEAD(&kn->full);
#endif /* CONFIG_SLUB_DEBUG */
}

static inline bool node_ok(const struct slab *slab, int node)
{
#ifdef CONFIG_NUMA
	if (node != NUMA_NO_NODE && (!slab || slab_nid(slab) != node))
		return false;
#endif /* CONFIG_NUMA */
	return true;
}

static inline bool pfmemalloc_ok(const struct slab *slab, gfp_t gfp)
{
	if (unlikely(slab_test_pfmemalloc(slab)))
		return gfp_pfmemalloc_allowed(gfp);
	return true;
}

static inline unsigned int cpu_partial_limit(const struct kmem_cache *cache)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	return READ_ONCE(cache->cpu_partial_slabs);
#else
	return 0;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

static inline bool cpu_partial_enabled(const struct kmem_cache *cache)
{
	return cpu_partial_limit(cache) != 0;
}

/* ---- Slab pages ---- */

/* Does the task's own memory policy place its pages?  Not in interrupts. */
static inline bool task_has_mempolicy(void)
{
#ifdef CONFIG_NUMA
	return !in_interrupt() && current->mempolicy;
#else
	return false;
#endif /* CONFIG_NUMA */
}

static struct slab *slab_pages_alloc(gfp_t gfp, int node, unsigned int order)
{
	struct folio *folio;
	struct slab *slab;

	/*
	 * Without a node, a task's own mempolicy (interleave, bind) decides;
	 * tasks without one take the local node, as alloc_pages_node()
	 * always did.
	 */
	if (node == NUMA_NO_NODE && task_has_mempolicy())
		folio = (struct folio *)alloc_pages(gfp, order);
	else
		folio = (struct folio *)alloc_pages_node(node, gfp, order);
	if (!folio)
		return NULL;
	slab = folio_slab(folio);
	__folio_set_slab(folio);
	/* Order PG_slab before the stores to fields overlaying ->mapping. */
	smp_wmb();
	if (page_is_pfmemalloc(&folio->page))
		slab_set_pfmemalloc(slab);
	return slab;
}

static void slab_pages_free(struct kmem_cache *cache, struct slab *slab)
{
	unsigned int order = slab_order(slab);
	struct page *page = slab_page(slab);

	__slab_clear_pfmemalloc(slab);
	slab_folio(slab)->mapping = NULL;
	/* ->mapping overlays ->slab_cache: clear it before PG_slab. */
	smp_wmb();
	__folio_clear_slab(slab_folio(slab));
	slub_pages_unaccount(cache, slab, order);
	__free_pages(page, order);
}

static void slab_rcu_free(struct rcu_head *head)
{
	struct slab *slab = container_of(head, struct slab, rcu_head);

	slab_pages_free(slab->slab_cache, slab);
}

/* Give an empty, unlisted slab back to the page allocator. */
void slab_discard(struct kmem_cache *cache, struct slab *slab)
{
	if (IS_ENABLED(CONFIG_DEBUG_VM)) {
		struct slab_pair p;

		/* THEORY 5: only an empty slab nobody owns goes back. */
		slab_pair_read(slab, &p);
		VM_WARN_ON_ONCE(p.cnt.inuse || p.cnt.frozen);
	}
	node_account(cache, slab_nid(slab), -1, -(long)slab_objects(slab));
	stat(cache, FREE_SLAB);
	if (unlikely(cache->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, slab_rcu_free);
	else
		slab_pages_free(cache, slab);
}

static void *obj_setup(struct kmem_cache *cache, void *obj)
{
	obj = kasan_init_slab_obj(cache, obj);
	if (unlikely(cache->ctor)) {
		slub_kasan_ctor_begin(cache, obj);
		cache->ctor(obj);
		slub_kasan_ctor_end(cache, obj);
	}
	return obj;
}

static inline void *slot_addr(struct kmem_cache *cache, void *base,
			      unsigned int idx)
{
	return fixup_red_left(cache, base + idx * cache->size);
}

/*
 * Construct every object of a new slab and chain them.  The chain follows
 * the cache's random sequence (entries beyond a smaller fallback slab are
 * skipped) or the address order.
 */
static void *slab_build_freelist(struct kmem_cache *cache, struct slab *slab)
{
	unsigned int nr = slab_objects(slab), seq_len = nr, i, idx;
	void *base = slab_address(slab);
	void *head = NULL, *prev = NULL, *obj;
	unsigned int start = 0;

#ifdef CONFIG_SLAB_FREELIST_RANDOM
	if (cache->random_seq) {
		seq_len = oo_objects(cache->oo);
		start = get_random_u32_below(seq_len);
	}
#endif /* CONFIG_SLAB_FREELIST_RANDOM */
	for (i = 0; i < seq_len; i++) {
		idx = (start + i) % seq_len;
#ifdef CONFIG_SLAB_FREELIST_RANDOM
		if (cache->random_seq)
			idx = cache->random_seq[idx];
#endif /* CONFIG_SLAB_FREELIST_RANDOM */
		if (idx >= nr)
			continue;
		obj = obj_setup(cache, slot_addr(cache, base, idx));
		if (prev)
			obj_set_next(cache, prev, obj);
		else
			head = obj;
		prev = obj;
	}
	obj_set_next(cache, prev, NULL);
	return head;
}

/*
 * Allocate a slab with all objects constructed and free: unfrozen,
 * inuse == 0, not on any list.  Called without any engine lock held.
 */
struct slab *slab_new(struct kmem_cache *cache, gfp_t gfp, int node)
{
	struct slab_oo oo = cache->oo;
	struct slab_pair p = { };
	struct slab *slab;
	gfp_t try_gfp;

	gfp &= gfp_allowed_mask;	/* no reclaim before the boot is done */
	if (unlikely(gfp & GFP_SLAB_BUG_MASK))
		gfp = kmalloc_fix_flags(gfp);
	WARN_ON_ONCE(cache->ctor && (gfp & __GFP_ZERO));
	gfp = (gfp & (GFP_RECLAIM_MASK | GFP_CONSTRAINT_MASK)) | cache->allocflags;

	/* Try the preferred order gently, then fall back to the minimum. */
	try_gfp = gfp;
	if (oo_order(oo) > oo_order(cache->min))
		try_gfp = (gfp | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;
	slab = slab_pages_alloc(try_gfp, node, oo_order(oo));
	if (unlikely(!slab) && oo.x != cache->min.x) {
		oo = cache->min;
		slab = slab_pages_alloc(gfp, node, oo_order(oo));
		if (slab)
			stat(cache, ORDER_FALLBACK);
	}
	if (unlikely(!slab))
		return NULL;

	slab->slab_cache = cache;
	p.cnt.low = SLAB_COUNTERS_FIXED;
	p.cnt.objects = oo_objects(oo);
	slab_pair_set(slab, &p);
	slab_pair_count_new(slab);
	slub_pages_account(cache, slab, oo_order(oo), gfp);
	kasan_poison_slab(slab);
	if (slub_debug_cache(cache))
		slub_debug_slab_init(cache, slab);
	p.freelist = slab_build_freelist(cache, slab);
	slab_pair_set(slab, &p);
	node_account(cache, slab_nid(slab), 1, oo_objects(oo));
	return slab;
}

/* ---- Freezing and unfreezing ---- */

/*
 * Make the caller the owner of an unfrozen slab taken off a node list.
 * With @take the slab freelist is returned and the slab keeps nothing.
 */
static void *slab_freeze(struct kmem_cache *cache, struct slab *slab, bool take)
{
	struct slab_pair old, new;

	do {
		slab_pair_read(slab, &old);
		new = old;
		new.cnt.frozen = 1;
		if (take) {
			new.freelist = NULL;
			new.cnt.inuse = new.cnt.objects;
		}
	} while (!slab_pair_commit(cache, slab, &old, &new));
	WARN_ON_ONCE(old.cnt.frozen);
	return old.freelist;
}

/*
 * Give up ownership of a frozen slab.  @head is a chain of objects the
 * owner still holds (the old cpu freelist), returned to the slab in the
 * same commit.  The slab then goes where its new state says: nowhere
 * (full), to its node list (partial) or back to the page allocator
 * (empty and the node has enough partial slabs).
 */
void slab_unfreeze(struct kmem_cache *cache, struct slab *slab, void *head)
{
	struct kmem_cache_node *kn = get_node(cache, slab_nid(slab));
	unsigned int nr = 0, max = slab_objects(slab);
	struct slab_pair old, new;
	unsigned long flags;
	bool locked = false;
	void *tail = NULL, *p;

	for (p = head; p; p = obj_next_checked(cache, p)) {
		/* A longer chain is a loop: leak the rest, keep inuse sane. */
		if (WARN_ON_ONCE(nr == max))
			break;
		tail = p;
		nr++;
	}
	if (head)
		stat(cache, DEACTIVATE_REMOTE_FREES);

	do {
		slab_pair_read(slab, &old);
		new = old;
		if (tail) {
			obj_set_next(cache, tail, old.freelist);
			new.freelist = head;
		}
		new.cnt.inuse -= nr;
		new.cnt.frozen = 0;
		/* Going onto the node list: hold the lock across the commit. */
		if (new.freelist && !locked) {
			spin_lock_irqsave(&kn->list_lock, flags);
			locked = true;
		}
	} while (!slab_pair_commit(cache, slab, &old, &new));

	if (!locked) {
		stat(cache, DEACTIVATE_FULL);
		return;
	}
	if (!new.cnt.inuse && kn->nr_partial >= READ_ONCE(cache->min_partial)) {
		spin_unlock_irqrestore(&kn->list_lock, flags);
		stat(cache, DEACTIVATE_EMPTY);
		slab_discard(cache, slab);
		return;
	}
	/* Empty slabs to the tail: partly used ones are allocated first. */
	node_add_partial(kn, slab, !new.cnt.inuse);
	stat(cache, new.cnt.inuse ? DEACTIVATE_TO_HEAD : DEACTIVATE_TO_TAIL);
	spin_unlock_irqrestore(&kn->list_lock, flags);
}

#ifdef CONFIG_SLUB_CPU_PARTIAL
void cpu_partial_unfreeze_all(struct kmem_cache *cache, struct slab *list)
{
	struct slab *slab;

	while (list) {
		slab = list;
		list = slab->next;
		slab_unfreeze(cache, slab, NULL);
		stat(cache, CPU_PARTIAL_DRAIN);
	}
}

/*
 * Park a slab the caller has just frozen on this cpu's partial list.  A
 * list that is already at its bound is handed back to the node lists.
 */
static void cpu_partial_park(struct kmem_cache *cache, struct slab *slab)
{
	struct kmem_cache_cpu *pcpu;
	struct slab *spill = NULL, *head;
	unsigned long flags;

	local_lock_irqsave(&cache->cpu_slab->lock, flags);
	pcpu = this_cpu_ptr(cache->cpu_slab);
	head = pcpu->partial;
	if (head && head->slabs >= READ_ONCE(cache->cpu_partial_slabs)) {
		spill = head;
		head = NULL;
	}
	slab->next = head;
	slab->slabs = head ? head->slabs + 1 : 1;
	pcpu->partial = slab;
	local_unlock_irqrestore(&cache->cpu_slab->lock, flags);

	cpu_partial_unfreeze_all(cache, spill);
}

/* Pop a usable slab off this cpu's partial list. */
static struct slab *cpu_partial_pop(struct kmem_cache_cpu *pcpu, int node,
				    gfp_t gfp)
{
	struct slab *slab = pcpu->partial;

	if (!slab || !node_ok(slab, node) || !pfmemalloc_ok(slab, gfp))
		return NULL;
	pcpu->partial = slab->next;
	return slab;
}

static unsigned int cpu_partial_count(struct kmem_cache_cpu *pcpu)
{
	return pcpu->partial ? pcpu->partial->slabs : 0;
}

static void cpu_partial_push_locked(struct kmem_cache_cpu *pcpu,
				    struct slab *slab)
{
	slab->slabs = cpu_partial_count(pcpu) + 1;
	slab->next = pcpu->partial;
	pcpu->partial = slab;
}
#else
static inline void cpu_partial_park(struct kmem_cache *cache, struct slab *slab)
{
}

static inline struct slab *cpu_partial_pop(struct kmem_cache_cpu *pcpu,
					   int node, gfp_t gfp)
{
	return NULL;
}

static inline unsigned int cpu_partial_count(struct kmem_cache_cpu *pcpu)
{
	return 0;
}

static inline void cpu_partial_push_locked(struct kmem_cache_cpu *pcpu,
					   struct slab *slab)
{
}
#endif /* CONFIG_SLUB_CPU_PARTIAL */

/*
 * Detach the whole per-cpu state of @pcpu.  The caller owns the returned
 * slabs: either it holds pcpu->lock on that cpu, or the cpu is dead.
 */
struct slab *cpu_detach(struct kmem_cache_cpu *pcpu, void **head,
			struct slab **partial)
{
	struct slab *slab = pcpu->slab;

	*head = pcpu->freelist;
	pcpu->slab = NULL;
	pcpu->freelist = NULL;
	pcpu->tid = tid_next(pcpu->tid);
#ifdef CONFIG_SLUB_CPU_PARTIAL
	*partial = pcpu->partial;
	pcpu->partial = NULL;
#else
	*partial = NULL;
#endif /* CONFIG_SLUB_CPU_PARTIAL */
	return slab;
}

/*
 * Unfreeze @slab (with @head, the cpu freelist it had) after dropping
 * pcpu->lock, and take the lock again, possibly on another cpu.
 * Unfreezing may free the slab, and freeing pages (and, with memcg, a
 * vector through kfree() into another cache's slow path) must not run
 * under a cpu lock: every cache's lock is of one lockdep class, and the
 * irqs-off section would grow by a freelist walk and a page free.
 */
static void slab_unfreeze_unlocked(struct kmem_cache *cache, struct slab *slab,
				   void *head, unsigned long *flags)
{
	lockdep_assert_held(this_cpu_ptr(&cache->cpu_slab->lock));
	local_unlock_irqrestore(&cache->cpu_slab->lock, *flags);
	slab_unfreeze(cache, slab, head);
	local_lock_irqsave(&cache->cpu_slab->lock, *flags);
}

/*
 * Drop the cpu slab of this cpu; its partial list stays.  Drops and
 * retakes pcpu->lock: the caller must look up its pcpu again.
 */
static void cpu_slab_deactivate_locked(struct kmem_cache *cache,
				       struct kmem_cache_cpu *pcpu,
				       unsigned long *flags)
{
	struct slab *slab = pcpu->slab;
	void *head = pcpu->freelist;

	lockdep_assert_held(this_cpu_ptr(&cache->cpu_slab->lock));
	pcpu->slab = NULL;
	pcpu->freelist = NULL;
	pcpu->tid = tid_next(pcpu->tid);
	if (slab)
		slab_unfreeze_unlocked(cache, slab, head, flags);
}

/* ---- Allocation slow path ---- */

/*
 * Take the slab freelist of this cpu's own slab (objects freed by other
 * cpus).  If there is none the slab is full: unfreeze it, it is dropped.
 */
static void *cpu_slab_refill(struct kmem_cache *cache, struct slab *slab)
{
	struct slab_pair old, new;

	do {
		slab_pair_read(slab, &old);
		new.freelist = NULL;
		new.cnt = old.cnt;
		new.cnt.inuse = old.cnt.objects;
		new.cnt.frozen = !!old.freelist;
	} while (!slab_pair_commit(cache, slab, &old, &new));
	return old.freelist;
}

/*
 * Take the first suitable slab of a node list for the cpu slab, and a few
 * more for the cpu partial list.  Returns the object chain of the first.
 */
static void *node_partial_take(struct kmem_cache *cache, struct kmem_cache_node *kn,
			       struct kmem_cache_cpu *pcpu, gfp_t gfp,
			       struct slab **taken)
{
	struct slab *slab, *tmp;
	void *chain = NULL;

	if (!kn || !READ_ONCE(kn->nr_partial))
		return NULL;

	spin_lock(&kn->list_lock);
	list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list) {
		if (!pfmemalloc_ok(slab, gfp))
			continue;
		if (!chain) {
			chain = slab_freeze(cache, slab, true);
			node_del_partial(kn, slab);
			*taken = slab;
			stat(cache, ALLOC_FROM_PARTIAL);
			if (!cpu_partial_enabled(cache))
				break;
			continue;
		}
		if (cpu_partial_count(pcpu) >= cpu_partial_limit(cache) / 2)
			break;
		slab_freeze(cache, slab, false);
		node_del_partial(kn, slab);
		cpu_partial_push_locked(pcpu, slab);
		stat(cache, CPU_PARTIAL_NODE);
	}
	spin_unlock(&kn->list_lock);
	return chain;
}

#ifdef CONFIG_NUMA
/*
 * The node whose zonelist orders the search of other nodes' partial
 * slabs: the one the task's mempolicy names, without taking a step of
 * an interleave.  mempolicy_slab_node() takes the next node of the
 * task's interleave, and the slab allocation after a fruitless search
 * the one after it: with two nodes, every new slab would come from the
 * same node until the search was skipped (remote_node_defrag_ratio), in
 * runs of dozens of slabs, as upstream SLUB's get_any_partial() has
 * them.  The search of an interleaving task starts from the cpu's node.
 */
static int any_partial_search_node(void)
{
	if (in_task() && current->mempolicy &&
	    slub_mpol_interleaves(current->mempolicy))
		return numa_mem_id();
	return mempolicy_slab_node();
}
#endif /* CONFIG_NUMA */

/*
 * Partial slabs of other nodes, for allocations without a node: nearest
 * first, in the order of the zonelist of the node the task's mempolicy
 * names (any_partial_search_node()), and only nodes its cpuset allows.
 */
static void *any_partial_take(struct kmem_cache *cache, struct kmem_cache_cpu *pcpu,
			      gfp_t gfp, struct slab **taken)
{
#ifdef CONFIG_NUMA
	enum zone_type highest = gfp_zone(gfp);
	struct kmem_cache_node *kn;
	struct zonelist *zonelist;
	struct zoneref *z;
	struct zone *zone;
	unsigned int cookie;
	int node, prev;
	void *chain;

	/*
	 * The ratio (0..1000) throttles how often we look elsewhere; sysfs
	 * may change it meanwhile.
	 */
	if (get_cycles() % 1024 >= READ_ONCE(cache->remote_node_defrag_ratio))
		return NULL;
	do {
		cookie = read_mems_allowed_begin();
		zonelist = node_zonelist(any_partial_search_node(), gfp);
		prev = NUMA_NO_NODE;
		for_each_zone_zonelist(zone, z, zonelist, highest) {
			node = zone_to_nid(zone);
			/* A node's zones come together: one look per node. */
			if (node == prev)
				continue;
			prev = node;
			kn = get_node(cache, node);
			if (!kn || node == numa_mem_id() ||
			    !cpuset_zone_allowed(zone, gfp) ||
			    READ_ONCE(kn->nr_partial) <= READ_ONCE(cache->min_partial))
				continue;
			chain = node_partial_take(cache, kn, pcpu, gfp, taken);
			if (chain)
				return chain;
		}
	} while (read_mems_allowed_retry(cookie));
#endif /* CONFIG_NUMA */
	return NULL;
}

/*
 * Make @slab (frozen, owned by the caller, whose objects are @chain) the
 * cpu slab and return its first object.  A freshly allocated pfmemalloc
 * slab is not kept: it serves this one request only.  (One taken from a
 * node list for a pfmemalloc-allowed request may reach the cpu partial
 * list and later serve any request, as upstream.)  May drop and retake
 * pcpu->lock to unfreeze a slab it does not keep.
 */
static void *cpu_slab_install(struct kmem_cache *cache, struct kmem_cache_cpu *pcpu,
			      struct slab *slab, void *chain, unsigned long *flags)
{
	void *next = obj_next_checked(cache, chain);
	struct slab *old = pcpu->slab;
	void *old_head = pcpu->freelist;

	pcpu->tid = tid_next(pcpu->tid);
	if (unlikely(slab_test_pfmemalloc(slab))) {
		slab_unfreeze_unlocked(cache, slab, next, flags);
		return chain;
	}
	pcpu->slab = slab;
	pcpu->freelist = next;
	/* Another task installed a slab while we allocated one: retire it. */
	if (old)
		slab_unfreeze_unlocked(cache, old, old_head, flags);
	return chain;
}

/*
 * Get one object for this cpu.  Entered and left with pcpu->lock held (irqs
 * off); drops it around the page allocation and around unfreezing a slab
 * it retires, after which the task may run on another cpu.  The cpu
 * freelist is consistent and the tid bumped at every unlock.
 */
static void *alloc_refill_locked(struct kmem_cache *cache, gfp_t gfp, int node,
				 unsigned long *flags)
{
	struct kmem_cache_cpu *pcpu = this_cpu_ptr(cache->cpu_slab);
	struct slab *slab;
	void *chain;

	lockdep_assert_held(this_cpu_ptr(&cache->cpu_slab->lock));
	stat(cache, ALLOC_SLOWPATH);
	if (node != NUMA_NO_NODE &&
	    (node >= nr_node_ids || !get_node(cache, node)))
		node = NUMA_NO_NODE;
retry:
	slab = pcpu->slab;
	if (slab && unlikely(!node_ok(slab, node) || !pfmemalloc_ok(slab, gfp))) {
		stat(cache, ALLOC_NODE_MISMATCH);
		cpu_slab_deactivate_locked(cache, pcpu, flags);
		pcpu = this_cpu_ptr(cache->cpu_slab);
		goto retry;
	}
	if (slab) {
		/* Maybe an interrupt refilled the cpu freelist. */
		chain = pcpu->freelist;
		if (!chain) {
			chain = cpu_slab_refill(cache, slab);
			stat(cache, ALLOC_REFILL);
		}
		if (chain) {
			pcpu->freelist = obj_next_checked(cache, chain);
			pcpu->tid = tid_next(pcpu->tid);
			return chain;
		}
		/* Full and already unfrozen by cpu_slab_refill(). */
		pcpu->slab = NULL;
		pcpu->tid = tid_next(pcpu->tid);
		stat(cache, DEACTIVATE_BYPASS);
	}

	slab = cpu_partial_pop(pcpu, node, gfp);
	if (slab) {
		stat(cache, CPU_PARTIAL_ALLOC);
		pcpu->slab = slab;
		pcpu->tid = tid_next(pcpu->tid);
		goto retry;
	}

	chain = node_partial_take(cache, get_node(cache, node == NUMA_NO_NODE ?
					      numa_mem_id() : node),
				  pcpu, gfp, &slab);
	if (!chain && node == NUMA_NO_NODE)
		chain = any_partial_take(cache, pcpu, gfp, &slab);
	if (chain)
		return cpu_slab_install(cache, pcpu, slab, chain, flags);

	local_unlock_irqrestore(&cache->cpu_slab->lock, *flags);
	slab = slab_new(cache, gfp, node);
	local_lock_irqsave(&cache->cpu_slab->lock, *flags);
	if (unlikely(!slab))
		return NULL;
	stat(cache, ALLOC_SLAB);

	pcpu = this_cpu_ptr(cache->cpu_slab);
	chain = slab_freeze(cache, slab, true);
	return cpu_slab_install(cache, pcpu, slab, chain, flags);
}

static void slab_oom_report(struct kmem_cache *cache, gfp_t gfp, int node)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	if ((gfp & __GFP_NOWARN) || !__ratelimit(&rs))
		return;
	pr_warn("SLUB: unable to allocate memory on node %d, gfp=%#x(%pGg)\n",
		node, gfp, &gfp);
	pr_warn("  cache: %s, object size: %u, buffer size: %u, order: %u/%u\n",
		cache->name, cache->object_size, cache->size, oo_order(cache->oo),
		oo_order(cache->min));
}

static noinline void *alloc_slowpath(struct kmem_cache *cache, gfp_t gfp,
				     int node, unsigned long addr)
{
	unsigned long flags;
	void *obj;

	if (slub_debug_cache(cache)) {
		obj = slub_debug_alloc(cache, gfp, node, addr);
	} else {
		local_lock_irqsave(&cache->cpu_slab->lock, flags);
		obj = alloc_refill_locked(cache, gfp, node, &flags);
		local_unlock_irqrestore(&cache->cpu_slab->lock, flags);
	}
	if (unlikely(!obj))
		slab_oom_report(cache, gfp, node);
	return obj;
}

/* ---- Allocation fast path ---- */

/*
 * Who called the slab API, for the alloc and free tracks of debug caches.
 * The kmem_cache_* entry points pass 0 and the slow path calls read their
 * return address (the macro expands in the always-inline helpers, so it
 * is the entry point's), which keeps that load off the fastpaths.
 */
#define caller_or_ret_ip(addr)	((addr) ?: _RET_IP_)

/*
 * Pop an object off the cpu freelist: NULL when alloc_slowpath() must
 * serve the allocation (the freelist empty, the cpu slab of another node
 * than @node, a bad free pointer, or locked fastpaths:
 * slub_fastpath_locked()).
 */
static __always_inline void *cpu_alloc_hit(struct kmem_cache *cache, int node)
{
	struct kmem_cache_cpu *pcpu;
	unsigned long tid;
	void *obj, *next;

	/*
	 * slub_fastpath=irqoff, the pre-2011 baseline, and PREEMPT_RT: the
	 * locked refill pops the cpu freelist itself when it can serve the
	 * request.
	 */
	if (slub_fastpath_locked())
		return NULL;
redo:
	/*
	 * pcpu may belong to a cpu we are no longer running on: then its tid
	 * cannot match the tid of the cpu executing the commit, because the
	 * low bits of a tid hold the cpu number.
	 */
	pcpu = raw_cpu_ptr(cache->cpu_slab);
	tid = READ_ONCE(pcpu->tid);
	/* Read tid before the freelist it protects. */
	barrier();
	obj = READ_ONCE(pcpu->freelist);
	if (unlikely(!obj))
		return NULL;
	if (node != NUMA_NO_NODE && unlikely(!node_ok(READ_ONCE(pcpu->slab), node)))
		return NULL;

	next = obj_next_speculative(cache, obj);
	/* A bad pointer is examined and reported under the lock. */
	if (unlikely(!fp_plausible(cache, obj, next)))
		return NULL;
	if (unlikely(!slub_cpu_pair_cmpxchg(cache, obj, tid, next,
					    tid_next(tid)))) {
		stat(cache, CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	prefetchw((char *)next + cache->offset);
	stat(cache, ALLOC_FASTPATH);
	return obj;
}

static __always_inline void *cpu_alloc_fast(struct kmem_cache *cache, gfp_t gfp,
					    int node, unsigned long addr)
{
	void *obj = cpu_alloc_hit(cache, node);

	if (likely(obj))
		return obj;
	return alloc_slowpath(cache, gfp, node, caller_or_ret_ip(addr));
}

/* init_on_free wiped the object but the free pointer was written later. */
static __always_inline void obj_wipe_freeptr(struct kmem_cache *cache, void *obj)
{
	if (unlikely(slab_want_init_on_free(cache)) && obj)
		memset((void *)fp_slot(cache, obj), 0, sizeof(void *));
}

/*
 * slab_pre_alloc_hook() of @n objects, as a yes or no.  should_failslab()
 * can only say no with failslab or function error injection (a BPF or
 * kprobe override of it) built in: without both, the call is left out,
 * five instructions of every allocation (call, xor, ret, test, jump).
 */
static __always_inline bool obj_pre_alloc_hook(struct kmem_cache *cache,
					       struct list_lru *lru,
					       struct slub_hook_ctx *ctx,
					       size_t n, gfp_t gfp)
{
	gfp &= gfp_allowed_mask;
	might_alloc(gfp);
	if ((IS_ENABLED(CONFIG_FAILSLAB) ||
	     IS_ENABLED(CONFIG_FUNCTION_ERROR_INJECTION)) &&
	    should_failslab(cache, gfp))
		return false;
	return slub_pre_alloc_hook(cache, lru, ctx, n, gfp);
}

static noinline void *obj_alloc_abort(struct kmem_cache *cache, void *obj);

/* slub_post_alloc_hook() of one object, with init known apart. */
static __always_inline void *obj_post_alloc(struct kmem_cache *cache,
					    struct slub_hook_ctx ctx,
					    gfp_t gfp, void *obj)
{
	/*
	 * The hook with init false apart: it then tests neither init nor
	 * the object, and an allocation that asks for no zeroing pays one
	 * test of @gfp, not four tests and two instructions forming the
	 * flag (gcc 12, bench.config).  On a base whose hook cannot fail
	 * (6.1) the abort is compiled out.
	 */
	if (likely(!slab_want_init_on_alloc(gfp, cache))) {
		if (unlikely(!slub_post_alloc_hook(cache, ctx, gfp, 1, &obj,
						   false)))
			return obj_alloc_abort(cache, obj);
		return obj;
	}
	if (unlikely(!slub_post_alloc_hook(cache, ctx, gfp, 1, &obj, true)))
		return obj_alloc_abort(cache, obj);
	return obj;
}

/*
 * One allocation that the fastpath could not serve: the array's slow
 * path if the array was @empty, else the freelist path, slow path
 * included; then the post-alloc hook.  Out of line, so that the
 * allocation fastpath makes no call after which it still needs its
 * arguments, and gcc saves no register on entry for them: r12 and r13
 * are no longer pushed and popped by kmem_cache_alloc(); rbx still is,
 * for the inlined freelist path's cmpxchg16b (bench.config, gcc 12).
 */
static noinline void *slab_alloc_miss(struct kmem_cache *cache, gfp_t gfp,
				      int node, unsigned long addr,
				      struct slub_hook_ctx ctx, bool empty)
{
	void *obj;

	if (empty) {
		obj = array_alloc_slowpath(cache, gfp, node, addr);
	} else {
		obj = cpu_alloc_fast(cache, gfp, node, addr);
		obj_wipe_freeptr(cache, obj);
	}
	return obj_post_alloc(cache, ctx, gfp, obj);
}

static __always_inline void *slab_alloc_node(struct kmem_cache *cache,
					     struct list_lru *lru, gfp_t gfp,
					     int node, size_t orig_size,
					     unsigned long addr)
{
	struct slub_hook_ctx ctx = { };
	bool empty;
	void *obj;

	if (unlikely(!obj_pre_alloc_hook(cache, lru, &ctx, 1, gfp)))
		return NULL;
	obj = kfence_alloc(cache, orig_size, gfp);
	if (unlikely(obj)) {
		/* KFENCE zeroed it, over orig_size only: no init here. */
		if (unlikely(!slub_post_alloc_hook(cache, ctx, gfp, 1, &obj,
						   false)))
			return obj_alloc_abort(cache, obj);
		return obj;
	}
	/* Array objects have no free pointer: it was never written. */
	if (static_branch_likely(&slub_arrays)) {
		if (unlikely(!array_pop(cache, node, &obj, &empty)))
			return slab_alloc_miss(cache, gfp, node,
					       caller_or_ret_ip(addr), ctx,
					       empty);
	} else {
		obj = cpu_alloc_hit(cache, node);
		if (unlikely(!obj))
			return slab_alloc_miss(cache, gfp, node,
					       caller_or_ret_ip(addr), ctx,
					       false);
		obj_wipe_freeptr(cache, obj);
	}
	return obj_post_alloc(cache, ctx, gfp, obj);
}

/* ---- Free paths ---- */

/*
 * Push a chain of @cnt objects of one slab onto the slab freelist and
 * move the slab between lists as its new state requires.
 */
static noinline void slab_free_chain(struct kmem_cache *cache,
				     struct slab *slab, void *head, void *tail,
				     int cnt, unsigned long addr)
{
	struct kmem_cache_node *kn = NULL;
	struct slab_pair old, new;
	unsigned long flags = 0;
	bool was_full;

	if (slub_debug_cache(cache)) {
		slub_debug_free(cache, slab, head, tail, cnt, addr);
		return;
	}

	do {
		if (unlikely(kn)) {
			spin_unlock_irqrestore(&kn->list_lock, flags);
			kn = NULL;
		}
		slab_pair_read(slab, &old);
		if (fp_double_free(cache, head, &tail, &cnt, old.freelist))
			return;
		obj_set_next(cache, tail, old.freelist);
		new.freelist = head;
		new.cnt = old.cnt;
		new.cnt.inuse -= cnt;
		was_full = !old.freelist;
		if (!old.cnt.frozen && (was_full || !new.cnt.inuse)) {
			if (was_full && cpu_partial_enabled(cache)) {
				new.cnt.frozen = 1;
			} else {
				kn = get_node(cache, slab_nid(slab));
				spin_lock_irqsave(&kn->list_lock, flags);
			}
		}
	} while (!slab_pair_commit(cache, slab, &old, &new));

	if (likely(!kn)) {
		if (new.cnt.frozen && !old.cnt.frozen) {
			cpu_partial_park(cache, slab);
			stat(cache, CPU_PARTIAL_FREE);
		} else if (old.cnt.frozen) {
			stat(cache, FREE_FROZEN);
		}
		return;
	}

	if (!new.cnt.inuse && kn->nr_partial >= READ_ONCE(cache->min_partial)) {
		if (!was_full) {
			node_del_partial(kn, slab);
			stat(cache, FREE_REMOVE_PARTIAL);
		}
		spin_unlock_irqrestore(&kn->list_lock, flags);
		slab_discard(cache, slab);
		return;
	}
	if (was_full) {
		node_add_partial(kn, slab, true);
		stat(cache, FREE_ADD_PARTIAL);
	}
	spin_unlock_irqrestore(&kn->list_lock, flags);
}

/*
 * A free that missed the cpu slab.  A KFENCE object goes to KFENCE
 * before anything else, by a tail call on kernels built without frame
 * pointers: KFENCE names the culprit of a bad free by the first frame
 * past its own, past kfree() and kmem_cache_free() and past
 * __slab_free() (mm/kfence/report.c, get_stack_skipnr()).  Our entry
 * points reach this function by tail calls too, so this frame must not
 * be left on the stack: slab_free_chain() keeps a realigned frame for
 * its pair, from which gcc makes no tail call.
 */
static noinline void free_slowpath(struct kmem_cache *cache, struct slab *slab,
				   void *head, void *tail, int cnt,
				   unsigned long addr)
{
	stat(cache, FREE_SLOWPATH);
	if (is_kfence_address(head)) {
		__kfence_free(head);
		return;
	}
	slab_free_chain(cache, slab, head, tail, cnt, addr);
}

/*
 * slub_fastpath=irqoff and PREEMPT_RT: push onto the cpu freelist under
 * the cpu's lock (interrupts off, except on PREEMPT_RT).
 */
static noinline void cpu_free_irqoff(struct kmem_cache *cache,
				     struct slab *slab, void *head,
				     void *tail, int cnt, unsigned long addr)
{
	struct kmem_cache_cpu *pcpu;
	unsigned long flags;

	local_lock_irqsave(&cache->cpu_slab->lock, flags);
	pcpu = this_cpu_ptr(cache->cpu_slab);
	if (slab != pcpu->slab) {
		local_unlock_irqrestore(&cache->cpu_slab->lock, flags);
		free_slowpath(cache, slab, head, tail, cnt, addr);
		return;
	}
	if (!fp_double_free(cache, head, &tail, &cnt, pcpu->freelist)) {
		obj_set_next(cache, tail, pcpu->freelist);
		pcpu->freelist = head;
		pcpu->tid = tid_next(pcpu->tid);
		stat(cache, FREE_FASTPATH);
	}
	local_unlock_irqrestore(&cache->cpu_slab->lock, flags);
}

/*
 * The free fastpath found the last object of its chain heading the cpu
 * freelist, a double free: report it and free the rest, if any, to the
 * slab.  Out of line so that the fastpath keeps its chain in registers.
 */
static noinline void free_double_slowpath(struct kmem_cache *cache,
					  struct slab *slab, void *head,
					  void *tail, int cnt,
					  unsigned long addr)
{
	if (!fp_double_free_drop(cache, head, &tail, &cnt))
		free_slowpath(cache, slab, head, tail, cnt, addr);
}

/* Free a chain head..tail of @cnt objects, all from @slab. */
static __always_inline void do_slab_free(struct kmem_cache *cache,
					 struct slab *slab, void *head,
					 void *tail, int cnt,
					 unsigned long addr)
{
	struct kmem_cache_cpu *pcpu;
	unsigned long tid;
	void **freelist;

	if (slub_fastpath_locked()) {
		cpu_free_irqoff(cache, slab, head, tail, cnt,
				caller_or_ret_ip(addr));
		return;
	}
redo:
	pcpu = raw_cpu_ptr(cache->cpu_slab);
	tid = READ_ONCE(pcpu->tid);
	/* Read tid before the slab and freelist it protects. */
	barrier();
	if (unlikely(slab != READ_ONCE(pcpu->slab))) {
		free_slowpath(cache, slab, head, tail, cnt,
			      caller_or_ret_ip(addr));
		return;
	}
	freelist = READ_ONCE(pcpu->freelist);
	if (fp_double_free_suspect(tail, freelist)) {
		free_double_slowpath(cache, slab, head, tail, cnt,
				     caller_or_ret_ip(addr));
		return;
	}
	obj_set_next(cache, tail, freelist);
	if (unlikely(!slub_cpu_pair_cmpxchg(cache, freelist, tid, head,
					    tid_next(tid)))) {
		stat(cache, CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	stat(cache, FREE_FASTPATH);
}

/*
 * The last hooks of a free: the wipe of init_on_free, then KASAN's, which
 * leaves an object that RCU readers may still read (@still_accessible)
 * unpoisoned.  Returns true when KASAN took the object into quarantine:
 * it must not be freed now.
 */
static __always_inline bool obj_free_final(struct kmem_cache *cache, void *x,
					   bool init, bool still_accessible)
{
	if (unlikely(init)) {
		/* Object and metadata, but not a left red zone. */
		if (!kasan_has_integrated_init())
			memset(kasan_reset_tag(x), 0, cache->object_size);
		memset((char *)kasan_reset_tag(x) + cache->inuse, 0,
		       cache->size - cache->inuse - cache->red_left_pad);
	}
	return slub_kasan_free(cache, x, init, still_accessible);
}

#ifdef CONFIG_SLUB_RCU_DEBUG
/*
 * SLUB_RCU_DEBUG (6.12, with KASAN): an object of a SLAB_TYPESAFE_BY_RCU
 * cache may be read until a grace period has passed, so its free waits
 * for one before KASAN poisons it and the slab takes it back.  A read
 * after that is then the use after free it is.
 */
struct obj_rcu_free {
	struct rcu_head head;
	void *obj;
};

static void obj_free_after_rcu(struct rcu_head *head)
{
	struct obj_rcu_free *d = container_of(head, struct obj_rcu_free, head);
	void *x = d->obj;
	struct slab *slab = virt_to_slab(x);
	struct kmem_cache *cache;

	kfree(d);
	if (WARN_ON_ONCE(!slab))
		return;
	cache = slab->slab_cache;
	if (obj_free_final(cache, x, slab_want_init_on_free(cache), false))
		return;
	do_slab_free(cache, slab, x, x, 1, _THIS_IP_);
}

/*
 * Take @x of an RCU cache for a free after a grace period; false (the
 * free goes on now, KASAN leaving the object unpoisoned) when there is no
 * memory for that.  KFENCE delays its own objects' frees.
 */
static bool obj_free_defer_rcu(struct kmem_cache *cache, void *x)
{
	struct obj_rcu_free *d;

	if (!(cache->flags & SLAB_TYPESAFE_BY_RCU) || is_kfence_address(x))
		return false;
	d = kmalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return false;
	/* KASAN's reports of the object name this free, as kfree_rcu's. */
	slub_kasan_note_deferred_free(x);
	d->obj = x;
	call_rcu(&d->head, obj_free_after_rcu);
	return true;
}
#else
static inline bool obj_free_defer_rcu(struct kmem_cache *cache, void *x)
{
	return false;
}
#endif /* CONFIG_SLUB_RCU_DEBUG */

/*
 * Hooks run on every freed object.  Returns true when the object must
 * not be freed now: KASAN found the free invalid, took the object into
 * quarantine, or SLUB_RCU_DEBUG delays it.  KFENCE objects are never
 * wiped here: KFENCE checks their canaries itself.
 */
static __always_inline bool obj_free_hooks(struct kmem_cache *cache, void *x,
					   bool init)
{
	kmemleak_free_recursive(x, cache->flags);
	kmsan_slab_free(cache, x);
	debug_check_no_locks_freed(x, cache->object_size);
	if (!(cache->flags & SLAB_DEBUG_OBJECTS))
		debug_check_no_obj_freed(x, cache->object_size);
	/*
	 * For KCSAN the free writes the whole object: an access racing
	 * with it is a use after free.  Not where readers may still look
	 * (SLAB_TYPESAFE_BY_RCU).
	 */
	if (!(cache->flags & SLAB_TYPESAFE_BY_RCU))
		__kcsan_check_access(x, cache->object_size,
				     KCSAN_ACCESS_WRITE | KCSAN_ACCESS_ASSERT);
	/* A free KASAN finds invalid (double, or mid-object) is not done. */
	if (slub_kasan_pre_free(cache, x))
		return true;
	if (unlikely(cache->flags & SLAB_TYPESAFE_BY_RCU) &&
	    obj_free_defer_rcu(cache, x))
		return true;
	return obj_free_final(cache, x, init,
			      cache->flags & SLAB_TYPESAFE_BY_RCU);
}

static __always_inline bool want_wipe(struct kmem_cache *cache, void *x)
{
	return slab_want_init_on_free(cache) && !is_kfence_address(x);
}

/*
 * The freelist path of one object, out of line for the array front end,
 * and the free of an object that init_on_free wipes: the free of one
 * object then makes no call after which it still needs its arguments,
 * so gcc keeps them in scratch registers: three pushes and three pops
 * fewer in every kmem_cache_free(), bench.config (rbx is still saved,
 * for the inlined freelist path's cmpxchg16b).
 */
static noinline void cpu_free_one(struct kmem_cache *cache, struct slab *slab,
				  void *x, unsigned long addr)
{
	do_slab_free(cache, slab, x, x, 1, addr);
}

static __always_inline void slab_free_hooked(struct kmem_cache *cache,
					     struct slab *slab, void *x,
					     unsigned long addr, bool init)
{
	slub_free_account(cache, slab, &x, 1);
	if (unlikely(obj_free_hooks(cache, x, init)))
		return;
	if (static_branch_likely(&slub_arrays)) {
		if (!array_free_fast(cache, slab, x))
			cpu_free_one(cache, slab, x, caller_or_ret_ip(addr));
		return;
	}
	do_slab_free(cache, slab, x, x, 1, addr);
}

static noinline void slab_free_wiped(struct kmem_cache *cache,
				     struct slab *slab, void *x,
				     unsigned long addr)
{
	slab_free_hooked(cache, slab, x, addr, true);
}

static __always_inline void slab_free_one(struct kmem_cache *cache,
					  struct slab *slab, void *x,
					  unsigned long addr)
{
	if (unlikely(want_wipe(cache, x))) {
		slab_free_wiped(cache, slab, x, caller_or_ret_ip(addr));
		return;
	}
	slab_free_hooked(cache, slab, x, addr, false);
}

/*
 * The post-alloc hook refused @obj (a memcg charge failed, mm/slub_base.h):
 * it goes back as kmem_cache_free() would give it (its hooks ran), and
 * the allocation fails.
 */
static noinline void *obj_alloc_abort(struct kmem_cache *cache, void *obj)
{
	slab_free_one(cache, virt_to_slab(obj), obj, _RET_IP_);
	return NULL;
}

/*
 * Whether kmem_cache_free() must look at @cache: with hardening or
 * consistency checks, an object that is not @cache's goes through
 * cache_from_obj(), for its report.  The slab is looked up once.
 */
static __always_inline bool cache_free_suspect(struct kmem_cache *cache,
					       struct slab *slab)
{
	return (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ||
		kmem_cache_debug_flags(cache, SLAB_CONSISTENCY_CHECKS)) &&
	       unlikely(!slab || slab->slab_cache != cache);
}

/*
 * kmem_cache_free() of an object of another cache, or with its
 * tracepoint on.  Out of line, so that the common free makes no call
 * after which it needs its arguments, and saves no register for them on
 * entry (with slab_free_wiped() and cpu_free_one(), three pushes and three
 * pops of every free on bench.config, gcc 12).
 */
static noinline void cache_free_slowpath(struct kmem_cache *cache,
					 struct slab *slab, void *x,
					 unsigned long addr)
{
	if (cache_free_suspect(cache, slab)) {
		cache = cache_from_obj(cache, x);
		if (!cache)
			return;
	}
	trace_kmem_cache_free(addr, x, cache);
	slab_free_one(cache, slab, x, addr);
}

void kmem_cache_free(struct kmem_cache *cache, void *x)
{
	struct slab *slab = virt_to_slab(x);

	if (cache_free_suspect(cache, slab) || trace_kmem_cache_free_enabled()) {
		cache_free_slowpath(cache, slab, x, _RET_IP_);
		return;
	}
	slab_free_one(cache, slab, x, 0);
}
EXPORT_SYMBOL(kmem_cache_free);

#ifdef CONFIG_KASAN_GENERIC
/* Final free of an object leaving the KASAN quarantine: no hooks. */
void ___cache_free(struct kmem_cache *cache, void *x, unsigned long addr)
{
	do_slab_free(cache, virt_to_slab(x), x, x, 1, addr);
}
#endif /* CONFIG_KASAN_GENERIC */

/* ---- Bulk operations ---- */

/* Objects of one slab, chained for a single commit. */
struct bulk_group {
	struct kmem_cache *cache;
	struct slab *slab;
	void *head;
	void *tail;
	int cnt;
	bool hooks;	/* run the free hooks: not yet run for these objects */
};

/* Scan a few entries past a foreign object before closing a group. */
#define BULK_LOOKAHEAD	3

static __always_inline void bulk_group_add(struct bulk_group *g, void *obj)
{
	if (g->hooks) {
		slub_free_account(g->cache, g->slab, &obj, 1);
		if (obj_free_hooks(g->cache, obj, want_wipe(g->cache, obj)))
			return;
	}
	obj_set_next(g->cache, obj, g->head);
	g->head = obj;
	if (!g->tail)
		g->tail = obj;
	g->cnt++;
}

/*
 * Starting from the end of p[0..size), collect the last object and the
 * other objects of its slab into @g, clearing their entries.  Objects
 * that need no slab commit (large kmalloc, KFENCE) are freed directly.
 * Without @hooks the objects are known to be @cache's, none of them
 * KFENCE's, and their free hooks have run (array objects).
 * Returns the number of entries still to look at.
 */
static __always_inline size_t bulk_group_build(struct kmem_cache *cache,
					       size_t size, void **p,
					       struct bulk_group *g, bool hooks)
{
	unsigned int misses = 0;
	struct folio *folio;
	void *obj;
	size_t i;

	memset(g, 0, sizeof(*g));
	g->hooks = hooks;
	do {
		obj = p[--size];
	} while (!obj && size);
	if (!obj)
		return 0;
	p[size] = NULL;

	folio = virt_to_folio(obj);
	if (!hooks) {
		g->cache = cache;
	} else if (!cache) {
		if (unlikely(!folio_test_slab(folio))) {
			free_large_kmalloc(folio, obj);
			return size;
		}
		g->cache = folio_slab(folio)->slab_cache;
	} else {
		g->cache = cache_from_obj(cache, obj);
		if (!g->cache)
			return size;
	}
	if (hooks && is_kfence_address(obj)) {
		slub_free_account(g->cache, folio_slab(folio), &obj, 1);
		if (!obj_free_hooks(g->cache, obj, false))
			__kfence_free(obj);
		return size;
	}
	g->slab = folio_slab(folio);
	bulk_group_add(g, obj);

	for (i = size; i-- > 0 && misses < BULK_LOOKAHEAD;) {
		obj = p[i];
		if (!obj)
			continue;
		if (virt_to_slab(obj) != g->slab) {
			misses++;
			continue;
		}
		p[i] = NULL;
		bulk_group_add(g, obj);
		misses = 0;
	}
	return size;
}

/* Objects gathered for one push onto an array. */
#define BULK_ARRAY_BATCH	32

static void bulk_push(struct kmem_cache *cache, void **objs, size_t n,
		      int node)
{
	size_t done = array_free_bulk(cache, n, objs, node);

	if (done < n)
		slub_objects_return(cache, objs + done, n - done);
}

/*
 * kmem_cache_free_bulk() for a cache with arrays: run the free hooks of
 * the objects the arrays accept and push them in batches.  The others
 * move to the front of @p, their hooks not run; returns how many.  The
 * objects are picked for the node this task runs on at the start; the
 * push gives them to their slabs if it has moved to another node since.
 */
static size_t bulk_free_to_arrays(struct kmem_cache *cache, size_t size,
				  void **p)
{
	void *batch[BULK_ARRAY_BATCH];
	size_t i, kept = 0, n = 0;
	int node = numa_mem_id();
	struct slab *slab = NULL;
	unsigned long last = 0;
	bool ok = false;
	void *x;

	for (i = 0; i < size; i++) {
		x = p[i];
		if (!x)
			continue;
		/*
		 * An object of the page the last one was on has its slab and
		 * its verdict: a bulk free of objects allocated together
		 * looks up a slab per page, not per object (a KFENCE object
		 * has its page to itself).
		 */
		if (((unsigned long)x ^ last) >> PAGE_SHIFT) {
			last = (unsigned long)x;
			slab = virt_to_slab(x);
			/* Not @cache's: the slab path reports or frees it. */
			ok = likely(slab && slab->slab_cache == cache) &&
			     array_accepts_node(slab, x, node);
		}
		if (!ok) {
			p[kept++] = x;
			continue;
		}
		slub_free_account(cache, slab, &x, 1);
		if (obj_free_hooks(cache, x, want_wipe(cache, x)))
			continue;
		batch[n++] = x;
		if (n == BULK_ARRAY_BATCH) {
			bulk_push(cache, batch, n, node);
			n = 0;
		}
	}
	if (n)
		bulk_push(cache, batch, n, node);
	return kept;
}

/**
 * kmem_cache_free_bulk - free several objects
 * @cache: the cache, or NULL when the objects come from kmalloc (kfree_bulk)
 * @size: number of entries in @p
 * @p: the objects; NULL entries are skipped, the array is clobbered
 *
 * Objects of the same slab are chained and committed together.
 */
void kmem_cache_free_bulk(struct kmem_cache *cache, size_t size, void **p)
{
	struct bulk_group g;

	/* One object of a known cache: kmem_cache_free(), untraced. */
	if (size == 1 && cache && p[0]) {
		struct slab *slab = virt_to_slab(p[0]);

		if (cache_free_suspect(cache, slab)) {
			cache = cache_from_obj(cache, p[0]);
			if (!cache)
				return;
		}
		slab_free_one(cache, slab, p[0], _RET_IP_);
		return;
	}
	if (static_branch_unlikely(&slub_arrays) && cache && cache->array_size)
		size = bulk_free_to_arrays(cache, size, p);
	while (size) {
		size = bulk_group_build(cache, size, p, &g, true);
		if (g.cnt)
			do_slab_free(g.cache, g.slab, g.head, g.tail, g.cnt,
				     _RET_IP_);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/**
 * slub_objects_return - give objects whose free hooks have run to their slabs
 * @cache: their cache
 * @p: the objects, none of them KFENCE's; the entries are cleared
 * @n: how many
 *
 * Objects of one slab are committed together, as kmem_cache_free_bulk().
 */
void slub_objects_return(struct kmem_cache *cache, void **p, size_t n)
{
	struct bulk_group g;

	while (n) {
		n = bulk_group_build(cache, n, p, &g, false);
		if (g.cnt)
			do_slab_free(cache, g.slab, g.head, g.tail, g.cnt, 0);
	}
}

/**
 * slub_free_freelist - free one object through the freelist front end
 * @cache: its cache
 * @obj: the object, its free hooks already run
 */
void slub_free_freelist(struct kmem_cache *cache, void *obj)
{
	do_slab_free(cache, virt_to_slab(obj), obj, obj, 1, 0);
}

/*
 * Bulk allocation from the cpu freelist; returns the objects taken.
 * KFENCE may stand in for some of them, unless they are for an array.
 * The cpu and its freelist head stay in registers for the whole batch:
 * with the lock held nothing else touches them, until a refill, which
 * may drop the lock and move the task, publishes the head and reloads.
 */
static size_t bulk_alloc_cpu(struct kmem_cache *cache, gfp_t flags,
			     size_t size, void **p, bool kfence)
{
	struct kmem_cache_cpu *pcpu;
	unsigned long irqflags;
	void *obj, *freelist;
	size_t i;

	local_lock_irqsave(&cache->cpu_slab->lock, irqflags);
	pcpu = this_cpu_ptr(cache->cpu_slab);
	freelist = pcpu->freelist;
	for (i = 0; i < size; i++) {
		obj = kfence ? kfence_alloc(cache, cache->object_size, flags) :
			NULL;
		if (unlikely(obj)) {
			p[i] = obj;
			continue;
		}
		if (likely(freelist)) {
			obj = freelist;
			freelist = obj_next_checked(cache, obj);
		} else {
			/* The refill may unlock: publish our pops first. */
			pcpu->freelist = NULL;
			pcpu->tid = tid_next(pcpu->tid);
			obj = alloc_refill_locked(cache, flags, NUMA_NO_NODE,
						  &irqflags);
			pcpu = this_cpu_ptr(cache->cpu_slab);
			freelist = pcpu->freelist;
			if (unlikely(!obj))
				break;
		}
		obj_wipe_freeptr(cache, obj);
		p[i] = obj;
	}
	pcpu->freelist = freelist;
	pcpu->tid = tid_next(pcpu->tid);
	local_unlock_irqrestore(&cache->cpu_slab->lock, irqflags);
	return i;
}

/**
 * slub_objects_take - take objects from the slabs for an array
 * @cache: the cache
 * @gfp: allocation flags
 * @n: how many are wanted
 * @p: where to store them
 *
 * Whole slab freelists at a time, through this cpu's slab.  No hooks run
 * and no KFENCE object is among them.
 *
 * Return: how many were taken, possibly fewer than @n, 0 without memory.
 */
size_t slub_objects_take(struct kmem_cache *cache, gfp_t gfp, size_t n,
			 void **p)
{
	return bulk_alloc_cpu(cache, gfp, n, p, false);
}

/**
 * slub_alloc_freelist - allocate one object through the freelist front end
 * @cache: the cache
 * @gfp: allocation flags
 * @node: the memory node wanted, or NUMA_NO_NODE
 * @addr: caller, for the tracks of debug caches
 *
 * Return: the object, or NULL.
 */
void *slub_alloc_freelist(struct kmem_cache *cache, gfp_t gfp, int node,
			  unsigned long addr)
{
	void *obj = cpu_alloc_fast(cache, gfp, node, addr);

	obj_wipe_freeptr(cache, obj);
	return obj;
}

/*
 * Debug caches: one checked object at a time, its free pointer wiped as
 * on the single object path.
 */
static size_t bulk_alloc_debug(struct kmem_cache *cache, gfp_t flags,
			       size_t size, void **p, unsigned long addr)
{
	size_t i;

	for (i = 0; i < size; i++) {
		p[i] = kfence_alloc(cache, cache->object_size, flags);
		if (p[i])
			continue;
		p[i] = slub_debug_alloc(cache, flags, NUMA_NO_NODE, addr);
		if (unlikely(!p[i]))
			break;
		obj_wipe_freeptr(cache, p[i]);
	}
	return i;
}

/*
 * kmem_cache_alloc_bulk() of each base (mm/slub_entry.c).  Inlined
 * there, so _RET_IP_ is that of its caller.
 */
static __always_inline int slub_alloc_bulk(struct kmem_cache *cache,
					   gfp_t flags, size_t size, void **p)
{
	struct slub_hook_ctx ctx = { };
	size_t done;

	if (!size)
		return 0;
	/*
	 * One object: the single object path, untraced.  The bulk
	 * machinery (hooks over the vector, the array's bounds and copy)
	 * costs three times a kmem_cache_alloc() for it.
	 */
	if (size == 1) {
		p[0] = slab_alloc_node(cache, NULL, flags, NUMA_NO_NODE,
				       cache->object_size, _RET_IP_);
		return p[0] ? 1 : 0;
	}
	if (unlikely(!obj_pre_alloc_hook(cache, NULL, &ctx, size, flags)))
		return 0;

	if (slub_debug_cache(cache)) {
		done = bulk_alloc_debug(cache, flags, size, p, _RET_IP_);
	} else {
		done = 0;
		if (static_branch_unlikely(&slub_arrays) && cache->array_size) {
			/*
			 * KFENCE samples bulk allocations too: its object
			 * first if it wants one now, as bulk_alloc_cpu()
			 * asks for each object (one load per call).
			 */
			p[0] = kfence_alloc(cache, cache->object_size, flags);
			done = p[0] ? 1 : 0;
			done += array_alloc_bulk(cache, size - done, p + done);
		}
		if (done < size)
			done += bulk_alloc_cpu(cache, flags, size - done,
					       p + done, true);
	}
	if (likely(done == size)) {
		bool ok;

		/* init known false apart: the hook's loop is then empty. */
		if (likely(!slab_want_init_on_alloc(flags, cache)))
			ok = slub_post_alloc_hook(cache, ctx, flags, size, p,
						  false);
		else
			ok = slub_post_alloc_hook(cache, ctx, flags, size, p,
						  true);
		if (likely(ok))
			return (int)size;
		/* Refused (a memcg charge): all go back, hooks run. */
		kmem_cache_free_bulk(cache, size, p);
		return 0;
	}

	slab_oom_report(cache, flags, NUMA_NO_NODE);
	/*
	 * The post hook sees the NULL slots: 6.1's memcg uncharges one for
	 * each (it charged @size objects before).  Then the objects taken
	 * go back with their hooks, as a failed post hook's do.
	 */
	memset(p + done, 0, (size - done) * sizeof(*p));
	slub_post_alloc_hook(cache, ctx, flags, size, p, false);
	kmem_cache_free_bulk(cache, done, p);
	return 0;
}

/* The entry points, in the form of the base (mm/slub_base.h). */
#include "slub_entry.c"

#ifdef CONFIG_SLUB_ENGINE_KUNIT_TEST
/* The KUnit suite reaches the static internals from inside this file. */
#include "slub_engine_test.c"
#endif /* CONFIG_SLUB_ENGINE_KUNIT_TEST */
