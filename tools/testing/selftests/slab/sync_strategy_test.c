// SPDX-License-Identifier: GPL-2.0
/*
 * Checks that the allocator's synchronisation strategy is the one the
 * kernel command line asked for:
 *
 *   slub_fastpath=lockless|irqoff   per-cpu fastpath: cmpxchg16b on
 *                                   (freelist, tid), or irqs off
 *   slub_pair=cmpxchg|bitlock       slab (freelist, counters) updates:
 *                                   cmpxchg16b, or a bit spinlock
 *   slub_frontend=array|freelist    per-cpu front end of every cache,
 *   slub_frontend=<fe>:<list>       or of the named caches
 *   slub_array_size=<n>             objects per array
 *
 * The last valid word wins and a bad value is reported in the kernel log
 * and ignored.  Every cache's /sys/kernel/slab/<cache>/sync must show the
 * choice; CPUs without cmpxchg16b always use the bit spinlock, and a
 * PREEMPT_RT kernel (uname -v) always locks its cpu freelists, whatever
 * slub_fastpath= says: "fastpath=locked".  Caches with debug flags have
 * no fastpath and change their slabs under the node's list_lock:
 * "fastpath=none pair=list_lock frontend=freelist".
 * A cache with arrays shows their size in array_size, others 0.  Upstream
 * SLUB has none of the parameters nor the file: the checks skip there.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "slab_util.h"

#define NR_TESTS	3
#define MAX_BAD		16
#define MAX_NAMES	16

static const char *want_fastpath = "lockless";
static const char *want_pair = "cmpxchg";
static const char *want_frontend = "array";
static unsigned long want_array_size;	/* 0: the default by size */
/*
 * A kernel with a front end choice: it has <cache>/array_size, its sync
 * files name the front end, or its boot banner does.  Each test then
 * wants all three, so that one of them gone is a failure, not a kernel
 * without the choice.
 */
static bool has_frontend;
static char *bad_words[MAX_BAD];
static int nr_bad;

/* slub_frontend=<fe>:<list> entries, in command line order. */
static struct {
	char *name;
	bool prefix;
	bool array;
} names[MAX_NAMES];
static int nr_names;

/* Take "array:a,b*" or "freelist:c"; false if malformed. */
static bool frontend_list(const char *arg)
{
	char *copy, *item, *save;
	bool array;
	int n = nr_names;

	if (!strncmp(arg, "array:", 6))
		array = true;
	else if (!strncmp(arg, "freelist:", 9))
		array = false;
	else
		return false;
	copy = strdup(strchr(arg, ':') + 1);
	if (!*copy || strstr(copy, ",,") || *copy == ',' ||
	    copy[strlen(copy) - 1] == ',')
		return false;
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(item);

		if (n == MAX_NAMES || !strcmp(item, "*") ||
		    memchr(item, '*', len - 1))
			return false;
		names[n].prefix = item[len - 1] == '*';
		if (names[n].prefix)
			item[len - 1] = '\0';
		names[n].name = item;
		names[n++].array = array;
	}
	nr_names = n;
	return true;
}

/* The front end the command line gives a cache; the last match wins. */
static const char *frontend_of(const char *name)
{
	const char *fe = want_frontend;
	int i;

	for (i = 0; i < nr_names; i++) {
		bool hit = names[i].prefix ?
			!strncmp(name, names[i].name, strlen(names[i].name)) :
			!strcmp(name, names[i].name);

		if (hit)
			fe = names[i].array ? "array" : "freelist";
	}
	return fe;
}

static bool frontend_word(const char *word)
{
	char *end;

	if (!strncmp(word, "slub_frontend=", 14)) {
		if (!strcmp(word + 14, "array") || !strcmp(word + 14, "freelist"))
			want_frontend = strdup(word + 14);
		else if (!frontend_list(word + 14))
			return false;
		return true;
	}
	/* slub_array_size= */
	want_array_size = strtoul(word + 16, &end, 0);
	if (*end || end == word + 16 || want_array_size < 4 ||
	    want_array_size > 1024) {
		want_array_size = 0;
		return false;
	}
	return true;
}

