// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/slab_pair: the struct page layout of the running
 * kernel, and the slab pair cmpxchg16b commits of the engine counted by
 * the position of the pair in its window (see <linux/slub_def.h>).
 *
 * Reading gives one "key value..." line each:
 *
 *   layout internal                  or "aligned"
 *   sizeof_struct_page 56
 *   cmpxchg 1                        1: caches without debug flags commit
 *                                    the pair with cmpxchg16b (0: no CX16,
 *                                    or slub_pair=bitlock)
 *   counting 1                       1: the counters below are running
 *   slabs 812 790                    per position 0 and 1: slabs allocated,
 *   commits 91234 90127              cmpxchg16b commits that succeeded,
 *   retries 12 9                     and those that failed and retried
 *
 * Writing "1" starts counting, "0" stops it.  The counters only grow.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "slub_internal.h"

DEFINE_PER_CPU(struct slab_pair_stats, slab_pair_stats);
bool slab_pair_counting __read_mostly;

static void slab_pair_stats_sum(struct slab_pair_stats *sum)
{
	int cpu, pos;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct slab_pair_stats *st = per_cpu_ptr(&slab_pair_stats, cpu);

		for (pos = 0; pos < 2; pos++) {
			sum->slabs[pos] += READ_ONCE(st->slabs[pos]);
			sum->commits[pos] += READ_ONCE(st->commits[pos]);
			sum->retries[pos] += READ_ONCE(st->retries[pos]);
		}
	}
}

static int slab_pair_show(struct seq_file *m, void *unused)
{
	struct slab_pair_stats sum;

	slab_pair_stats_sum(&sum);
	seq_printf(m, "layout %s\n",
		   IS_ENABLED(CONFIG_STRUCT_PAGE_INTERNAL_ALIGN) ?
		   "internal" : "aligned");
	seq_printf(m, "sizeof_struct_page %zu\n", sizeof(struct page));
	seq_printf(m, "cmpxchg %d\n", slub_pair_cmpxchg_enabled());
	seq_printf(m, "counting %d\n",
		   READ_ONCE(slab_pair_counting));
	seq_printf(m, "slabs %lu %lu\n", sum.slabs[0], sum.slabs[1]);
	seq_printf(m, "commits %lu %lu\n", sum.commits[0], sum.commits[1]);
	seq_printf(m, "retries %lu %lu\n", sum.retries[0], sum.retries[1]);
	return 0;
}

static int slab_pair_open(struct inode *inode, struct file *file)
{
	return single_open(file, slab_pair_show, NULL);
}

static ssize_t slab_pair_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	bool on;
	int err;

	err = kstrtobool_from_user(ubuf, count, &on);
	if (err)
		return err;
	WRITE_ONCE(slab_pair_counting, on);
	return count;
}

static const struct file_operations slab_pair_fops = {
	.open		= slab_pair_open,
	.read		= seq_read,
	.write		= slab_pair_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init slab_pair_debugfs_init(void)
{
	debugfs_create_file("slab_pair", 0600, NULL, NULL, &slab_pair_fops);
	return 0;
}
late_initcall(slab_pair_debugfs_init);
