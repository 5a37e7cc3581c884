// SPDX-License-Identifier: GPL-2.0
/*
 * Checks that the cache merge policy on the kernel command line took
 * effect, as seen in /sys/kernel/slab: a merged cache is reached through
 * symlinks to a ":[flags-]<size>" directory, an unmerged one has a
 * directory of its own name with no aliases.
 *
 *   slab_nomerge / slub_nomerge   no symlinks, no aliases anywhere
 *   slab_merge / slub_merge       caches merge (the default with
 *                                 CONFIG_SLAB_MERGE_DEFAULT=y)
 *   slab_nomerge=<a>[,<b*>...]    the named caches stand alone, the
 *                                 others still merge
 *
 * Of the global words the last one wins.  slub_debug= (or slab_debug=)
 * flags that apply to every cache and add red zones, poison, tracking,
 * tracing or failslab keep all caches apart, whatever the merge words
 * say.  Upstream reads "slab_nomerge=<list>" as plain slab_nomerge; the
 * per-cache form and the /sys/kernel/slab/<cache>/merge file are checked
 * only where that file exists, and skipped elsewhere.  Malformed input
 * must be reported in the kernel log and leave the boot running.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fnmatch.h>
#include <sys/klog.h>
#include <sys/stat.h>

#include "slab_util.h"

#define NR_TESTS	5
#define MAX_ENTRIES	1024
#define MAX_PATTERNS	64

struct entry {
	char name[256];
	bool link;		/* an alias symlink */
	char target[256];	/* for a link: the directory it points to */
};

static struct entry entries[MAX_ENTRIES];
static int nr_entries;

static char *patterns[MAX_PATTERNS];	/* valid slab_nomerge= names */
static int nr_patterns;
static char *bad_words[MAX_PATTERNS];	/* malformed merge words */
static int nr_bad;
static bool global_nomerge;		/* upstream's reading */
static bool debug_all;		/* slub_debug= keeps every cache apart */
static bool list_given;

static bool has_merge_attr;		/* the per-cache policy exists */

/*
 * Mirror of the kernel's grammar: no empty name, '*' only last and not
 * alone, at most NOMERGE_MAX_NAMES names in all lists together.
 */
#define NOMERGE_MAX_NAMES	16

