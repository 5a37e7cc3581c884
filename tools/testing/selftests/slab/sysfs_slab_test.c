// SPDX-License-Identifier: GPL-2.0
/*
 * Checks of SLUB's /sys/kernel/slab: the layout of cache directories and
 * alias links, the attributes of each cache, the invariants relating
 * them, and their agreement with /proc/slabinfo.
 *
 * A mergeable cache's directory is named ":[flags-]<size>" and reached
 * through one link per cache name merged into it; an unmergeable cache's
 * directory carries the cache's name.  Live counters change while they
 * are read, so checks relating them retry a few times before failing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "slab_util.h"

#define NR_TESTS	11

enum attr_id {
	A_SLAB_SIZE, A_OBJECT_SIZE, A_OBJS_PER_SLAB, A_ORDER, A_ALIGN,
	A_ALIASES, A_USERSIZE, A_MIN_PARTIAL, A_CPU_PARTIAL,
	A_HWCACHE_ALIGN, A_RECLAIM_ACCOUNT, A_DESTROY_BY_RCU,
	/* counters with a per-node breakdown */
	A_OBJECTS, A_OBJECTS_PARTIAL, A_PARTIAL, A_CPU_SLABS,
	/* CONFIG_SLUB_DEBUG only */
	A_SLABS, A_TOTAL_OBJECTS,
	A_SANITY_CHECKS, A_TRACE, A_RED_ZONE, A_POISON, A_STORE_USER,
	/* optional: CONFIG_ZONE_DMA */
	A_CACHE_DMA,
	NR_ATTRS
};

#define FIRST_NODE_ATTR		A_OBJECTS
#define LAST_NODE_ATTR		A_TOTAL_OBJECTS
#define FIRST_DEBUG_ATTR	A_SLABS
#define FIRST_FLAG_ATTR		A_HWCACHE_ALIGN

static const char * const attr_names[NR_ATTRS] = {
	[A_SLAB_SIZE] = "slab_size",
	[A_OBJECT_SIZE] = "object_size",
	[A_OBJS_PER_SLAB] = "objs_per_slab",
	[A_ORDER] = "order",
	[A_ALIGN] = "align",
	[A_ALIASES] = "aliases",
	[A_USERSIZE] = "usersize",
	[A_MIN_PARTIAL] = "min_partial",
	[A_CPU_PARTIAL] = "cpu_partial",
	[A_HWCACHE_ALIGN] = "hwcache_align",
	[A_RECLAIM_ACCOUNT] = "reclaim_account",
	[A_DESTROY_BY_RCU] = "destroy_by_rcu",
	[A_OBJECTS] = "objects",
	[A_OBJECTS_PARTIAL] = "objects_partial",
	[A_PARTIAL] = "partial",
	[A_CPU_SLABS] = "cpu_slabs",
	[A_SLABS] = "slabs",
	[A_TOTAL_OBJECTS] = "total_objects",
	[A_SANITY_CHECKS] = "sanity_checks",
	[A_TRACE] = "trace",
	[A_RED_ZONE] = "red_zone",
	[A_POISON] = "poison",
	[A_STORE_USER] = "store_user",
	[A_CACHE_DMA] = "cache_dma",
};

/* Attributes that must be readable but have no number to check. */
static const char * const text_attrs[] = {
	"ctor", "shrink", "slabs_cpu_partial",
};

static const char * const debug_text_attrs[] = {
	"validate",
};

struct cache {
	char *name;		/* directory name */
	ino_t ino;
	unsigned long v[NR_ATTRS];
	bool have[NR_ATTRS];
	bool has_ctor;
	int links;		/* links in /sys/kernel/slab resolving here */
};

struct link {
	char *name;
	char *target;
	ino_t ino;		/* of the target; 0 if dangling */
};

static struct cache *caches;
static int nr_caches;
static struct link *links;
static int nr_links;
static int nr_other;		/* entries neither directory nor link */

static unsigned long page_size;
static int max_order = -1;
static bool slub_debug;		/* CONFIG_SLUB_DEBUG attributes expected */
static bool usersize;		/* "usersize" attributes expected */

