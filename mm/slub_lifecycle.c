// SPDX-License-Identifier: GPL-2.0
/*
 * The SLUB-style engine's caches and nodes as they come and go: giving
 * back per-cpu state (flush, cpu hot-unplug), memory hotplug, cache
 * create/shrink/destroy (the contract of mm/slab.h) and bootstrap.  The
 * allocation and free paths they drain and feed are in mm/slub.c, whose
 * THEORY sections state the rules; these are all slow paths.
 */

#include <linux/mm.h>
#include <linux/swap.h>
#include <linux/module.h>
#include <linux/bit_spinlock.h>
#include <linux/interrupt.h>
#include <linux/swab.h>
#include <linux/bitops.h>
#include <linux/slab.h>
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

/* The cache of struct kmem_cache_node. */
struct kmem_cache *node_cache;

/*
 * Nodes for which every cache has a struct kmem_cache_node: those with
 * normal memory at boot and those memory hotplug brought up since.
 * Changed and read under slab_mutex.
 */
nodemask_t slub_nodes __read_mostly;

/* ---- Flushing per-cpu state, cpu and memory hotplug ---- */

static void cpu_state_release(struct kmem_cache *cache, struct slab *slab,
			      void *head, struct slab *partial)
{
	if (slab) {
		slab_unfreeze(cache, slab, head);
		stat(cache, CPUSLAB_FLUSH);
	}
	cpu_partial_unfreeze_all(cache, partial);
}

/* Give back this cpu's arrays, cpu slab and cpu partial slabs. */
static void cpu_flush_local(struct kmem_cache *cache)
{
	struct slab *slab, *partial;
	unsigned long flags;
	void *head;

	array_drain_local(cache);
	local_lock_irqsave(&cache->cpu_slab->lock, flags);
	slab = cpu_detach(this_cpu_ptr(cache->cpu_slab), &head, &partial);
	local_unlock_irqrestore(&cache->cpu_slab->lock, flags);
	cpu_state_release(cache, slab, head, partial);
}

static bool cpu_has_state(int cpu, void *info)
{
	struct kmem_cache *cache = info;
	struct kmem_cache_cpu *pcpu = per_cpu_ptr(cache->cpu_slab, cpu);

	return READ_ONCE(pcpu->slab) || cpu_partial_peek(pcpu) ||
	       array_cpu_has_objects(cache, cpu);
}

/* Before workqueues exist: by IPI (no cache has arrays yet). */
static void cpu_flush_ipi(void *info)
{
	cpu_flush_local(info);
}

/*
 * The flush runs on each cpu as a work item: in task context, so that
 * unfreezing, page freeing and the memcg kfree() stay out of hardirq
 * context, and no array can be held halfway through a fastpath there.
 * One flush at a time (slub_flush_mutex) uses the per-cpu items.
 */
struct slub_flush_work {
	struct work_struct work;
	struct kmem_cache *cache;
	bool queued;
};

static DEFINE_PER_CPU(struct slub_flush_work, slub_flush_works);
static DEFINE_MUTEX(slub_flush_mutex);
static struct workqueue_struct *slub_flush_wq;

static void cpu_flush_work(struct work_struct *work)
{
	struct slub_flush_work *fw = container_of(work, struct slub_flush_work,
						  work);

	cpu_flush_local(fw->cache);
}

/**
 * slub_flush_cpus_locked - give back the per-cpu state of some cpus
 * @cache: the cache
 * @cpus: the cpus, NULL for all
 *
 * Queues the flush on each of @cpus that holds something and waits for
 * it.  The caller holds cpus_read_lock(), so that no cpu is skipped for
 * being half gone (offline, its CPUHP_SLUB_DEAD callback not run yet).
 */
