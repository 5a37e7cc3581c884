// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the debug side of the SLUB engine: slub_debug= parsing,
 * the slot layout of debug caches, their locked paths (no cpu slab, node
 * partial and full lists), red zone and poison states, and the checks on
 * free.  #included at the end of mm/slub_debug.c when
 * CONFIG_SLUB_ENGINE_KUNIT_TEST is set, to reach its static helpers.
 *
 * Reports are counted through the "slab_errors" resource that
 * slab_add_kunit_errors() looks for, so nothing reaches the console.
 */
#include <kunit/test.h>

#define KD_SIZE		64
#define KD_FLAGS	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
			 SLAB_POISON | SLAB_STORE_USER)
#define KD_MAX		256

struct kd_ctx {
	struct kmem_cache *cache;
	struct kunit_resource res;
	int errors;			/* reports counted */
	unsigned int nr;
	void *objs[KD_MAX];		/* live objects, freed at exit */
};

static int kd_init(struct kunit *test)
{
	struct kd_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	kunit_add_named_resource(test, NULL, NULL, &ctx->res, "slab_errors",
				 &ctx->errors);
	/* SLAB_NO_USER_FLAGS: exactly these flags, whatever slub_debug= says */
	ctx->cache = kmem_cache_create("slub_debug_test", KD_SIZE, 0,
				       KD_FLAGS | SLAB_NO_USER_FLAGS, NULL);
	return ctx->cache ? 0 : -ENOMEM;
}

static void kd_exit(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		kmem_cache_free(ctx->cache, ctx->objs[i]);
	kmem_cache_destroy(ctx->cache);
}

static void *kd_alloc(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	void *obj;

	do {
		KUNIT_ASSERT_LT(test, ctx->nr, (unsigned int)KD_MAX);
		obj = kmem_cache_alloc(ctx->cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj);
		ctx->objs[ctx->nr++] = obj;
		/* A KFENCE object is not ours to look into: keep, retry. */
	} while (is_kfence_address(obj));
	return obj;
}

/* Forget the last object allocated: the test frees it itself. */
static void *kd_take_last(struct kd_ctx *ctx)
{
	return ctx->objs[--ctx->nr];
}

static bool kd_bytes_are(const u8 *p, u8 val, unsigned int len)
{
	bool all;

	meta_access_begin();
	all = !memchr_inv(p, val, len);
	meta_access_end();
	return all;
}

static unsigned long kd_track_addr(struct kmem_cache *c, void *obj,
				   enum slub_track_item item)
{
	unsigned long addr;

	meta_access_begin();
	addr = obj_track(c, obj, item)->addr;
	meta_access_end();
	return addr;
}

/* Is @slab on @head, a list of a node whose list_lock the caller holds? */
static bool kd_on_list_locked(struct list_head *head, struct slab *slab)
{
	struct slab *s;

	list_for_each_entry(s, head, slab_list)
		if (s == slab)
			return true;
	return false;
}

static bool kd_on_list(struct kmem_cache_node *kn, struct list_head *head,
		       struct slab *slab)
{
	unsigned long flags;
	bool found;

	spin_lock_irqsave(&kn->list_lock, flags);
	found = kd_on_list_locked(head, slab);
	spin_unlock_irqrestore(&kn->list_lock, flags);
	return found;
}

static void kd_parse_blocks(struct kunit *test)
{
	static const char arg[] = ";;FZ,kmalloc-64,dentry;-pu,kmalloc-1*;O";
	struct debug_block b;
	const char *next;

	next = debug_block_parse(arg, &b, false);
	KUNIT_EXPECT_EQ(test, b.flags, SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE);
	KUNIT_ASSERT_NOT_NULL(test, b.caches);
	KUNIT_EXPECT_TRUE(test, debug_list_match(b.caches, b.end, "dentry"));
	KUNIT_EXPECT_TRUE(test, debug_list_match(b.caches, b.end, "kmalloc-64"));
	KUNIT_EXPECT_FALSE(test, debug_list_match(b.caches, b.end, "kmalloc-640"));
	KUNIT_EXPECT_FALSE(test, debug_list_match(b.caches, b.end, "dentr"));
	KUNIT_ASSERT_NOT_NULL(test, next);

	next = debug_block_parse(next, &b, false);
	KUNIT_EXPECT_EQ(test, b.flags, SLAB_POISON | SLAB_STORE_USER);
	KUNIT_ASSERT_NOT_NULL(test, b.caches);
	KUNIT_EXPECT_TRUE(test, debug_list_match(b.caches, b.end, "kmalloc-128"));
	KUNIT_EXPECT_TRUE(test, debug_list_match(b.caches, b.end, "kmalloc-1k"));
	/* The list ends at ';': "O" is no cache name. */
	KUNIT_EXPECT_FALSE(test, debug_list_match(b.caches, b.end, "O"));
	KUNIT_EXPECT_FALSE(test, debug_list_match(b.caches, b.end, "kmalloc-64"));
	KUNIT_ASSERT_NOT_NULL(test, next);

	next = debug_block_parse(next, &b, false);
	KUNIT_EXPECT_EQ(test, b.flags, (slab_flags_t)0);
	KUNIT_EXPECT_TRUE(test, b.no_higher_order);
	KUNIT_EXPECT_NULL(test, b.caches);
	KUNIT_EXPECT_NULL(test, next);

	/* A list without letters means full debugging for it. */
	debug_block_parse(",kmalloc-8", &b, false);
	KUNIT_EXPECT_EQ(test, b.flags, DEBUG_DEFAULT_FLAGS);
}

