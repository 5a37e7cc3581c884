// SPDX-License-Identifier: GPL-2.0
/*
 * slabreport: print the facts about struct page that the harness report
 * needs and that no file in /proc or /sys shows: sizeof(struct page) and
 * the size of the memory map it implies.  Uses no slab internals, so it
 * builds against every tree the harness compares.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mmzone.h>

static int __init slabreport_init(void)
{
	unsigned long present = 0, spanned = 0, nr;
	int nid;

	for_each_online_node(nid) {
		present += NODE_DATA(nid)->node_present_pages;
		spanned += NODE_DATA(nid)->node_spanned_pages;
	}
	pr_info("slabreport: sizeof(struct page)=%zu alignof(struct page)=%zu\n",
		sizeof(struct page), __alignof__(struct page));
	pr_info("slabreport: present_pages=%lu spanned_pages=%lu memmap=%lu KiB\n",
		present, spanned, present * sizeof(struct page) / 1024);
#ifdef CONFIG_SPARSEMEM
	/* The memmap covers whole present sections, holes included. */
	present = 0;
	for (nr = 0; nr < NR_MEM_SECTIONS; nr++)
		if (present_section_nr(nr))
			present += PAGES_PER_SECTION;
	pr_info("slabreport: memmap_pages=%lu (present sections x %lu)\n",
		present, PAGES_PER_SECTION);
#endif /* CONFIG_SPARSEMEM */
	return 0;
}

static void __exit slabreport_exit(void)
{
}

module_init(slabreport_init);
module_exit(slabreport_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Report struct page facts for the slab harness");
