// SPDX-License-Identifier: GPL-2.0
/*
 * The array front end of the SLUB-style engine.
 *
 * With slub_frontend=array a cache keeps, per cpu, two arrays of free
 * objects (the loaded one and a spare, as Bonwick's magazines) in front
 * of its slabs, and per node a depot of full and empty arrays.  The
 * fastpaths (mm/slub_array.h) push and pop with preemption off and no
 * atomic operation; refills take objects from the slabs a whole cpu
 * freelist at a time, flushes give them back grouped by slab.  THEORY 2
 * and THEORY 6 in mm/slub.c say which state belongs to whom.
 *
 * Boot parameters:
 *   slub_frontend=array|freelist      the front end of every cache,
 *                                     arrays by default
 *   slub_frontend=array:<list>        the front end of the named caches,
 *   slub_frontend=freelist:<list>     as slab_nomerge=<list>: comma
 *                                     separated, a trailing '*' matches a
 *                                     prefix
 *   slub_array_size=<n>               objects per array, 4..1024, instead
 *                                     of the default by object size
 *                                     and memory per cpu
 * Debug caches never have arrays.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cpuset.h>
#include <linux/init.h>
#include <linux/kmemleak.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "slab.h"
#include "slub_internal.h"
#include "slub_array.h"

DEFINE_STATIC_KEY_TRUE(slub_arrays);

/*
 * Arrays per node depot: each list holds at most this many.  Not scaled
 * down with the cpus of a node: on one cpu the depot is that cpu's
 * reserve, and 2 or 4 cost fork+exec up to 1% (make bench, icount).
 */
#define DEPOT_MAX		8
/* Idle arrays and depots are emptied after this long. */
#define ARRAY_REAP_INTERVAL	(2 * HZ)

#define ARRAY_SIZE_MIN		4
#define ARRAY_SIZE_MAX		1024
/* The first refill of an idle cpu takes this many objects. */
#define ARRAY_BATCH_MIN		8
/*
 * The objects of one array by default, in bytes: at most ARRAY_BYTES_MAX,
 * and at most 1/2^ARRAY_BYTES_SHIFT of the memory per cpu (THEORY 6).
 */
#define ARRAY_BYTES_MAX		SZ_8K
#define ARRAY_BYTES_SHIFT	14

/* ---- Boot parameters ---- */

#define FRONTEND_MAX_NAMES	16

struct frontend_name {
	const char *name;	/* into the command line, not terminated */
	unsigned int len;
	bool prefix;
	bool array;		/* the front end this name asks for */
};

static struct frontend_name frontend_names[FRONTEND_MAX_NAMES] __initdata;
static unsigned int nr_frontend_names __initdata;
static bool frontend_array_default __initdata = true;
static unsigned int array_size_param __initdata;
/* Caches created from now on get arrays as they ask. */
static bool arrays_ready __read_mostly;
/* The choices, kept past boot for caches created later. */
static bool frontend_array_global __ro_after_init;
static struct frontend_name *frontend_list __ro_after_init;
static unsigned int frontend_list_len __ro_after_init;
static unsigned int array_size_fixed __ro_after_init;
/* The machine's share, set once at boot: array_budget(). */
static unsigned int array_bytes __ro_after_init = ARRAY_BYTES_MAX;

#define FRONTEND_FORMS	"slub_frontend=freelist, slub_frontend=array, or slub_frontend=<freelist|array>:<cache>[,<cache>...] with an optional trailing '*'"

/* Take "a,b*,c" for @array, all of it or, when malformed, none. */
static bool __init frontend_list_add(const char *list, bool array)
{
	unsigned int n = nr_frontend_names;
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		struct frontend_name *f;

		if (!len || n == FRONTEND_MAX_NAMES ||
		    memchr(p, '*', len - 1) || (len == 1 && *p == '*'))
			return false;
		f = &frontend_names[n++];
		f->prefix = p[len - 1] == '*';
		f->name = p;
		f->len = len - f->prefix;
		f->array = array;
		if (!p[len])
			break;
		p += len + 1;
	}
	nr_frontend_names = n;
	return true;
}

static int __init param_frontend(char *arg)
{
	const char *list = strchr(arg, ':');
	size_t len = list ? list - arg : strlen(arg);
	bool array;

	if (len == 5 && !strncmp(arg, "array", 5))
		array = true;
	else if (len == 8 && !strncmp(arg, "freelist", 8))
		array = false;
	else
		goto bad;
	if (!list) {
		frontend_array_default = array;
		return 1;
	}
	if (frontend_list_add(list + 1, array))
		return 1;
bad:
	pr_warn("slub_frontend=%s: unknown value ignored; use %s (at most %d names)\n",
		arg, FRONTEND_FORMS, FRONTEND_MAX_NAMES);
	return 1;
}
__setup("slub_frontend=", param_frontend);

static int __init param_array_size(char *arg)
{
	unsigned int n;

	if (kstrtouint(arg, 0, &n) || n < ARRAY_SIZE_MIN || n > ARRAY_SIZE_MAX) {
		pr_warn("slub_array_size=%s: unknown value ignored; use a number of objects from %d to %d\n",
			arg, ARRAY_SIZE_MIN, ARRAY_SIZE_MAX);
		return 1;
	}
	array_size_param = n;
	return 1;
}
__setup("slub_array_size=", param_array_size);

/* The front end the boot parameters give @name; the last match wins. */
static bool frontend_wants_array(const char *name)
{
	bool array = frontend_array_global;
	unsigned int i;

	for (i = 0; name && i < frontend_list_len; i++) {
		const struct frontend_name *f = &frontend_list[i];

		if (f->prefix ? !strncmp(name, f->name, f->len) :
		    strlen(name) == f->len && !strncmp(name, f->name, f->len))
			array = f->array;
	}
	return array;
}

/**
 * slub_frontend_banner - the front end chosen at boot, for the banner
 *
 * Return: "array", "freelist", or "... with a list" when some caches
 * are named.
 */
const char * __init slub_frontend_banner(void)
{
	if (!nr_frontend_names)
		return frontend_array_default ? "array" : "freelist";
	return frontend_array_default ? "array with a list" :
		"freelist with a list";
}

/*
 * array_slots_for - objects per array for objects of @size
 * @size: the cache's slot size
 * @bytes: the objects of one array may take this many bytes
 *
 * As many as fit in @bytes, rounded down to a count whose array fills a
 * kmalloc size exactly (1 KiB, 512, 256, 128 or 64 bytes with its
 * header: 125, 61, 29, 13 or 5 objects), but never fewer than
 * ARRAY_SIZE_MIN: objects of a page and more get 4, as sheaves do.
 */
static unsigned int array_slots_for(unsigned int size, unsigned int bytes)
{
	unsigned int want = bytes / max(size, 1U);
	unsigned int alloc, slots;

	for (alloc = SZ_1K; alloc >= 64; alloc /= 2) {
		slots = (alloc - sizeof(struct slub_array)) / sizeof(void *);
		if (slots <= want)
			return slots;
	}
	return ARRAY_SIZE_MIN;
}

/* Objects per array: the parameter, or the machine's share by size. */
static unsigned int array_size_for(const struct kmem_cache *cache)
{
	if (array_size_fixed)
		return array_size_fixed;
	return array_slots_for(cache->size, array_bytes);
}