/* Red zones around the object, free pointer and tracks behind it. */
static void kd_layout(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;

	KUNIT_EXPECT_EQ(test, c->red_left_pad, (unsigned int)sizeof(void *));
	/* An aligned size gets a word of right red zone. */
	KUNIT_EXPECT_EQ(test, c->inuse, KD_SIZE + (unsigned int)sizeof(void *));
	/* Poisoned contents must survive: the free pointer is outside. */
	KUNIT_EXPECT_EQ(test, c->offset, c->inuse);
	KUNIT_EXPECT_GE(test, c->size, c->red_left_pad + c->inuse +
			(unsigned int)(sizeof(void *) + 2 * sizeof(struct slub_track)));
	KUNIT_EXPECT_TRUE(test, c->flags & SLUB_OBJECT_POISON);
	KUNIT_EXPECT_TRUE(test, slub_debug_cache(c));
}

/*
 * No cpu slab; an allocated object has active red zones and its track.
 * The free side is kd_states_free(), which generic KASAN skips: a skip
 * after failed expectations would hide them (the last status wins).
 */
static void kd_states(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	struct kmem_cache_cpu *pcpu;
	struct slab_pair p;
	struct slab *slab;
	u8 *obj = kd_alloc(test);

	pcpu = raw_cpu_ptr(c->cpu_slab);
	KUNIT_EXPECT_NULL(test, READ_ONCE(pcpu->slab));
	KUNIT_EXPECT_NULL(test, READ_ONCE(pcpu->freelist));
	slab = virt_to_slab(obj);
	slab_pair_read(slab, &p);
	KUNIT_EXPECT_EQ(test, (unsigned int)p.cnt.frozen, 0U);
	KUNIT_EXPECT_EQ(test, (unsigned int)p.cnt.inuse, 1U);
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj - c->red_left_pad,
					     SLUB_RED_ACTIVE, c->red_left_pad));
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj + KD_SIZE, SLUB_RED_ACTIVE,
					     c->inuse - KD_SIZE));
	KUNIT_EXPECT_NE(test, kd_track_addr(c, obj, TRACK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* A freed object has inactive red zones, poison and its free track. */
static void kd_states_free(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	u8 *obj;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "the KASAN quarantine delays the free");
	obj = kd_alloc(test);
	kmem_cache_free(c, kd_take_last(ctx));
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj - c->red_left_pad,
					     SLUB_RED_INACTIVE, c->red_left_pad));
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj, POISON_FREE, KD_SIZE - 1));
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj + KD_SIZE - 1, POISON_END, 1));
	KUNIT_EXPECT_NE(test, kd_track_addr(c, obj, TRACK_FREE), 0UL);
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* A slab with no free object is on the full list, and back when freed. */
static void kd_full_list(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	unsigned int i, per_slab = oo_objects(c->oo);
	struct kmem_cache_node *kn;
	struct slab_pair p;
	struct slab *slab;
	void *obj;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "the KASAN quarantine delays frees");
	if (per_slab > KD_MAX / 2)
		kunit_skip(test, "%u objects per slab", per_slab);
	/* Two slabs' worth: at least one slab is filled by us alone. */
	for (i = 0; i < 2 * per_slab; i++)
		kd_alloc(test);
	for (i = 0; i < ctx->nr; i++) {
		if (is_kfence_address(ctx->objs[i]))
			continue;
		slab_pair_read(virt_to_slab(ctx->objs[i]), &p);
		if (!p.freelist)
			break;
	}
	KUNIT_ASSERT_LT(test, i, ctx->nr);
	obj = ctx->objs[i];
	slab = virt_to_slab(obj);
	kn = get_node(c, slab_nid(slab));
	KUNIT_EXPECT_TRUE(test, kd_on_list(kn, &kn->full, slab));
	KUNIT_EXPECT_FALSE(test, kd_on_list(kn, &kn->partial, slab));

	ctx->objs[i] = ctx->objs[--ctx->nr];
	kmem_cache_free(c, obj);
	KUNIT_EXPECT_TRUE(test, kd_on_list(kn, &kn->partial, slab));
	KUNIT_EXPECT_FALSE(test, kd_on_list(kn, &kn->full, slab));
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* A double free is reported, refused, and leaves the counts right. */
static void kd_double_free(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct slab_pair p;
	void *keep, *obj;

	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN reports a double free first");
	keep = kd_alloc(test);
	obj = kd_alloc(test);
	kd_take_last(ctx);
	kmem_cache_free(ctx->cache, obj);
	/*
	 * With allocation profiling's debug checks (6.12), the first free
	 * of an untagged object in a boot warns, before the slab checks
	 * refuse it: harness/parse-results.py may see that warning here.
	 */
	pr_err("HARNESS: expect-splat-begin %s alloc-tag-unset?\n", test->name);
	kmem_cache_free(ctx->cache, obj);
	pr_err("HARNESS: expect-splat-end %s\n", test->name);
	/* "Object already free" and "Object at ... not freed" */
	KUNIT_EXPECT_EQ(test, ctx->errors, 2);
	slab_pair_read(virt_to_slab(keep), &p);
	KUNIT_EXPECT_EQ(test, (unsigned int)p.cnt.inuse, 1U);
	ctx->errors = 0;
	KUNIT_EXPECT_EQ(test, validate_slab_cache(ctx->cache), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* An overwritten red zone is caught on free, restored, then freed. */
static void kd_redzone_on_free(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	u8 *obj;

	/* KASAN takes the object at its first free, whatever we say. */
	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN owns the object once it is freed");
	obj = kd_alloc(test);

	meta_access_begin();
	obj[KD_SIZE] = 0x42;
	meta_access_end();
	kmem_cache_free(ctx->cache, obj);
	/* report, restore, not freed */
	KUNIT_EXPECT_EQ(test, ctx->errors, 3);
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj + KD_SIZE, SLUB_RED_ACTIVE,
					     ctx->cache->inuse - KD_SIZE));
	/* Still allocated: kd_exit() frees it, now cleanly. */
	ctx->errors = 0;
	KUNIT_EXPECT_EQ(test, validate_slab_cache(ctx->cache), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* Bulk allocation of a debug cache goes through the checked path. */
static void kd_bulk(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	void *objs[40];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(c, GFP_KERNEL,
						    ARRAY_SIZE(objs), objs),
			(int)ARRAY_SIZE(objs));
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		KUNIT_EXPECT_TRUE(test, is_kfence_address(objs[i]) ||
				  kd_bytes_are((u8 *)objs[i] + KD_SIZE,
					       SLUB_RED_ACTIVE, c->inuse - KD_SIZE));
	kmem_cache_free_bulk(c, ARRAY_SIZE(objs), objs);
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/* So does the bulk free; generic KASAN skips it, before any check. */
static void kd_bulk_free(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	void *objs[40], *kept[40];
	unsigned int i;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "the KASAN quarantine delays the free");
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(c, GFP_KERNEL,
						    ARRAY_SIZE(objs), objs),
			(int)ARRAY_SIZE(objs));
	/* The bulk free may clear the array as it goes. */
	memcpy(kept, objs, sizeof(kept));
	kmem_cache_free_bulk(c, ARRAY_SIZE(objs), objs);
	for (i = 0; i < ARRAY_SIZE(kept); i++)
		KUNIT_EXPECT_TRUE(test, is_kfence_address(kept[i]) ||
				  kd_bytes_are((u8 *)kept[i] + KD_SIZE,
					       SLUB_RED_INACTIVE, c->inuse - KD_SIZE));
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

/*
 * usercopy: a pointer's offset into the object, past the left red zone;
 * a KFENCE object has none, so offset 0 of it is no red zone hit.  KFENCE
 * is in no profile of this tree: the KFENCE case is given by hand.
 */
static void kd_obj_offset(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;

	KUNIT_ASSERT_GT(test, c->red_left_pad, 0U);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, 0, false), -1L);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, c->red_left_pad - 1, false), -1L);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, c->red_left_pad, false), 0L);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, c->red_left_pad + 5, false), 5L);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, 0, true), 0L);
	KUNIT_EXPECT_EQ(test, slub_obj_offset(c, 5, true), 5L);
}