static bool attr_expected(int a)
{
	if (a == A_CACHE_DMA)
		return false;
	if (a == A_USERSIZE)
		return usersize;
	if (a >= FIRST_DEBUG_ATTR)
		return slub_debug;
	return true;
}

/* List /sys/kernel/slab into caches[] and links[]. */
static int scan_sysfs(bool verbose)
{
	struct dirent *de;
	DIR *dir;
	int dfd;

	dir = opendir(SLAB_SYSFS_PATH);
	if (!dir)
		return -errno;
	dfd = dirfd(dir);
	while ((de = readdir(dir))) {
		struct stat st, tst;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;	/* went away */
		if (S_ISDIR(st.st_mode)) {
			struct cache *c;

			caches = realloc(caches, (nr_caches + 1) * sizeof(*c));
			if (!caches)
				return -ENOMEM;
			c = &caches[nr_caches++];
			memset(c, 0, sizeof(*c));
			c->name = strdup(de->d_name);
			c->ino = st.st_ino;
		} else if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			struct link *l;
			ssize_t n;

			n = readlinkat(dfd, de->d_name, target,
				       sizeof(target) - 1);
			if (n < 0)
				continue;
			target[n] = '\0';
			links = realloc(links, (nr_links + 1) * sizeof(*l));
			if (!links)
				return -ENOMEM;
			l = &links[nr_links++];
			l->name = strdup(de->d_name);
			l->target = strdup(target);
			l->ino = 0;
			if (!fstatat(dfd, de->d_name, &tst, 0) &&
			    S_ISDIR(tst.st_mode))
				l->ino = tst.st_ino;
		} else {
			if (verbose)
				ksft_print_msg("%s/%s is neither a directory nor a symlink\n",
					       SLAB_SYSFS_PATH, de->d_name);
			nr_other++;
		}
	}
	closedir(dir);
	return 0;
}

static struct cache *cache_by_ino(ino_t ino)
{
	int i;

	for (i = 0; i < nr_caches; i++)
		if (caches[i].ino == ino)
			return &caches[i];
	return NULL;
}

/* Read every attribute of @c; returns the number that failed. */
static int read_cache(struct cache *c, bool verbose)
{
	char buf[4096];
	unsigned int i;
	int a, err, bad = 0;

	for (a = 0; a < NR_ATTRS; a++) {
		err = read_attr_ulong(c->name, attr_names[a], &c->v[a]);
		c->have[a] = !err;
		if (!err || (err == -ENOENT && !attr_expected(a)))
			continue;
		if (verbose)
			ksft_print_msg("%s/%s: %s\n", c->name, attr_names[a],
				       err == -EINVAL ? "not a number" :
				       strerror(-err));
		bad++;
	}
	for (i = 0; i < ARRAY_SIZE(text_attrs); i++) {
		err = read_attr(c->name, text_attrs[i], buf, sizeof(buf));
		if (err >= 0) {
			if (!strcmp(text_attrs[i], "ctor"))
				c->has_ctor = err > 0;
			continue;
		}
		if (verbose)
			ksft_print_msg("%s/%s: %s\n", c->name, text_attrs[i],
				       strerror(-err));
		bad++;
	}
	for (i = 0; slub_debug && i < ARRAY_SIZE(debug_text_attrs); i++) {
		err = read_attr(c->name, debug_text_attrs[i], buf, sizeof(buf));
		if (err >= 0)
			continue;
		if (verbose)
			ksft_print_msg("%s/%s: %s\n", c->name,
				       debug_text_attrs[i], strerror(-err));
		bad++;
	}
	return bad;
}