void slub_flush_cpus_locked(struct kmem_cache *cache, const struct cpumask *cpus)
{
	struct slub_flush_work *fw;
	unsigned int cpu;

	lockdep_assert_cpus_held();
	if (!slub_flush_wq) {
		on_each_cpu_cond(cpu_has_state, cpu_flush_ipi, cache, 1);
		return;
	}
	mutex_lock(&slub_flush_mutex);
	for_each_online_cpu(cpu) {
		fw = &per_cpu(slub_flush_works, cpu);
		fw->queued = (!cpus || cpumask_test_cpu(cpu, cpus)) &&
			     cpu_has_state(cpu, cache);
		if (!fw->queued)
			continue;
		INIT_WORK(&fw->work, cpu_flush_work);
		fw->cache = cache;
		queue_work_on(cpu, slub_flush_wq, &fw->work);
	}
	for_each_online_cpu(cpu) {
		fw = &per_cpu(slub_flush_works, cpu);
		if (fw->queued)
			flush_work(&fw->work);
	}
	mutex_unlock(&slub_flush_mutex);
}

static void flush_all_cpus_locked(struct kmem_cache *cache)
{
	slub_flush_cpus_locked(cache, NULL);
}

/**
 * slub_flush_all - return all per-cpu objects and slabs of a cache
 * @cache: the cache
 *
 * The cpu arrays and slabs go back to the slabs and node lists; the
 * depots keep theirs.
 */
void slub_flush_all(struct kmem_cache *cache)
{
	cpus_read_lock();
	flush_all_cpus_locked(cache);
	cpus_read_unlock();
}

/* CPUHP_SLUB_DEAD: the cpu is gone, its state can be taken directly. */
static int slub_cpu_dead(unsigned int dead_cpu)
{
	struct slab *slab, *partial;
	struct kmem_cache *cache;
	void *head;

	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list) {
		array_drain_dead(cache, dead_cpu);
		slab = cpu_detach(per_cpu_ptr(cache->cpu_slab, dead_cpu), &head,
				  &partial);
		cpu_state_release(cache, slab, head, partial);
	}
	mutex_unlock(&slab_mutex);
	return 0;
}

static struct kmem_cache_node *node_struct_alloc(int node, gfp_t gfp)
{
	struct kmem_cache_node *kn;

	kn = kmem_cache_alloc_node(node_cache, gfp, node);
	if (kn)
		node_init(kn);
	return kn;
}

#ifdef CONFIG_MEMORY_HOTPLUG
static void cache_shrink_cpus_locked(struct kmem_cache *cache);

/*
 * A node gaining normal memory gets a node structure in every cache
 * before its memory can hold slabs, and joins slub_nodes in the same
 * slab_mutex section, so that a cache created before the node is in
 * N_NORMAL_MEMORY still gets one.  Structures of nodes losing their
 * memory are kept: they are empty and cheap.
 */
static int slab_memory_online(int node)
{
	struct kmem_cache_node *kn;
	struct kmem_cache *cache;

	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list) {
		if (get_node(cache, node))
			continue;
		kn = node_struct_alloc(NUMA_NO_NODE, GFP_KERNEL);
		if (!kn) {
			mutex_unlock(&slab_mutex);
			return -ENOMEM;
		}
		cache->node[node] = kn;
	}
	node_set(node, slub_nodes);
	mutex_unlock(&slab_mutex);
	return 0;
}

/*
 * Memory going offline: give back the empty slabs every cache keeps
 * (min_partial), which would otherwise pin pages in the range.  The
 * hotplug code holds cpus_read_lock().
 */
static void slab_memory_offline(void)
{
	struct kmem_cache *cache;

	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list)
		cache_shrink_cpus_locked(cache);
	mutex_unlock(&slab_mutex);
}

/*
 * A node that had no memory has some now: where cpus may sit on
 * memoryless nodes, numa_mem_id() of some cpus may name it from now on,
 * and their arrays and their old node's depot would hand another node's
 * objects to requests for this one.  Every array and depot is emptied,
 * so that array_accepts() holds for what they take from now on.  The
 * hotplug code holds cpus_read_lock().
 */
static void slab_memory_node_new(void)
{
	struct kmem_cache *cache;

	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list) {
		if (!cache->array_size)
			continue;
		slub_flush_cpus_locked(cache, NULL);
		array_depot_drain(cache);
	}
	mutex_unlock(&slab_mutex);
}

