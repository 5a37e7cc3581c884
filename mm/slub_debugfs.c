// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs of the SLUB-style engine: /sys/kernel/debug/slab/<cache>/
 * alloc_traces and free_traces, for caches that record their users
 * (slub_debug=U or SLAB_STORE_USER).  Each file lists the call sites
 * of the objects allocated now, grouped by caller and stack, in upstream
 * SLUB's format:
 *
 *   <count> <caller> age=<min>/<avg>/<max> pid=<min>-<max> cpus=<list>
 *           <stack>
 *
 * free_traces shows where those objects were last freed before their
 * current allocation ("<not-available>" when never).
 */
#include <linux/mm.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>

#include "slab.h"
#include "slub_internal.h"

static struct dentry *slab_debugfs_root;

/* One call site: a caller and its stack. */
struct trace_loc {
	unsigned long addr;
	depot_stack_handle_t stack;
	unsigned long count;
	unsigned long min_age, max_age, sum_age;
	int min_pid, max_pid;
	struct cpumask cpus;
	nodemask_t nodes;
};

struct trace_table {
	struct trace_loc *locs;
	unsigned long nr, max;
	unsigned long now;
};

static depot_stack_handle_t track_stack_of(const struct slub_track *t)
{
#ifdef CONFIG_STACKDEPOT
	return t->stack;
#else
	return 0;
#endif /* CONFIG_STACKDEPOT */
}

/* Add an object's track; runs under a list_lock, so no allocation. */
static void trace_add(const struct slub_track *t, int node, void *arg)
{
	struct trace_table *tab = arg;
	unsigned long age = tab->now - t->when;
	struct trace_loc *l;

	if (tab->nr == tab->max)
		return;
	l = &tab->locs[tab->nr++];
	l->addr = t->addr;
	l->stack = track_stack_of(t);
	l->count = 1;
	l->min_age = age;
	l->max_age = age;
	l->sum_age = age;
	l->min_pid = t->pid;
	l->max_pid = t->pid;
	cpumask_clear(&l->cpus);
	if (t->addr)
		cpumask_set_cpu(t->cpu, &l->cpus);
	nodes_clear(l->nodes);
	node_set(node, l->nodes);
}

static int trace_cmp(const void *a, const void *b)
{
	const struct trace_loc *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

/* Sort the per-object entries and fold equal call sites together. */
static void trace_merge(struct trace_table *tab)
{
	struct trace_loc *out = tab->locs, *in;
	unsigned long i;

	if (!tab->nr)
		return;
	sort(tab->locs, tab->nr, sizeof(*tab->locs), trace_cmp, NULL);
	for (i = 1; i < tab->nr; i++) {
		in = &tab->locs[i];
		if (!trace_cmp(out, in)) {
			out->count++;
			out->min_age = min(out->min_age, in->min_age);
			out->max_age = max(out->max_age, in->max_age);
			out->sum_age += in->sum_age;
			out->min_pid = min(out->min_pid, in->min_pid);
			out->max_pid = max(out->max_pid, in->max_pid);
			cpumask_or(&out->cpus, &out->cpus, &in->cpus);
			nodes_or(out->nodes, out->nodes, in->nodes);
		} else {
			*++out = *in;
		}
	}
	tab->nr = out - tab->locs + 1;
}

static void *traces_start(struct seq_file *m, loff_t *pos)
{
	struct trace_table *tab = m->private;

	return *pos < tab->nr ? &tab->locs[*pos] : NULL;
}

static void *traces_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return traces_start(m, pos);
}

static void traces_stop(struct seq_file *m, void *v)
{
}

