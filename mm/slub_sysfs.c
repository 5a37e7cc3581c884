// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/slab for the SLUB-style engine (Documentation/ABI/testing/
 * sysfs-kernel-slab).
 *
 * An unmergeable cache gets a directory named after it.  A mergeable one
 * gets a directory named by its unique id, ":[flags-]<size>", and every
 * name merged into it (its own included) is a symlink to that directory.
 * Links are not removed when an alias goes away, as upstream; a new cache
 * or alias of the same name replaces a stale link.  kmem_cache_destroy()
 * removes a cache's directory once slab_mutex is dropped, for
 * SLAB_TYPESAFE_BY_RCU caches too, so a name is free again when it
 * returns.  A directory is never removed by name here: its kobject would
 * be left pointing to a freed node.
 *
 * Counters come as "<total> N<node>=<count>..." with only the non-zero
 * nodes listed, all gathered in one pass.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/kobject.h>
#include <linux/kernfs.h>
#include <linux/sysfs.h>
#include <linux/seq_file.h>

#include "slab.h"
#include "slub_internal.h"

static struct kset *slab_kset;	/* /sys/kernel/slab */

/* Aliases recorded before slub_sysfs_init(). */
struct early_alias {
	struct kmem_cache *cache;
	const char *name;
	struct early_alias *next;
};

static struct early_alias *early_aliases;

struct slab_attr {
	struct attribute attr;
	ssize_t (*show)(struct kmem_cache *cache, char *buf);
	ssize_t (*store)(struct kmem_cache *cache, const char *buf,
			 size_t len);
};

#define to_slab_attr(a)	container_of(a, struct slab_attr, attr)
#define to_cache(k)	container_of(k, struct kmem_cache, kobj)

/* Read-only files are for root only, as upstream: counts help heap grooming. */
#define SLAB_ATTR_RO(_name)						\
	static struct slab_attr _name##_attr = __ATTR_RO_MODE(_name, 0400)
#define SLAB_ATTR_RW(_name)						\
	static struct slab_attr _name##_attr = __ATTR_RW_MODE(_name, 0600)
#define SLAB_ATTR_WO(_name)						\
	static struct slab_attr _name##_attr = __ATTR_WO(_name)

/* ------------------------------------------------------------------ */
/* Geometry and flags                                                  */
/* ------------------------------------------------------------------ */

static ssize_t slab_size_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", cache->size);
}
SLAB_ATTR_RO(slab_size);

static ssize_t object_size_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", cache->object_size);
}
SLAB_ATTR_RO(object_size);

static ssize_t objs_per_slab_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", oo_objects(cache->oo));
}
SLAB_ATTR_RO(objs_per_slab);

static ssize_t order_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", oo_order(cache->oo));
}
SLAB_ATTR_RO(order);

static ssize_t align_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", cache->align);
}
SLAB_ATTR_RO(align);

static ssize_t aliases_show(struct kmem_cache *cache, char *buf)
{
	/* Boot caches have -1, a cache that failed to die has 0. */
	return sysfs_emit(buf, "%d\n", max(cache->refcount - 1, 0));
}
SLAB_ATTR_RO(aliases);

/* "yes", or "no: <reason>" (mm/slab_merge.c). */
static ssize_t merge_show(struct kmem_cache *cache, char *buf)
{
	return slab_merge_reason(cache, buf, PAGE_SIZE);
}
SLAB_ATTR_RO(merge);

/* "fastpath=<lockless|irqoff|locked> pair=<cmpxchg|bitlock>" */
static ssize_t sync_show(struct kmem_cache *cache, char *buf)
{
	return slub_sync_show(cache, buf);
}
SLAB_ATTR_RO(sync);

/* Objects per cpu array; 0 for the freelist front end. */
static ssize_t array_size_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(cache->array_size));
}

/* A new size for the cache's arrays; see array_cache_resize(). */
static ssize_t array_size_store(struct kmem_cache *cache, const char *buf,
				size_t len)
{
	unsigned int size;
	int err = kstrtouint(buf, 10, &size);

	if (err) {
		pr_warn("SLUB %s: array_size: '%.*s' is not a number of objects\n",
			cache->name, (int)strcspn(buf, "\n"), buf);
		return err;
	}
	err = array_cache_resize(cache, size);
	return err ? err : len;
}
SLAB_ATTR_RW(array_size);