static bool list_valid(const char *list, int names_before)
{
	const char *p = list;
	int n = names_before;

	for (;;) {
		size_t len = strcspn(p, ",");
		const char *star = memchr(p, '*', len);

		if (!len || (star && star != p + len - 1) || (len == 1 && star))
			return false;
		if (++n > NOMERGE_MAX_NAMES)
			return false;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

/* Remember a bad word as the kernel names it: always "slab_...". */
static void add_bad_word(const char *word)
{
	char *w;

	if (nr_bad >= MAX_PATTERNS)
		return;
	w = strdup(word);
	if (w && !strncmp(w, "slub_", 5))
		w[2] = 'a';
	bad_words[nr_bad++] = w;
}

/*
 * Does slub_debug=@val give every cache flags that forbid merging?  The
 * global flags are those of the last block without a cache list; no
 * value at all means full debugging.  '-' clears the letters before it.
 */
static bool debug_stops_merging(const char *val)
{
	char buf[512], flags[64] = "", *block, *save, *dash;

	if (!*val)
		return true;
	snprintf(buf, sizeof(buf), "%s", val);
	for (block = strtok_r(buf, ";", &save); block;
	     block = strtok_r(NULL, ";", &save))
		if (!strchr(block, ','))
			snprintf(flags, sizeof(flags), "%s", block);
	dash = strrchr(flags, '-');
	return !!strpbrk(dash ? dash + 1 : flags, "zputaZPUTA");
}

static void parse_cmdline(void)
{
	char *buf = NULL, *word, *save;

	global_nomerge = false;	/* CONFIG_SLAB_MERGE_DEFAULT=y, see config */
	if (read_file("/proc/cmdline", &buf) < 0)
		ksft_exit_fail_msg("cannot read /proc/cmdline\n");
	for (word = strtok_r(buf, " \t\n", &save); word;
	     word = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(word, "slab_nomerge") || !strcmp(word, "slub_nomerge")) {
			global_nomerge = true;
		} else if (!strcmp(word, "slab_merge") || !strcmp(word, "slub_merge")) {
			global_nomerge = false;
		} else if (!strncmp(word, "slab_nomerge=", 13) ||
			   !strncmp(word, "slub_nomerge=", 13)) {
			char *list = word + 13, *name, *lsave;

			if (!has_merge_attr) {
				global_nomerge = true;	/* upstream */
				continue;
			}
			if (!list_valid(list, nr_patterns)) {
				add_bad_word(word);
				continue;
			}
			list_given = true;
			for (name = strtok_r(list, ",", &lsave); name;
			     name = strtok_r(NULL, ",", &lsave))
				if (nr_patterns < MAX_PATTERNS)
					patterns[nr_patterns++] = strdup(name);
		} else if ((!strncmp(word, "slub_debug", 10) ||
			    !strncmp(word, "slab_debug", 10)) &&
			   (!word[10] || word[10] == '=')) {
			/* slab_debug=: 6.12's name, slub_debug= its legacy one */
			debug_all = debug_stops_merging(word[10] ? word + 11 : "");
		} else if (!strncmp(word, "slab_nomerge", 12) ||
			   !strncmp(word, "slab_merge", 10)) {
			/* Upstream takes "slab_nomergeX" as slab_nomerge. */
			if (!has_merge_attr)
				global_nomerge = word[5] == 'n';
			else
				add_bad_word(word);
		}
	}
	free(buf);
}

static const char *matching_pattern(const char *name)
{
	int i;

	for (i = 0; i < nr_patterns; i++)
		if (!fnmatch(patterns[i], name, 0))
			return patterns[i];
	return NULL;
}

static void read_entries(void)
{
	struct dirent *de;
	DIR *dir = opendir(SLAB_SYSFS_PATH);

	if (!dir)
		ksft_exit_fail_msg("cannot open %s: %s\n", SLAB_SYSFS_PATH,
				   strerror(errno));
	while ((de = readdir(dir)) && nr_entries < MAX_ENTRIES) {
		struct entry *e = &entries[nr_entries];
		char path[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(e->name, sizeof(e->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS_PATH, e->name);
		if (lstat(path, &st))
			continue;
		e->link = S_ISLNK(st.st_mode);
		if (e->link) {
			n = readlink(path, e->target, sizeof(e->target) - 1);
			e->target[n > 0 ? n : 0] = '\0';
		}
		nr_entries++;
	}
	closedir(dir);
}

static long cache_aliases(const char *dir)
{
	unsigned long v;

	return read_attr_ulong(dir, "aliases", &v) ? -1 : (long)v;
}

static bool cache_merge_attr(const char *dir, char *out, size_t size)
{
	if (read_attr(dir, "merge", out, size) < 0) {
		out[0] = '\0';
		return false;
	}
	out[strcspn(out, "\n")] = '\0';
	return true;
}

/* The global word in force shows as links, or their absence. */
static void test_global(void)
{
	int i, links = 0, bad = 0;

	for (i = 0; i < nr_entries; i++) {
		if (entries[i].link) {
			links++;
		} else if (global_nomerge && cache_aliases(entries[i].name) != 0) {
			ksft_print_msg("%s has aliases under slab_nomerge\n",
				       entries[i].name);
			bad++;
		}
	}
	if ((global_nomerge || debug_all) && links)
		ksft_print_msg("%d alias links under %s\n", links,
			       debug_all ? "slub_debug or KASAN" : "slab_nomerge");
	ksft_test_result(global_nomerge || debug_all ? !links && !bad : links > 0,
			 "merge_global: policy %s, %d links\n",
			 debug_all ? "slub_debug or KASAN, no merging" :
			 global_nomerge ? "slab_nomerge" : "merge", links);
}

/* Named caches have their own directory, no aliases and say why. */
static void test_named_apart(void)
{
	int i, matched = 0, bad = 0;

	if (!has_merge_attr || !list_given || global_nomerge) {
		ksft_test_result_skip("merge_named_apart: %s\n",
				      !has_merge_attr ? "no per-cache merge policy (upstream)" :
				      !list_given ? "no slab_nomerge=<list> given" :
				      "slab_nomerge in force");
		return;
	}
	for (i = 0; i < nr_entries; i++) {
		const char *pat = matching_pattern(entries[i].name);
		char reason[256], want[300];

		if (!pat)
			continue;
		matched++;
		if (entries[i].link) {
			ksft_print_msg("%s is merged (-> %s) although named\n",
				       entries[i].name, entries[i].target);
			bad++;
			continue;
		}
		if (cache_aliases(entries[i].name) != 0) {
			ksft_print_msg("%s has aliases although named\n",
				       entries[i].name);
			bad++;
		}
		snprintf(want, sizeof(want), "no: slab_nomerge=%s", pat);
		if (!cache_merge_attr(entries[i].name, reason, sizeof(reason)) ||
		    strcmp(reason, want)) {
			ksft_print_msg("%s/merge is '%s', expected '%s'\n",
				       entries[i].name, reason, want);
			bad++;
		}
	}
	if (!matched) {
		ksft_test_result_skip("merge_named_apart: no cache matches the list\n");
		return;
	}
	ksft_test_result(!bad, "merge_named_apart: %d named caches\n", matched);
}

/* Naming some caches leaves the others merging. */
static void test_others_merge(void)
{
	int i, links = 0;

	if (!has_merge_attr || !list_given || global_nomerge || debug_all) {
		ksft_test_result_skip("merge_others_merge: %s\n",
				      !has_merge_attr ? "no per-cache merge policy (upstream)" :
				      !list_given ? "no slab_nomerge=<list> given" :
				      debug_all ? "slub_debug or KASAN keeps all caches apart" :
				      "slab_nomerge in force");
		return;
	}
	for (i = 0; i < nr_entries; i++)
		if (entries[i].link && !matching_pattern(entries[i].name))
			links++;
	ksft_test_result(links > 0, "merge_others_merge: %d links of unnamed caches\n",
			 links);
}

/* "yes" for the ":<id>" directories of mergeable caches, "no: ..." else. */
static void test_merge_attr(void)
{
	int i, dirs = 0, bad = 0;

	if (!has_merge_attr) {
		ksft_test_result_skip("merge_attr: no merge file (upstream)\n");
		return;
	}
	for (i = 0; i < nr_entries; i++) {
		const char *name = entries[i].name;
		char reason[256];
		bool yes;

		if (entries[i].link)
			continue;
		dirs++;
		if (!cache_merge_attr(name, reason, sizeof(reason))) {
			ksft_print_msg("%s: no merge file\n", name);
			bad++;
			continue;
		}
		yes = !strcmp(reason, "yes");
		if (!yes && strncmp(reason, "no: ", 4)) {
			ksft_print_msg("%s/merge: bad format '%s'\n", name, reason);
			bad++;
		} else if (yes != (name[0] == ':')) {
			ksft_print_msg("%s/merge is '%s' for a %s directory\n",
				       name, reason, name[0] == ':' ? "unique id" : "named");
			bad++;
		} else if (global_nomerge && strncmp(reason, "no: slab_nomerge", 16)) {
			ksft_print_msg("%s/merge is '%s' under slab_nomerge\n",
				       name, reason);
			bad++;
		}
	}
	ksft_test_result(dirs && !bad, "merge_attr: %d cache directories\n", dirs);
}

/*
 * Is there a kernel message "<word>: ... ignored"?  Only the start of a
 * message counts: the "Kernel command line:" line holds every word too.
 */
static bool word_reported(char *log, const char *word)
{
	size_t len = strlen(word);
	char *line, *save, *msg;

	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		msg = line;
		if (*msg == '<')		/* syslog level */
			msg += strcspn(msg, ">") + 1;
		if (*msg == '[')		/* CONFIG_PRINTK_TIME */
			msg += strcspn(msg, "]") + 1;
		msg += strspn(msg, " ");
		if (!strncmp(msg, word, len) && !strncmp(msg + len, ": ", 2) &&
		    strstr(msg + len, " ignored"))
			return true;
	}
	return false;
}

/* Bad words and unused names are reported in the kernel log. */
static void test_bad_input(void)
{
	int i, size, missing = 0, checked = 0;
	char *log;

	if (!has_merge_attr) {
		ksft_test_result_skip("merge_bad_input: no per-cache merge policy (upstream)\n");
		return;
	}
	size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	log = size > 0 ? malloc(size + 1) : NULL;
	if (log)
		size = klogctl(3, log, size);	/* SYSLOG_ACTION_READ_ALL */
	if (!log || size < 0) {
		ksft_test_result_fail("merge_bad_input: cannot read the kernel log\n");
		free(log);
		return;
	}
	log[size] = '\0';
	for (i = 0; i < nr_bad; i++, checked++) {
		char *copy = strdup(log);	/* strtok_r() cuts it up */

		if (!copy || !word_reported(copy, bad_words[i])) {
			ksft_print_msg("no kernel message \"%s: ... ignored\"\n",
				       bad_words[i]);
			missing++;
		}
		free(copy);
	}
	for (i = 0; i < nr_patterns; i++) {
		char want[300];
		int j;

		for (j = 0; j < nr_entries; j++)
			if (!fnmatch(patterns[i], entries[j].name, 0))
				break;
		if (j < nr_entries)
			continue;
		checked++;
		snprintf(want, sizeof(want), "no cache named '%s'", patterns[i]);
		if (!strstr(log, want)) {
			ksft_print_msg("no kernel message says \"%s\"\n", want);
			missing++;
		}
	}
	free(log);
	if (!checked) {
		ksft_test_result_skip("merge_bad_input: no bad merge words given\n");
		return;
	}
	ksft_test_result(!missing, "merge_bad_input: %d reports checked\n", checked);
}

int main(void)
{
	char reason[256];
	int i;

	ksft_print_header();
	if (access(SLAB_SYSFS_PATH, R_OK))
		ksft_exit_skip("%s absent: not SLUB\n", SLAB_SYSFS_PATH);
	ksft_set_plan(NR_TESTS);

	read_entries();
	for (i = 0; i < nr_entries && !has_merge_attr; i++)
		if (!entries[i].link)
			has_merge_attr = cache_merge_attr(entries[i].name, reason,
							  sizeof(reason));
	parse_cmdline();
	/* Generic KASAN gives every cache SLAB_KASAN, which never merges. */
	if (kernel_log_has("KernelAddressSanitizer initialized")) {
		ksft_print_msg("generic KASAN is on, so caches do not merge\n");
		debug_all = true;
	}

	test_global();
	test_named_apart();
	test_others_merge();
	test_merge_attr();
	test_bad_input();

	ksft_finished();
}
