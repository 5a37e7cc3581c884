/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the slab selftests: reading whole files, parsing
 * /proc/slabinfo and reading /sys/kernel/slab attributes.
 */
#ifndef SLAB_SELFTEST_UTIL_H
#define SLAB_SELFTEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "../kselftest.h"

/* Overridable to run the checks against a copy */
#ifndef SLABINFO_PATH
#define SLABINFO_PATH	"/proc/slabinfo"
#endif
#ifndef SLAB_SYSFS_PATH
#define SLAB_SYSFS_PATH	"/sys/kernel/slab"
#endif

/* Attempts made before a check of live (changing) counters fails. */
#define LIVE_ATTEMPTS	5

/* The 15-bit objects field of a SLUB slab limits objects per slab. */
#define SLUB_MAX_OBJS_PER_SLAB	32767UL

/*
 * Read a whole file into a NUL terminated, malloc()ed buffer, @chunk
 * bytes per read() call.  Returns the length, or -errno.
 */
static inline long read_file_chunked(const char *path, char **out,
				     size_t chunk)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;

	for (;;) {
		ssize_t n;

		if (cap - len < chunk + 1) {
			char *nbuf;

			cap = cap ? cap * 2 : 65536;
			while (cap - len < chunk + 1)
				cap *= 2;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return len;

fail:
	close(fd);
	free(buf);
	return err;
}

static inline long read_file(const char *path, char **out)
{
	return read_file_chunked(path, out, 16384);
}

/*
 * The highest buddy allocator order: /proc/buddyinfo has "Node 0, zone
 * Normal" and then one free-block count per order on each line.
 */
static inline int read_max_order(void)
{
	char *buf = NULL, *tok, *save;
	int n = 0;

	if (read_file("/proc/buddyinfo", &buf) < 0)
		return -1;
	tok = strchr(buf, '\n');
	if (tok)
		*tok = '\0';
	for (tok = strtok_r(buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		n++;
	free(buf);
	return n > 4 ? n - 5 : -1;
}

static inline bool is_pow2(unsigned long x)
{
	return x && !(x & (x - 1));
}

/* Parse a whole token as an unsigned decimal number. */
static inline bool parse_ulong(const char *s, unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*val = strtoul(s, &end, 10);
	return !errno && *end == '\0';
}

/* One cache line of /proc/slabinfo. */
struct slabinfo_entry {
	char *name;
	unsigned long active_objs;
	unsigned long num_objs;
	unsigned long objsize;
	unsigned long objperslab;
	unsigned long pagesperslab;
	unsigned long limit;
	unsigned long batchcount;
	unsigned long sharedfactor;
	unsigned long active_slabs;
	unsigned long num_slabs;
	unsigned long sharedavail;
};

struct slabinfo {
	char *text;		/* the file as read */
	char *header;		/* its first line */
	char *columns;		/* its second line */
	struct slabinfo_entry *e;
	int nr;			/* cache lines that parsed */
	int bad;		/* cache lines that did not */
	bool stats;		/* "(statistics)" format of CONFIG_DEBUG_SLAB */
	bool newline_end;	/* the file ends with a newline */
};

#define SLABINFO_FIELDS		16	/* name, 5 + 3 + 3 numbers, 4 separators */
#define SLABINFO_STATS_FIELDS	(SLABINFO_FIELDS + 2 + 9 + 2 + 4)
#define SLABINFO_MAX_FIELDS	SLABINFO_STATS_FIELDS

static inline void slabinfo_free(struct slabinfo *si)
{
	free(si->text);
	free(si->e);
	memset(si, 0, sizeof(*si));
}

/*
 * Split @line in place into at most @max whitespace separated tokens.
 * Returns the number of tokens, or max + 1 if there are more.
 */
static inline int split_tokens(char *line, char **tok, int max)
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(line, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = t;
	}
	return n;
}

/*
 * Parse one cache line.  Returns NULL on success, otherwise a static
 * description of what is wrong.
 */
static inline const char *slabinfo_parse_line(char *line, bool stats,
					      struct slabinfo_entry *e)
{
	static const int num_idx[] = { 1, 2, 3, 4, 5, 8, 9, 10, 13, 14, 15 };
	unsigned long *num[] = {
		&e->active_objs, &e->num_objs, &e->objsize, &e->objperslab,
		&e->pagesperslab, &e->limit, &e->batchcount, &e->sharedfactor,
		&e->active_slabs, &e->num_slabs, &e->sharedavail,
	};
	char *tok[SLABINFO_MAX_FIELDS];
	int n, i;

	n = split_tokens(line, tok, SLABINFO_MAX_FIELDS);
	if (n != (stats ? SLABINFO_STATS_FIELDS : SLABINFO_FIELDS))
		return "wrong number of fields";
	if (strcmp(tok[6], ":") || strcmp(tok[7], "tunables") ||
	    strcmp(tok[11], ":") || strcmp(tok[12], "slabdata"))
		return "missing ': tunables' or ': slabdata'";
	for (i = 0; i < 11; i++)
		if (!parse_ulong(tok[num_idx[i]], num[i]))
			return "a field is not a decimal number";
	if (stats) {
		if (strcmp(tok[16], ":") || strcmp(tok[17], "globalstat") ||
		    strcmp(tok[27], ":") || strcmp(tok[28], "cpustat"))
			return "missing ': globalstat' or ': cpustat'";
		for (i = 18; i < n; i++) {
			unsigned long v;

			if (i != 27 && i != 28 && !parse_ulong(tok[i], &v))
				return "a statistics field is not a number";
		}
	}
	e->name = tok[0];
	return NULL;
}

/*
 * Read and parse /proc/slabinfo, @chunk bytes per read().  Lines that do
 * not parse are reported through ksft_print_msg() if @verbose and
 * counted in si->bad.  Returns 0, or -errno if the file cannot be read.
 */
static inline int slabinfo_read(struct slabinfo *si, size_t chunk,
				bool verbose)
{
	char *line, *next;
	long len;
	int cap = 0;

	memset(si, 0, sizeof(*si));
	len = read_file_chunked(SLABINFO_PATH, &si->text, chunk);
	if (len < 0)
		return len;
	si->newline_end = len > 0 && si->text[len - 1] == '\n';

	for (line = si->text; *line; line = next) {
		struct slabinfo_entry e;
		const char *why;
		char copy[512];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);

		if (!si->header) {
			si->header = line;
			si->stats = !!strstr(line, "(statistics)");
			continue;
		}
		if (!si->columns) {
			si->columns = line;
			continue;
		}

		snprintf(copy, sizeof(copy), "%s", line);
		memset(&e, 0, sizeof(e));
		why = slabinfo_parse_line(line, si->stats, &e);
		if (why) {
			if (verbose)
				ksft_print_msg("bad slabinfo line (%s): '%s'\n",
					       why, copy);
			si->bad++;
			continue;
		}
		if (si->nr == cap) {
			struct slabinfo_entry *ne;

			cap = cap ? cap * 2 : 256;
			ne = realloc(si->e, cap * sizeof(*ne));
			if (!ne) {
				slabinfo_free(si);
				return -ENOMEM;
			}
			si->e = ne;
		}
		si->e[si->nr++] = e;
	}
	return 0;
}

static inline struct slabinfo_entry *slabinfo_find(struct slabinfo *si,
						   const char *name)
{
	int i;

	for (i = 0; i < si->nr; i++)
		if (!strcmp(si->e[i].name, name))
			return &si->e[i];
	return NULL;
}

/*
 * Read attribute @attr of the cache directory @dir (relative to
 * /sys/kernel/slab) into @buf.  Returns the length read, or -errno.
 */
static inline long read_attr(const char *dir, const char *attr,
			     char *buf, size_t size)
{
	char path[PATH_MAX];
	long total = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", SLAB_SYSFS_PATH, dir, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			total = -errno;
			break;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	if (total >= 0)
		buf[total] = '\0';
	return total;
}

/* Does the kernel log (what the ring buffer still holds) contain @s? */
static inline bool kernel_log_has(const char *s)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log = size > 0 ? malloc(size + 1) : NULL;
	bool found = false;

	if (log) {
		size = klogctl(3, log, size);	/* SYSLOG_ACTION_READ_ALL */
		if (size >= 0) {
			log[size] = '\0';
			found = strstr(log, s);
		}
		free(log);
	}
	return found;
}