static void parse_cmdline(void)
{
	char *buf = NULL, *word, *save;

	if (read_file("/proc/cmdline", &buf) < 0)
		ksft_exit_fail_msg("cannot read /proc/cmdline\n");
	for (word = strtok_r(buf, " \t\n", &save); word;
	     word = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(word, "slub_fastpath=lockless") ||
		    !strcmp(word, "slub_fastpath=irqoff"))
			want_fastpath = strdup(word + 14);
		else if (!strcmp(word, "slub_pair=cmpxchg") ||
			 !strcmp(word, "slub_pair=bitlock"))
			want_pair = strdup(word + 10);
		else if ((!strncmp(word, "slub_frontend=", 14) ||
			  !strncmp(word, "slub_array_size=", 16)) &&
			 frontend_word(word))
			continue;
		else if ((!strncmp(word, "slub_fastpath=", 14) ||
			  !strncmp(word, "slub_pair=", 10) ||
			  !strncmp(word, "slub_frontend=", 14) ||
			  !strncmp(word, "slub_array_size=", 16)) &&
			 nr_bad < MAX_BAD)
			bad_words[nr_bad++] = strdup(word);
	}
	free(buf);
}

/*
 * A PREEMPT_RT kernel says so in its version string ("SMP PREEMPT_RT",
 * init/Makefile), and later ones in /sys/kernel/realtime too.
 */
static bool kernel_is_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

static bool cpu_has_cx16(void)
{
	char *buf = NULL;
	bool yes;

	if (read_file("/proc/cpuinfo", &buf) < 0)
		return false;
	yes = strstr(buf, " cx16");
	free(buf);
	return yes;
}

static bool debug_cache(const char *dir)
{
	static const char * const flags[] = {
		"sanity_checks", "red_zone", "poison", "store_user", "trace",
	};
	unsigned long v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (!read_attr_ulong(dir, flags[i], &v) && v)
			return true;
	return false;
}

/*
 * The front end and array size a cache shows agree with the command
 * line.  A merged cache's directory is named by its id, not by the name
 * it was created under, which a list would need: with a list only named
 * directories are checked.
 */
static bool frontend_ok(const char *dir, const char *got, bool debug)
{
	const char *fe = strstr(got, " frontend=");
	const char *want;
	unsigned long size;

	if (!has_frontend)
		return !fe;
	if (!fe)
		return false;
	fe += 10;
	if (debug)
		want = "freelist";
	else if (dir[0] == ':' && nr_names)
		want = fe;
	else
		want = frontend_of(dir);
	if (strcmp(fe, want))
		return false;
	if (read_attr_ulong(dir, "array_size", &size))
		return false;
	if (!strcmp(fe, "freelist"))
		return size == 0;
	return size && (!want_array_size || size == want_array_size);
}

/* Every cache directory shows the strategy in force. */
static void test_sync_attr(bool cx16)
{
	int caches = 0, bad = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir(SLAB_SYSFS_PATH);
	if (!dir) {
		ksft_test_result_fail("sync_attr: cannot open %s\n", SLAB_SYSFS_PATH);
		return;
	}
	while ((de = readdir(dir))) {
		char path[PATH_MAX], got[128], want[128];
		struct stat st;
		bool debug;

		snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS_PATH, de->d_name);
		if (de->d_name[0] == '.' || lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		caches++;
		debug = debug_cache(de->d_name);
		if (debug)
			snprintf(want, sizeof(want), "fastpath=none pair=list_lock");
		else
			snprintf(want, sizeof(want), "fastpath=%s pair=%s",
				 want_fastpath, cx16 ? want_pair : "bitlock");
		if (read_attr(de->d_name, "sync", got, sizeof(got)) < 0) {
			ksft_print_msg("%s: no sync file\n", de->d_name);
			bad++;
			continue;
		}
		got[strcspn(got, "\n")] = '\0';
		if (strncmp(got, want, strlen(want)) ||
		    got[strlen(want)] != (has_frontend ? ' ' : '\0')) {
			ksft_print_msg("%s/sync is '%s', expected '%s ...'\n",
				       de->d_name, got, want);
			bad++;
		} else if (!frontend_ok(de->d_name, got, debug)) {
			ksft_print_msg("%s/sync is '%s' (array_size wrong, or front end not %s)\n",
				       de->d_name, got, debug ? "freelist" :
				       frontend_of(de->d_name));
			bad++;
		}
	}
	closedir(dir);
	ksft_test_result(caches && !bad,
			 "sync_attr: %d caches show fastpath=%s pair=%s frontend=%s%s\n",
			 caches, want_fastpath, want_pair,
			 has_frontend ? want_frontend : "(no front end choice)",
			 nr_names ? " and the listed ones" : "");
}