/*
 * array_budget - the machine's share: bytes of objects per array
 * @pages: the machine's memory, in pages
 * @cpus: its cpus
 *
 * A cache's two arrays per cpu then hold at most 2 * bytes per cpu,
 * 2 / 2^ARRAY_BYTES_SHIFT of the memory, wherever the ARRAY_BYTES_MAX
 * cap does not bind first (and objects of more than bytes / 4 aside: an
 * array holds at least 4); its depots add DEPOT_MAX arrays per node.
 *
 * Return: the bytes of objects an array may hold by default.
 */
static unsigned int array_budget(unsigned long pages, unsigned int cpus)
{
	unsigned long share = (pages << PAGE_SHIFT) / max(cpus, 1U);

	return clamp_t(unsigned long, share >> ARRAY_BYTES_SHIFT,
		       sizeof(void *), ARRAY_BYTES_MAX);
}

/* ---- Arrays and depots ---- */

/*
 * A free path that needs an empty array makes one with these flags: no
 * reclaim, no kswapd, no reserves, as kfree() must not allocate memory
 * it cannot do without (kswapd's shrinkers free objects).
 */
#define ARRAY_NEW_ON_FREE	(__GFP_NOWARN | __GFP_NOMEMALLOC)

/*
 * Slots past an array's count keep the objects they held, which are
 * allocated again or back in their slabs: kmemleak scans only the depot
 * links of an array, so that a leaked object is not kept referenced by
 * a stale slot (SLAB's arrays are not scanned at all; ours are linked
 * from one another in a depot).  Without the scan area kmemleak scans
 * the whole array: leaks may go unseen, but none is reported falsely.
 */
static struct slub_array *array_new(unsigned int size, int node, gfp_t gfp)
{
	struct slub_array *a = kmalloc_node(struct_size(a, objs, size), gfp, node);

	if (a) {
		a->count = 0;
		a->size = size;
		INIT_LIST_HEAD(&a->list);
		kmemleak_scan_area(&a->list, sizeof(a->list), gfp);
	}
	return a;
}

/*
 * The loaded array of a cpu that has not used the cache yet, and of one
 * whose first use is making its arrays (array_make()).  Their size is 0,
 * so that both fastpaths find them empty and full at once and take the
 * slow paths; those tell the two apart.  Neither is ever freed or put in
 * a depot.
 */
static struct slub_array array_unmade = {
	.list = LIST_HEAD_INIT(array_unmade.list),
};

static struct slub_array array_making = {
	.list = LIST_HEAD_INIT(array_making.list),
};

/* Is @a a made array, not a placeholder? */
static inline bool array_made(const struct slub_array *a)
{
	return a->size != 0;
}

/*
 * Free an array that a cpu held: array_cpu_has_objects() on another cpu
 * may still be reading it, under rcu_read_lock().
 */
static void array_free(struct slub_array *a)
{
	if (a && array_made(a))
		kfree_rcu(a, rcu);
}

/**
 * array_depot_init - set up the depot of a node structure
 * @d: the depot
 */
void array_depot_init(struct slub_depot *d)
{
	spin_lock_init(&d->lock);
	d->nr_full = 0;
	d->nr_empty = 0;
	d->touched = false;
	d->next_reap = jiffies;
	INIT_LIST_HEAD(&d->full);
	INIT_LIST_HEAD(&d->empty);
}

/*
 * THEORY 5, executed with CONFIG_DEBUG_VM: an array holds 0..size objects
 * (its size that of its cache, or of the cache before a resize until its
 * cpu retires it); a depot holds at most DEPOT_MAX arrays of each kind,
 * full ones exactly full and empty ones empty, all of the cache's size.
 */
static inline void array_assert(const struct slub_array *a)
{
	VM_WARN_ON_ONCE(a->count > a->size);
}

static inline void depot_assert_locked(const struct slub_depot *d)
{
	lockdep_assert_held(&d->lock);
	VM_WARN_ON_ONCE(d->nr_full > DEPOT_MAX || d->nr_empty > DEPOT_MAX);
}

static struct slub_depot *local_depot(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn = get_node(cache, numa_mem_id());

	return kn ? &kn->depot : NULL;
}

/*
 * The cache's array size, read under the depot's lock: a resize sets the
 * size before it drains the depots, so that once the drain has taken a
 * depot's lock no array of the old size enters it.
 */
static inline bool depot_size_ok(const struct kmem_cache *cache,
				 const struct slub_depot *d,
				 const struct slub_array *a)
{
	lockdep_assert_held(&d->lock);
	return a->size == READ_ONCE(cache->array_size);
}

/*
 * Exchange the empty array @a for a full one of @cache's depot @d.  @a
 * stays in the depot if there is room, else it is handed back in *@drop
 * for the caller to free once it holds nothing.  NULL if the depot has
 * no full array.  Only arrays of the cache's size go in and come out:
 * arrays that a resize made stale wait in the depot for its drain.
 */
static struct slub_array *depot_get_full(struct kmem_cache *cache,
					 struct slub_depot *d,
					 struct slub_array *a,
					 struct slub_array **drop)
{
	struct slub_array *full = NULL;
	unsigned long flags;

	if (!d || !READ_ONCE(d->nr_full))
		return NULL;
	spin_lock_irqsave(&d->lock, flags);
	depot_assert_locked(d);
	VM_WARN_ON_ONCE(a->count);
	if (d->nr_full && depot_size_ok(cache, d, a)) {
		full = list_first_entry(&d->full, struct slub_array, list);
		VM_WARN_ON_ONCE(full->count != full->size);
		if (full->size != a->size) {
			full = NULL;
			goto out;
		}
		list_del_init(&full->list);
		d->nr_full--;
		if (d->nr_empty < DEPOT_MAX) {
			list_add(&a->list, &d->empty);
			d->nr_empty++;
		} else {
			*drop = a;
		}
		d->touched = true;
	}
out:
	spin_unlock_irqrestore(&d->lock, flags);
	return full;
}

/*
 * Exchange the full array @a for an empty one: the depot's, or *@fresh
 * (which is then used up).  NULL when the depot has no room for @a or no
 * empty array to give.  Arrays of the cache's size only, as
 * depot_get_full().
 */
static struct slub_array *depot_put_full(struct kmem_cache *cache,
					 struct slub_depot *d,
					 struct slub_array *a,
					 struct slub_array **fresh)
{
	struct slub_array *empty = NULL;
	unsigned long flags;

	if (!d || READ_ONCE(d->nr_full) >= DEPOT_MAX)
		return NULL;
	spin_lock_irqsave(&d->lock, flags);
	depot_assert_locked(d);
	VM_WARN_ON_ONCE(a->count != a->size);
	if (d->nr_full < DEPOT_MAX && depot_size_ok(cache, d, a)) {
		if (d->nr_empty) {
			empty = list_first_entry(&d->empty, struct slub_array, list);
			VM_WARN_ON_ONCE(empty->count);
			if (empty->size == a->size) {
				list_del_init(&empty->list);
				d->nr_empty--;
			} else {
				empty = NULL;
			}
		}
		if (!empty && *fresh && (*fresh)->size == a->size) {
			empty = *fresh;
			*fresh = NULL;
		}
		if (empty) {
			list_add(&a->list, &d->full);
			d->nr_full++;
			d->touched = true;
		}
	}
	spin_unlock_irqrestore(&d->lock, flags);
	return empty;
}