/*
 * Objects cached in the cpu arrays and the depots, "<sum> C<cpu>=<n>
 * ... N<node>=<n> ...", each part shown when not 0.  They count as in
 * use in /proc/slabinfo and in the other object counts (THEORY 6).
 */
static ssize_t array_objects_show(struct kmem_cache *cache, char *buf)
{
	unsigned int *per_cpu, cpu;
	unsigned long sum = 0, *per_node;
	int len, node;

	per_cpu = kcalloc(nr_cpu_ids, sizeof(*per_cpu), GFP_KERNEL);
	per_node = kcalloc(nr_node_ids, sizeof(*per_node), GFP_KERNEL);
	if (!per_cpu || !per_node) {
		kfree(per_cpu);
		kfree(per_node);
		return -ENOMEM;
	}
	for_each_online_cpu(cpu) {
		per_cpu[cpu] = array_cpu_objects(cache, cpu);
		sum += per_cpu[cpu];
	}
	for_each_node_state(node, N_NORMAL_MEMORY) {
		per_node[node] = array_depot_objects(cache, node);
		sum += per_node[node];
	}
	len = sysfs_emit(buf, "%lu", sum);
	for_each_online_cpu(cpu)
		if (per_cpu[cpu])
			len += sysfs_emit_at(buf, len, " C%u=%u", cpu, per_cpu[cpu]);
	for_each_node_state(node, N_NORMAL_MEMORY)
		if (per_node[node])
			len += sysfs_emit_at(buf, len, " N%d=%lu", node, per_node[node]);
	kfree(per_cpu);
	kfree(per_node);
	return len + sysfs_emit_at(buf, len, "\n");
}
SLAB_ATTR_RO(array_objects);

static ssize_t usersize_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%u\n", cache->usersize);
}
SLAB_ATTR_RO(usersize);

static ssize_t ctor_show(struct kmem_cache *cache, char *buf)
{
	return cache->ctor ? sysfs_emit(buf, "%pS\n", cache->ctor) : 0;
}
SLAB_ATTR_RO(ctor);

static ssize_t min_partial_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%lu\n", cache->min_partial);
}

static ssize_t min_partial_store(struct kmem_cache *cache, const char *buf,
				 size_t len)
{
	unsigned long val;
	int err = kstrtoul(buf, 10, &val);

	if (err)
		return err;
	WRITE_ONCE(cache->min_partial, val);
	return len;
}
SLAB_ATTR_RW(min_partial);

static ssize_t cpu_partial_show(struct kmem_cache *cache, char *buf)
{
#ifdef CONFIG_SLUB_CPU_PARTIAL
	return sysfs_emit(buf, "%u\n", READ_ONCE(cache->cpu_partial));
#else
	return sysfs_emit(buf, "0\n");
#endif /* CONFIG_SLUB_CPU_PARTIAL */
}

/* Objects the cpu partial lists keep; 0 turns them off. */
static ssize_t cpu_partial_store(struct kmem_cache *cache, const char *buf,
				 size_t len)
{
	unsigned int objs;
	int err = kstrtouint(buf, 10, &objs);

	if (err)
		return err;
	err = slub_cache_set_cpu_partial(cache, objs);
	if (err)
		return err;
	/* What the cpus hold beyond the new bound goes back to the nodes. */
	slub_flush_all(cache);
	return len;
}
SLAB_ATTR_RW(cpu_partial);

#define SLAB_FLAG_ATTR(_name, _flag)					\
static ssize_t _name##_show(struct kmem_cache *cache, char *buf)	\
{									\
	return sysfs_emit(buf, "%d\n", !!(cache->flags & (_flag)));	\
}									\
SLAB_ATTR_RO(_name)

