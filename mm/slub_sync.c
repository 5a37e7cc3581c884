// SPDX-License-Identifier: GPL-2.0
/*
 * The synchronisation strategy of the SLUB-style engine, chosen at boot:
 * how the cpu freelists commit (slub_fastpath=) and how the slab pairs do
 * (slub_pair=).  Each option's parsing, its switch and its part of the
 * sysfs "sync" line and of the boot banner live here; THEORY 2 and 4 in
 * mm/slub.c say what each strategy locks and where it commits.  The array
 * front end's option, slub_frontend=, is mm/slub_array.c's.
 */
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/jump_label.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "slab.h"
#include "slub_internal.h"

/*
 * slub_fastpath=irqoff: the cpu freelists change under the cpu's local
 * lock with interrupts off instead of committing with cmpxchg16b.  The
 * default costs a patched-out jump on the fastpaths.  PREEMPT_RT always
 * locks them (slub_fastpath_locked()), and the key stays off there.
 */
DEFINE_STATIC_KEY_FALSE(slub_fastpath_irqoff);

static bool want_irqoff __initdata;
static bool pair_bitlock __ro_after_init;	/* slub_pair=bitlock */

/*
 * A choice of two words, @no the default: set *@val, or warn and keep it
 * for anything else.
 */
static void __init param_two_ways(const char *param, const char *arg,
				  const char *no, const char *yes, bool *val)
{
	if (!strcmp(arg, no))
		*val = false;
	else if (!strcmp(arg, yes))
		*val = true;
	else
		pr_warn("%s=%s: unknown value ignored; use %s=%s (default) or %s=%s\n",
			param, arg, param, no, param, yes);
}

static int __init param_fastpath(char *arg)
{
	param_two_ways("slub_fastpath", arg, "lockless", "irqoff", &want_irqoff);
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && !strcmp(arg, "lockless"))
		pr_warn("slub_fastpath=lockless: ignored on PREEMPT_RT, whose cpu freelists change under their local lock\n");
	return 1;
}
__setup("slub_fastpath=", param_fastpath);

static int __init param_pair(char *arg)
{
	param_two_ways("slub_pair", arg, "cmpxchg", "bitlock", &pair_bitlock);
	return 1;
}
__setup("slub_pair=", param_pair);

/**
 * slub_sync_init - switch to the fastpath strategy chosen at boot
 *
 * Called before the first allocation, so that the fastpaths never see
 * the two strategies mixed on one cpu freelist.
 */
void __init slub_sync_init(void)
{
	if (want_irqoff && !IS_ENABLED(CONFIG_PREEMPT_RT))
		static_branch_enable(&slub_fastpath_irqoff);
}

/**
 * slub_pair_cmpxchg_enabled - do slab pairs commit with cmpxchg16b?
 *
 * Return: true if the kernel, the CPU and slub_pair= allow it.  Debug
 * caches use neither: their slabs change under the node's list_lock.
 */
bool slub_pair_cmpxchg_enabled(void)
{
#if SLAB_PAIR_CAN_CMPXCHG
	return slub_cpu_has_pair_cmpxchg() && !pair_bitlock;
#else
	return false;
#endif /* SLAB_PAIR_CAN_CMPXCHG */
}

/**
 * slub_sync_banner - the strategy in force, for the boot banner
 *
 * Return: "<lockless|irq-off|locked> cpu freelists, slab pair
 * <cmpxchg16b|bit-locked>".
 */
const char *slub_sync_banner(void)
{
	bool cx = slub_pair_cmpxchg_enabled();

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return cx ? "locked cpu freelists, slab pair cmpxchg16b" :
			    "locked cpu freelists, slab pair bit-locked";
	if (slub_fastpath_locked())
		return cx ? "irq-off cpu freelists, slab pair cmpxchg16b" :
			    "irq-off cpu freelists, slab pair bit-locked";
	return cx ? "lockless cpu freelists, slab pair cmpxchg16b" :
		    "lockless cpu freelists, slab pair bit-locked";
}

/*
 * The fastpath strategy in force, as sysfs names it: "locked" on
 * PREEMPT_RT, whose cpu lock leaves interrupts on.
 */
static const char *fastpath_name(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return "locked";
	return slub_fastpath_locked() ? "irqoff" : "lockless";
}

/**
 * slub_sync_show - the synchronisation strategy of a cache, for sysfs
 * @cache: the cache
 * @buf: a page to write to
 *
 * Return: the length of "fastpath=<lockless|irqoff|locked>
 * pair=<cmpxchg|bitlock> frontend=<freelist|array>", or of "fastpath=none
 * pair=list_lock frontend=freelist" for a debug cache.
 */
ssize_t slub_sync_show(struct kmem_cache *cache, char *buf)
{
	if (slub_debug_cache(cache))
		return sysfs_emit(buf, "fastpath=none pair=list_lock frontend=freelist\n");
	return sysfs_emit(buf, "fastpath=%s pair=%s frontend=%s\n",
			  fastpath_name(),
			  cache->pair_atomic ? "cmpxchg" : "bitlock",
			  slub_frontend_show(cache));
}