/*
 * Keep an empty array that was made for an exchange nobody needed in the
 * end: freeing it could overflow the array of the cache it came from,
 * whose free path would then make another one.  False if no room.
 */
static bool depot_put_empty(struct kmem_cache *cache, struct slub_depot *d,
			    struct slub_array *a)
{
	unsigned long flags;
	bool done = false;

	if (!d)
		return false;
	spin_lock_irqsave(&d->lock, flags);
	depot_assert_locked(d);
	VM_WARN_ON_ONCE(a->count);
	if (d->nr_empty < DEPOT_MAX && depot_size_ok(cache, d, a)) {
		list_add(&a->list, &d->empty);
		d->nr_empty++;
		done = true;
	}
	spin_unlock_irqrestore(&d->lock, flags);
	return done;
}

/* Could the depot take a full array if it had an empty one to give? */
static bool depot_wants_full(struct slub_depot *d)
{
	return d && READ_ONCE(d->nr_full) < DEPOT_MAX && !READ_ONCE(d->nr_empty);
}

/* Give the objects of @a back to their slabs. */
static void array_empty(struct kmem_cache *cache, struct slub_array *a)
{
	if (a && a->count) {
		slub_objects_return(cache, a->objs, a->count);
		a->count = 0;
		stat(cache, ARRAY_FLUSH);
	}
}

/* Empty the depot @d: its objects go back to the slabs, its arrays away. */
static void depot_drain(struct kmem_cache *cache, struct slub_depot *d)
{
	struct slub_array *a, *tmp;
	unsigned long flags;
	LIST_HEAD(arrays);

	spin_lock_irqsave(&d->lock, flags);
	depot_assert_locked(d);
	list_splice_init(&d->full, &arrays);
	list_splice_init(&d->empty, &arrays);
	d->nr_full = 0;
	d->nr_empty = 0;
	spin_unlock_irqrestore(&d->lock, flags);
	list_for_each_entry_safe(a, tmp, &arrays, list) {
		array_empty(cache, a);
		array_free(a);
	}
}

/* Give the oldest half of a full array back to the slabs. */
static void array_flush_half(struct kmem_cache *cache, struct slub_array *a)
{
	unsigned int n = max(a->count / 2, 1U);

	slub_objects_return(cache, a->objs, n);
	a->count -= n;
	memmove(a->objs, a->objs + n, a->count * sizeof(void *));
	stat(cache, ARRAY_FLUSH);
}

/* ---- Slow paths ---- */

/* The loaded array @a is empty: the spare or a full one of the depot. */
static struct slub_array *array_reload(struct kmem_cache *cache,
				       struct kmem_cache_cpu *pcpu,
				       struct slub_array *a,
				       struct slub_array **drop)
{
	struct slub_array *s = pcpu->spare, *full;

	if (s && s->count) {
		pcpu->spare = a;
		return s;
	}
	full = depot_get_full(cache, local_depot(cache), a, drop);
	if (!full)
		return a;
	stat(cache, ARRAY_DEPOT_GET);
	return full;
}

/*
 * Objects the next refill of a cpu takes: few for a cpu that was idle,
 * so that rarely used caches cache little, doubling with every refill up
 * to half an array; the reaper starts an idle cpu over.
 */
static unsigned int array_refill_batch(struct kmem_cache_cpu *pcpu,
				       unsigned int size)
{
	/* The reaper resets it from another cpu. */
	unsigned int batch = clamp_t(unsigned int, READ_ONCE(pcpu->array_batch),
				     min(ARRAY_BATCH_MIN, size / 2), size / 2);

	WRITE_ONCE(pcpu->array_batch, min(batch * 2, size / 2));
	return max(batch, 1U);
}

/*
 * Keep the objects of this cpu's node at the front of @objs and give the
 * others back to their slabs: a refill goes through the cpu slab, which
 * the refill itself may have to take from another node, the local one
 * out of memory, or as another node's partial slab when the local node
 * has none (any_partial_take()).  No refill starts from a remote cpu
 * slab or for a task whose policy leaves this node out:
 * array_refill_local().  Returns how many were kept.
 */
static size_t array_keep_local(struct kmem_cache *cache, void **objs,
			       size_t n)
{
	int node = numa_mem_id();
	size_t i, kept = 0;

	if (!IS_ENABLED(CONFIG_NUMA) || nr_online_nodes < 2)
		return n;
	for (i = 0; i < n; i++) {
		if (slab_nid(virt_to_slab(objs[i])) != node)
			continue;
		swap(objs[kept], objs[i]);
		kept++;
	}
	if (kept < n)
		slub_objects_return(cache, objs + kept, n - kept);
	return kept;
}

#ifdef CONFIG_NUMA
/*
 * Whether the pages of a task with mempolicy @pol (NULL: none) and
 * cpuset nodes @allowed may come from @node alone: the page allocator
 * takes the slabs of the freelist path from the policy's nodes and only
 * from the cpuset's.  Not for an interleaving policy, even one that
 * names @node: its new slabs alternate between nodes, and a refill
 * would keep the local ones and give the others back, so that the task
 * got nearly all its objects from one node.  The freelist path serves
 * each slab whole, as SLUB's cpu slab does.
 */
static bool array_policy_allows(const struct mempolicy *pol,
				const nodemask_t *allowed, int node)
{
	if (!node_isset(node, *allowed))
		return false;
	if (!pol || pol->mode == MPOL_LOCAL)
		return true;
	return !slub_mpol_interleaves(pol) && node_isset(node, pol->nodes);
}

/*
 * Whether a refill of @pcpu's arrays for this request can bring objects
 * of this cpu's node, the only ones an array keeps.  Not when the
 * refill would find the cpu slab on another node (left by a task whose
 * policy placed it there, or by the local node running out of memory):
 * it takes from that slab first.  Not when the task's mempolicy or
 * cpuset leaves the node out: the slabs would all come from elsewhere.
 * Either way array_keep_local() would give the whole batch back, on
 * every slow path.  The request takes the freelist path instead, as on
 * SLUB: the cpu slab serves it until it is used up, and a task's own
 * slabs come from where its policy says.  Interrupts and __GFP_THISNODE
 * requests follow no task's policy.  The caller holds the arrays, so
 * the task stays on its cpu.
 */
static bool array_refill_local(struct kmem_cache_cpu *pcpu, gfp_t gfp)
{
	struct slab *slab;
	int node;

	if (nr_online_nodes < 2)
		return true;
	node = numa_mem_id();
	/* The cpu's lock is not held: an interrupt may change it. */
	slab = READ_ONCE(pcpu->slab);
	if (slab && slab_nid(slab) != node)
		return false;
	if (in_interrupt() || (gfp & __GFP_THISNODE))
		return true;
	return array_policy_allows(current->mempolicy,
				   &cpuset_current_mems_allowed, node);
}
#else
static inline bool array_refill_local(struct kmem_cache_cpu *pcpu, gfp_t gfp)
{
	return true;
}
#endif /* CONFIG_NUMA */

/*
 * The flags of a refill: no reserves go into an array, and a
 * __GFP_NOFAIL request does not loop for a batch.  Without them the
 * page allocator would keep an OOM victim or a PF_MEMALLOC task looping
 * above the reserves it is allowed.  No direct reclaim either: the task
 * is pinned to its cpu during the refill.  When the refill fails, the
 * request takes the freelist path with its own flags instead, unpinned.
 */