static void test_entries(void)
{
	int i, bad = nr_other, dangling = 0;

	if (!nr_caches) {
		ksft_print_msg("no cache directories\n");
		bad++;
	}
	for (i = 0; i < nr_links; i++) {
		struct link *l = &links[i];

		if (strchr(l->target, '/')) {
			ksft_print_msg("link %s -> %s leaves %s\n", l->name,
				       l->target, SLAB_SYSFS_PATH);
			bad++;
		} else if (!l->ino) {
			/* upstream leaves the links of destroyed caches */
			ksft_print_msg("note: link %s -> %s is dangling\n",
				       l->name, l->target);
			dangling++;
		} else if (!cache_by_ino(l->ino)) {
			ksft_print_msg("link %s -> %s: no such cache directory\n",
				       l->name, l->target);
			bad++;
		}
	}
	ksft_test_result(!bad, "sysfs_entries (%d caches, %d links, %d dangling)\n",
			 nr_caches, nr_links, dangling);
}

static void test_attributes(void)
{
	int i, bad = 0;

	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];
		int a;

		if (read_cache(c, true)) {
			bad++;
			continue;
		}
		for (a = FIRST_FLAG_ATTR; a < NR_ATTRS; a++) {
			if (a >= FIRST_NODE_ATTR && a <= LAST_NODE_ATTR)
				continue;
			if (!c->have[a] || c->v[a] <= 1)
				continue;
			ksft_print_msg("%s/%s is %lu, not 0 or 1\n", c->name,
				       attr_names[a], c->v[a]);
			bad++;
		}
	}
	ksft_test_result(!bad, "sysfs_attributes\n");
}

/* Sizes and orders are fixed while a cache exists. */
static void test_geometry(void)
{
	int i, bad = 0;

	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];
		unsigned long size = c->v[A_SLAB_SIZE];
		unsigned long osize = c->v[A_OBJECT_SIZE];
		unsigned long objs = c->v[A_OBJS_PER_SLAB];
		unsigned long order = c->v[A_ORDER];
		unsigned long align = c->v[A_ALIGN];
		const char *why = NULL;

		if (!c->have[A_SLAB_SIZE] || !c->have[A_OBJECT_SIZE] ||
		    !c->have[A_OBJS_PER_SLAB] || !c->have[A_ORDER] ||
		    !c->have[A_ALIGN])
			continue;	/* reported by sysfs_attributes */
		if (!osize || osize > size)
			why = "object_size is 0 or above slab_size";
		else if (!is_pow2(align) || size % align)
			why = "align is no power of two dividing slab_size";
		else if (!objs || objs > SLUB_MAX_OBJS_PER_SLAB)
			why = "objs_per_slab is 0 or too big";
		else if (max_order >= 0 && order > (unsigned long)max_order)
			why = "order is above the highest page order";
		else if (objs * size > page_size << order)
			why = "the objects do not fit in a slab";
		else if (c->have[A_USERSIZE] && c->v[A_USERSIZE] > osize)
			why = "usersize is above object_size";
		if (!why)
			continue;
		ksft_print_msg("%s: %s\n", c->name, why);
		ksft_print_msg("%s: object_size %lu slab_size %lu align %lu\n",
			       c->name, osize, size, align);
		ksft_print_msg("%s: objs_per_slab %lu order %lu usersize %lu\n",
			       c->name, objs, order, c->v[A_USERSIZE]);
		bad++;
	}
	ksft_test_result(!bad, "sysfs_geometry\n");
}

/*
 * "<total>[ N<node>=<count>...]\n": nodes ascending, only non-zero
 * counts, adding up to the total (all from a single pass in the kernel).
 */
static const char *check_node_breakdown(const char *buf)
{
	unsigned long total, sum = 0, count;
	long node, last = -1;
	char *p;

	if (*buf < '0' || *buf > '9')
		return "no total";
	total = strtoul(buf, &p, 10);
	while (*p == ' ') {
		if (p[1] != 'N' || p[2] < '0' || p[2] > '9')
			return "bad node entry";
		node = strtol(p + 2, &p, 10);
		if (*p != '=' || p[1] < '0' || p[1] > '9')
			return "bad node entry";
		count = strtoul(p + 1, &p, 10);
		if (node <= last)
			return "nodes not ascending";
		if (!count)
			return "zero count listed";
		last = node;
		sum += count;
	}
	if (strcmp(p, "\n"))
		return "trailing garbage";
	if (last >= 0 && sum != total)
		return "node counts do not add up to the total";
	return NULL;
}