#ifdef CONFIG_PRINTK
/*
 * kmem_dump_obj(): kp_objp is the slot, kp_data_offset the size of the
 * left red zone, whatever byte of the slot the pointer is at.
 */
static void kd_obj_info(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	struct kmem_obj_info kp;
	u8 *obj = kd_alloc(test);
	struct slab *slab = virt_to_slab(obj);
	static const int at[] = { 0, 5, KD_SIZE - 1, -1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		memset(&kp, 0, sizeof(kp));
		__kmem_obj_info(&kp, obj + at[i], slab);
		KUNIT_EXPECT_PTR_EQ(test, kp.kp_slab_cache, c);
		KUNIT_EXPECT_PTR_EQ(test, kp.kp_objp,
				    (void *)(obj - c->red_left_pad));
		KUNIT_EXPECT_EQ_MSG(test, kp.kp_data_offset,
				    (unsigned long)c->red_left_pad,
				    "pointer at object + %d", at[i]);
	}
}
#else
static void kd_obj_info(struct kunit *test)
{
	kunit_skip(test, "CONFIG_PRINTK is not set");
}
#endif /* CONFIG_PRINTK */

/*
 * With init_on_free (and not init_on_alloc), objects from a bulk
 * allocation of a debug cache carry no free pointer, as single ones.
 */