static char *read_kernel_log(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log = size > 0 ? malloc(size + 1) : NULL;

	if (!log)
		return NULL;
	size = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	if (size < 0) {
		free(log);
		return NULL;
	}
	log[size] = '\0';
	return log;
}

/* Whether the engine's boot banner names a front end. */
static bool banner_has_frontend(const char *log)
{
	const char *line = log ? strstr(log, "SLUB engine") : NULL;
	const char *fe = line ? strstr(line, ", front end ") : NULL;

	return fe && fe < line + strcspn(line, "\n");
}

/* The boot banner names the strategy too. */
static void test_banner(char *log, bool cx16)
{
	const char *fast = !strcmp(want_fastpath, "irqoff") ? "irq-off" :
			   want_fastpath;
	const char *pair = cx16 && !strcmp(want_pair, "cmpxchg") ? "cmpxchg16b" : "bit-locked";
	char want[128], line[512];
	const char *start;

	start = log ? strstr(log, "SLUB engine") : NULL;
	if (!start) {
		ksft_test_result_fail("sync_banner: no SLUB engine line in the kernel log\n");
		return;
	}
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(start, "\n"), start);
	if (has_frontend)
		snprintf(want, sizeof(want), "%s cpu freelists, slab pair %s, front end %s%s",
			 fast, pair, want_frontend, nr_names ? " with a list" : "");
	else
		snprintf(want, sizeof(want), "%s cpu freelists, slab pair %s,",
			 fast, pair);
	if (!strstr(line, want))
		ksft_print_msg("banner '%s' lacks '%s'\n", line, want);
	ksft_test_result(strstr(line, want), "sync_banner: %s\n", want);
}

/* Bad values are named in the log, and the boot went on. */
static void test_bad_values(const char *log)
{
	int i, missing = 0;

	if (!nr_bad) {
		ksft_test_result_skip("sync_bad_values: none given\n");
		return;
	}
	for (i = 0; i < nr_bad; i++) {
		char want[300];

		snprintf(want, sizeof(want), "%s: unknown value ignored", bad_words[i]);
		if (!log || !strstr(log, want)) {
			ksft_print_msg("no kernel message \"%s\"\n", want);
			missing++;
		}
	}
	ksft_test_result(!missing, "sync_bad_values: %d reported\n", nr_bad);
}

int main(void)
{
	char probe[64];
	bool cx16;
	char *log;

	ksft_print_header();
	if (access(SLAB_SYSFS_PATH, R_OK))
		ksft_exit_skip("%s absent: not SLUB\n", SLAB_SYSFS_PATH);
	if (read_attr("kmalloc-64", "sync", probe, sizeof(probe)) < 0 &&
	    read_attr(":0000064", "sync", probe, sizeof(probe)) < 0)
		ksft_exit_skip("no sync file: no boot-time strategy (upstream SLUB)\n");
	ksft_set_plan(NR_TESTS);
	log = read_kernel_log();
	has_frontend = strstr(probe, " frontend=") || banner_has_frontend(log) ||
		       read_attr("kmalloc-64", "array_size", probe, sizeof(probe)) >= 0 ||
		       read_attr(":0000064", "array_size", probe, sizeof(probe)) >= 0;
	if (!has_frontend)
		ksft_print_msg("no front end in array_size, sync or the banner: %s\n",
			       "a kernel without a front end choice");

	parse_cmdline();
	if (kernel_is_rt())
		want_fastpath = "locked";
	cx16 = cpu_has_cx16();

	test_sync_attr(cx16);
	test_banner(log, cx16);
	test_bad_values(log);

	free(log);
	ksft_finished();
}