static inline gfp_t array_refill_gfp(gfp_t gfp)
{
	return (gfp & ~(__GFP_NOFAIL | __GFP_DIRECT_RECLAIM)) | __GFP_NOMEMALLOC |
		__GFP_NOWARN;
}

/*
 * The flags for making a cpu's arrays on behalf of a request with @gfp:
 * its I/O and kswapd bits but no direct reclaim (the task is pinned to
 * its cpu meanwhile: a cpu without memory for its arrays tries again on
 * a later slow path), nothing that places or accounts the memory
 * (__GFP_DMA, __GFP_ACCOUNT and the like belong to the object, not to
 * the array), no reserves and no __GFP_NOFAIL.
 */
static inline gfp_t array_make_gfp(gfp_t gfp)
{
	return (gfp & (__GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS)) |
		__GFP_NOMEMALLOC | __GFP_NOWARN;
}

/*
 * THEORY 6: a resize changed the cache's array size after this cpu made
 * its arrays, @a the loaded one, which the caller holds.
 */
static inline bool array_stale(const struct kmem_cache *cache,
			       const struct slub_array *a)
{
	return a->size != READ_ONCE(cache->array_size);
}

/*
 * Retire this cpu's stale arrays: their objects go back to the slabs,
 * the arrays are freed and the cpu goes back to array_unmade, so that
 * its next slow path makes arrays of the new size.  A refill under way
 * holds the spare meanwhile, and frees it when it finds the loaded
 * array of another size (array_refill()).  The caller holds the arrays,
 * @a loaded; they are let go of (array_unhold()).
 */
static void array_retire(struct kmem_cache *cache,
			 struct kmem_cache_cpu *pcpu, struct slub_array *a)
{
	struct slub_array *s = pcpu->spare;

	WRITE_ONCE(pcpu->spare, NULL);
	array_empty(cache, a);
	array_empty(cache, s);
	/* One store: another cpu's array_cpu_objects() may read it. */
	__this_cpu_write(cache->cpu_slab->array, &array_unmade);
	array_release_unused(cache->cpu_slab);
	array_unhold();
	array_free(a);
	array_free(s);
}

/*
 * The two arrays of a cpu's first use of @cache, of its array size, on
 * this cpu's node: the loaded one, and the spare in *@sp.  NULL, and
 * nothing made, without memory for both.
 */
static struct slub_array *array_new_pair(struct kmem_cache *cache, gfp_t gfp,
					 struct slub_array **sp)
{
	unsigned int size = READ_ONCE(cache->array_size);
	int node = numa_mem_id();
	struct slub_array *a = array_new(size, node, gfp);

	*sp = a ? array_new(size, node, gfp) : NULL;
	if (!*sp) {
		kfree(a);
		return NULL;
	}
	return a;
}

/*
 * Make this cpu's two arrays of @cache, which its first use replaced by
 * array_making (array_first_use()).  Meanwhile the cpu takes the
 * freelist path for the cache, including the allocation of the arrays
 * when they come from the cache itself.  Arrays made before a resize
 * set a new size are not installed.  True if the cpu has arrays after.
 */
static bool array_make(struct kmem_cache *cache, gfp_t gfp)
{
	struct slub_array *a, *s, *cur;
	struct kmem_cache_cpu *pcpu;

	a = array_new_pair(cache, gfp, &s);
	cur = array_hold(cache, &pcpu);
	/* Only the task or interrupt that made the placeholder got here. */
	if (WARN_ON_ONCE(!cur))
		goto out;
	if (cur != &array_making) {
		array_release_unused(cache->cpu_slab);
		array_unhold();
		goto out;
	}
	if (!a || a->size != READ_ONCE(cache->array_size)) {
		/* No memory, or a resize in between: try again next time. */
		array_put(cache, &array_unmade);
		array_unhold();
		goto out;
	}
	WRITE_ONCE(pcpu->spare, s);
	array_put(cache, a);
	array_unhold();
	return true;
out:
	/* Never installed: nobody else can have seen them. */
	kfree(a);
	kfree(s);
	return cur && cur != &array_making;
}

/*
 * array_make() on PREEMPT_RT: the caller keeps holding the arrays while
 * it makes them, array_unmade loaded.  There a task that preempted it
 * could hold them when it came back to install them; while it holds
 * them, every other taker on this cpu, an allocation of the arrays from
 * the cache itself included, finds them held and takes the freelist
 * path, as array_making makes it elsewhere.  Lets go of the arrays.
 */
static bool array_make_held(struct kmem_cache *cache, gfp_t gfp)
{
	struct kmem_cache_cpu *pcpu = this_cpu_ptr(cache->cpu_slab);
	struct slub_array *a, *s;

	a = array_new_pair(cache, gfp, &s);
	if (!a || a->size != READ_ONCE(cache->array_size)) {
		array_release_unused(cache->cpu_slab);
		array_unhold();
		kfree(a);
		kfree(s);
		return false;
	}
	WRITE_ONCE(pcpu->spare, s);
	array_put(cache, a);
	array_unhold();
	return true;
}

/*
 * The loaded array @a of this cpu, which the caller holds, is a
 * placeholder.  array_unmade: the cpu's first use, which makes the
 * arrays with @gfp if @make (a caller that made them once and finds a
 * placeholder again does not loop).  array_making: another task or the
 * interrupted one is making them.  Returns with the arrays let go of
 * (array_unhold() done); true if the caller may take them again and
 * find them made.
 */