static int slab_memory_callback(struct notifier_block *nb,
				unsigned long event, void *data)
{
	struct memory_notify *mn = data;
	int node = mn->status_change_nid_normal;
	int ret = 0;

	if (event == MEM_GOING_ONLINE && node >= 0)
		ret = slab_memory_online(node);
	else if (event == MEM_ONLINE && mn->status_change_nid >= 0)
		slab_memory_node_new();
	else if (event == MEM_GOING_OFFLINE)
		slab_memory_offline();
	return notifier_from_errno(ret);
}

static void __init slab_memory_notifier_init(void)
{
	hotplug_memory_notifier(slab_memory_callback, SLAB_CALLBACK_PRI);
}
#else
static inline void slab_memory_notifier_init(void)
{
}
#endif /* CONFIG_MEMORY_HOTPLUG */

/*
 * The first object of @nc, the cache of node structures, carved from a
 * slab by hand: the structure of @node for @nc itself.  Only at boot and
 * from the KUnit suite.
 */
static void node_struct_bootstrap(struct kmem_cache *nc, int node)
{
	struct kmem_cache_node *kn;
	struct slab_pair p;
	unsigned long flags;
	struct slab *slab;

	slab = slab_new(nc, GFP_NOWAIT, node);
	if (!slab)
		panic("SLUB: no memory for node_cache on node %d\n", node);
	if (slab_nid(slab) != node)
		pr_warn("SLUB: node_cache for node %d placed on node %d\n",
			node, slab_nid(slab));

	slab_pair_read(slab, &p);
	kn = p.freelist;
	p.freelist = obj_next(nc, kn);
	p.cnt.inuse = 1;
	slab_pair_set(slab, &p);

	kn = kasan_slab_alloc(nc, kn, GFP_KERNEL, false);
	if (slub_debug_cache(nc))
		slub_debug_mark_allocated(nc, kn, _RET_IP_);
	node_init(kn);
	nc->node[node] = kn;
	/*
	 * slab_new() found no node structure to count the slab in: count
	 * it now.  Without SLUB_DEBUG it was counted in the cache already.
	 */
	if (IS_ENABLED(CONFIG_SLUB_DEBUG))
		node_account(nc, node, 1, slab_objects(slab));
	spin_lock_irqsave(&kn->list_lock, flags);
	node_add_partial(kn, slab, false);
	spin_unlock_irqrestore(&kn->list_lock, flags);
}

static void cache_free_nodes(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn;
	int node;

	for_each_kmem_cache_node(cache, node, kn) {
		cache->node[node] = NULL;
		kmem_cache_free(node_cache, kn);
	}
}

static bool cache_alloc_nodes(struct kmem_cache *cache, bool boot)
{
	struct kmem_cache_node *kn;
	int node;

	for_each_node_mask(node, slub_nodes) {
		if (boot) {
			node_struct_bootstrap(cache, node);
			continue;
		}
		kn = node_struct_alloc(node, GFP_KERNEL);
		if (!kn)
			return false;
		cache->node[node] = kn;
	}
	return true;
}

static bool cache_alloc_cpus(struct kmem_cache *cache)
{
	struct kmem_cache_cpu *pcpu;
	int cpu;

	cache->cpu_slab = __alloc_percpu(sizeof(struct kmem_cache_cpu),
					 2 * sizeof(void *));
	if (!cache->cpu_slab)
		return false;
	for_each_possible_cpu(cpu) {
		pcpu = per_cpu_ptr(cache->cpu_slab, cpu);
		local_lock_init(&pcpu->lock);
		pcpu->tid = tid_initial(cpu);
	}
	return true;
}

/*
 * Per-cpu state first: the slabs made for node_cache's own node
 * structures (@boot) already count statistics (ORDER_FALLBACK).
 */
bool cache_alloc_state(struct kmem_cache *cache, bool boot)
{
	return cache_alloc_cpus(cache) && cache_alloc_nodes(cache, boot);
}

/* ---- Cache lifecycle: the contract of mm/slab.h ---- */

/*
 * A new cache whose creator's fields (name, sizes, align, ctor, user
 * copy region) are set, with @flags final (slub_debug= applied): the
 * work of each base's creation hook (mm/slub_entry.c).
 */