SLAB_FLAG_ATTR(hwcache_align, SLAB_HWCACHE_ALIGN);
SLAB_FLAG_ATTR(reclaim_account, SLAB_RECLAIM_ACCOUNT);
SLAB_FLAG_ATTR(destroy_by_rcu, SLAB_TYPESAFE_BY_RCU);
#ifdef CONFIG_ZONE_DMA
SLAB_FLAG_ATTR(cache_dma, SLAB_CACHE_DMA);
#endif /* CONFIG_ZONE_DMA */
#ifdef CONFIG_SLUB_DEBUG
SLAB_FLAG_ATTR(sanity_checks, SLAB_CONSISTENCY_CHECKS);
SLAB_FLAG_ATTR(trace, SLAB_TRACE);
SLAB_FLAG_ATTR(red_zone, SLAB_RED_ZONE);
SLAB_FLAG_ATTR(poison, SLAB_POISON);
SLAB_FLAG_ATTR(store_user, SLAB_STORE_USER);
#endif /* CONFIG_SLUB_DEBUG */

/* Set or clear one flag of a cache as "1" or "0" written to its file. */
static ssize_t __maybe_unused flag_store(struct kmem_cache *cache,
					 const char *buf, size_t len,
					 slab_flags_t flag)
{
	if (buf[0] == '1')
		WRITE_ONCE(cache->flags, cache->flags | flag);
	else if (buf[0] == '0')
		WRITE_ONCE(cache->flags, cache->flags & ~flag);
	else
		return -EINVAL;
	return len;
}

#ifdef CONFIG_FAILSLAB
static ssize_t failslab_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!(cache->flags & SLAB_FAILSLAB));
}

/* Let the failslab fault injection fail this cache's allocations. */
static ssize_t failslab_store(struct kmem_cache *cache, const char *buf,
			      size_t len)
{
	/* A merged cache would switch its other users too. */
	if (cache->refcount > 1)
		return -EINVAL;
	return flag_store(cache, buf, len, SLAB_FAILSLAB);
}
SLAB_ATTR_RW(failslab);
#endif /* CONFIG_FAILSLAB */

#ifdef CONFIG_KFENCE
static ssize_t skip_kfence_show(struct kmem_cache *cache, char *buf)
{
	return sysfs_emit(buf, "%d\n", !!(cache->flags & SLAB_SKIP_KFENCE));
}

/*
 * Keep KFENCE from sampling this cache (kfence_alloc() tests the flag),
 * as upstream SLUB's file of the same name does; merged caches share it.
 */
static ssize_t skip_kfence_store(struct kmem_cache *cache, const char *buf,
				 size_t len)
{
	return flag_store(cache, buf, len, SLAB_SKIP_KFENCE);
}
SLAB_ATTR_RW(skip_kfence);
#endif /* CONFIG_KFENCE */

#ifdef CONFIG_NUMA
static ssize_t remote_node_defrag_ratio_show(struct kmem_cache *cache,
					     char *buf)
{
	return sysfs_emit(buf, "%u\n", cache->remote_node_defrag_ratio / 10);
}

static ssize_t remote_node_defrag_ratio_store(struct kmem_cache *cache,
					      const char *buf, size_t len)
{
	unsigned int val;
	int err = kstrtouint(buf, 10, &val);

	if (err)
		return err;
	if (val > 100)
		return -ERANGE;
	WRITE_ONCE(cache->remote_node_defrag_ratio, val * 10);
	return len;
}
SLAB_ATTR_RW(remote_node_defrag_ratio);
#endif /* CONFIG_NUMA */

/* ------------------------------------------------------------------ */
/* Counters with a per-node breakdown                                  */
/* ------------------------------------------------------------------ */

/*
 * slub_cpu_slabs - count the slabs held by cpus, per node
 * @cache: the cache
 * @per_node: nr_node_ids counters to add to, may be NULL
 *
 * A racy snapshot, for reporting only.  A cpu partial list is counted
 * on the node of its first slab.
 *
 * Return: number of cpu slabs plus cpu partial slabs.
 */