static bool array_first_use(struct kmem_cache *cache, struct slub_array *a,
			    gfp_t gfp, bool make)
{
	bool made;

	if (!make || a != &array_unmade) {
		array_release_unused(cache->cpu_slab);
		array_unhold();
		return false;
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return array_make_held(cache, gfp);
	array_put(cache, &array_making);
	/*
	 * The task stays on this cpu until the arrays are in, whichever
	 * path it came from: one that moved would leave array_making here
	 * for good.  An interrupt cannot move.
	 */
	if (in_task())
		migrate_disable();
	array_unhold();
	made = array_make(cache, gfp);
	if (in_task())
		migrate_enable();
	return made;
}

/*
 * Fill the spare array @s, which the caller took out of its cpu, with
 * @batch objects from the slabs, and load it.  The task stays on its
 * cpu meanwhile, so that @s goes back where it came from; the slab
 * allocation may sleep but does no direct reclaim (array_refill_gfp()).
 * On PREEMPT_RT the caller still holds the arrays, @held loaded: a task
 * that preempted it could hold them when it came back, so it keeps them
 * meanwhile (other takers on this cpu take the freelist path), and lets
 * go of them here.  Elsewhere @held is NULL: only interrupts can run
 * between the caller's release and the take here, and they finish
 * first.  Returns an object, or NULL for the caller to take the freelist
 * path once the task may move again.
 */
static void *array_refill(struct kmem_cache *cache, gfp_t gfp, int node,
			  unsigned long addr, struct slub_array *s,
			  unsigned int batch, struct slub_array *held)
{
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;
	void *obj = NULL;
	size_t n;

	n = slub_objects_take(cache, array_refill_gfp(gfp), batch, s->objs);
	n = array_keep_local(cache, s->objs, n);
	if (n) {
		obj = s->objs[--n];
		s->count = n;
		stat(cache, ARRAY_REFILL);
	}

	if (held) {
		a = held;
		pcpu = this_cpu_ptr(cache->cpu_slab);
		goto install;
	}
	a = array_hold(cache, &pcpu);
	/* Nothing holds it: only interrupts run between here and our take. */
	if (WARN_ON_ONCE(!a)) {
		slub_objects_return(cache, s->objs, s->count);
		array_free(s);
		return obj;
	}
	if (unlikely(pcpu->spare || s->size != a->size)) {
		/* The cpu retired its arrays meanwhile (a resize): @s is old. */
		array_release_this_cpu(cache->cpu_slab);
		array_unhold();
		slub_objects_return(cache, s->objs, s->count);
		array_free(s);
		return obj;
	}
install:
	if (!a->count && s->count) {
		pcpu->spare = a;
		a = s;
	} else {
		pcpu->spare = s;
	}
	array_put(cache, a);
	array_unhold();
	return obj;
}

/*
 * array_alloc_slowpath() with the task kept on its cpu: an object, or
 * NULL where the request takes the freelist path.
 */
static void *array_alloc_pinned(struct kmem_cache *cache, gfp_t gfp, int node,
				unsigned long addr)
{
	struct slub_array *a, *s = NULL, *drop = NULL;
	struct kmem_cache_cpu *pcpu;
	unsigned int batch = 0;
	bool first = false;
	void *obj = NULL;

again:
	a = array_hold(cache, &pcpu);
	if (!a) {
		stat(cache, ARRAY_BUSY);
		return NULL;
	}
	if (unlikely(!array_made(a))) {
		if (array_first_use(cache, a, array_make_gfp(gfp), !first)) {
			first = true;
			goto again;
		}
		return NULL;
	}
	if (unlikely(array_stale(cache, a))) {
		array_retire(cache, pcpu, a);
		goto again;
	}
	if (!a->count)
		a = array_reload(cache, pcpu, a, &drop);
	array_assert(a);
	if (a->count) {
		obj = a->objs[--a->count];
		stat(cache, ARRAY_ALLOC);
	} else if (array_refill_local(pcpu, gfp)) {
		/* NULL while another refill of this cpu is under way. */
		s = pcpu->spare;
		pcpu->spare = NULL;
		if (s)
			batch = array_refill_batch(pcpu, s->size);
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && s) {
		obj = array_refill(cache, gfp, node, addr, s, batch, a);
		array_free(drop);
		return obj;
	}
	array_put(cache, a);
	array_unhold();
	array_free(drop);
	if (obj)
		return obj;
	if (s)
		return array_refill(cache, gfp, node, addr, s, batch, NULL);
	return NULL;
}

/**
 * array_alloc_slowpath - allocate when this cpu's loaded array is empty
 * @cache: the cache
 * @gfp: allocation flags
 * @node: NUMA_NO_NODE or this cpu's memory node, for the fallback
 * @addr: caller, for debug tracks of the fallback
 *
 * Loads the spare or a full array of the depot, else refills from the
 * slabs.  Falls back to the freelist path where no array can serve.
 * A task is kept on its cpu while it holds what it took out of the cpu
 * (it may sleep in the refill), so that the spare goes back to the same
 * cpu; never while it reclaims: the refill and the making of arrays do
 * no direct reclaim, and the freelist path runs after the task may move
 * again, so that a cpu going offline never waits on a task in reclaim.
 *
 * Return: an object or NULL.
 */
void *array_alloc_slowpath(struct kmem_cache *cache, gfp_t gfp, int node,
			   unsigned long addr)
{
	bool pinned = in_task();
	void *obj;

	if (pinned)
		migrate_disable();
	obj = array_alloc_pinned(cache, gfp, node, addr);
	if (pinned)
		migrate_enable();
	/* With the caller's own flags, reclaim included: not pinned. */
	return obj ?: slub_alloc_freelist(cache, gfp, node, addr);
}

/* The loaded array @a is full: the spare, or an empty one of the depot. */
static struct slub_array *array_unload(struct kmem_cache *cache,
				       struct kmem_cache_cpu *pcpu,
				       struct slub_array *a,
				       struct slub_array **fresh)
{
	struct slub_array *s = pcpu->spare, *empty;

	if (s && !s->count) {
		pcpu->spare = a;
		return s;
	}
	empty = depot_put_full(cache, local_depot(cache), a, fresh);
	if (!empty)
		return a;
	stat(cache, ARRAY_DEPOT_PUT);
	return empty;
}

/**
 * array_free_slowpath - free when this cpu's loaded array is full
 * @cache: the cache
 * @obj: the object, its free hooks already run
 *
 * Loads the spare or an empty array (the depot's, or a new one if the
 * depot has room for a full one), else gives half the array back to the
 * slabs.
 */
void array_free_slowpath(struct kmem_cache *cache, void *obj)
{
	struct slub_array *a, *fresh = NULL;
	bool tried = false, first = false;
	struct kmem_cache_cpu *pcpu;

	for (;;) {
		a = array_hold(cache, &pcpu);
		if (!a) {
			stat(cache, ARRAY_BUSY);
			slub_free_freelist(cache, obj);
			break;
		}
		if (unlikely(!array_made(a))) {
			if (array_first_use(cache, a, ARRAY_NEW_ON_FREE, !first)) {
				first = true;
				continue;
			}
			slub_free_freelist(cache, obj);
			break;
		}
		if (unlikely(array_stale(cache, a))) {
			array_retire(cache, pcpu, a);
			continue;
		}
		if (a->count == a->size)
			a = array_unload(cache, pcpu, a, &fresh);
		if (a->count == a->size && !tried &&
		    depot_wants_full(local_depot(cache))) {
			/* Outside the array: kmalloc may come back here. */
			array_put(cache, a);
			array_unhold();
			fresh = array_new(READ_ONCE(cache->array_size),
					  numa_mem_id(), ARRAY_NEW_ON_FREE);
			tried = true;
			continue;
		}
		if (a->count == a->size)
			array_flush_half(cache, a);
		array_assert(a);
		a->objs[a->count++] = obj;
		array_put(cache, a);
		array_unhold();
		stat(cache, ARRAY_FREE);
		break;
	}
	if (fresh && !depot_put_empty(cache, local_depot(cache), fresh))
		kfree(fresh);
}

/* A hardened kernel found @obj on top of the array it is freed to. */
void array_double_free(struct kmem_cache *cache, void *obj)
{
	pr_err("SLUB %s: double free of object %p, ignored\n", cache->name, obj);
	WARN_ON_ONCE(1);
}

/**
 * array_alloc_bulk - take objects from this cpu's arrays
 * @cache: the cache
 * @size: objects wanted
 * @p: where to store them
 *
 * Empties the loaded array, then the spare and full arrays of the depot,
 * a whole array at a time.
 *
 * Return: how many were taken; 0 if the cache has no array here.
 */
size_t array_alloc_bulk(struct kmem_cache *cache, size_t size, void **p)
{
	struct slub_array *a, *drop = NULL;
	struct kmem_cache_cpu *pcpu;
	size_t done = 0, n;

	a = array_hold(cache, &pcpu);
	if (!a)
		return 0;
	/* A placeholder is empty, and no depot takes an array of its size. */
	while (done < size) {
		/* One array to free at most: stop reloading after that. */
		if (!a->count && !drop)
			a = array_reload(cache, pcpu, a, &drop);
		if (!a->count)
			break;
		n = min_t(size_t, size - done, a->count);
		a->count -= n;
		memcpy(p + done, a->objs + a->count, n * sizeof(void *));
		done += n;
	}
	array_put(cache, a);
	array_unhold();
	array_free(drop);
	return done;
}

/**
 * array_free_bulk - give objects to this cpu's arrays
 * @cache: the cache
 * @size: number of objects in @p
 * @p: the objects, their free hooks already run, all of them accepted by
 *     array_accepts_node() for @node
 * @node: the node the objects were picked for
 *
 * Fills the loaded array, then the spare, then exchanges full arrays for
 * empty ones of the depot (new ones while it has room), and gives half
 * an array back to the slabs only when all that is full.
 *
 * Return: how many were taken, from the start of @p; 0 if the cache has
 * no array here, or this cpu is not on @node.
 */
size_t array_free_bulk(struct kmem_cache *cache, size_t size, void **p,
		       int node)
{
	struct slub_array *a, *fresh = NULL;
	struct kmem_cache_cpu *pcpu;
	size_t done = 0, n;
	bool first = false;

again:
	a = array_hold(cache, &pcpu);
	if (!a)
		return 0;
	if (unlikely(node != numa_mem_id())) {
		array_release_unused(cache->cpu_slab);
		array_unhold();
		return 0;
	}
	if (unlikely(!array_made(a))) {
		if (array_first_use(cache, a, ARRAY_NEW_ON_FREE, !first)) {
			first = true;
			goto again;
		}
		return 0;
	}
	if (unlikely(array_stale(cache, a))) {
		array_retire(cache, pcpu, a);
		goto again;
	}
	while (done < size) {
		if (a->count == a->size)
			a = array_unload(cache, pcpu, a, &fresh);
		/* A cache whose arrays come from itself takes the freelist. */
		if (a->count == a->size && !fresh &&
		    depot_wants_full(local_depot(cache))) {
			fresh = array_new(READ_ONCE(cache->array_size),
					  numa_mem_id(), ARRAY_NEW_ON_FREE);
			if (fresh)
				continue;
		}
		if (a->count == a->size)
			array_flush_half(cache, a);
		n = min_t(size_t, size - done, a->size - a->count);
		memcpy(a->objs + a->count, p + done, n * sizeof(void *));
		a->count += n;
		done += n;
	}
	array_put(cache, a);
	array_unhold();
	if (fresh && !depot_put_empty(cache, local_depot(cache), fresh))
		kfree(fresh);
	return done;
}

/* ---- Draining ---- */

/**
 * array_drain_local - give this cpu's array objects back to the slabs
 * @cache: the cache
 *
 * From task context on the cpu (the flush work), where no fastpath can
 * be halfway through.
 */
void array_drain_local(struct kmem_cache *cache)
{
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a;

	if (!cache->array_size)
		return;
	a = array_hold(cache, &pcpu);
	if (!a)
		return;
	array_empty(cache, a);
	array_empty(cache, pcpu->spare);
	/* Emptied: the reaper has nothing to do here until it is used. */
	WRITE_ONCE(pcpu->array_touched, false);
	array_release_unused(cache->cpu_slab);
	array_unhold();
}

/**
 * array_drain_dead - give a dead cpu's array objects back to the slabs
 * @cache: the cache
 * @cpu: the cpu, on which nothing runs any more
 */
void array_drain_dead(struct kmem_cache *cache, unsigned int cpu)
{
	struct kmem_cache_cpu *pcpu = per_cpu_ptr(cache->cpu_slab, cpu);

	array_empty(cache, pcpu->array);
	array_empty(cache, pcpu->spare);
}

/**
 * array_cpu_has_objects - may a cpu hold objects in its arrays?
 * @cache: the cache
 * @cpu: the cpu
 *
 * A racy look from another cpu, for the flush: true while the array is
 * held, as it may be about to get objects.  The cpu may meanwhile hand
 * the arrays read here to its depot, which may free them: arrays a cpu
 * held are freed after an RCU grace period (array_free()), and they are
 * read under rcu_read_lock().
 */
bool array_cpu_has_objects(struct kmem_cache *cache, unsigned int cpu)
{
	struct kmem_cache_cpu *pcpu = per_cpu_ptr(cache->cpu_slab, cpu);

	if (!cache->array_size)
		return false;
	return READ_ONCE(pcpu->array_held) || array_cpu_objects(cache, cpu);
}

/**
 * array_cpu_objects - objects in a cpu's loaded and spare arrays
 * @cache: the cache
 * @cpu: the cpu
 *
 * A racy count from any cpu, under rcu_read_lock() as the arrays may be
 * freed meanwhile (array_free()).
 *
 * Return: the objects the two arrays held when looked at.
 */
unsigned int array_cpu_objects(struct kmem_cache *cache, unsigned int cpu)
{
	struct kmem_cache_cpu *pcpu = per_cpu_ptr(cache->cpu_slab, cpu);
	struct slub_array *a, *s;
	unsigned int n = 0;

	rcu_read_lock();
	a = READ_ONCE(pcpu->array);
	s = READ_ONCE(pcpu->spare);
	if (a)
		n += READ_ONCE(a->count);
	if (s)
		n += READ_ONCE(s->count);
	rcu_read_unlock();
	return n;
}

/**
 * array_depot_objects - objects in the full arrays of a node's depot
 * @cache: the cache
 * @node: the node
 *
 * Return: their number, 0 for a node without a depot.
 */
unsigned long array_depot_objects(struct kmem_cache *cache, int node)
{
	struct kmem_cache_node *kn = get_node(cache, node);
	unsigned long flags, n = 0;
	struct slub_array *a;

	if (!kn || !cache->array_size)
		return 0;
	spin_lock_irqsave(&kn->depot.lock, flags);
	depot_assert_locked(&kn->depot);
	list_for_each_entry(a, &kn->depot.full, list)
		n += a->count;
	spin_unlock_irqrestore(&kn->depot.lock, flags);
	return n;
}

/**
 * array_depot_drain - give the depots' objects back and free their arrays
 * @cache: the cache
 */
void array_depot_drain(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn;
	int node;

	if (!cache->array_size)
		return;
	for_each_kmem_cache_node(cache, node, kn)
		depot_drain(cache, &kn->depot);
}

/* ---- Cache set-up ---- */

/*
 * Take the arrays off every cpu and free them; whatever objects they
 * still hold go back to their slabs.
 */
static void array_cache_free_arrays(struct kmem_cache *cache)
{
	struct kmem_cache_cpu *pcpu;
	struct slub_array *a, *s;
	int cpu;

	for_each_possible_cpu(cpu) {
		pcpu = per_cpu_ptr(cache->cpu_slab, cpu);
		a = pcpu->array;
		s = pcpu->spare;
		WRITE_ONCE(pcpu->array, NULL);
		WRITE_ONCE(pcpu->spare, NULL);
		array_empty(cache, a);
		array_empty(cache, s);
		array_free(a);
		array_free(s);
	}
}

/*
 * Give @cache arrays of @size objects: every cpu's are made on its first
 * use of the cache (array_make()), so that a cache a cpu never uses
 * costs it no memory.  Until then each cpu has array_unmade.
 */
static void array_cache_attach(struct kmem_cache *cache, unsigned int size)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	static struct lock_class_key array_key;
#endif /* CONFIG_DEBUG_LOCK_ALLOC */
	struct kmem_cache_cpu *pcpu;
	int cpu;

	cache->array_size = size;
	for_each_possible_cpu(cpu) {
		pcpu = per_cpu_ptr(cache->cpu_slab, cpu);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
		lockdep_init_map(&pcpu->array_map, "slub_array", &array_key, 0);
#endif /* CONFIG_DEBUG_LOCK_ALLOC */
		WRITE_ONCE(pcpu->spare, NULL);
		WRITE_ONCE(pcpu->array, &array_unmade);
	}
	/* Objects are cached once: in arrays, not also on cpu partials. */
	slub_cache_set_cpu_partial(cache, 0);
}

