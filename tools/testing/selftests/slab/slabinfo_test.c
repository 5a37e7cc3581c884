// SPDX-License-Identifier: GPL-2.0
/*
 * Checks of /proc/slabinfo: the "slabinfo - version: 2.1" format, the
 * invariants every cache line satisfies, the caches that are always
 * there, and that allocations show up in the counts.
 *
 * Counters change while the file is read, so checks of live counters
 * take a few snapshots and fail only if every snapshot is wrong.
 */
#define _GNU_SOURCE
#include "slab_util.h"

#define HEADER_LINE	"slabinfo - version: 2.1"
#define HEADER_STATS	"slabinfo - version: 2.1 (statistics)"
#define COLUMNS_LINE \
	"# name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>" \
	" : tunables <limit> <batchcount> <sharedfactor>" \
	" : slabdata <active_slabs> <num_slabs> <sharedavail>"
#define COLUMNS_STATS \
	" : globalstat <listallocs> <maxobjs> <grown> <reaped> <error>" \
	" <maxfreeable> <nodeallocs> <remotefrees> <alienoverflow>" \
	" : cpustat <allochit> <allocmiss> <freehit> <freemiss>"

#define NR_TESTS	10

static unsigned long page_size;
static int max_order = -1;	/* highest buddy allocator order, if known */
static bool is_slub;

/* Turn each run of blanks into one space, in place. */
static void squeeze_blanks(char *str)
{
	char *s, *d = str;

	for (s = str; *s; s++) {
		bool blank = *s == ' ' || *s == '\t';

		if (blank && d > str && d[-1] == ' ')
			continue;
		*d++ = blank ? ' ' : *s;
	}
	*d = '\0';
}

static void test_header(struct slabinfo *si)
{
	char cols[1024];
	bool ok = true;

	if (strcmp(si->header, HEADER_LINE) &&
	    strcmp(si->header, HEADER_STATS)) {
		ksft_print_msg("header is '%s', expected '%s'\n",
			       si->header, HEADER_LINE);
		ok = false;
	}

	snprintf(cols, sizeof(cols), "%s", si->columns);
	squeeze_blanks(cols);
	if (strcmp(cols, si->stats ? COLUMNS_LINE COLUMNS_STATS :
				     COLUMNS_LINE)) {
		ksft_print_msg("column line is '%s'\n", si->columns);
		ksft_print_msg("expected '%s'\n", COLUMNS_LINE);
		ok = false;
	}
	ksft_test_result(ok, "slabinfo_header\n");
}

static void test_lines_parse(struct slabinfo *si)
{
	bool ok = si->nr > 0 && si->bad == 0;

	/* slabinfo_read() has described each bad line */
	if (si->nr == 0)
		ksft_print_msg("no cache lines at all\n");
	if (!si->newline_end) {
		ksft_print_msg("the file does not end with a newline\n");
		ok = false;
	}
	ksft_test_result(ok, "slabinfo_lines_parse (%d caches, %d bad lines)\n",
			 si->nr, si->bad);
}

/* The shape of a cache's slabs: fixed while the cache exists. */
static void test_geometry(struct slabinfo *si)
{
	int i, bad = 0;

	for (i = 0; i < si->nr; i++) {
		struct slabinfo_entry *e = &si->e[i];
		bool ok = true;

		if (!e->objsize || !e->objperslab ||
		    !is_pow2(e->pagesperslab))
			ok = false;
		else if (e->objsize * e->objperslab >
			 e->pagesperslab * page_size)
			ok = false;
		else if (max_order >= 0 && e->pagesperslab > 1UL << max_order)
			ok = false;
		else if (is_slub && e->objperslab > SLUB_MAX_OBJS_PER_SLAB)
			ok = false;
		if (!ok) {
			ksft_print_msg("%s: objsize %lu objperslab %lu pagesperslab %lu\n",
				       e->name, e->objsize, e->objperslab,
				       e->pagesperslab);
			bad++;
		}
	}
	ksft_test_result(!bad, "slabinfo_geometry\n");
}