static void kd_bulk_wipe(struct kunit *test)
{
	struct kmem_cache *c;
	void *objs[20];
	unsigned int i;

	/* Red zones only: no poison, which would take init_on_free's place. */
	c = kmem_cache_create("slub_debug_test_wipe", KD_SIZE, 0,
			      SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE |
			      SLAB_NO_USER_FLAGS, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	if (!slab_want_init_on_free(c)) {
		kmem_cache_destroy(c);
		kunit_skip(test, "needs init_on_free=1 on the kernel command line");
	}
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(c, GFP_KERNEL,
						    ARRAY_SIZE(objs), objs),
			(int)ARRAY_SIZE(objs));
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		KUNIT_EXPECT_TRUE_MSG(test, is_kfence_address(objs[i]) ||
				      kd_bytes_are((u8 *)fp_slot(c, objs[i]), 0,
						   sizeof(void *)),
				      "object %u keeps its free pointer", i);
	kmem_cache_free_bulk(c, ARRAY_SIZE(objs), objs);
	kmem_cache_destroy(c);
}

#ifdef CONFIG_DEBUG_FS
static void kd_visit_nothing(const struct slub_track *t, int node, void *arg)
{
}

/*
 * A corrupt freelist head cleared by a walk (here the alloc_traces one)
 * takes the slab off the partial list: the next allocation must not find
 * a slab without objects there.
 */
static void kd_freelist_cleared(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	struct slub_track_visit v = {
		.fn = kd_visit_nothing,
		.item = TRACK_ALLOC,
	};
	struct kmem_cache_node *kn;
	struct slab_pair orig, p;
	bool on_partial, on_full;
	unsigned long flags;
	struct slab *slab;
	void *obj;

	obj = kd_alloc(test);
	slab = virt_to_slab(obj);
	kn = get_node(c, slab_nid(slab));
	spin_lock_irqsave(&kn->list_lock, flags);
	slab_pair_read(slab, &orig);
	p = orig;
	p.freelist = slab_address(slab) + 1;
	slab_pair_set(slab, &p);
	spin_unlock_irqrestore(&kn->list_lock, flags);

	slub_debug_visit_tracks(c, &v);
	/* Look, then put the slab back as it was before any assertion. */
	spin_lock_irqsave(&kn->list_lock, flags);
	slab_pair_read(slab, &p);
	on_partial = kd_on_list_locked(&kn->partial, slab);
	on_full = kd_on_list_locked(&kn->full, slab);
	slab_pair_set(slab, &orig);
	if (!on_partial) {
		list_del(&slab->slab_list);
		node_add_partial(kn, slab, false);
	}
	spin_unlock_irqrestore(&kn->list_lock, flags);

	KUNIT_EXPECT_GT(test, ctx->errors, 0);
	KUNIT_EXPECT_NULL(test, p.freelist);
	KUNIT_EXPECT_FALSE(test, on_partial);
	KUNIT_EXPECT_TRUE(test, on_full);
	ctx->errors = 0;
	KUNIT_EXPECT_EQ(test, validate_slab_cache(c), 0L);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}