static void test_node_breakdown(void)
{
	char buf[4096];
	int i, a, bad = 0;

	for (i = 0; i < nr_caches; i++) {
		for (a = FIRST_NODE_ATTR; a <= LAST_NODE_ATTR; a++) {
			const char *why;

			if (read_attr(caches[i].name, attr_names[a], buf,
				      sizeof(buf)) < 0)
				continue;	/* reported by sysfs_attributes */
			why = check_node_breakdown(buf);
			if (!why)
				continue;
			ksft_print_msg("%s/%s: %s: '%s'\n", caches[i].name,
				       attr_names[a], why, strtok(buf, "\n"));
			bad++;
		}
	}
	ksft_test_result(!bad, "sysfs_node_breakdown\n");
}

/*
 * Counters of one cache, read close together: every slab holds at least
 * one object and at most objs_per_slab (that of the preferred, largest
 * slab); partial slabs are slabs; in-use objects are objects.
 */
static const char *check_counts(struct cache *c)
{
	unsigned long objs = c->v[A_OBJECTS];
	unsigned long objs_partial = c->v[A_OBJECTS_PARTIAL];
	unsigned long partial = c->v[A_PARTIAL];
	unsigned long slabs = c->v[A_SLABS];
	unsigned long total = c->v[A_TOTAL_OBJECTS];

	/* Without CONFIG_SLUB_DEBUG "objects" counts nothing (upstream too). */
	if (!slub_debug)
		return NULL;
	if (objs_partial > objs)
		return "objects_partial > objects";
	if (objs > total)
		return "objects > total_objects";
	if (partial > slabs)
		return "partial > slabs";
	if (slabs > total)
		return "slabs > total_objects";
	if (total > slabs * c->v[A_OBJS_PER_SLAB])
		return "total_objects > slabs * objs_per_slab";
	return NULL;
}

static void test_counts(void)
{
	int i, attempt, bad = 0;

	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];
		const char *why = "unreadable";

		for (attempt = 0; attempt < LIVE_ATTEMPTS && why; attempt++)
			if (!read_cache(c, false))
				why = check_counts(c);
		if (!why)
			continue;
		ksft_print_msg("%s: %s in %d reads in a row\n", c->name, why,
			       LIVE_ATTEMPTS);
		ksft_print_msg("%s: objects %lu objects_partial %lu total_objects %lu\n",
			       c->name, c->v[A_OBJECTS],
			       c->v[A_OBJECTS_PARTIAL], c->v[A_TOTAL_OBJECTS]);
		ksft_print_msg("%s: partial %lu slabs %lu objs_per_slab %lu\n",
			       c->name, c->v[A_PARTIAL], c->v[A_SLABS],
			       c->v[A_OBJS_PER_SLAB]);
		bad++;
	}
	ksft_test_result(!bad, "sysfs_counts\n");
}

/*
 * A mergeable cache's unique id is ':', the letters of its merge-relevant
 * flags (d: DMA, D: DMA32, a: reclaim account, F: consistency checks,
 * A: memcg account) in that order, '-' if there are any, then its slab
 * size in at least seven digits.  Caches with a constructor or
 * SLAB_TYPESAFE_BY_RCU are never merged.
 */
static const char *check_unique_id(struct cache *c)
{
	static const char order[] = "dDaFA";
	const char *p = c->name + 1, *flags = p, *next = order;
	unsigned long size;
	char *end;

	while (*p && strchr(order, *p)) {
		next = strchr(next, *p);
		if (!next)
			return "flag letters out of order";
		next++;
		p++;
	}
	if (p != flags && *p++ != '-')
		return "no '-' after the flags";
	if (strlen(p) < 7 || *p < '0' || *p > '9')
		return "size has fewer than seven digits";
	size = strtoul(p, &end, 10);
	if (*end)
		return "size is not a number";
	if (size != c->v[A_SLAB_SIZE])
		return "size differs from slab_size";
	if (!memchr(flags, 'a', p - flags) != !c->v[A_RECLAIM_ACCOUNT])
		return "'a' does not match reclaim_account";
	if (c->have[A_CACHE_DMA] &&
	    !memchr(flags, 'd', p - flags) != !c->v[A_CACHE_DMA])
		return "'d' does not match cache_dma";
	if (c->have[A_SANITY_CHECKS] &&
	    !memchr(flags, 'F', p - flags) != !c->v[A_SANITY_CHECKS])
		return "'F' does not match sanity_checks";
	if (c->has_ctor)
		return "a cache with a constructor is mergeable";
	if (c->v[A_DESTROY_BY_RCU])
		return "a SLAB_TYPESAFE_BY_RCU cache is mergeable";
	return NULL;
}