/*
 * Live counters.  Every slab holds at least one object and no more than
 * objperslab, the count of the cache's preferred (largest) slab; smaller
 * fallback slabs hold fewer.
 */
static int check_counts(struct slabinfo *si, bool verbose)
{
	int i, bad = 0;

	for (i = 0; i < si->nr; i++) {
		struct slabinfo_entry *e = &si->e[i];

		if (e->active_objs <= e->num_objs &&
		    e->active_slabs <= e->num_slabs &&
		    e->num_slabs <= e->num_objs &&
		    e->num_objs <= e->num_slabs * e->objperslab)
			continue;
		bad++;
		if (verbose)
			ksft_print_msg("%s: objs %lu/%lu slabs %lu/%lu objperslab %lu\n",
				       e->name, e->active_objs, e->num_objs,
				       e->active_slabs, e->num_slabs,
				       e->objperslab);
	}
	return bad;
}

/* SLUB has no tunables, and counts all its slabs as active. */
static int check_slub_fields(struct slabinfo *si, bool verbose)
{
	int i, bad = 0;

	for (i = 0; i < si->nr; i++) {
		struct slabinfo_entry *e = &si->e[i];

		if (!e->limit && !e->batchcount && !e->sharedfactor &&
		    !e->sharedavail && e->active_slabs == e->num_slabs)
			continue;
		bad++;
		if (verbose)
			ksft_print_msg("%s: tunables %lu %lu %lu shared %lu slabs %lu/%lu\n",
				       e->name, e->limit, e->batchcount,
				       e->sharedfactor, e->sharedavail,
				       e->active_slabs, e->num_slabs);
	}
	return bad;
}

/* Run @check on fresh snapshots until one passes. */
static void test_live(const char *name,
		      int (*check)(struct slabinfo *si, bool verbose))
{
	struct slabinfo si;
	int attempt, bad = -1;

	for (attempt = 0; attempt < LIVE_ATTEMPTS && bad; attempt++) {
		if (slabinfo_read(&si, 16384, false)) {
			ksft_print_msg("cannot read %s\n", SLABINFO_PATH);
			break;
		}
		bad = check(&si, false);
		if (bad && attempt == LIVE_ATTEMPTS - 1) {
			ksft_print_msg("%d caches wrong in %d snapshots in a row, the last:\n",
				       bad, LIVE_ATTEMPTS);
			check(&si, true);
		}
		slabinfo_free(&si);
	}
	ksft_test_result(!bad, "%s\n", name);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* A sorted array of the cache names of @si; NULL if out of memory. */
static char **sorted_names(struct slabinfo *si)
{
	char **names = calloc(si->nr + 1, sizeof(*names));
	int i;

	if (!names)
		return NULL;
	for (i = 0; i < si->nr; i++)
		names[i] = si->e[i].name;
	qsort(names, si->nr, sizeof(*names), cmp_names);
	return names;
}

static void test_names_unique(struct slabinfo *si)
{
	char **names = sorted_names(si);
	int i, dups = 0;

	if (!names) {
		ksft_test_result_error("slabinfo_names_unique: out of memory\n");
		return;
	}
	for (i = 1; i < si->nr; i++) {
		if (strcmp(names[i - 1], names[i]))
			continue;
		ksft_print_msg("cache '%s' is listed more than once\n",
			       names[i]);
		dups++;
	}
	free(names);
	ksft_test_result(!dups, "slabinfo_names_unique\n");
}

/*
 * The caches of struct kmem_cache and struct kmem_cache_node, and the
 * kmalloc caches that exist whatever the architecture's minimum kmalloc
 * alignment (at most 128 bytes) and page size (at least 4 KiB).
 */
static void test_known_caches(struct slabinfo *si)
{
	static const char * const known[] = {
		"kmem_cache", "kmalloc-256", "kmalloc-512", "kmalloc-1k",
		"kmalloc-2k", "kmalloc-4k",
	};
	unsigned int i;
	int missing = 0;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (slabinfo_find(si, known[i]))
			continue;
		ksft_print_msg("cache '%s' is missing\n", known[i]);
		missing++;
	}
	/* SLAB keeps its node structures in kmalloc caches. */
	if (is_slub && !slabinfo_find(si, "kmem_cache_node")) {
		ksft_print_msg("cache 'kmem_cache_node' is missing\n");
		missing++;
	}
	ksft_test_result(!missing, "slabinfo_known_caches\n");
}