#else
static void kd_freelist_cleared(struct kunit *test)
{
	kunit_skip(test, "CONFIG_DEBUG_FS is not set");
}
#endif /* CONFIG_DEBUG_FS */

/*
 * An empty slab is freed when the node has min_partial partial slabs,
 * itself included, as for the other caches; kept below that.
 */
static void kd_min_partial(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	struct kmem_cache *c = ctx->cache;
	struct kmem_cache_node *kn;
	struct slab *slab;
	void *obj;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		kunit_skip(test, "the KASAN quarantine delays frees");
	c->min_partial = 1;
	obj = kd_alloc(test);
	slab = virt_to_slab(obj);
	kn = get_node(c, slab_nid(slab));
	KUNIT_ASSERT_EQ(test, kn->nr_partial, 1UL);
	KUNIT_ASSERT_EQ(test, slub_node_slabs(kn), 1UL);
	kmem_cache_free(c, kd_take_last(ctx));
	KUNIT_EXPECT_EQ(test, kn->nr_partial, 0UL);
	KUNIT_EXPECT_EQ(test, slub_node_slabs(kn), 0UL);

	c->min_partial = 2;
	obj = kd_alloc(test);
	slab = virt_to_slab(obj);
	kn = get_node(c, slab_nid(slab));
	kmem_cache_free(c, kd_take_last(ctx));
	KUNIT_EXPECT_EQ(test, kn->nr_partial, 1UL);
	KUNIT_EXPECT_EQ(test, slub_node_slabs(kn), 1UL);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}

#ifdef CONFIG_SYSFS
/*
 * Writing 1 to "validate" fails with -EIO when validation found errors,
 * and succeeds once they are repaired.  A red zone overwrite of a live
 * object keeps it clear of KASAN's quarantine.
 */
static ssize_t kd_validate(struct kd_ctx *ctx)
{
	return slub_sysfs_store(ctx->cache, "validate", "1\n");
}

static void kd_validate_store(struct kunit *test)
{
	struct kd_ctx *ctx = test->priv;
	u8 *obj = kd_alloc(test);

	KUNIT_EXPECT_EQ(test, kd_validate(ctx), (ssize_t)2);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
	meta_access_begin();
	obj[KD_SIZE] = 0x42;
	meta_access_end();
	KUNIT_EXPECT_EQ(test, kd_validate(ctx), (ssize_t)-EIO);
	KUNIT_EXPECT_GT(test, ctx->errors, 0);
	/* Validation restored the red zone. */
	KUNIT_EXPECT_TRUE(test, kd_bytes_are(obj + KD_SIZE, SLUB_RED_ACTIVE,
					     ctx->cache->inuse - KD_SIZE));
	ctx->errors = 0;
	KUNIT_EXPECT_EQ(test, kd_validate(ctx), (ssize_t)2);
	KUNIT_EXPECT_EQ(test, ctx->errors, 0);
}
#endif /* CONFIG_SYSFS */

static struct kunit_case kd_cases[] = {
	KUNIT_CASE(kd_parse_blocks),
	KUNIT_CASE(kd_layout),
	KUNIT_CASE(kd_states),
	KUNIT_CASE(kd_states_free),
	KUNIT_CASE(kd_full_list),
	KUNIT_CASE(kd_double_free),
	KUNIT_CASE(kd_redzone_on_free),
	KUNIT_CASE(kd_bulk),
	KUNIT_CASE(kd_obj_offset),
	KUNIT_CASE(kd_obj_info),
	KUNIT_CASE(kd_bulk_wipe),
	KUNIT_CASE(kd_freelist_cleared),
	KUNIT_CASE(kd_min_partial),
	KUNIT_CASE(kd_bulk_free),
#ifdef CONFIG_SYSFS
	KUNIT_CASE(kd_validate_store),
#endif /* CONFIG_SYSFS */
	{}
};

static struct kunit_suite kd_suite = {
	.name = "slub_debug_engine",
	.init = kd_init,
	.exit = kd_exit,
	.test_cases = kd_cases,
};

kunit_test_suite(kd_suite);
