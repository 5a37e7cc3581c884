// SPDX-License-Identifier: GPL-2.0
/*
 * Cache merge policy: the slab_merge and slab_nomerge boot parameters.
 *
 * slab_common.c merges a new cache into an existing one of compatible
 * size, alignment and flags unless slab_unmergeable() or find_mergeable()
 * say no.  Both ask this file:
 *
 *   slab_nomerge              no cache merges (also slub_nomerge)
 *   slab_merge                caches merge (also slub_merge); the default
 *                             with CONFIG_SLAB_MERGE_DEFAULT=y
 *   slab_nomerge=<n>[,<n>..]  the named caches neither merge nor are
 *                             merged into; a trailing '*' matches a prefix.
 *                             Every other cache follows the global policy.
 *
 * For the global words the last one on the command line wins.  A list
 * adds to any earlier list.  Bad input is reported on one line and
 * ignored, keeping the policy that was in force before it.
 *
 * The names point into the kernel command line, which stays allocated
 * for the life of the kernel.  The table is written only while the
 * command line is parsed and read under slab_mutex afterwards.
 */
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "slab.h"

#define NOMERGE_MAX_NAMES	16

bool slab_nomerge __ro_after_init = !IS_ENABLED(CONFIG_SLAB_MERGE_DEFAULT);

struct nomerge_name {
	const char *name;	/* not NUL-terminated: see len */
	unsigned int len;
	bool prefix;		/* written as "name*" */
	bool used;		/* a cache of this name was seen */
};

static struct nomerge_name nomerge_names[NOMERGE_MAX_NAMES];
static unsigned int nr_nomerge_names;

#define NOMERGE_FORMS	"slab_nomerge, slab_merge or slab_nomerge=<cache>[,<cache>...] with an optional trailing '*'"

static bool nomerge_match(struct nomerge_name *n, const char *name)
{
	if (n->prefix)
		return !strncmp(name, n->name, n->len);
	return strlen(name) == n->len && !strncmp(name, n->name, n->len);
}

/* The entry of the slab_nomerge= list that matches @name, or NULL. */
static struct nomerge_name *nomerge_lookup(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < nr_nomerge_names; i++)
		if (nomerge_match(&nomerge_names[i], name))
			return &nomerge_names[i];
	return NULL;
}

/**
 * slab_nomerge_named - is a cache name in the slab_nomerge= list?
 * @name: the cache name
 *
 * Called by slab_common.c for the cache being created and for every
 * candidate it could merge into, and through slab_unmergeable() by sysfs.
 * Marking an entry used is idempotent, so no lock is needed.
 *
 * Return: true if the cache must neither merge nor be merged into.
 */
bool slab_nomerge_named(const char *name)
{
	struct nomerge_name *n = nomerge_lookup(name);

	if (!n)
		return false;
	WRITE_ONCE(n->used, true);
	return true;
}

/* Check "a,b*,c" in full before taking any of it. */
static bool __init nomerge_list_valid(const char *list, unsigned int *count)
{
	const char *p = list;
	unsigned int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len || memchr(p, '*', len - 1) ||
		    (len == 1 && *p == '*'))
			return false;
		n++;
		if (!p[len])
			break;
		p += len + 1;
	}
	*count = n;
	return true;
}

static int __init nomerge_list_setup(const char *list)
{
	unsigned int count;
	const char *p;

	if (!nomerge_list_valid(list, &count)) {
		pr_warn("slab_nomerge=%s: malformed list ignored; use %s\n",
			list, NOMERGE_FORMS);
		return 1;
	}
	if (nr_nomerge_names + count > NOMERGE_MAX_NAMES) {
		pr_warn("slab_nomerge=%s: more than %d names in all, list ignored\n",
			list, NOMERGE_MAX_NAMES);
		return 1;
	}
	for (p = list; *p; p += *p == ',') {
		struct nomerge_name *n = &nomerge_names[nr_nomerge_names++];
		size_t len = strcspn(p, ",");

		n->prefix = p[len - 1] == '*';
		n->name = p;
		n->len = len - n->prefix;
		p += len;
	}
	return 1;
}

static int __init param_nomerge(char *arg)
{
	if (*arg == '=')
		return nomerge_list_setup(arg + 1);
	if (*arg) {
		pr_warn("slab_nomerge%s: unknown form ignored; use %s\n",
			arg, NOMERGE_FORMS);
		return 1;
	}
	slab_nomerge = true;
	return 1;
}

static int __init param_merge(char *arg)
{
	if (*arg) {
		pr_warn("slab_merge%s: unknown form ignored; use %s\n",
			arg, NOMERGE_FORMS);
		return 1;
	}
	slab_nomerge = false;
	return 1;
}

#ifdef CONFIG_SLUB
__setup_param("slub_nomerge", slub_nomerge, param_nomerge, 0);
__setup_param("slub_merge", slub_merge, param_merge, 0);
#endif /* CONFIG_SLUB */
__setup("slab_nomerge", param_nomerge);
__setup("slab_merge", param_merge);

/* Name the slab_nomerge= entries that matched no cache during boot. */
static int __init nomerge_report_unused(void)
{
	unsigned int i;

	for (i = 0; i < nr_nomerge_names; i++) {
		struct nomerge_name *n = &nomerge_names[i];

		if (!READ_ONCE(n->used))
			pr_warn("slab_nomerge=: no cache named '%.*s%s' at the end of boot\n",
				n->len, n->name, n->prefix ? "*" : "");
	}
	return 0;
}
late_initcall_sync(nomerge_report_unused);

/**
 * slab_merge_reason - why a cache can or cannot be merged with
 * @s: the cache
 * @buf: where to write the reason
 * @size: size of @buf
 *
 * Writes "yes" or "no: <reason>", for /sys/kernel/slab/<cache>/merge.
 * The flags reason covers SLAB_NEVER_MERGE: debug flags, RCU, notrace
 * and failslab.
 *
 * Return: the number of characters written, as scnprintf().
 */
int slab_merge_reason(struct kmem_cache *s, char *buf, size_t size)
{
	struct nomerge_name *n;

	if (slab_nomerge)
		return scnprintf(buf, size, "no: slab_nomerge%s\n",
				 IS_ENABLED(CONFIG_SLAB_MERGE_DEFAULT) ?
				 "" : " (CONFIG_SLAB_MERGE_DEFAULT=n)");
	n = nomerge_lookup(s->name);
	if (n)
		return scnprintf(buf, size, "no: slab_nomerge=%.*s%s\n",
				 n->len, n->name, n->prefix ? "*" : "");
	if (s->ctor)
		return scnprintf(buf, size, "no: constructor %ps\n", s->ctor);
	if (s->usersize)
		return scnprintf(buf, size, "no: usercopy region %u+%u\n",
				 s->useroffset, s->usersize);
	if (s->refcount < 0)
		return scnprintf(buf, size, "no: bootstrap cache\n");
	/* What is left is SLAB_NEVER_MERGE: debug, RCU, notrace, failslab. */
	if (slab_unmergeable(s))
		return scnprintf(buf, size, "no: flags %#lx\n",
				 (unsigned long)s->flags);
	return scnprintf(buf, size, "yes\n");
}