static void test_unique_ids(void)
{
	int i, bad = 0, ids = 0;

	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];
		const char *why;

		if (c->name[0] != ':')
			continue;
		ids++;
		why = check_unique_id(c);
		if (!why)
			continue;
		ksft_print_msg("%s: %s (slab_size %lu reclaim_account %lu)\n",
			       c->name, why, c->v[A_SLAB_SIZE],
			       c->v[A_RECLAIM_ACCOUNT]);
		bad++;
	}
	ksft_test_result(!bad, "sysfs_unique_ids (%d)\n", ids);
}

/*
 * aliases counts the caches merged into a cache.  Each of them, and the
 * cache itself, created a link named after it to the cache's unique id
 * directory; links outlive destroyed aliases, so there may be more.  A
 * directory carrying a cache's own name is unmergeable: no aliases.
 */
static int check_aliases(bool verbose)
{
	int i, bad = 0;

	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];
		unsigned long aliases;

		if (read_attr_ulong(c->name, "aliases", &aliases))
			continue;	/* reported by sysfs_attributes */
		if (c->name[0] == ':' ? aliases + 1 <= (unsigned long)c->links :
					aliases == 0)
			continue;
		if (verbose)
			ksft_print_msg("%s: aliases %lu, %d links to it\n",
				       c->name, aliases, c->links);
		bad++;
	}
	return bad;
}

static void count_links(void)
{
	int i;

	for (i = 0; i < nr_caches; i++)
		caches[i].links = 0;
	for (i = 0; i < nr_links; i++) {
		struct cache *c = links[i].ino ? cache_by_ino(links[i].ino) :
						 NULL;

		if (c)
			c->links++;
	}
}

static void free_scan(void)
{
	int i;

	for (i = 0; i < nr_caches; i++)
		free(caches[i].name);
	for (i = 0; i < nr_links; i++) {
		free(links[i].name);
		free(links[i].target);
	}
	free(caches);
	free(links);
	caches = NULL;
	links = NULL;
	nr_caches = 0;
	nr_links = 0;
	nr_other = 0;
}

static void test_aliases(void)
{
	int attempt, bad = 0;

	for (attempt = 0; attempt < LIVE_ATTEMPTS; attempt++) {
		if (attempt) {
			free_scan();
			if (scan_sysfs(false))
				break;
		}
		count_links();
		bad = check_aliases(attempt == LIVE_ATTEMPTS - 1);
		if (!bad)
			break;
	}
	ksft_test_result(!bad, "sysfs_aliases\n");
}

/*
 * Each cache of /proc/slabinfo is reached by its name, with the same
 * geometry; and there is one directory per cache.
 */