/*
 * The size a kmalloc cache serves, from the last component of its name:
 * "kmalloc-96", "kmalloc-rcl-2k", "dma-kmalloc-8k", "kmalloc-cg-1M".
 */
static bool kmalloc_size(const char *name, unsigned long *size)
{
	const char *p = strrchr(name, '-');
	char *end;

	if (!strstr(name, "kmalloc-") || !p || p[1] < '0' || p[1] > '9')
		return false;
	*size = strtoul(p + 1, &end, 10);
	if (*end == 'k')
		*size <<= 10, end++;
	else if (*end == 'M')
		*size <<= 20, end++;
	return *end == '\0';
}

/* objsize is the allocated size of an object, never less than served. */
static void test_kmalloc_sizes(struct slabinfo *si)
{
	int i, bad = 0, seen = 0;
	unsigned long size;

	for (i = 0; i < si->nr; i++) {
		struct slabinfo_entry *e = &si->e[i];

		if (!kmalloc_size(e->name, &size))
			continue;
		seen++;
		if (e->objsize >= size)
			continue;
		ksft_print_msg("%s: objsize %lu is smaller than %lu\n",
			       e->name, e->objsize, size);
		bad++;
	}
	if (!seen)
		ksft_print_msg("no kmalloc caches\n");
	ksft_test_result(seen && !bad, "slabinfo_kmalloc_sizes (%d caches)\n",
			 seen);
}

/*
 * Compare the cache names of two snapshots.  Returns true if equal;
 * otherwise describes the first difference if @verbose.
 */
static bool same_names(struct slabinfo *x, struct slabinfo *y, bool verbose)
{
	char **a = sorted_names(x), **b = sorted_names(y);
	int i = 0;
	bool same = a && b && x->nr == y->nr && x->bad == y->bad;

	if (same)
		for (i = 0; i < x->nr && same; i++)
			same = !strcmp(a[i], b[i]);
	if (!same && verbose && a && b) {
		ksft_print_msg("%d caches and %d bad lines vs %d caches and %d bad lines\n",
			       x->nr, x->bad, y->nr, y->bad);
		for (i = 0; i < x->nr && i < y->nr; i++) {
			if (strcmp(a[i], b[i])) {
				ksft_print_msg("first difference: '%s' vs '%s'\n",
					       a[i], b[i]);
				break;
			}
		}
	}
	free(a);
	free(b);
	return same;
}

/*
 * Reading the file in small pieces restarts the seq_file iterator at
 * every read: it must list the same caches, each once, as a big read.
 */
static void test_small_reads(void)
{
	static const size_t chunks[] = { 1, 7, 100, 4095 };
	struct slabinfo big, small;
	unsigned int c;
	int attempt, bad = 0;
	bool same;

	for (c = 0; c < ARRAY_SIZE(chunks); c++) {
		same = false;
		for (attempt = 0; attempt < LIVE_ATTEMPTS && !same; attempt++) {
			if (slabinfo_read(&big, 1 << 20, false))
				break;
			if (slabinfo_read(&small, chunks[c], false)) {
				slabinfo_free(&big);
				break;
			}
			same = same_names(&big, &small, false);
			if (!same && attempt == LIVE_ATTEMPTS - 1) {
				ksft_print_msg("one read vs %zu-byte reads:\n",
					       chunks[c]);
				same_names(&big, &small, true);
			}
			slabinfo_free(&big);
			slabinfo_free(&small);
		}
		if (!same)
			bad++;
	}
	ksft_test_result(!bad, "slabinfo_small_reads\n");
}