/* Give @cache its arrays if the boot parameters ask for them. */
static void array_cache_setup(struct kmem_cache *cache)
{
	if (slub_debug_cache(cache) || !frontend_wants_array(cache->name))
		return;
	array_cache_attach(cache, array_size_for(cache));
}

/**
 * array_cache_create - give a new cache its arrays, if it wants them
 * @cache: the cache, with its cpu and node structures
 */
void array_cache_create(struct kmem_cache *cache)
{
	if (READ_ONCE(arrays_ready))
		array_cache_setup(cache);
}

/**
 * array_cache_release - free the arrays of a cache being destroyed
 * @cache: the cache, drained
 */
void array_cache_release(struct kmem_cache *cache)
{
	if (!cache->array_size || !cache->cpu_slab)
		return;
	array_depot_drain(cache);
	array_cache_free_arrays(cache);
	cache->array_size = 0;
}

/**
 * slub_frontend_show - the front end of a cache, for sysfs
 * @cache: the cache
 *
 * Return: "array" or "freelist".
 */
const char *slub_frontend_show(struct kmem_cache *cache)
{
	return cache->array_size ? "array" : "freelist";
}

/* ---- Resizing at run time ---- */

/**
 * array_cache_resize - give the arrays of a cache a new size
 * @cache: the cache
 * @size: objects per array, ARRAY_SIZE_MIN to ARRAY_SIZE_MAX
 *
 * Sets the cache's size and empties its depots; each cpu retires its
 * arrays of the old size itself, at its next slow path or reap
 * (array_retire()), and makes arrays of the new size on its next use
 * (THEORY 6).  Meanwhile a cpu keeps using its old arrays, but no depot
 * takes or gives an array of another size than the cache's.  Waits on no
 * other cpu and allocates nothing: a cpu that never runs its kworker
 * holds up no resize.  Serialised with the reaper and cache destroy by
 * slab_mutex.
 *
 * Return: 0; -EINVAL for a size out of range or a cache without arrays,
 * with a message.
 */
