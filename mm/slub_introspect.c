// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only views of a cache and its objects that the rest of the
 * kernel asks the SLUB-style engine for: the counts of /proc/slabinfo
 * (slab_common.c), kmem_dump_obj()'s object info (printk) and the
 * hardened usercopy bounds check.  Nothing here changes a cache.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/uaccess.h>

#include "slab.h"
#include "slub_internal.h"

/**
 * slub_count_partial - count the slabs and objects of a node list
 * @kn: the node
 * @free_objs: receives the number of free objects, may be NULL
 * @used_objs: receives the number of objects in use, may be NULL
 *
 * Return: number of slabs on the partial list.
 */
unsigned long slub_count_partial(struct kmem_cache_node *kn,
				 unsigned long *free_objs,
				 unsigned long *used_objs)
{
	unsigned long nr = 0, nfree = 0, nused = 0, irqf;
	struct slab *slab;
	struct slab_pair p;

	spin_lock_irqsave(&kn->list_lock, irqf);
	list_for_each_entry(slab, &kn->partial, slab_list) {
		slab_pair_read(slab, &p);
		nfree += p.cnt.objects - p.cnt.inuse;
		nused += p.cnt.inuse;
		nr++;
	}
	spin_unlock_irqrestore(&kn->list_lock, irqf);
	if (free_objs)
		*free_objs = nfree;
	if (used_objs)
		*used_objs = nused;
	return nr;
}

void get_slabinfo(struct kmem_cache *cache, struct slabinfo *sinfo)
{
	unsigned long slabs = 0, objs = 0, free = 0, nfree;
	struct kmem_cache_node *kn;
	int node;

	for_each_kmem_cache_node(cache, node, kn) {
		slabs += slub_node_slabs(kn);
		objs += slub_node_objects(kn);
		slub_count_partial(kn, &nfree, NULL);
		free += nfree;
	}
	sinfo->active_objs = objs - free;
	sinfo->num_objs = objs;
	sinfo->active_slabs = slabs;
	sinfo->num_slabs = slabs;
	sinfo->objects_per_slab = oo_objects(cache->oo);
	sinfo->cache_order = oo_order(cache->oo);
}

#ifdef CONFIG_PRINTK
void __kmem_obj_info(struct kmem_obj_info *kpp, void *object,
		     struct slab *slab)
{
	struct kmem_cache *cache = slab->slab_cache;
	void *base = slab_address(slab);
	void *ptr = kasan_reset_tag(object);
	unsigned int idx;
	void *objp;

	kpp->kp_ptr = object;
	kpp->kp_slab = slab;
	kpp->kp_slab_cache = cache;
	if (ptr < base)
		return;
	idx = __obj_to_index(cache, base, ptr);
	if (idx >= slab_objects(slab))
		return;
	objp = base + (unsigned long)idx * cache->size;
	kpp->kp_objp = objp;
	/* Where the object starts in its slot: after the left red zone. */
	kpp->kp_data_offset = fixup_red_left(cache, objp) - objp;
#ifdef CONFIG_SLUB_DEBUG
	slub_debug_obj_info(kpp, cache, fixup_red_left(cache, objp));
#endif /* CONFIG_SLUB_DEBUG */
}
#endif /* CONFIG_PRINTK */

/**
 * slub_obj_offset - offset of a pointer into an object
 * @cache: the cache
 * @offset: offset of the pointer into the object's slot
 * @kfence: the object is a KFENCE object: no red zone, @offset counts
 *          from the object
 *
 * Return: the offset from the start of the object, past the left red
 * zone of a red-zoned cache, or -1 for a pointer into that red zone.
 */
long slub_obj_offset(struct kmem_cache *cache, unsigned long offset,
		     bool kfence)
{
	if (kfence || !kmem_cache_debug_flags(cache, SLAB_RED_ZONE))
		return offset;
	if (offset < cache->red_left_pad)
		return -1;
	return offset - cache->red_left_pad;
}

#ifdef CONFIG_HARDENED_USERCOPY
/*
 * Usercopy check: [ptr, ptr + n) must lie inside the usercopy region of a
 * single object.
 */
void __check_heap_object(const void *ptr, unsigned long n,
			 const struct slab *slab, bool to_user)
{
	struct kmem_cache *cache = slab->slab_cache;
	unsigned long offset, start = cache->useroffset, end;
	const void *base = slab_address(slab);
	bool kfence;
	long off;

	ptr = kasan_reset_tag(ptr);
	if (ptr < base)
		usercopy_abort("SLUB object not in SLUB page?!", NULL,
			       to_user, 0, n);
	kfence = is_kfence_address(ptr);
	if (kfence)
		offset = ptr - kfence_object_start(ptr);
	else
		offset = (ptr - base) % cache->size;
	off = slub_obj_offset(cache, offset, kfence);
	if (off < 0)
		usercopy_abort("SLUB object left red zone", cache->name,
			       to_user, offset, n);
	offset = off;
	end = start + cache->usersize;
	if (offset >= start && offset <= end && n <= end - offset)
		return;
	usercopy_abort("SLUB object", cache->name, to_user, offset, n);
}
#endif /* CONFIG_HARDENED_USERCOPY */