/*
 * Write @val to attribute @attr of the cache directory @dir.  Returns 0,
 * or -errno.
 */
static inline int write_attr(const char *dir, const char *attr,
			     const char *val)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", SLAB_SYSFS_PATH, dir, attr);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/*
 * Read the leading whole number of an attribute ("64\n", or a total
 * followed by a per-node breakdown: "12 N0=5 N1=7\n").
 */
static inline int read_attr_ulong(const char *dir, const char *attr,
				  unsigned long *val)
{
	char buf[4096], *end;
	long n;

	n = read_attr(dir, attr, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(buf, &end, 10);
	if (errno || (*end != '\n' && *end != ' '))
		return -EINVAL;
	return 0;
}

/* How many shmem inodes the allocation checks create. */
#define MEMFDS_MAX	2048

/*
 * Get ready to open MEMFDS_MAX memfds: check that memfd_create() works,
 * raise the open files limit and stay on the current CPU, so that only
 * one CPU's cached free objects can serve the allocations.  Returns how
 * many memfds to open, or -errno.
 */
static inline int memfds_prepare(void)
{
	struct rlimit rl;
	cpu_set_t cpus;
	int fd, cpu, nr = MEMFDS_MAX;

	fd = syscall(__NR_memfd_create, "slab_selftest", 0);
	if (fd < 0)
		return -errno;
	close(fd);

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < MEMFDS_MAX + 64) {
		rl.rlim_cur = MEMFDS_MAX + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			getrlimit(RLIMIT_NOFILE, &rl);
			nr = rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 0;
		}
	}
	if (nr < 256)
		return -EMFILE;

	cpu = sched_getcpu();
	if (cpu >= 0) {
		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	return nr;
}

/* Open up to @nr memfds into @fds.  Returns how many were opened. */
static inline int memfds_open(int *fds, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		fds[i] = syscall(__NR_memfd_create, "slab_selftest", 0);
		if (fds[i] < 0) {
			ksft_print_msg("memfd_create() failed after %d files: %s\n",
				       i, strerror(errno));
			break;
		}
	}
	return i;
}

static inline void memfds_close(int *fds, int nr)
{
	while (nr--)
		close(fds[nr]);
}

#endif /* SLAB_SELFTEST_UTIL_H */