/*
 * Each memfd pins a shmem inode.  Objects come from partial slabs, from
 * new slabs, or from the free objects of this CPU's slabs (counted as
 * active already); the last are few, so at least half of the new
 * inodes must show up in active_objs.
 */
static void test_alloc_visible(void)
{
	const char *cache = "shmem_inode_cache";
	unsigned long before = 0, after = 0;
	struct slabinfo_entry *e;
	struct slabinfo si;
	int fds[MEMFDS_MAX];
	int nr, got = 0, attempt;
	bool ok = false;

	if (slabinfo_read(&si, 16384, false) || !slabinfo_find(&si, cache)) {
		ksft_test_result_skip("slabinfo_alloc_visible: no %s\n", cache);
		slabinfo_free(&si);
		return;
	}
	slabinfo_free(&si);
	nr = memfds_prepare();
	if (nr < 0) {
		ksft_test_result_skip("slabinfo_alloc_visible: %s\n",
				      strerror(-nr));
		return;
	}

	for (attempt = 0; attempt < 3 && !ok; attempt++) {
		if (slabinfo_read(&si, 16384, false))
			break;
		e = slabinfo_find(&si, cache);
		before = e ? e->active_objs : 0;
		slabinfo_free(&si);

		got = memfds_open(fds, nr);
		if (!slabinfo_read(&si, 16384, false)) {
			e = slabinfo_find(&si, cache);
			after = e ? e->active_objs : 0;
			slabinfo_free(&si);
			ok = got == nr && after >= before + nr / 2;
		}
		memfds_close(fds, got);
	}
	ksft_print_msg("%s: active_objs %lu before, %lu with %d more inodes\n",
		       cache, before, after, got);
	ksft_test_result(ok, "slabinfo_alloc_visible\n");
}

int main(void)
{
	struct slabinfo si;
	int err;

	ksft_print_header();

	err = slabinfo_read(&si, 16384, true);
	if (err == -EACCES || err == -EPERM)
		ksft_exit_skip("%s is not readable: run as root\n",
			       SLABINFO_PATH);
	if (err == -ENOENT)
		ksft_exit_skip("no %s: kernel without CONFIG_SLAB or CONFIG_SLUB_DEBUG\n",
			       SLABINFO_PATH);
	if (err)
		ksft_exit_fail_msg("cannot read %s: %s\n", SLABINFO_PATH,
				   strerror(-err));
	if (!si.header || !si.columns)
		ksft_exit_fail_msg("%s has fewer than two lines\n",
				   SLABINFO_PATH);

	page_size = sysconf(_SC_PAGESIZE);
	max_order = read_max_order();
	is_slub = !access(SLAB_SYSFS_PATH, F_OK);
	ksft_print_msg("page size %lu, highest page order %d, %s\n", page_size,
		       max_order, is_slub ? "SLUB" : "not SLUB");

	ksft_set_plan(NR_TESTS);
	test_header(&si);
	test_lines_parse(&si);
	test_geometry(&si);
	test_live("slabinfo_counts", check_counts);
	if (is_slub)
		test_live("slabinfo_slub_fields", check_slub_fields);
	else
		ksft_test_result_skip("slabinfo_slub_fields: not SLUB (no %s)\n",
				      SLAB_SYSFS_PATH);
	test_names_unique(&si);
	test_known_caches(&si);
	test_kmalloc_sizes(&si);
	test_small_reads();
	test_alloc_visible();
	slabinfo_free(&si);

	ksft_finished();
}