static unsigned long slub_cpu_slabs(struct kmem_cache *cache, unsigned long *per_node)
{
	unsigned long nr = 0, part;
	struct slab *slab;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *pcpu = per_cpu_ptr(cache->cpu_slab, cpu);

		slab = READ_ONCE(pcpu->slab);
		if (slab) {
			nr++;
			if (per_node)
				per_node[slab_nid(slab)]++;
		}
		slab = cpu_partial_peek(pcpu);
		if (slab) {
			part = cpu_partial_len(slab);
			nr += part;
			if (per_node)
				per_node[slab_nid(slab)] += part;
		}
	}
	return nr;
}

/*
 * slub_cpu_partial_slabs - count the slabs on cpu partial lists
 * @cache: the cache
 *
 * Return: the number of slabs, a racy snapshot.
 */
static unsigned long slub_cpu_partial_slabs(struct kmem_cache *cache)
{
	unsigned long nr = 0;
	struct slab *slab;
	int cpu;

	for_each_possible_cpu(cpu) {
		slab = cpu_partial_peek(per_cpu_ptr(cache->cpu_slab, cpu));
		if (slab)
			nr += cpu_partial_len(slab);
	}
	return nr;
}

enum count_kind {
	COUNT_OBJECTS,		/* objects in use */
	COUNT_OBJECTS_PARTIAL,	/* objects in use in node partial slabs */
	COUNT_PARTIAL,		/* node partial slabs */
	COUNT_CPU_SLABS,	/* cpu slabs and cpu partial slabs */
	COUNT_SLABS,		/* all slabs */
	COUNT_TOTAL,		/* all object slots */
};

static unsigned long node_count(struct kmem_cache *cache,
				struct kmem_cache_node *kn,
				enum count_kind kind)
{
	unsigned long nfree, nused;

	switch (kind) {
	case COUNT_OBJECTS:
		/* Slots of full slabs are counted with SLUB_DEBUG only. */
		if (!IS_ENABLED(CONFIG_SLUB_DEBUG))
			return 0;
		slub_count_partial(kn, &nfree, NULL);
		return slub_node_objects(kn) - nfree;
	case COUNT_OBJECTS_PARTIAL:
		slub_count_partial(kn, NULL, &nused);
		return nused;
	case COUNT_PARTIAL:
		return slub_count_partial(kn, NULL, NULL);
	case COUNT_SLABS:
		return slub_node_slabs(kn);
	case COUNT_TOTAL:
		return slub_node_objects(kn);
	default:
		return 0;
	}
}

static ssize_t show_counts(struct kmem_cache *cache, char *buf,
			   enum count_kind kind)
{
	unsigned long *per_node, total = 0;
	struct kmem_cache_node *kn;
	int node, len;

	per_node = kcalloc(nr_node_ids, sizeof(*per_node), GFP_KERNEL);
	if (!per_node)
		return -ENOMEM;

	if (kind == COUNT_CPU_SLABS) {
		slub_cpu_slabs(cache, per_node);
	} else {
		for_each_kmem_cache_node(cache, node, kn)
			per_node[node] = node_count(cache, kn, kind);
	}
	for (node = 0; node < nr_node_ids; node++)
		total += per_node[node];

	len = sysfs_emit(buf, "%lu", total);
#ifdef CONFIG_NUMA
	for (node = 0; node < nr_node_ids; node++)
		if (per_node[node])
			len += sysfs_emit_at(buf, len, " N%d=%lu", node,
					     per_node[node]);
#endif /* CONFIG_NUMA */
	len += sysfs_emit_at(buf, len, "\n");
	kfree(per_node);
	return len;
}

#define SLAB_COUNT_ATTR(_name, _kind)					\
static ssize_t _name##_show(struct kmem_cache *cache, char *buf)	\
{									\
	return show_counts(cache, buf, _kind);				\
}									\
SLAB_ATTR_RO(_name)

SLAB_COUNT_ATTR(objects, COUNT_OBJECTS);
SLAB_COUNT_ATTR(objects_partial, COUNT_OBJECTS_PARTIAL);
SLAB_COUNT_ATTR(partial, COUNT_PARTIAL);
SLAB_COUNT_ATTR(cpu_slabs, COUNT_CPU_SLABS);
#ifdef CONFIG_SLUB_DEBUG
SLAB_COUNT_ATTR(slabs, COUNT_SLABS);
SLAB_COUNT_ATTR(total_objects, COUNT_TOTAL);
#endif /* CONFIG_SLUB_DEBUG */