int slub_cache_create(struct kmem_cache *cache, slab_flags_t flags)
{
	int err;

	cache->flags = flags;
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	cache->random = get_random_long();
#endif /* CONFIG_SLAB_FREELIST_HARDENED */
	if (!slub_cache_layout(cache))
		return -EINVAL;

	cache->pair_atomic = slub_pair_cmpxchg_enabled() &&
			     !(cache->flags & SLAB_DEBUG_FLAGS);
	slub_cache_set_partial_limits(cache);
#ifdef CONFIG_NUMA
	cache->remote_node_defrag_ratio = 1000;
#endif /* CONFIG_NUMA */

	err = -ENOMEM;
	if (slab_state >= UP &&
	    cache_random_seq_create(cache, oo_objects(cache->oo), GFP_KERNEL))
		goto fail;
	if (!cache_alloc_state(cache, slab_state == DOWN))
		goto fail;
	array_cache_create(cache);
	if (slab_state < FULL)
		return 0;
	err = sysfs_slab_add(cache);
	if (err)
		goto fail;
	slub_debugfs_add(cache);
	return 0;
fail:
	__kmem_cache_release(cache);
	return err;
}

void __kmem_cache_release(struct kmem_cache *cache)
{
	cache_random_seq_destroy(cache);
	array_cache_release(cache);
	free_percpu(cache->cpu_slab);
	cache->cpu_slab = NULL;
	cache_free_nodes(cache);
}

/*
 * Move the empty slabs of a node list to @out and put the fuller half of
 * the others first, so that allocations fill them and the emptier ones
 * get a chance to drain.  Returns the objects in use on the list.
 */
static unsigned long node_collect_empty(struct kmem_cache_node *kn,
					struct list_head *out)
{
	unsigned long inuse = 0, flags;
	struct slab *slab, *tmp;
	struct slab_pair p;
	LIST_HEAD(fuller);

	spin_lock_irqsave(&kn->list_lock, flags);
	list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list) {
		slab_pair_read(slab, &p);
		inuse += p.cnt.inuse;
		if (!p.cnt.inuse) {
			node_del_partial(kn, slab);
			list_add(&slab->slab_list, out);
		} else if (p.cnt.inuse * 2 >= p.cnt.objects) {
			list_move_tail(&slab->slab_list, &fuller);
		}
	}
	list_splice(&fuller, &kn->partial);
	spin_unlock_irqrestore(&kn->list_lock, flags);
	return inuse;
}

static void discard_list(struct kmem_cache *cache, struct list_head *list)
{
	struct slab *slab, *tmp;

	list_for_each_entry_safe(slab, tmp, list, slab_list)
		slab_discard(cache, slab);
}

/* Give back the per-cpu state, the depots and the empty slabs. */
static void cache_shrink_cpus_locked(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn;
	LIST_HEAD(empty);
	int node;

	flush_all_cpus_locked(cache);
	array_depot_drain(cache);
	for_each_kmem_cache_node(cache, node, kn) {
		node_collect_empty(kn, &empty);
		discard_list(cache, &empty);
		INIT_LIST_HEAD(&empty);
	}
}

int __kmem_cache_shutdown(struct kmem_cache *cache)
{
	unsigned long live = 0, slabs, free;
	struct kmem_cache_node *kn;
	int node;

	/* kmem_cache_destroy() holds cpus_read_lock(). */
	cache_shrink_cpus_locked(cache);
	for_each_kmem_cache_node(cache, node, kn) {
		slub_count_partial(kn, &free, NULL);
		live += slub_node_objects(kn) - free;
	}
	slabs = cache_slabs(cache);
	if (!slabs)
		return 0;
	slub_debug_report_leaks(cache);
	if (slub_kunit_counts_errors())
		return -EBUSY;
	if (IS_ENABLED(CONFIG_SLUB_DEBUG))
		pr_err("SLUB %s: not destroyed: %lu objects in %lu slabs are still allocated\n",
		       cache->name, live, slabs);
	else
		pr_err("SLUB %s: not destroyed: %lu slabs still hold allocated objects\n",
		       cache->name, slabs);
	return -EBUSY;
}

int __kmem_cache_shrink(struct kmem_cache *cache)
{
	cpus_read_lock();
	cache_shrink_cpus_locked(cache);
	cpus_read_unlock();
	return cache_slabs(cache) ? 1 : 0;
}