static int traces_show(struct seq_file *m, void *v)
{
	struct trace_loc *l = v;
	unsigned long *entries;
	unsigned int i, nr = 0;

	seq_printf(m, "%7lu ", l->count);
	if (l->addr)
		seq_printf(m, "%pS", (void *)l->addr);
	else
		seq_puts(m, "<not-available>");
	if (l->min_age != l->max_age)
		seq_printf(m, " age=%lu/%lu/%lu", l->min_age,
			   l->sum_age / l->count, l->max_age);
	else
		seq_printf(m, " age=%lu", l->min_age);
	if (l->min_pid != l->max_pid)
		seq_printf(m, " pid=%d-%d", l->min_pid, l->max_pid);
	else
		seq_printf(m, " pid=%d", l->min_pid);
	if (num_online_cpus() > 1 && !cpumask_empty(&l->cpus))
		seq_printf(m, " cpus=%*pbl", cpumask_pr_args(&l->cpus));
	if (nr_online_nodes > 1 && !nodes_empty(l->nodes))
		seq_printf(m, " nodes=%*pbl", nodemask_pr_args(&l->nodes));
	seq_puts(m, "\n");
#ifdef CONFIG_STACKDEPOT
	if (l->stack)
		nr = stack_depot_fetch(l->stack, &entries);
#endif /* CONFIG_STACKDEPOT */
	for (i = 0; i < nr; i++)
		seq_printf(m, "        %pS\n", (void *)entries[i]);
	seq_puts(m, "\n");
	return 0;
}

static const struct seq_operations traces_seq_ops = {
	.start = traces_start,
	.next = traces_next,
	.stop = traces_stop,
	.show = traces_show,
};

static int traces_open(struct inode *inode, struct file *file,
		       enum slub_track_item item)
{
	struct kmem_cache *cache = inode->i_private;
	struct slub_track_visit visit = { .fn = trace_add, .item = item };
	struct kmem_cache_node *kn;
	struct trace_table *tab;
	unsigned long objs = 0;
	int node, err;

	tab = __seq_open_private(file, &traces_seq_ops, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for_each_kmem_cache_node(cache, node, kn)
		objs += slub_node_objects(kn);
	/* Room for the objects there are now, and some that come meanwhile. */
	tab->max = objs + objs / 8 + 16;
	tab->locs = kvmalloc_array(tab->max, sizeof(*tab->locs), GFP_KERNEL);
	if (!tab->locs) {
		seq_release_private(inode, file);
		return -ENOMEM;
	}
	tab->now = jiffies;
	visit.arg = tab;
	err = slub_debug_visit_tracks(cache, &visit);
	if (err) {
		kvfree(tab->locs);
		seq_release_private(inode, file);
		return err;
	}
	trace_merge(tab);
	return 0;
}

static int alloc_traces_open(struct inode *inode, struct file *file)
{
	return traces_open(inode, file, TRACK_ALLOC);
}

static int free_traces_open(struct inode *inode, struct file *file)
{
	return traces_open(inode, file, TRACK_FREE);
}

static int traces_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct trace_table *tab = m->private;

	kvfree(tab->locs);
	return seq_release_private(inode, file);
}

static const struct file_operations alloc_traces_fops = {
	.open = alloc_traces_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = traces_release,
};

static const struct file_operations free_traces_fops = {
	.open = free_traces_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = traces_release,
};

/**
 * slub_debugfs_add - give a cache that records users its trace files
 * @cache: the cache
 *
 * Before slab_debugfs_init() has run this does nothing: the initcall
 * adds the caches that exist by then.
 */
void slub_debugfs_add(struct kmem_cache *cache)
{
	struct dentry *dir;

	if (!slab_debugfs_root || !(cache->flags & SLAB_STORE_USER))
		return;
	dir = debugfs_create_dir(cache->name, slab_debugfs_root);
	debugfs_create_file("alloc_traces", 0400, dir, cache,
			    &alloc_traces_fops);
	debugfs_create_file("free_traces", 0400, dir, cache,
			    &free_traces_fops);
}

void debugfs_slab_release(struct kmem_cache *cache)
{
	debugfs_lookup_and_remove(cache->name, slab_debugfs_root);
}

static int __init slab_debugfs_init(void)
{
	struct kmem_cache *cache;

	mutex_lock(&slab_mutex);
	slab_debugfs_root = debugfs_create_dir("slab", NULL);
	list_for_each_entry(cache, &slab_caches, list)
		slub_debugfs_add(cache);
	mutex_unlock(&slab_mutex);
	return 0;
}
device_initcall(slab_debugfs_init);