static ssize_t slabs_cpu_partial_show(struct kmem_cache *cache, char *buf)
{
	unsigned int per_slab = oo_objects(cache->oo);
	unsigned long slabs = slub_cpu_partial_slabs(cache);
	unsigned int nr;
	int len, cpu;

	/* Objects are estimated from the slab count, as upstream does. */
	len = sysfs_emit(buf, "%lu(%lu)", slabs * per_slab, slabs);
	for_each_online_cpu(cpu) {
		nr = cpu_partial_len(cpu_partial_peek(per_cpu_ptr(cache->cpu_slab,
								  cpu)));
		if (nr)
			len += sysfs_emit_at(buf, len, " C%d=%u(%u)", cpu,
					     nr * per_slab, nr);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
SLAB_ATTR_RO(slabs_cpu_partial);

#ifdef CONFIG_SLUB_STATS
/*
 * "<sum> C<cpu>=<count> ..." over the online cpus that counted any.  The
 * counters are read and reset while their cpus count on (stat(), a
 * per-cpu increment): a racy snapshot by design, hence data_race().
 */
static ssize_t stat_show(struct kmem_cache *cache, char *buf,
			 enum stat_item item)
{
	unsigned long sum = 0;
	unsigned int v;
	int len, cpu;

	for_each_online_cpu(cpu) {
		/* Another cpu's counter, as it counts on. */
		sum += data_race(per_cpu_ptr(cache->cpu_slab, cpu)->stat[item]);
	}
	len = sysfs_emit(buf, "%lu", sum);
	for_each_online_cpu(cpu) {
		/* Another cpu's counter, as it counts on. */
		v = data_race(per_cpu_ptr(cache->cpu_slab, cpu)->stat[item]);
		if (v)
			len += sysfs_emit_at(buf, len, " C%d=%u", cpu, v);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

/* Writing 0 resets a counter on every cpu. */
static ssize_t stat_clear(struct kmem_cache *cache, const char *buf,
			  size_t len, enum stat_item item)
{
	int cpu;

	if (buf[0] != '0')
		return -EINVAL;
	for_each_online_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(cache->cpu_slab, cpu)->stat[item], 0);
	return len;
}

/* The per-event counters: one file each, named as upstream names them. */
static const char * const stat_file[NR_SLUB_STAT_ITEMS] = {
	[ALLOC_FASTPATH] = "alloc_fastpath",
	[ALLOC_SLOWPATH] = "alloc_slowpath",
	[FREE_FASTPATH] = "free_fastpath",
	[FREE_SLOWPATH] = "free_slowpath",
	[FREE_FROZEN] = "free_frozen",
	[FREE_ADD_PARTIAL] = "free_add_partial",
	[FREE_REMOVE_PARTIAL] = "free_remove_partial",
	[ALLOC_FROM_PARTIAL] = "alloc_from_partial",
	[ALLOC_SLAB] = "alloc_slab",
	[ALLOC_REFILL] = "alloc_refill",
	[ALLOC_NODE_MISMATCH] = "alloc_node_mismatch",
	[FREE_SLAB] = "free_slab",
	[CPUSLAB_FLUSH] = "cpuslab_flush",
	[DEACTIVATE_FULL] = "deactivate_full",
	[DEACTIVATE_EMPTY] = "deactivate_empty",
	[DEACTIVATE_TO_HEAD] = "deactivate_to_head",
	[DEACTIVATE_TO_TAIL] = "deactivate_to_tail",
	[DEACTIVATE_REMOTE_FREES] = "deactivate_remote_frees",
	[DEACTIVATE_BYPASS] = "deactivate_bypass",
	[ORDER_FALLBACK] = "order_fallback",
	[CMPXCHG_DOUBLE_CPU_FAIL] = "cmpxchg_double_cpu_fail",
	[CMPXCHG_DOUBLE_FAIL] = "cmpxchg_double_fail",
	[CPU_PARTIAL_ALLOC] = "cpu_partial_alloc",
	[CPU_PARTIAL_FREE] = "cpu_partial_free",
	[CPU_PARTIAL_NODE] = "cpu_partial_node",
	[CPU_PARTIAL_DRAIN] = "cpu_partial_drain",
	[ARRAY_ALLOC] = "array_alloc",
	[ARRAY_FREE] = "array_free",
	[ARRAY_BUSY] = "array_busy",
	[ARRAY_REFILL] = "array_refill",
	[ARRAY_FLUSH] = "array_flush",
	[ARRAY_DEPOT_GET] = "array_depot_get",
	[ARRAY_DEPOT_PUT] = "array_depot_put",
};

/* Filled from stat_file[] by stat_attrs_init(); dispatched by index. */
static struct slab_attr stat_attrs[NR_SLUB_STAT_ITEMS];
static struct attribute *stat_attr_list[NR_SLUB_STAT_ITEMS + 1];

static const struct attribute_group stat_attr_group = {
	.attrs = stat_attr_list,
};

static void __init stat_attrs_init(void)
{
	int i;

	for (i = 0; i < NR_SLUB_STAT_ITEMS; i++) {
		stat_attrs[i].attr.name = stat_file[i];
		stat_attrs[i].attr.mode = 0600;
		stat_attr_list[i] = &stat_attrs[i].attr;
	}
}

/* The counter behind @sa, or -1 if it is no stat file. */
static int stat_item_of(const struct slab_attr *sa)
{
	if (sa < stat_attrs || sa >= stat_attrs + NR_SLUB_STAT_ITEMS)
		return -1;
	return sa - stat_attrs;
}
#else
static inline void stat_attrs_init(void)
{
}

static inline ssize_t stat_show(struct kmem_cache *cache, char *buf, int item)
{
	return -EIO;
}

static inline ssize_t stat_clear(struct kmem_cache *cache, const char *buf,
				 size_t len, int item)
{
	return -EIO;
}

static inline int stat_item_of(const struct slab_attr *sa)
{
	return -1;
}
#endif /* CONFIG_SLUB_STATS */

/* ------------------------------------------------------------------ */
/* Actions                                                             */
/* ------------------------------------------------------------------ */

static ssize_t shrink_show(struct kmem_cache *cache, char *buf)
{
	return 0;
}

static ssize_t shrink_store(struct kmem_cache *cache, const char *buf,
			    size_t len)
{
	if (buf[0] != '1')
		return -EINVAL;
	kmem_cache_shrink(cache);
	return len;
}
SLAB_ATTR_RW(shrink);

#ifdef CONFIG_SLUB_DEBUG
static ssize_t validate_show(struct kmem_cache *cache, char *buf)
{
	return 0;
}

static ssize_t validate_store(struct kmem_cache *cache, const char *buf,
			      size_t len)
{
	long errors;

	if (buf[0] != '1')
		return -EINVAL;
	errors = validate_slab_cache(cache);
	if (errors < 0)
		return errors;
	/* The reports are on the console; the writer learns that there were some. */
	return errors ? -EIO : len;
}
SLAB_ATTR_RW(validate);
#endif /* CONFIG_SLUB_DEBUG */

static struct attribute *cache_attrs[] = {
	&slab_size_attr.attr,
	&object_size_attr.attr,
	&objs_per_slab_attr.attr,
	&order_attr.attr,
	&align_attr.attr,
	&aliases_attr.attr,
	&merge_attr.attr,
	&sync_attr.attr,
	&array_size_attr.attr,
	&array_objects_attr.attr,
	&usersize_attr.attr,
	&ctor_attr.attr,
	&min_partial_attr.attr,
	&cpu_partial_attr.attr,
	&hwcache_align_attr.attr,
	&reclaim_account_attr.attr,
	&destroy_by_rcu_attr.attr,
	&objects_attr.attr,
	&objects_partial_attr.attr,
	&partial_attr.attr,
	&cpu_slabs_attr.attr,
	&slabs_cpu_partial_attr.attr,
	&shrink_attr.attr,
#ifdef CONFIG_ZONE_DMA
	&cache_dma_attr.attr,
#endif /* CONFIG_ZONE_DMA */
#ifdef CONFIG_NUMA
	&remote_node_defrag_ratio_attr.attr,
#endif /* CONFIG_NUMA */
#ifdef CONFIG_SLUB_DEBUG
	&slabs_attr.attr,
	&total_objects_attr.attr,
	&sanity_checks_attr.attr,
	&trace_attr.attr,
	&red_zone_attr.attr,
	&poison_attr.attr,
	&store_user_attr.attr,
	&validate_attr.attr,
#endif /* CONFIG_SLUB_DEBUG */
#ifdef CONFIG_FAILSLAB
	&failslab_attr.attr,
#endif /* CONFIG_FAILSLAB */
#ifdef CONFIG_KFENCE
	&skip_kfence_attr.attr,
#endif /* CONFIG_KFENCE */
	NULL
};

static const struct attribute_group cache_attr_group = {
	.attrs = cache_attrs,
};

/* ------------------------------------------------------------------ */
/* kobject plumbing                                                    */
/* ------------------------------------------------------------------ */

static ssize_t slab_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct slab_attr *sa = to_slab_attr(attr);
	int item = stat_item_of(sa);

	if (item >= 0)
		return stat_show(to_cache(kobj), buf, item);
	return sa->show ? sa->show(to_cache(kobj), buf) : -EIO;
}

static ssize_t slab_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t len)
{
	struct slab_attr *sa = to_slab_attr(attr);
	int item = stat_item_of(sa);

	if (item >= 0)
		return stat_clear(to_cache(kobj), buf, len, item);
	return sa->store ? sa->store(to_cache(kobj), buf, len) : -EIO;
}

#if IS_ENABLED(CONFIG_SLUB_ENGINE_KUNIT_TEST)
/**
 * slub_sysfs_store - write to a file of /sys/kernel/slab/<cache>/
 * @cache: the cache
 * @name: the file, e.g. "validate"
 * @buf: what to write
 *
 * For the KUnit tests: the same store method a write(2) reaches, without
 * needing the directory to exist or sysfs to be mounted.
 *
 * Return: what the store method returns, or -ENOENT for an unknown file.
 */
ssize_t slub_sysfs_store(struct kmem_cache *cache, const char *name,
			 const char *buf)
{
	struct attribute **a;

	for (a = cache_attrs; *a; a++)
		if (!strcmp((*a)->name, name))
			return slab_attr_store(&cache->kobj, *a, buf, strlen(buf));
	return -ENOENT;
}
#endif /* CONFIG_SLUB_ENGINE_KUNIT_TEST */

static void slab_kobj_release(struct kobject *kobj)
{
	slab_kmem_cache_release(to_cache(kobj));
}

static const struct sysfs_ops cache_sysfs_ops = {
	.show = slab_attr_show,
	.store = slab_attr_store,
};

static const struct kobj_type cache_ktype = {
	.sysfs_ops = &cache_sysfs_ops,
	.release = slab_kobj_release,
};

/* ":[dDaFA-]<size>", the name shared by caches that may merge. */
static char *unique_id(struct kmem_cache *cache)
{
	static const struct {
		slab_flags_t flag;
		char letter;
	} letters[] = {
		{ SLAB_CACHE_DMA, 'd' },
		{ SLAB_CACHE_DMA32, 'D' },
		{ SLAB_RECLAIM_ACCOUNT, 'a' },
		{ SLAB_CONSISTENCY_CHECKS, 'F' },
		{ SLAB_ACCOUNT, 'A' },
	};
	char flags[ARRAY_SIZE(letters) + 2];
	int i, nf = 0;

	for (i = 0; i < ARRAY_SIZE(letters); i++)
		if (letters[i].flag && (cache->flags & letters[i].flag))
			flags[nf++] = letters[i].letter;
	if (nf)
		flags[nf++] = '-';
	flags[nf] = '\0';
	return kasprintf(GFP_KERNEL, ":%s%07u", flags, cache->size);
}

/* Remove @name from /sys/kernel/slab if it is a (stale) link. */
static void remove_stale_link(const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(slab_kset->kobj.sd, name);

	if (!kn)
		return;
	if (kernfs_type(kn) == KERNFS_LINK)
		sysfs_remove_link(&slab_kset->kobj, name);
	kernfs_put(kn);
}

static bool name_in_use(const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(slab_kset->kobj.sd, name);

	kernfs_put(kn);
	return kn;
}

/**
 * sysfs_slab_add - create /sys/kernel/slab/<cache>
 * @cache: the new cache
 *
 * A failure leaves the cache usable, only without its directory.
 *
 * Return: 0.
 */
int sysfs_slab_add(struct kmem_cache *cache)
{
	bool mergeable = !slab_unmergeable(cache);
	char *id = NULL;
	int err;

	kobject_init(&cache->kobj, &cache_ktype);
	cache->kobj.kset = slab_kset;
	if (mergeable) {
		id = unique_id(cache);
		if (!id)
			return 0;
	}
	remove_stale_link(id ?: cache->name);
	/*
	 * A live cache of the same name, or one whose destroyer has not
	 * removed its directory yet, holds the name: go without.
	 */
	err = name_in_use(id ?: cache->name) ? -EEXIST :
		kobject_add(&cache->kobj, NULL, "%s", id ?: cache->name);
	if (!err)
		err = sysfs_create_group(&cache->kobj, &cache_attr_group);
#ifdef CONFIG_SLUB_STATS
	if (!err)
		err = sysfs_create_group(&cache->kobj, &stat_attr_group);
#endif /* CONFIG_SLUB_STATS */
	if (!err && mergeable)
		err = sysfs_slab_alias(cache, cache->name);
	if (err)
		pr_warn("SLUB %s: no sysfs directory (%d)\n", cache->name, err);
	kfree(id);
	return 0;
}

/**
 * sysfs_slab_alias - link a merged cache name to the cache directory
 * @cache: the cache taking the alias
 * @name: the alias
 *
 * Return: 0 or a negative error.
 */
int sysfs_slab_alias(struct kmem_cache *cache, const char *name)
{
	struct early_alias *al;

	if (slab_state >= FULL) {
		if (!cache->kobj.state_in_sysfs)
			return 0;
		remove_stale_link(name);
		/* A directory keeps its name (see sysfs_slab_add()). */
		if (name_in_use(name))
			return -EEXIST;
		return sysfs_create_link(&slab_kset->kobj, &cache->kobj, name);
	}
	al = kmalloc(sizeof(*al), GFP_KERNEL);
	if (!al)
		return -ENOMEM;
	al->cache = cache;
	al->name = name;
	al->next = early_aliases;
	early_aliases = al;
	return 0;
}

void sysfs_slab_unlink(struct kmem_cache *cache)
{
	if (cache->kobj.state_in_sysfs)
		kobject_del(&cache->kobj);
}

void sysfs_slab_release(struct kmem_cache *cache)
{
	if (cache->kobj.state_initialized)
		kobject_put(&cache->kobj);
	else
		slab_kmem_cache_release(cache);
}

static int __init slub_sysfs_init(void)
{
	struct early_alias *al;
	struct kmem_cache *cache;

	stat_attrs_init();
	mutex_lock(&slab_mutex);
	slab_kset = kset_create_and_add("slab", NULL, kernel_kobj);
	if (!slab_kset) {
		mutex_unlock(&slab_mutex);
		pr_err("SLUB: cannot register /sys/kernel/slab\n");
		return -ENOMEM;
	}
	slab_state = FULL;
	list_for_each_entry(cache, &slab_caches, list)
		sysfs_slab_add(cache);
	while (early_aliases) {
		al = early_aliases;
		early_aliases = al->next;
		if (sysfs_slab_alias(al->cache, al->name))
			pr_warn("SLUB: no sysfs alias %s\n", al->name);
		kfree(al);
	}
	mutex_unlock(&slab_mutex);
	return 0;
}
device_initcall(slub_sysfs_init);
