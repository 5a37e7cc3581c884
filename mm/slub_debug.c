// SPDX-License-Identifier: GPL-2.0
/*
 * Debug side of the SLUB-style engine: invariant checks and the debug
 * interfaces that in-tree code links against.  The reports, poisoning,
 * red zones and user tracking of slub_debug= are still to come; this
 * file is where they go.  Nothing here runs on the fast paths.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/seq_file.h>

#include "slab.h"
#include "slub_internal.h"

#ifdef CONFIG_SLUB_DEBUG_ON
DEFINE_STATIC_KEY_TRUE(slub_debug_enabled);
#else
DEFINE_STATIC_KEY_FALSE(slub_debug_enabled);
#endif /* CONFIG_SLUB_DEBUG_ON */

/* No per-cache statistics columns in /proc/slabinfo. */
void slabinfo_show_stats(struct seq_file *m, struct kmem_cache *cache)
{
}

/* No tunables to write: /proc/slabinfo is read-only with SLUB. */
ssize_t slabinfo_write(struct file *file, const char __user *ubuf,
		       size_t len, loff_t *ppos)
{
	return -EIO;
}

/*
 * A consistent snapshot of a slab pair that other cpus may free to: the
 * two words are read separately, so read the pair until two reads agree.
 * Under the node list_lock (or as the owner) the freelist only grows at
 * its head, a new head each time, so two equal reads saw one state.
 */
static void slab_pair_snapshot(const struct slab *slab, struct slab_pair *p)
{
	struct slab_pair again;
	int tries = 100;

	slab_pair_read(slab, p);
	while (tries--) {
		/* Order the second read after the first, as the commits write. */
		smp_rmb();
		slab_pair_read(slab, &again);
		if (again.freelist == p->freelist && again.cnt.word == p->cnt.word)
			return;
		*p = again;
	}
}

/**
 * slab_validate - check the invariants of one slab
 * @cache: the cache the slab should belong to
 * @slab: the slab; its freelist must not be allocated from meanwhile
 *	  (hold the node list_lock of an unfrozen slab, or own it).  Other
 *	  cpus may free to it.
 *
 * Checks: the slab belongs to @cache and has a valid geometry, every free
 * pointer points at an object start inside the slab, the freelist has no
 * cycle, and inuse + |freelist| == objects.
 *
 * Return: the number of violated invariants.
 */
int slab_validate(struct kmem_cache *cache, struct slab *slab)
{
	unsigned int nfree = 0, objects, errors = 0;
	void *base = slab_address(slab), *p;
	struct slab_pair snap;

	slab_pair_snapshot(slab, &snap);
	objects = snap.cnt.objects;
	if (!folio_test_slab(slab_folio(slab)) || slab->slab_cache != cache) {
		pr_err("SLUB %s: slab %p is not a slab of this cache\n",
		       cache->name, slab);
		return 1;
	}
	if (!objects || objects * cache->size > slab_size(slab) ||
	    snap.cnt.inuse > objects) {
		pr_err("SLUB %s: slab %p bad counters: objects %u inuse %u\n",
		       cache->name, slab, objects, snap.cnt.inuse);
		return 1;
	}
	for (p = snap.freelist; p; p = obj_next(cache, p)) {
		unsigned long off = kasan_reset_tag(p) - base;

		if (p < base || off >= objects * cache->size ||
		    (off - cache->red_left_pad) % cache->size || nfree >= objects) {
			pr_err("SLUB %s: slab %p freelist corrupt at %p (%u free seen)\n",
			       cache->name, slab, p, nfree);
			errors++;
			break;
		}
		nfree++;
	}
	if (!errors && snap.cnt.inuse + nfree != objects) {
		pr_err("SLUB %s: slab %p inuse %u + free %u != objects %u\n",
		       cache->name, slab, snap.cnt.inuse, nfree, objects);
		errors++;
	}
	return errors;
}

void print_tracking(struct kmem_cache *cache, void *object)
{
}

/**
 * validate_slab_cache - check all slabs on the node lists of a cache
 * @cache: the cache
 *
 * Return: the number of errors found.
 */
long validate_slab_cache(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn;
	unsigned long flags, nr;
	struct slab *slab;
	long errors = 0;
	int node;

	slub_flush_all(cache);
	for_each_kmem_cache_node(cache, node, kn) {
		nr = 0;
		spin_lock_irqsave(&kn->list_lock, flags);
		list_for_each_entry(slab, &kn->partial, slab_list) {
			struct slab_pair snap;

			slab_pair_read(slab, &snap);
			if (snap.cnt.frozen) {
				pr_err("SLUB %s: frozen slab %p on node %d's partial list\n",
				       cache->name, slab, node);
				errors++;
			}
			errors += slab_validate(cache, slab);
			nr++;
		}
		if (nr != kn->nr_partial) {
			pr_err("SLUB %s: node %d nr_partial %lu but %lu listed\n",
			       cache->name, node, kn->nr_partial, nr);
			errors++;
		}
		spin_unlock_irqrestore(&kn->list_lock, flags);
	}
	return errors;
}
EXPORT_SYMBOL(validate_slab_cache);

#if defined(CONFIG_DEBUG_FS) && defined(CONFIG_SLUB_DEBUG)
void debugfs_slab_release(struct kmem_cache *cache)
{
}
#endif /* CONFIG_DEBUG_FS && CONFIG_SLUB_DEBUG */
