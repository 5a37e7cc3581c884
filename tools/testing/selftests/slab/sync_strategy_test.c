// SPDX-License-Identifier: GPL-2.0
/*
 * Checks that the allocator's synchronisation strategy is the one the
 * kernel command line asked for:
 *
 *   slub_fastpath=lockless|irqoff   per-cpu fastpath: cmpxchg16b on
 *                                   (freelist, tid), or irqs off
 *   slub_pair=cmpxchg|bitlock       slab (freelist, counters) updates:
 *                                   cmpxchg16b, or a bit spinlock
 *
 * The last valid word wins and a bad value is reported in the kernel log
 * and ignored.  Every cache's /sys/kernel/slab/<cache>/sync must show the
 * choice; CPUs without cmpxchg16b always use the bit spinlock.  Caches
 * with debug flags have no fastpath and change their slabs under the
 * node's list_lock: "fastpath=none pair=list_lock".  Upstream SLUB has
 * neither parameter nor file: the checks skip there.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/klog.h>
#include <sys/stat.h>

#include "slab_util.h"

#define NR_TESTS	3
#define MAX_BAD		16

static const char *want_fastpath = "lockless";
static const char *want_pair = "cmpxchg";
static char *bad_words[MAX_BAD];
static int nr_bad;

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
		else if ((!strncmp(word, "slub_fastpath=", 14) ||
			  !strncmp(word, "slub_pair=", 10)) && nr_bad < MAX_BAD)
			bad_words[nr_bad++] = strdup(word);
	}
	free(buf);
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

		snprintf(path, sizeof(path), "%s/%s", SLAB_SYSFS_PATH, de->d_name);
		if (de->d_name[0] == '.' || lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		caches++;
		if (debug_cache(de->d_name))
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
		if (strcmp(got, want)) {
			ksft_print_msg("%s/sync is '%s', expected '%s'\n",
				       de->d_name, got, want);
			bad++;
		}
	}
	closedir(dir);
	ksft_test_result(caches && !bad, "sync_attr: %d caches show fastpath=%s pair=%s\n",
			 caches, want_fastpath, want_pair);
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

/* The boot banner names the strategy too. */
static void test_banner(char *log, bool cx16)
{
	const char *fast = strcmp(want_fastpath, "irqoff") ? "lockless" : "irq-off";
	const char *pair = cx16 && !strcmp(want_pair, "cmpxchg") ? "cmpxchg16b" : "bit-locked";
	char want[128], line[512];
	const char *start;

	start = log ? strstr(log, "SLUB engine") : NULL;
	if (!start) {
		ksft_test_result_fail("sync_banner: no SLUB engine line in the kernel log\n");
		return;
	}
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(start, "\n"), start);
	snprintf(want, sizeof(want), "%s cpu freelists, slab pair %s", fast, pair);
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

	parse_cmdline();
	cx16 = cpu_has_cx16();
	log = read_kernel_log();

	test_sync_attr(cx16);
	test_banner(log, cx16);
	test_bad_values(log);

	free(log);
	ksft_finished();
}