bool __kmem_cache_empty(struct kmem_cache *cache)
{
	return !cache_slabs(cache);
}

/* ---- Bootstrap ---- */

/*
 * Replace a statically allocated boot cache by a slab-allocated copy and
 * repoint its slabs.  Only the boot cpu runs and the cpu slab is flushed,
 * so every slab of the cache is on a node partial list.
 */
static struct kmem_cache * __init cache_bootstrap(struct kmem_cache *boot)
{
	struct kmem_cache *cache = kmem_cache_zalloc(kmem_cache, GFP_NOWAIT);
	struct kmem_cache_node *kn;
	struct slab *slab;
	int node;

	memcpy(cache, boot, kmem_cache->object_size);
	cpu_flush_local(cache);
	for_each_kmem_cache_node(cache, node, kn) {
		list_for_each_entry(slab, &kn->partial, slab_list)
			slab->slab_cache = cache;
#ifdef CONFIG_SLUB_DEBUG
		list_for_each_entry(slab, &kn->full, slab_list)
			slab->slab_cache = cache;
#endif /* CONFIG_SLUB_DEBUG */
	}
	list_add(&cache->list, &slab_caches);
	return cache;
}

static void __init freelist_random_init(void)
{
	struct kmem_cache *cache;

	mutex_lock(&slab_mutex);
	list_for_each_entry(cache, &slab_caches, list)
		if (cache_random_seq_create(cache, oo_objects(cache->oo), GFP_KERNEL))
			pr_err("SLUB %s: no random freelist sequence\n",
			       cache->name);
	mutex_unlock(&slab_mutex);
}

void __init kmem_cache_init(void)
{
	static struct kmem_cache boot_cache, boot_node_cache;
	const union slab_counters fixed = {
		.fixed = (1U << (32 - SLAB_FIXED_SHIFT)) - 1
	};
	unsigned int cache_struct_size;

	/* The fixed bits of the counters are the top ones of page_type. */
	BUILD_BUG_ON(fixed.low != SLAB_COUNTERS_FIXED_MASK);

	if (debug_guardpage_minorder())
		slub_max_order = 0;
	slub_nodes = node_states[N_NORMAL_MEMORY];
	slub_sync_init();

	/* 1: the cache of node structures, its first object hand-made. */
	node_cache = &boot_node_cache;
	kmem_cache = &boot_cache;
	create_boot_cache(node_cache, "kmem_cache_node", sizeof(*node_cache->node[0]),
			  SLAB_HWCACHE_ALIGN | SLUB_BOOT_CACHE_FLAGS, 0, 0);
	slab_memory_notifier_init();
	slab_state = PARTIAL;

	/* 2: the cache of caches, sized for the nodes that exist. */
	cache_struct_size = offsetof(struct kmem_cache, node[nr_node_ids]);
	create_boot_cache(kmem_cache, "kmem_cache", cache_struct_size,
			  SLAB_HWCACHE_ALIGN | SLUB_BOOT_CACHE_FLAGS, 0, 0);

	/* 3: move both off their static storage, then kmalloc. */
	kmem_cache = cache_bootstrap(&boot_cache);
	node_cache = cache_bootstrap(&boot_node_cache);
	setup_kmalloc_cache_index_table();
	slub_create_kmalloc_caches();
	freelist_random_init();

	cpuhp_setup_state_nocalls(CPUHP_SLUB_DEAD, "slub:dead", NULL, slub_cpu_dead);
	pr_info("SLUB engine (from scratch): %s, front end %s, struct page %zu bytes (%s), order %u-%u, min_objects %u, cpus %u, nodes %u\n",
		slub_sync_banner(), slub_frontend_banner(),
		sizeof(struct page),
		IS_ENABLED(CONFIG_STRUCT_PAGE_INTERNAL_ALIGN) ?
		"internal alignment" : "aligned",
		slub_min_order, slub_max_order, slub_min_objects,
		nr_cpu_ids, nr_node_ids);
}

void __init kmem_cache_init_late(void)
{
	slub_flush_wq = alloc_workqueue("slub_flush", WQ_MEM_RECLAIM, 0);
	WARN_ON_ONCE(!slub_flush_wq);
	array_init_late();
}