static int check_slabinfo(struct slabinfo *si, bool verbose)
{
	char path[PATH_MAX];
	struct stat st;
	int i, bad = 0;

	for (i = 0; i < si->nr; i++) {
		struct slabinfo_entry *e = &si->e[i];
		struct cache *c;

		snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS_PATH, e->name);
		c = stat(path, &st) ? NULL : cache_by_ino(st.st_ino);
		if (!c) {
			if (verbose)
				ksft_print_msg("%s: not in %s\n", e->name,
					       SLAB_SYSFS_PATH);
			bad++;
			continue;
		}
		if (c->v[A_SLAB_SIZE] == e->objsize &&
		    c->v[A_OBJS_PER_SLAB] == e->objperslab &&
		    c->v[A_ORDER] < 8 * sizeof(long) &&
		    1UL << c->v[A_ORDER] == e->pagesperslab)
			continue;
		if (verbose)
			ksft_print_msg("%s: slabinfo objsize %lu objperslab %lu pagesperslab %lu\n",
				       e->name, e->objsize, e->objperslab,
				       e->pagesperslab);
		if (verbose)
			ksft_print_msg("%s: sysfs %s slab_size %lu objs_per_slab %lu order %lu\n",
				       e->name, c->name, c->v[A_SLAB_SIZE],
				       c->v[A_OBJS_PER_SLAB], c->v[A_ORDER]);
		bad++;
	}
	if (si->nr != nr_caches) {
		if (verbose)
			ksft_print_msg("%d caches in %s, %d directories in %s\n",
				       si->nr, SLABINFO_PATH, nr_caches,
				       SLAB_SYSFS_PATH);
		bad++;
	}
	return bad;
}

static void test_vs_slabinfo(void)
{
	struct slabinfo si;
	int attempt, i, bad = 0, err;

	for (attempt = 0; attempt < LIVE_ATTEMPTS; attempt++) {
		if (attempt) {
			free_scan();
			if (scan_sysfs(false))
				break;
			for (i = 0; i < nr_caches; i++)
				read_cache(&caches[i], false);
		}
		err = slabinfo_read(&si, 16384, false);
		if (err) {
			if (!attempt) {
				ksft_test_result_skip("sysfs_vs_slabinfo: cannot read %s: %s\n",
						      SLABINFO_PATH,
						      strerror(-err));
				return;
			}
			break;
		}
		bad = check_slabinfo(&si, attempt == LIVE_ATTEMPTS - 1);
		slabinfo_free(&si);
		if (!bad)
			break;
	}
	ksft_test_result(!bad, "sysfs_vs_slabinfo\n");
}

/*
 * Each memfd pins a shmem inode: "objects" of its cache must grow by
 * most of them (see slabinfo_test.c for the slack).
 */
static void test_alloc_visible(void)
{
	const char *cache = "shmem_inode_cache";
	unsigned long before = 0, after = 0;
	int fds[MEMFDS_MAX];
	int nr, got = 0, attempt;
	bool ok = false;

	/* Without CONFIG_SLUB_DEBUG "objects" counts nothing (upstream too). */
	if (!slub_debug) {
		ksft_test_result_skip("sysfs_alloc_visible: no CONFIG_SLUB_DEBUG\n");
		return;
	}
	if (read_attr_ulong(cache, "objects", &before)) {
		ksft_test_result_skip("sysfs_alloc_visible: no %s/objects\n",
				      cache);
		return;
	}
	nr = memfds_prepare();
	if (nr < 0) {
		ksft_test_result_skip("sysfs_alloc_visible: %s\n",
				      strerror(-nr));
		return;
	}
	for (attempt = 0; attempt < 3 && !ok; attempt++) {
		if (read_attr_ulong(cache, "objects", &before))
			break;
		got = memfds_open(fds, nr);
		if (!read_attr_ulong(cache, "objects", &after))
			ok = got == nr && after >= before + nr / 2;
		memfds_close(fds, got);
	}
	ksft_print_msg("%s: objects %lu before, %lu with %d more inodes\n",
		       cache, before, after, got);
	ksft_test_result(ok, "sysfs_alloc_visible\n");
}

/*
 * CONFIG_SLUB_STATS: "<sum> C<cpu>=<n> ..." per event, the sum being the
 * per-cpu counts added up; writing 0 clears a counter.
 */