int array_cache_resize(struct kmem_cache *cache, unsigned int size)
{
	int err = 0;

	if (size < ARRAY_SIZE_MIN || size > ARRAY_SIZE_MAX) {
		pr_warn("SLUB %s: array_size %u refused: use %d to %d objects\n",
			cache->name, size, ARRAY_SIZE_MIN, ARRAY_SIZE_MAX);
		return -EINVAL;
	}
	mutex_lock(&slab_mutex);
	if (!cache->array_size) {
		pr_warn("SLUB %s: array_size %u refused: the cache has no arrays (the freelist front end, or a debug cache)\n",
			cache->name, size);
		err = -EINVAL;
	} else if (size != cache->array_size) {
		/* Before the drain: no depot takes an old array after it. */
		WRITE_ONCE(cache->array_size, size);
		array_depot_drain(cache);
	}
	mutex_unlock(&slab_mutex);
	return err;
}

/* ---- Reaping: each cpu for itself ---- */

/*
 * Every online cpu runs its own reap every ARRAY_REAP_INTERVAL, as a
 * deferrable work item bound to it, as SLAB's cache_reap did: it empties
 * its own arrays of each cache it did not use since its last reap, and
 * the depot of its node if no array moved through it for an interval.
 * It takes slab_mutex with a trylock and waits on nobody: a cpu whose
 * kworker does not get to run (a real-time task that never sleeps) keeps
 * its own arrays and holds up no other cpu.
 */
static DEFINE_PER_CPU(struct delayed_work, array_reap_work);
/* The objects a cpu's arrays held after its last reap, all caches. */
static DEFINE_PER_CPU(unsigned long, array_reap_held);
/* Set by the shrinker: the cpu's next reap runs now, under pressure. */
static DEFINE_PER_CPU(bool, array_reap_pressure);
/* Its reap work is set up: from its online callback to its offline one. */
static DEFINE_PER_CPU(bool, array_reap_up);

/*
 * Reap the depot @d of one node: once an interval, by whichever cpu of
 * the node comes first (the cmpxchg of next_reap), and under pressure at
 * once.  Drained if no array moved through it since the last reap.
 */
static void array_reap_depot(struct kmem_cache *cache, struct slub_depot *d,
			     bool pressure)
{
	unsigned long next = READ_ONCE(d->next_reap);

	if (!pressure && time_before(jiffies, next))
		return;
	if (cmpxchg(&d->next_reap, next, jiffies + ARRAY_REAP_INTERVAL) != next)
		return;
	/* Racy: a missed touch only drains a depot an interval early. */
	if (!pressure && data_race(d->touched))
		WRITE_ONCE(d->touched, false);
	else if (READ_ONCE(d->nr_full) || READ_ONCE(d->nr_empty))
		depot_drain(cache, d);
}

/*
 * This cpu's reap of @cache: the arrays go back to the slabs if the cpu
 * did not use them since its last reap; under @pressure also the spare
 * of arrays it did use.  Called on the cpu, by its reap work or a test
 * pinned to it, under slab_mutex.  Returns the objects its arrays still
 * hold.
 */
static unsigned int array_reap_cache(struct kmem_cache *cache, bool pressure)
{
	struct kmem_cache_cpu *pcpu = raw_cpu_ptr(cache->cpu_slab);
	struct kmem_cache_node *kn;
	struct slub_array *a;

	lockdep_assert_held(&slab_mutex);
	/* Arrays a resize made stale go, busy or idle. */
	a = array_hold(cache, &pcpu);
	if (a && array_made(a) && array_stale(cache, a)) {
		array_retire(cache, pcpu, a);
	} else if (a) {
		array_release_unused(cache->cpu_slab);
		array_unhold();
	}
	/* Racy with this cpu's interrupts: a missed touch only reaps early. */
	if (data_race(pcpu->array_touched)) {
		WRITE_ONCE(pcpu->array_touched, false);
		if (pressure) {
			a = array_hold(cache, &pcpu);
			if (a) {
				array_empty(cache, pcpu->spare);
				array_release_unused(cache->cpu_slab);
				array_unhold();
			}
		}
	} else {
		/* Its next refill starts small again. */
		WRITE_ONCE(pcpu->array_batch, 0);
		if (array_cpu_objects(cache, raw_smp_processor_id()))
			array_drain_local(cache);
	}
	kn = get_node(cache, numa_mem_id());
	if (kn)
		array_reap_depot(cache, &kn->depot, pressure);
	return array_cpu_objects(cache, raw_smp_processor_id());
}

static void array_reap_local(struct work_struct *work)
{
	bool pressure = this_cpu_read(array_reap_pressure);
	unsigned long delay = ARRAY_REAP_INTERVAL, held = 0;
	struct kmem_cache *cache;

	if (mutex_trylock(&slab_mutex)) {
		this_cpu_write(array_reap_pressure, false);
		list_for_each_entry(cache, &slab_caches, list)
			if (cache->array_size)
				held += array_reap_cache(cache, pressure);
		mutex_unlock(&slab_mutex);
		this_cpu_write(array_reap_held, held);
	} else if (pressure) {
		/* Someone creates or destroys a cache: soon again. */
		delay = HZ / 10;
	}
	queue_delayed_work_on(raw_smp_processor_id(), system_wq,
			      to_delayed_work(work), round_jiffies_relative(delay));
}

/* CPUHP_AP_ONLINE_DYN: a cpu reaps from when it is up until it goes. */
static int array_reap_online(unsigned int cpu)
{
	struct delayed_work *w = per_cpu_ptr(&array_reap_work, cpu);

	INIT_DEFERRABLE_WORK(w, array_reap_local);
	queue_delayed_work_on(cpu, system_wq, w,
			      round_jiffies_relative(ARRAY_REAP_INTERVAL));
	per_cpu(array_reap_up, cpu) = true;
	return 0;
}

/* Its arrays are emptied at CPUHP_SLUB_DEAD (array_drain_dead()). */
static int array_reap_offline(unsigned int cpu)
{
	per_cpu(array_reap_up, cpu) = false;
	cancel_delayed_work_sync(per_cpu_ptr(&array_reap_work, cpu));
	per_cpu(array_reap_held, cpu) = 0;
	return 0;
}

/* ---- Memory pressure ---- */

/*
 * The shrinker is NUMA aware and works on the node it is asked for: it
 * counts that node's depots and the objects its cpus' arrays held at
 * their last reap, in O(caches + cpus) with no lock but a trylock of
 * slab_mutex; it drains depots up to nr_to_scan, and asks the node's
 * cpus to reap at once, under pressure, without waiting for them (their
 * arrays are theirs to empty).  Upstream SLUB never flushes per-cpu
 * state from reclaim either.
 */
static unsigned long array_shrink_count(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	struct kmem_cache_node *kn;
	struct kmem_cache *cache;
	unsigned long n = 0;
	int cpu;

	if (!mutex_trylock(&slab_mutex))
		return 0;
	list_for_each_entry(cache, &slab_caches, list) {
		kn = cache->array_size ? get_node(cache, sc->nid) : NULL;
		if (kn)
			n += (unsigned long)READ_ONCE(kn->depot.nr_full) *
			     READ_ONCE(cache->array_size);
	}
	mutex_unlock(&slab_mutex);
	for_each_online_cpu(cpu)
		if (cpu_to_mem(cpu) == sc->nid)
			n += READ_ONCE(per_cpu(array_reap_held, cpu));
	return n;
}

/*
 * Take up to @want objects' worth of full arrays, and every empty one,
 * off the depot @d; give their objects back.  Returns the objects.
 */
static unsigned long depot_shrink(struct kmem_cache *cache,
				  struct slub_depot *d, unsigned long want)
{
	struct slub_array *a, *tmp;
	unsigned long flags, n = 0;
	LIST_HEAD(arrays);

	if (!READ_ONCE(d->nr_full) && !READ_ONCE(d->nr_empty))
		return 0;
	spin_lock_irqsave(&d->lock, flags);
	depot_assert_locked(d);
	while (d->nr_full && n < want) {
		a = list_first_entry(&d->full, struct slub_array, list);
		list_move(&a->list, &arrays);
		d->nr_full--;
		n += a->count;
	}
	list_splice_init(&d->empty, &arrays);
	d->nr_empty = 0;
	spin_unlock_irqrestore(&d->lock, flags);
	list_for_each_entry_safe(a, tmp, &arrays, list) {
		array_empty(cache, a);
		array_free(a);
	}
	return n;
}

/*
 * Ask the cpus of @nid to reap now, under pressure; no waiting.  Not
 * while a cpu comes or goes (the trylock), whose reap work is being set
 * up or cancelled.
 */
static void array_reap_kick(int nid)
{
	int cpu;

	if (!cpus_read_trylock())
		return;
	for_each_online_cpu(cpu) {
		if (cpu_to_mem(cpu) != nid || !per_cpu(array_reap_up, cpu))
			continue;
		WRITE_ONCE(per_cpu(array_reap_pressure, cpu), true);
		mod_delayed_work_on(cpu, system_wq, per_cpu_ptr(&array_reap_work, cpu), 0);
	}
	cpus_read_unlock();
}

static unsigned long array_shrink_scan(struct shrinker *shrinker,
				       struct shrink_control *sc)
{
	struct kmem_cache_node *kn;
	struct kmem_cache *cache;
	unsigned long freed = 0;

	if (mutex_trylock(&slab_mutex)) {
		list_for_each_entry(cache, &slab_caches, list) {
			if (freed >= sc->nr_to_scan)
				break;
			kn = cache->array_size ? get_node(cache, sc->nid) : NULL;
			if (kn)
				freed += depot_shrink(cache, &kn->depot,
						      sc->nr_to_scan - freed);
		}
		mutex_unlock(&slab_mutex);
	}
	if (freed < sc->nr_to_scan)
		array_reap_kick(sc->nid);
	if (!freed)
		return SHRINK_STOP;
	sc->nr_scanned = freed;
	return freed;
}

/**
 * array_init_late - give the boot caches their arrays, start reaping
 *
 * Called once kmalloc and workqueues work, with only the boot cpu up.
 */
void __init array_init_late(void)
{
	struct kmem_cache *cache;
	bool any = false;
	unsigned int i;

	frontend_array_global = frontend_array_default;
	array_size_fixed = array_size_param;
	array_bytes = array_budget(totalram_pages(), num_present_cpus());
	if (nr_frontend_names) {
		frontend_list = kmemdup(frontend_names,
					nr_frontend_names * sizeof(*frontend_list),
					GFP_KERNEL);
		if (frontend_list)
			frontend_list_len = nr_frontend_names;
	}
	for (i = 0; i < frontend_list_len; i++)
		any |= frontend_list[i].array;
	if (!frontend_array_global && !any) {
		static_branch_disable(&slub_arrays);
		return;
	}

	pr_info("SLUB: arrays of up to %u bytes of objects (at most %u, 1/%u of the memory per cpu), depots of %u arrays, for %u cpus, %u nodes, %lu KiB\n",
		array_bytes, ARRAY_BYTES_MAX, 1U << ARRAY_BYTES_SHIFT, DEPOT_MAX,
		num_present_cpus(),
		num_node_state(N_MEMORY), totalram_pages() << (PAGE_SHIFT - 10));
	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list)
		array_cache_setup(cache);
	WRITE_ONCE(arrays_ready, true);
	mutex_unlock(&slab_mutex);
	if (!slub_shrinker_register(array_shrink_count, array_shrink_scan,
				    "slub-arrays"))
		pr_warn("SLUB: no shrinker for the cpu arrays: only the reaper empties them\n");
	if (cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "mm/slub:array_reap",
			      array_reap_online, array_reap_offline) < 0)
		pr_warn("SLUB: no cpu reaps its arrays: only reclaim empties them\n");
}

#ifdef CONFIG_SLUB_ENGINE_KUNIT_TEST
/* The array KUnit cases reach the static internals from inside this file. */
#include "slub_array_test.c"
#endif /* CONFIG_SLUB_ENGINE_KUNIT_TEST */