static void test_stats(void)
{
	const char *cache = "kmalloc-64";
	unsigned long sum, parts, v, before;
	char buf[4096], *p, *end;
	int cpu;

	if (read_attr(cache, "alloc_slowpath", buf, sizeof(buf)) < 0) {
		ksft_test_result_skip("sysfs_stats: no %s/alloc_slowpath (no CONFIG_SLUB_STATS)\n",
				      cache);
		return;
	}
	sum = strtoul(buf, &p, 10);
	parts = 0;
	while (*p == ' ') {
		if (sscanf(p, " C%d=%lu", &cpu, &v) != 2)
			break;
		parts += v;
		p = strchr(p + 1, ' ') ? strchr(p + 1, ' ') : p + strlen(p);
	}
	end = strchr(buf, '\n');
	if (!end || sum != parts || !sum) {
		ksft_print_msg("%s/alloc_slowpath: '%s'\n", cache, buf);
		ksft_test_result_fail("sysfs_stats: sum %lu, per-cpu parts %lu\n",
				      sum, parts);
		return;
	}
	before = sum;
	if (write_attr(cache, "alloc_slowpath", "0") ||
	    read_attr_ulong(cache, "alloc_slowpath", &sum)) {
		ksft_test_result_fail("sysfs_stats: cannot clear alloc_slowpath\n");
		return;
	}
	ksft_test_result(sum < before, "sysfs_stats: alloc_slowpath %lu, %lu after clearing\n",
			 before, sum);
}

/* cpu_partial takes a new bound, and 0 turns the cpu partial lists off. */
static void test_cpu_partial_write(void)
{
	const char *cache = "kmalloc-128";
	unsigned long old, val;
	char num[32];
	bool ok;

	if (read_attr_ulong(cache, "cpu_partial", &old) || !old) {
		ksft_test_result_skip("sysfs_cpu_partial_write: no cpu partial lists in %s\n",
				      cache);
		return;
	}
	if (write_attr(cache, "cpu_partial", "0")) {
		ksft_test_result_skip("sysfs_cpu_partial_write: cpu_partial is read-only\n");
		return;
	}
	ok = !read_attr_ulong(cache, "cpu_partial", &val) && val == 0;
	snprintf(num, sizeof(num), "%lu", old);
	ok = !write_attr(cache, "cpu_partial", num) && ok;
	ok = !read_attr_ulong(cache, "cpu_partial", &val) && val == old && ok;
	ksft_test_result(ok, "sysfs_cpu_partial_write: %s 0 then %lu\n", cache, old);
}

/*
 * 6.1 shows usersize on every cache, 6.12 only with
 * CONFIG_HARDENED_USERCOPY.  It is all caches or none: up to 6.1 it is
 * expected, later one cache that has it makes it expected of all.
 */
static bool usersize_expected(void)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;
	unsigned long v;
	int i;

	if (!uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	    (major < 6 || (major == 6 && minor <= 1)))
		return true;
	for (i = 0; i < nr_caches; i++)
		if (!read_attr_ulong(caches[i].name, "usersize", &v))
			return true;
	return false;
}

int main(void)
{
	int err;

	ksft_print_header();

	if (access(SLAB_SYSFS_PATH, F_OK))
		ksft_exit_skip("no %s: not SLUB, or no CONFIG_SYSFS\n",
			       SLAB_SYSFS_PATH);
	if (geteuid())
		ksft_exit_skip("slab attributes are readable by root only: run as root\n");

	page_size = sysconf(_SC_PAGESIZE);
	max_order = read_max_order();
	/* SLUB has /proc/slabinfo only with CONFIG_SLUB_DEBUG */
	slub_debug = !access(SLABINFO_PATH, F_OK);
	ksft_print_msg("page size %lu, highest page order %d, debug attributes %s\n",
		       page_size, max_order, slub_debug ? "expected" : "not expected");

	ksft_set_plan(NR_TESTS);
	err = scan_sysfs(true);
	if (err)
		ksft_exit_fail_msg("cannot list %s: %s\n", SLAB_SYSFS_PATH,
				   strerror(-err));
	usersize = usersize_expected();
	ksft_print_msg("usersize attributes %s\n",
		       usersize ? "expected" : "absent (not expected)");
	test_entries();
	test_attributes();
	test_geometry();
	test_node_breakdown();
	test_counts();
	test_unique_ids();
	test_aliases();
	test_vs_slabinfo();
	test_alloc_visible();
	test_stats();
	test_cpu_partial_write();
	free_scan();

	ksft_finished();
}
