// SPDX-License-Identifier: GPL-2.0
/*
 * Debug side of the SLUB-style engine (CONFIG_SLUB_DEBUG): slub_debug=,
 * the locked paths of debug caches, object checks and their reports in
 * upstream SLUB's format, user tracking and validation.  Nothing here
 * runs on the fast paths.
 *
 * Debug caches
 * ------------
 * A cache with any of SLAB_DEBUG_FLAGS (slub_debug= or kmem_cache_create
 * flags) never gets a cpu slab; see slub_debug_cache().  Its slabs are
 * never frozen, and every change of their slab pair is made here under
 * the node's list_lock, by slub_debug_alloc() and slub_debug_free():
 *
 *   slab state     linked on     freelist
 *   partial        kn->partial   >= 1 object
 *   full           kn->full      NULL
 *   empty          kn->partial, or freed once nr_partial >= min_partial
 *                  (the slab itself counted, as for other caches)
 *
 * so validation under the same lock sees every slab and may repair what
 * it finds.  A slot is laid out as slot_layout() in slub_cache.c says:
 * left red zone, object, right red zone, free pointer when it is outside
 * the object, the alloc and free tracks, KASAN metadata, padding.
 *
 *   byte values        free object            allocated object
 *   red zones (Z)      SLUB_RED_INACTIVE      SLUB_RED_ACTIVE
 *   object (P)         POISON_FREE ... END    as written by its user
 *   padding (P)        POISON_INUSE           POISON_INUSE
 *
 * Checks on allocation and free need SLAB_CONSISTENCY_CHECKS (F), as
 * upstream; validation checks whatever the cache's flags make checkable.
 * What a check finds is reported ("BUG <cache> ...: <what>"), repaired
 * where that is safe ("FIX <cache>: ...") and otherwise contained: an
 * object that fails its free checks is not freed, a slab whose freelist
 * cannot be trusted is marked full and leaked.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/stackdepot.h>
#include <linux/kasan.h>
#include <linux/poison.h>
#include <linux/ctype.h>
#include <kunit/test.h>
#include <kunit/resource.h>

#include "slab.h"
#include "slub_internal.h"

#ifdef CONFIG_SLUB_DEBUG_ON
DEFINE_STATIC_KEY_TRUE(slub_debug_enabled);
#else
DEFINE_STATIC_KEY_FALSE(slub_debug_enabled);
#endif /* CONFIG_SLUB_DEBUG_ON */

/* ---- slub_debug= ---- */

#define DEBUG_DEFAULT_FLAGS	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
				 SLAB_POISON | SLAB_STORE_USER)

/* Flags for caches no block of slub_debug= names. */
static slab_flags_t slub_debug_flags __ro_after_init =
	IS_ENABLED(CONFIG_SLUB_DEBUG_ON) ? DEBUG_DEFAULT_FLAGS : 0;
/* The parameter, when one of its blocks names caches; else NULL. */
static const char *slub_debug_lists __ro_after_init;
/* slub_debug=O: drop metadata where it would raise the minimum order. */
static bool slub_debug_no_higher_order __ro_after_init;

/*
 * One ';'-separated block of slub_debug=: "<letters>[,<cache>,...]".  A
 * block with a cache list starting right after '=' or ';' (no letters)
 * means full debugging for those caches.
 */
struct debug_block {
	slab_flags_t flags;
	const char *caches;	/* start of the cache list, or NULL */
	const char *end;	/* the ';' or NUL after the block */
	bool no_higher_order;
};

static slab_flags_t debug_letter(char c, bool *no_higher_order)
{
	switch (tolower(c)) {
	case 'f':
		return SLAB_CONSISTENCY_CHECKS;
	case 'z':
		return SLAB_RED_ZONE;
	case 'p':
		return SLAB_POISON;
	case 'u':
		return SLAB_STORE_USER;
	case 't':
		return SLAB_TRACE;
	case 'a':
		return SLAB_FAILSLAB;
	case 'o':
		*no_higher_order = true;
		return 0;
	}
	return ~(slab_flags_t)0;
}

/* Parse the block at @s; return where the next one starts, or NULL. */
static const char *debug_block_parse(const char *s, struct debug_block *b,
				     bool report)
{
	slab_flags_t f;

	while (*s == ';')
		s++;
	b->flags = 0;
	b->no_higher_order = false;
	if (*s == ',')
		b->flags = DEBUG_DEFAULT_FLAGS;
	for (; *s && *s != ',' && *s != ';'; s++) {
		if (*s == '-') {
			b->flags = 0;
			continue;
		}
		f = debug_letter(*s, &b->no_higher_order);
		if (f != ~(slab_flags_t)0)
			b->flags |= f;
		else if (report)
			pr_warn("slub_debug: unknown flag '%c' ignored (known: FZPUTAO and -)\n",
				*s);
	}
	b->caches = *s == ',' ? s + 1 : NULL;
	b->end = strchrnul(s, ';');
	s = b->end;
	while (*s == ';')
		s++;
	return *s ? s : NULL;
}

/* Does the list [list, end) name @name?  "<prefix>*" names a prefix. */
static bool debug_list_match(const char *list, const char *end,
			     const char *name)
{
	size_t len = strlen(name), n;
	const char *item_end;

	for (; list < end; list = item_end + 1) {
		item_end = strchrnul(list, ',');
		if (item_end > end)
			item_end = end;
		n = item_end - list;
		if (n && list[n - 1] == '*') {
			if (!strncmp(name, list, n - 1))
				return true;
		} else if (n == len && !strncmp(name, list, n)) {
			return true;
		}
	}
	return false;
}

static int __init param_slub_debug(char *str)
{
	slab_flags_t global = DEBUG_DEFAULT_FLAGS;
	bool global_set = false, lists = false;
	struct debug_block b;
	const char *s;

	if (*str == '=')
		str++;
	else if (*str)
		return 0;	/* "slub_debugfoo": not ours */
	for (s = *str ? str : NULL; s; ) {
		s = debug_block_parse(s, &b, true);
		if (b.no_higher_order)
			slub_debug_no_higher_order = true;
		if (b.caches) {
			lists = true;
			if (b.flags & SLAB_STORE_USER)
				slub_stack_depot_early_init();
		} else {
			global = b.flags;
			global_set = true;
		}
	}
	/* A list alone changes only the caches it names. */
	if (lists) {
		if (!global_set)
			global = slub_debug_flags;
		slub_debug_lists = str;
	}
	slub_debug_flags = global;
	if (global & SLAB_STORE_USER)
		slub_stack_depot_early_init();
	if (global || slub_debug_lists)
		static_branch_enable(&slub_debug_enabled);
	else
		static_branch_disable(&slub_debug_enabled);
	if ((static_branch_unlikely(&init_on_alloc) ||
	     static_branch_unlikely(&init_on_free)) && (global & SLAB_POISON))
		pr_info("mem auto-init: SLAB_POISON will take precedence over init_on_alloc/init_on_free\n");
	return 1;
}
__setup("slub_debug", param_slub_debug);
slub_setup_alias("slab_debug", slab_debug, param_slub_debug);

/**
 * slub_cache_flags - add the slub_debug= flags of a cache
 * @flags: the flags the cache was created with
 * @name: the cache's name
 *
 * The first block of slub_debug= whose list names the cache gives its
 * flags; a cache no list names gets the global ones.  Caches created with
 * SLAB_NO_USER_FLAGS keep their own flags.
 *
 * Return: the flags to create the cache with.
 */
slab_flags_t slub_cache_flags(slab_flags_t flags, const char *name)
{
	slab_flags_t global = slub_debug_flags;
	struct debug_block b;
	const char *s;

	if (flags & SLAB_NO_USER_FLAGS)
		return flags;
	for (s = slub_debug_lists; s; ) {
		s = debug_block_parse(s, &b, false);
		if (b.caches && debug_list_match(b.caches, b.end, name))
			return flags | b.flags;
	}
	/* Debugging caches (kmemleak's) record users only when named. */
	if (flags & SLAB_NOLEAKTRACE)
		global &= ~SLAB_STORE_USER;
	return flags | global;
}

bool slub_debug_higher_order_off(void)
{
	return slub_debug_no_higher_order;
}

/* ---- Slot geometry ---- */

/* Debug metadata is outside what KASAN lets the engine touch. */
static inline void meta_access_begin(void)
{
	kasan_disable_current();
}

static inline void meta_access_end(void)
{
	kasan_enable_current();
}

static inline bool fp_outside(const struct kmem_cache *cache)
{
	return cache->offset >= cache->inuse;
}

/* Offset from the object of the tracks, just past the free pointer. */
static inline unsigned int tracks_offset(const struct kmem_cache *cache)
{
	return cache->inuse + (fp_outside(cache) ? sizeof(void *) : 0);
}

/* Offset from the object of the requested size, past the tracks. */
static inline unsigned int kmalloc_size_offset(const struct kmem_cache *cache)
{
	return tracks_offset(cache) + 2 * sizeof(struct slub_track);
}

/* Offset from the object of the padding checked under SLAB_POISON. */
static unsigned int padding_offset(struct kmem_cache *cache)
{
	unsigned int off = tracks_offset(cache);

	if (cache->flags & SLAB_STORE_USER)
		off += 2 * sizeof(struct slub_track);
	if (slub_kmalloc_redzone(cache->flags))
		off += sizeof(unsigned long);
	return off + slub_kasan_metadata_size(cache);
}

/*
 * The size the allocation of @obj asked for: object_size unless a
 * kmalloc said less (slub_debug_kmalloc_size()).
 */
static unsigned int kmalloc_size_get(struct kmem_cache *cache, void *obj)
{
	unsigned long size;

	if (!slub_kmalloc_redzone(cache->flags))
		return cache->object_size;
	meta_access_begin();
	size = *(unsigned long *)(kasan_reset_tag(obj) + kmalloc_size_offset(cache));
	meta_access_end();
	return min_t(unsigned long, size, cache->object_size);
}

static void kmalloc_size_set(struct kmem_cache *cache, void *obj,
			     unsigned long size)
{
	if (!slub_kmalloc_redzone(cache->flags))
		return;
	meta_access_begin();
	*(unsigned long *)(kasan_reset_tag(obj) + kmalloc_size_offset(cache)) = size;
	meta_access_end();
}

/**
 * slub_debug_kmalloc_size - record the size a kmalloc asked for
 * @cache: a debug cache
 * @obj: the object just allocated, or NULL
 * @size: the bytes asked for
 *
 * In a kmalloc cache with red zones and tracks, the bytes of @obj past
 * @size become red zone, checked while the object is allocated.  KASAN
 * metadata kept in the object is never red zone.
 */
void slub_debug_kmalloc_size(struct kmem_cache *cache, void *obj, size_t size)
{
	/* A KFENCE object has no slot metadata. */
	if (!obj || !slub_kmalloc_redzone(cache->flags) || is_kfence_address(obj))
		return;
	size = clamp_t(size_t, size, slub_kasan_in_object_size(cache),
		       cache->object_size);
	kmalloc_size_set(cache, obj, size);
	if (size == cache->object_size)
		return;
	meta_access_begin();
	memset(kasan_reset_tag(obj) + size, SLUB_RED_ACTIVE,
	       cache->object_size - size);
	meta_access_end();
}

/* Bytes from the object to the end of its slot. */
static inline unsigned int slot_rest(const struct kmem_cache *cache)
{
	return cache->size - cache->red_left_pad;
}

static inline void *slot_object(struct kmem_cache *cache, void *base,
				unsigned int idx)
{
	return fixup_red_left(cache, base + idx * cache->size);
}

/* Is @p NULL or the object pointer of a slot of @slab? */
static bool obj_pointer_valid(struct kmem_cache *cache, struct slab *slab,
			      const struct slab_pair *pair, void *p)
{
	void *base = slab_address(slab);
	unsigned long off;

	if (!p)
		return true;
	p = kasan_reset_tag(p);
	if (p < base + cache->red_left_pad)
		return false;
	off = p - base - cache->red_left_pad;
	return off < (unsigned long)pair->cnt.objects * cache->size &&
	       !(off % cache->size);
}

static inline struct slub_track *obj_track(struct kmem_cache *cache,
					   void *obj, enum slub_track_item item)
{
	struct slub_track *t = kasan_reset_tag(obj + tracks_offset(cache));

	return t + item;
}

/* ---- Reports ---- */

#if IS_ENABLED(CONFIG_KUNIT)
/* Count @add reports for the running KUnit test; true if it counts them. */
static bool kunit_slab_errors(int add)
{
	struct kunit_resource *res;

	if (likely(!current->kunit_test))
		return false;
	res = kunit_find_named_resource(current->kunit_test, "slab_errors");
	if (!res)
		return false;
	*(int *)res->data += add;
	kunit_put_resource(res);
	return true;
}

/**
 * slab_add_kunit_errors - count a report for the running KUnit test
 *
 * A KUnit test that provokes slab errors on purpose registers a named
 * resource "slab_errors" (an int); each report then increments it
 * instead of printing, so that the test can assert how many it caused.
 *
 * Return: true if the report was counted and must not be printed.
 */
bool slab_add_kunit_errors(void)
{
	return kunit_slab_errors(1);
}

/**
 * slub_kunit_counts_errors - whether slab error reports are being counted
 *
 * Return: true if the running KUnit test counts slab errors (has the
 * "slab_errors" resource): what only adds to a counted report, such as
 * the line of a destroy that leaves objects behind, is not printed.
 */
bool slub_kunit_counts_errors(void)
{
	return kunit_slab_errors(0);
}
#endif /* CONFIG_KUNIT */

static void report_bug_line(struct kmem_cache *cache, const char *fmt,
			    va_list args)
{
	struct va_format vaf = { .fmt = fmt };
	va_list copy;

	va_copy(copy, args);
	vaf.va = &copy;
	pr_err("=============================================================================\n");
	pr_err("BUG %s (%s): %pV\n", cache->name, print_tainted(), &vaf);
	pr_err("-----------------------------------------------------------------------------\n\n");
	va_end(copy);
}

static __printf(2, 3) void report_header(struct kmem_cache *cache,
					 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	report_bug_line(cache, fmt, args);
	va_end(args);
}

static __printf(2, 3) void report_fix(struct kmem_cache *cache,
				      const char *fmt, ...)
{
	struct va_format vaf = { .fmt = fmt };
	va_list args;

	if (slab_add_kunit_errors())
		return;
	va_start(args, fmt);
	vaf.va = &args;
	pr_err("FIX %s: %pV\n", cache->name, &vaf);
	va_end(args);
}

static void report_done(void)
{
	dump_stack();
	add_taint(TAINT_BAD_PAGE, LOCKDEP_NOW_UNRELIABLE);
}

static void print_slab_info(const struct slab *slab)
{
	struct slab_pair p;

	slab_pair_read(slab, &p);
	pr_err("Slab 0x%p objects=%u used=%u fp=0x%p flags=%pGp\n",
	       slab, p.cnt.objects, p.cnt.inuse, p.freelist,
	       &slab->__page_flags);
}

static void print_bytes(const char *label, const void *addr, unsigned int len)
{
	meta_access_begin();
	print_hex_dump(KERN_ERR, label, DUMP_PREFIX_ADDRESS, 16, 1, addr, len,
		       true);
	meta_access_end();
}

static void print_track(const char *what, const struct slub_track *t)
{
	if (!t->addr)
		return;
	pr_err("%s in %pS age=%lu cpu=%u pid=%d\n", what, (void *)t->addr,
	       jiffies - t->when, t->cpu, t->pid);
#ifdef CONFIG_STACKDEPOT
	if (t->stack)
		stack_depot_print(t->stack);
	else
		pr_err("(stack trace not available)\n");
#endif /* CONFIG_STACKDEPOT */
}

/**
 * print_tracking - print who last allocated and freed an object
 * @cache: the object's cache
 * @object: the object
 *
 * Prints nothing unless the cache records users (slub_debug=U).
 */
void print_tracking(struct kmem_cache *cache, void *object)
{
	if (!(cache->flags & SLAB_STORE_USER))
		return;
	meta_access_begin();
	print_track("Allocated", obj_track(cache, object, TRACK_ALLOC));
	print_track("Freed", obj_track(cache, object, TRACK_FREE));
	meta_access_end();
}

/* Everything about one object: tracks, slab, and a dump of its slot. */
static void print_object(struct kmem_cache *cache, struct slab *slab, u8 *obj)
{
	u8 *base = slab_address(slab);
	unsigned int pad = padding_offset(cache);
	void *fp;

	meta_access_begin();
	fp = obj_next(cache, obj);
	meta_access_end();
	print_tracking(cache, obj);
	print_slab_info(slab);
	pr_err("Object 0x%p @offset=%tu fp=0x%p\n\n", obj, obj - base, fp);
	if (cache->flags & SLAB_RED_ZONE)
		print_bytes("Redzone  ", obj - cache->red_left_pad,
			    cache->red_left_pad);
	else if (obj > base + 16)
		print_bytes("Bytes b4 ", obj - 16, 16);
	print_bytes("Object   ", obj, min_t(unsigned int, cache->object_size,
					    PAGE_SIZE));
	if (cache->flags & SLAB_RED_ZONE)
		print_bytes("Redzone  ", obj + cache->object_size,
			    cache->inuse - cache->object_size);
	if (pad < slot_rest(cache))
		print_bytes("Padding  ", obj + pad, slot_rest(cache) - pad);
}

/* A problem with one object. */
static __printf(4, 5) void report_object(struct kmem_cache *cache,
					 struct slab *slab, void *obj,
					 const char *reason, ...)
{
	va_list args;

	if (slab_add_kunit_errors())
		return;
	va_start(args, reason);
	report_bug_line(cache, reason, args);
	va_end(args);
	print_object(cache, slab, obj);
	report_done();
}

/* A problem with a slab as a whole. */
static __printf(3, 4) void report_slab(struct kmem_cache *cache,
				       struct slab *slab, const char *fmt, ...)
{
	va_list args;

	if (slab_add_kunit_errors())
		return;
	va_start(args, fmt);
	report_bug_line(cache, fmt, args);
	va_end(args);
	print_slab_info(slab);
	report_done();
}

/*
 * Check that [start, start + len) of the slot of @obj holds @value;
 * report the overwritten range and restore it if not.
 */
static bool check_bytes(struct kmem_cache *cache, struct slab *slab,
			u8 *obj, const char *what, u8 *start, u8 value,
			unsigned int len)
{
	u8 *fault, *end;

	meta_access_begin();
	fault = memchr_inv(kasan_reset_tag(start), value, len);
	meta_access_end();
	if (!fault)
		return true;
	end = start + len;
	while (end > fault && end[-1] == value)
		end--;
	if (!slab_add_kunit_errors()) {
		report_header(cache, "%s overwritten", what);
		pr_err("0x%p-0x%p @offset=%tu. First byte 0x%x instead of 0x%x\n",
		       fault, end - 1, fault - (u8 *)slab_address(slab),
		       fault[0], value);
		print_object(cache, slab, obj);
		report_done();
	}
	report_fix(cache, "Restoring %s 0x%p-0x%p=0x%x", what, fault, end - 1,
		   value);
	meta_access_begin();
	memset(fault, value, end - fault);
	meta_access_end();
	return false;
}

/* ---- Object state ---- */

/* Write the red zones and poison of a free or an allocated object. */
static void obj_init(struct kmem_cache *cache, u8 *obj, u8 val)
{
	obj = kasan_reset_tag(obj);
	meta_access_begin();
	if (cache->flags & SLAB_RED_ZONE) {
		memset(obj - cache->red_left_pad, val, cache->red_left_pad);
		memset(obj + cache->object_size, val,
		       cache->inuse - cache->object_size);
	}
	if (cache->flags & SLUB_OBJECT_POISON) {
		memset(obj, POISON_FREE, cache->object_size - 1);
		obj[cache->object_size - 1] = POISON_END;
	}
	meta_access_end();
	if (val == SLUB_RED_ACTIVE)
		kmalloc_size_set(cache, obj, cache->object_size);
}

/* The bytes of an allocated kmalloc object past the size it asked for. */
static bool kmalloc_redzone_check(struct kmem_cache *cache, struct slab *slab,
				  u8 *obj)
{
	unsigned int size = kmalloc_size_get(cache, obj);

	return size == cache->object_size ||
	       check_bytes(cache, slab, obj, "kmalloc Redzone", obj + size,
			   SLUB_RED_ACTIVE, cache->object_size - size);
}

/*
 * Check an object in the state @val says (SLUB_RED_INACTIVE: free,
 * SLUB_RED_ACTIVE: allocated).  A bad free pointer is zapped: the rest
 * of that freelist is lost, which is better than following it.
 */
static bool obj_check(struct kmem_cache *cache, struct slab *slab, u8 *obj,
		      u8 val)
{
	unsigned int pad = padding_offset(cache);
	struct slab_pair p;
	void *next;

	if (cache->flags & SLAB_RED_ZONE) {
		if (!check_bytes(cache, slab, obj, "Left Redzone",
				 obj - cache->red_left_pad, val,
				 cache->red_left_pad) ||
		    !check_bytes(cache, slab, obj, "Right Redzone",
				 obj + cache->object_size, val,
				 cache->inuse - cache->object_size))
			return false;
		if (val == SLUB_RED_ACTIVE && !kmalloc_redzone_check(cache, slab, obj))
			return false;
	} else if ((cache->flags & SLAB_POISON) &&
		   cache->object_size < cache->inuse) {
		check_bytes(cache, slab, obj, "Alignment padding",
			    obj + cache->object_size, POISON_INUSE,
			    cache->inuse - cache->object_size);
	}
	if (cache->flags & SLAB_POISON) {
		if (val == SLUB_RED_INACTIVE &&
		    (cache->flags & SLUB_OBJECT_POISON) &&
		    (!check_bytes(cache, slab, obj, "Poison", obj, POISON_FREE,
				  cache->object_size - 1) ||
		     !check_bytes(cache, slab, obj, "End Poison",
				  obj + cache->object_size - 1, POISON_END, 1)))
			return false;
		if (pad < slot_rest(cache))
			check_bytes(cache, slab, obj, "Object padding",
				    obj + pad, POISON_INUSE,
				    slot_rest(cache) - pad);
	}
	/* An allocated object's data may overlay its free pointer. */
	if (val == SLUB_RED_ACTIVE && !fp_outside(cache))
		return true;
	slab_pair_read(slab, &p);
	meta_access_begin();
	next = obj_next(cache, obj);
	meta_access_end();
	if (!obj_pointer_valid(cache, slab, &p, next)) {
		report_object(cache, slab, obj, "Freepointer corrupt");
		meta_access_begin();
		obj_set_next(cache, obj, NULL);
		meta_access_end();
		return false;
	}
	return true;
}

/* The slab itself: a slab page of this cache with sane counters. */
static bool slab_check(struct kmem_cache *cache, struct slab *slab,
		       const struct slab_pair *p)
{
	unsigned int max = min_t(unsigned int, slab_size(slab) / cache->size,
				 SLUB_MAX_OBJS);

	if (!folio_test_slab(slab_folio(slab))) {
		report_slab(cache, slab, "Not a valid slab page");
		return false;
	}
	if (p->cnt.objects > max) {
		report_slab(cache, slab, "objects %u > max %u",
			    p->cnt.objects, max);
		return false;
	}
	if (p->cnt.inuse > p->cnt.objects) {
		report_slab(cache, slab, "inuse %u > max %u",
			    p->cnt.inuse, p->cnt.objects);
		return false;
	}
	return true;
}

/* The bytes past the last slot of a poisoned cache's slab. */
static bool slab_pad_check(struct kmem_cache *cache, struct slab *slab,
			   const struct slab_pair *p)
{
	u8 *start = slab_address(slab), *pad, *fault, *end;
	unsigned int len;

	if (!(cache->flags & SLAB_POISON))
		return true;
	pad = start + p->cnt.objects * cache->size;
	end = start + slab_size(slab);
	len = end - pad;
	if (!len)
		return true;
	meta_access_begin();
	fault = memchr_inv(kasan_reset_tag(pad), POISON_INUSE, len);
	meta_access_end();
	if (!fault)
		return true;
	while (end > fault && end[-1] == POISON_INUSE)
		end--;
	if (!slab_add_kunit_errors()) {
		report_header(cache, "Padding overwritten. 0x%p-0x%p @offset=%tu",
			      fault, end - 1, fault - start);
		print_slab_info(slab);
		print_bytes("Padding ", pad, len);
		report_done();
	}
	report_fix(cache, "Restoring Padding 0x%p-0x%p=0x%x", fault, end - 1,
		   POISON_INUSE);
	meta_access_begin();
	memset(fault, POISON_INUSE, end - fault);
	meta_access_end();
	return false;
}

/* ---- User tracking ---- */

#define TRACK_DEPTH	16

/* Save the caller's stack, if the cache records users. */
static depot_stack_handle_t track_stack(struct kmem_cache *cache)
{
#ifdef CONFIG_STACKDEPOT
	unsigned long entries[TRACK_DEPTH];
	unsigned int nr;

	if (!(cache->flags & SLAB_STORE_USER))
		return 0;
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 3);
	return stack_depot_save(entries, nr, GFP_NOWAIT);
#else
	return 0;
#endif /* CONFIG_STACKDEPOT */
}

static void track_set(struct kmem_cache *cache, void *obj,
		      enum slub_track_item item, unsigned long addr,
		      depot_stack_handle_t stack)
{
	struct slub_track *t;

	if (!(cache->flags & SLAB_STORE_USER))
		return;
	meta_access_begin();
	t = obj_track(cache, obj, item);
	t->addr = addr;
#ifdef CONFIG_STACKDEPOT
	t->stack = stack;
#endif /* CONFIG_STACKDEPOT */
	t->cpu = raw_smp_processor_id();
	t->pid = current->pid;
	t->when = jiffies;
	meta_access_end();
}

static void trace_op(struct kmem_cache *cache, struct slab *slab,
		     const struct slab_pair *p, void *obj, bool alloc)
{
	if (!(cache->flags & SLAB_TRACE))
		return;
	pr_info("TRACE %s %s 0x%p inuse=%u fp=0x%p\n", cache->name,
		alloc ? "alloc" : "free", obj, p->cnt.inuse, p->freelist);
	if (!alloc)
		print_bytes("Object ", obj, cache->object_size);
	dump_stack();
}

#ifdef CONFIG_PRINTK
/* kmem_dump_obj(): where the object was allocated and freed. */
void slub_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *cache,
			 void *object)
{
	struct slub_track *t;

	if (!(cache->flags & SLAB_STORE_USER))
		return;
	meta_access_begin();
	t = obj_track(cache, object, TRACK_ALLOC);
	kpp->kp_ret = (void *)t->addr;
#ifdef CONFIG_STACKDEPOT
	{
		unsigned long *entries;
		unsigned int i, nr;

		nr = t->stack ? stack_depot_fetch(t->stack, &entries) : 0;
		for (i = 0; i < KS_ADDRS_COUNT && i < nr; i++)
			kpp->kp_stack[i] = (void *)entries[i];
		t = obj_track(cache, object, TRACK_FREE);
		nr = t->stack ? stack_depot_fetch(t->stack, &entries) : 0;
		for (i = 0; i < KS_ADDRS_COUNT && i < nr; i++)
			kpp->kp_free_stack[i] = (void *)entries[i];
	}
#endif /* CONFIG_STACKDEPOT */
	meta_access_end();
}
#endif /* CONFIG_PRINTK */

/* ---- The locked paths of debug caches ---- */

/* A new slab: poisoned padding, every slot free.  No lock needed. */
void slub_debug_slab_init(struct kmem_cache *cache, struct slab *slab)
{
	unsigned int i, nr = slab_objects(slab);
	void *base = slab_address(slab), *obj;

	if (cache->flags & SLAB_POISON) {
		meta_access_begin();
		memset(kasan_reset_tag(base), POISON_INUSE, slab_size(slab));
		meta_access_end();
	}
	for (i = 0; i < nr; i++) {
		obj = slot_object(cache, base, i);
		obj_init(cache, obj, SLUB_RED_INACTIVE);
		if (cache->flags & SLAB_STORE_USER) {
			meta_access_begin();
			memset(obj_track(cache, obj, TRACK_ALLOC), 0,
			       2 * sizeof(struct slub_track));
			meta_access_end();
		}
	}
}

/*
 * Walk a slab's freelist, cutting it at the first pointer that is not an
 * object of the slab.  Returns the free objects counted before @search,
 * or all of them; *@found tells whether @search was met.  Objects seen
 * are marked in @map if given; *@errors counts the cuts.
 */
static unsigned int freelist_walk_count(struct kmem_cache *cache,
					struct slab *slab, struct slab_pair *p,
					void *search, bool *found,
					unsigned long *map, int *errors)
{
	void *base = slab_address(slab), *obj = p->freelist, *prev = NULL;
	unsigned int nr = 0;

	*found = false;
	*errors = 0;
	while (obj) {
		if (obj == search) {
			*found = true;
			return nr;
		}
		/* More free objects than slots: a cycle, cut it. */
		if (nr == p->cnt.objects || !obj_pointer_valid(cache, slab, p, obj)) {
			(*errors)++;
			if (prev) {
				report_object(cache, slab, prev, "Freechain corrupt");
				meta_access_begin();
				obj_set_next(cache, prev, NULL);
				meta_access_end();
			} else {
				report_slab(cache, slab, "Freepointer corrupt");
				p->freelist = NULL;
				p->cnt.inuse = p->cnt.objects;
				slab_pair_set(slab, p);
				report_fix(cache, "Freelist cleared");
			}
			break;
		}
		if (map)
			__set_bit(__obj_to_index(cache, base, obj), map);
		prev = obj;
		meta_access_begin();
		obj = obj_next(cache, obj);
		meta_access_end();
		nr++;
	}
	return nr;
}

static unsigned int freelist_walk(struct kmem_cache *cache, struct slab *slab,
				  struct slab_pair *p, void *search,
				  bool *found, unsigned long *map)
{
	int errors;

	return freelist_walk_count(cache, slab, p, search, found, map, &errors);
}

/* Move a slab from the node's partial list to its full list. */
static void slab_mark_full_locked(struct kmem_cache_node *kn, struct slab *slab)
{
	lockdep_assert_held(&kn->list_lock);
	node_del_partial(kn, slab);
	list_add(&slab->slab_list, &kn->full);
}

/*
 * A walk of the freelist of a slab on the node's partial list may have
 * cleared it ("Freelist cleared"): take such a slab off that list, where
 * the next allocation would find no object in it.  A debug cache keeps it
 * on its full list.
 */
static void slab_unlist_cleared_locked(struct kmem_cache *cache,
				       struct kmem_cache_node *kn,
				       struct slab *slab,
				       const struct slab_pair *p)
{
	lockdep_assert_held(&kn->list_lock);
	if (p->freelist)
		return;
	if (slub_debug_cache(cache))
		slab_mark_full_locked(kn, slab);
	else
		node_del_partial(kn, slab);
}

/* A slab whose free objects cannot be trusted: keep them out of use. */
static void slab_retire_locked(struct kmem_cache *cache,
			       struct kmem_cache_node *kn, struct slab *slab,
			       struct slab_pair *p)
{
	report_fix(cache, "Marking all objects used");
	p->freelist = NULL;
	p->cnt.inuse = p->cnt.objects;
	slab_pair_set(slab, p);
	slab_mark_full_locked(kn, slab);
}

static bool alloc_checks(struct kmem_cache *cache, struct slab *slab,
			 struct slab_pair *p, void *obj)
{
	if (!(cache->flags & SLAB_CONSISTENCY_CHECKS))
		return true;
	if (!slab_check(cache, slab, p))
		return false;
	if (!obj_pointer_valid(cache, slab, p, obj)) {
		report_object(cache, slab, obj, "Freelist Pointer check fails");
		return false;
	}
	return obj_check(cache, slab, obj, SLUB_RED_INACTIVE);
}

/* Take one object from the node's partial slabs, or NULL. */
static void *debug_take_locked(struct kmem_cache *cache,
			       struct kmem_cache_node *kn, unsigned long addr,
			       depot_stack_handle_t stack)
{
	struct slab *slab, *tmp;
	struct slab_pair p;
	void *obj, *next;

	lockdep_assert_held(&kn->list_lock);
	list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list) {
		slab_pair_read(slab, &p);
		obj = p.freelist;
		if (!alloc_checks(cache, slab, &p, obj)) {
			slab_retire_locked(cache, kn, slab, &p);
			continue;
		}
		meta_access_begin();
		next = obj_next(cache, obj);
		meta_access_end();
		/* Unchecked caches still don't hand out a wild pointer. */
		if (!obj_pointer_valid(cache, slab, &p, next)) {
			report_object(cache, slab, obj, "Freepointer corrupt");
			slab_retire_locked(cache, kn, slab, &p);
			continue;
		}
		p.freelist = next;
		p.cnt.inuse++;
		slab_pair_set(slab, &p);
		if (!next)
			slab_mark_full_locked(kn, slab);
		obj_init(cache, obj, SLUB_RED_ACTIVE);
		track_set(cache, obj, TRACK_ALLOC, addr, stack);
		trace_op(cache, slab, &p, obj, true);
		return obj;
	}
	return NULL;
}

static void *debug_take_node(struct kmem_cache *cache, int node,
			     unsigned long addr, depot_stack_handle_t stack)
{
	struct kmem_cache_node *kn = get_node(cache, node);
	unsigned long flags;
	void *obj;

	if (!kn || !READ_ONCE(kn->nr_partial))
		return NULL;
	spin_lock_irqsave(&kn->list_lock, flags);
	obj = debug_take_locked(cache, kn, addr, stack);
	spin_unlock_irqrestore(&kn->list_lock, flags);
	return obj;
}

/**
 * slub_debug_alloc - allocate an object of a debug cache
 * @cache: the cache
 * @gfp: allocation flags
 * @node: node to allocate from, or NUMA_NO_NODE
 * @addr: caller, for the alloc track
 *
 * Return: the object, checked and marked allocated, or NULL.
 */
void *slub_debug_alloc(struct kmem_cache *cache, gfp_t gfp, int node,
		       unsigned long addr)
{
	depot_stack_handle_t stack = track_stack(cache);
	int start = node, nid;
	struct slab *slab;
	unsigned long flags;
	struct kmem_cache_node *kn;
	void *obj;

	stat(cache, ALLOC_SLOWPATH);
	if (node != NUMA_NO_NODE &&
	    (node >= nr_node_ids || !get_node(cache, node)))
		node = NUMA_NO_NODE;
	if (node == NUMA_NO_NODE)
		start = numa_mem_id();
	obj = debug_take_node(cache, start, addr, stack);
	if (obj)
		return obj;
	if (node == NUMA_NO_NODE) {
		for_each_kmem_cache_node(cache, nid, kn) {
			if (nid == start)
				continue;
			obj = debug_take_node(cache, nid, addr, stack);
			if (obj)
				return obj;
		}
	}
	slab = slab_new(cache, gfp, node);
	if (!slab)
		return NULL;
	stat(cache, ALLOC_SLAB);
	kn = get_node(cache, slab_nid(slab));
	spin_lock_irqsave(&kn->list_lock, flags);
	node_add_partial(kn, slab, false);
	/* NULL only if the checks fail on a new slab: give up. */
	obj = debug_take_locked(cache, kn, addr, stack);
	spin_unlock_irqrestore(&kn->list_lock, flags);
	return obj;
}

/* An object the engine took by hand (the first node structure). */
void slub_debug_mark_allocated(struct kmem_cache *cache, void *obj,
			       unsigned long addr)
{
	obj_init(cache, obj, SLUB_RED_ACTIVE);
	track_set(cache, obj, TRACK_ALLOC, addr, 0);
}

/* Is @obj, being freed to @slab, an allocated object of @cache? */
static bool free_checks(struct kmem_cache *cache, struct slab *slab,
			struct slab_pair *p, void *obj)
{
	bool found;

	if (!obj_pointer_valid(cache, slab, p, obj)) {
		report_slab(cache, slab, "Invalid object pointer 0x%p", obj);
		return false;
	}
	if (!(cache->flags & SLAB_CONSISTENCY_CHECKS)) {
		/* Freeing the freelist head again would make a cycle. */
		if (obj != p->freelist)
			return true;
		report_object(cache, slab, obj, "Object already free");
		return false;
	}
	if (!slab_check(cache, slab, p))
		return false;
	freelist_walk(cache, slab, p, obj, &found, NULL);
	if (found) {
		report_object(cache, slab, obj, "Object already free");
		return false;
	}
	return obj_check(cache, slab, obj, SLUB_RED_ACTIVE);
}

/* An object freed to a page that is no slab of @cache. */
static void free_foreign_report(struct kmem_cache *cache, struct slab *slab,
				void *obj)
{
	if (slab_add_kunit_errors())
		return;
	if (!folio_test_slab(slab_folio(slab)))
		report_header(cache, "Attempt to free object(0x%p) outside of slab",
			      obj);
	else
		report_header(cache, "Wrong slab cache: object 0x%p belongs to %s",
			      obj, slab->slab_cache ? slab->slab_cache->name :
			      "no cache");
	report_done();
}

/* Free checks of a slab going back to the page allocator. */
static void slab_release_checks(struct kmem_cache *cache, struct slab *slab)
{
	void *base = slab_address(slab);
	struct slab_pair p;
	unsigned int i;

	if (!(cache->flags & SLAB_CONSISTENCY_CHECKS))
		return;
	slab_pair_read(slab, &p);
	slab_pad_check(cache, slab, &p);
	for (i = 0; i < p.cnt.objects; i++)
		obj_check(cache, slab, slot_object(cache, base, i),
			  SLUB_RED_INACTIVE);
}

/**
 * slub_debug_free - free objects of a debug cache
 * @cache: the cache
 * @slab: the slab of all the objects
 * @head: first object of the chain
 * @tail: last object of the chain
 * @cnt: number of objects in the chain
 * @addr: caller, for the free track
 *
 * An object that fails the checks is reported and not freed.
 */
void slub_debug_free(struct kmem_cache *cache, struct slab *slab, void *head,
		     void *tail, int cnt, unsigned long addr)
{
	depot_stack_handle_t stack = track_stack(cache);
	struct kmem_cache_node *kn;
	unsigned long flags;
	struct slab_pair p;
	void *obj, *next;
	bool was_full;

	if (unlikely(!folio_test_slab(slab_folio(slab)) ||
		     slab->slab_cache != cache)) {
		free_foreign_report(cache, slab, head);
		return;
	}
	kn = get_node(cache, slab_nid(slab));
	spin_lock_irqsave(&kn->list_lock, flags);
	slab_pair_read(slab, &p);
	was_full = !p.freelist;
	for (obj = head; cnt-- > 0; obj = next) {
		meta_access_begin();
		next = obj == tail ? NULL : obj_next(cache, obj);
		meta_access_end();
		if (!free_checks(cache, slab, &p, obj)) {
			report_fix(cache, "Object at 0x%p not freed", obj);
		} else {
			trace_op(cache, slab, &p, obj, false);
			track_set(cache, obj, TRACK_FREE, addr, stack);
			obj_init(cache, obj, SLUB_RED_INACTIVE);
			meta_access_begin();
			obj_set_next(cache, obj, p.freelist);
			meta_access_end();
			p.freelist = obj;
			p.cnt.inuse--;
		}
		if (!next)
			break;
	}
	slab_pair_set(slab, &p);
	if (was_full && p.freelist) {
		list_del(&slab->slab_list);
		node_add_partial(kn, slab, true);
		stat(cache, FREE_ADD_PARTIAL);
	} else if (!was_full && !p.freelist) {
		/* A check cleared the freelist and nothing was freed after. */
		slab_mark_full_locked(kn, slab);
	}
	/* The slab counts among nr_partial, as on the other paths. */
	if (!p.cnt.inuse && kn->nr_partial >= READ_ONCE(cache->min_partial)) {
		node_del_partial(kn, slab);
		spin_unlock_irqrestore(&kn->list_lock, flags);
		slab_release_checks(cache, slab);
		slab_discard(cache, slab);
		return;
	}
	spin_unlock_irqrestore(&kn->list_lock, flags);
}

/*
 * A consistent snapshot of a slab pair that other cpus may free to: the
 * two words are read separately, so read the pair until two reads agree.
 * Under the node list_lock (or as the owner) the freelist only grows at
 * its head, a new head each time, so two equal reads saw one state.
 */
static void slab_pair_snapshot(const struct slab *slab, struct slab_pair *p)
{
	struct slab_pair again;
	int tries = 100;

	slab_pair_read(slab, p);
	while (tries--) {
		/* Order the second read after the first, as the commits write. */
		smp_rmb();
		slab_pair_read(slab, &again);
		if (again.freelist == p->freelist && again.cnt.word == p->cnt.word)
			return;
		*p = again;
	}
}

/**
 * slab_validate - check the invariants of one slab
 * @cache: the cache the slab should belong to
 * @slab: the slab; its freelist must not be allocated from meanwhile
 *	  (hold the node list_lock of an unfrozen slab, or own it).  Other
 *	  cpus may free to it.
 *
 * Checks: the slab belongs to @cache and has a valid geometry, every free
 * pointer points at an object start inside the slab, the freelist has no
 * cycle, and inuse + |freelist| == objects.
 *
 * Return: the number of violated invariants.
 */
int slab_validate(struct kmem_cache *cache, struct slab *slab)
{
	unsigned int nfree = 0, objects, errors = 0;
	void *base = slab_address(slab), *p;
	struct slab_pair snap;

	slab_pair_snapshot(slab, &snap);
	objects = snap.cnt.objects;
	if (!folio_test_slab(slab_folio(slab)) || slab->slab_cache != cache) {
		pr_err("SLUB %s: slab %p is not a slab of this cache\n",
		       cache->name, slab);
		return 1;
	}
	if (!objects || objects * cache->size > slab_size(slab) ||
	    snap.cnt.inuse > objects ||
	    (snap.cnt.low & SLAB_COUNTERS_FIXED_MASK) != SLAB_COUNTERS_FIXED) {
		pr_err("SLUB %s: slab %p bad counters: objects %u inuse %u (word %#x)\n",
		       cache->name, slab, objects, snap.cnt.inuse, snap.cnt.low);
		return 1;
	}
	for (p = snap.freelist; p; p = obj_next(cache, p)) {
		unsigned long off = kasan_reset_tag(p) - base;

		if (p < base || off >= objects * cache->size ||
		    (off - cache->red_left_pad) % cache->size || nfree >= objects) {
			pr_err("SLUB %s: slab %p freelist corrupt at %p (%u free seen)\n",
			       cache->name, slab, p, nfree);
			errors++;
			break;
		}
		nfree++;
	}
	if (!errors && snap.cnt.inuse + nfree != objects) {
		pr_err("SLUB %s: slab %p inuse %u + free %u != objects %u\n",
		       cache->name, slab, snap.cnt.inuse, nfree, objects);
		errors++;
	}
	return errors;
}

/* ---- Validation ---- */

/*
 * Check a slab of a debug cache and repair what is safe to repair: cut a
 * corrupt freelist, fix the inuse count, restore red zones and poison.
 * Returns the number of problems found.
 */
static int debug_slab_validate_locked(struct kmem_cache *cache,
				      struct kmem_cache_node *kn,
				      struct slab *slab, unsigned long *map)
{
	void *base = slab_address(slab);
	unsigned int i, nfree;
	struct slab_pair p;
	int errors, cuts;
	bool found;

	lockdep_assert_held(&kn->list_lock);
	slab_pair_read(slab, &p);
	if (!slab_check(cache, slab, &p))
		return 1;
	errors = !slab_pad_check(cache, slab, &p);
	bitmap_zero(map, p.cnt.objects);
	nfree = freelist_walk_count(cache, slab, &p, NULL, &found, map, &cuts);
	errors += cuts;
	if (p.cnt.inuse != p.cnt.objects - nfree) {
		report_slab(cache, slab, "Wrong object count. Counter is %u but counted were %u",
			    p.cnt.inuse, p.cnt.objects - nfree);
		p.cnt.inuse = p.cnt.objects - nfree;
		slab_pair_set(slab, &p);
		report_fix(cache, "Object count adjusted");
		errors++;
	}
	for (i = 0; i < p.cnt.objects; i++) {
		if (!obj_check(cache, slab, slot_object(cache, base, i),
			       test_bit(i, map) ? SLUB_RED_INACTIVE :
						  SLUB_RED_ACTIVE)) {
			errors++;
			break;
		}
	}
	return errors;
}

/* Validate every slab of a debug cache: all are on a node list. */
static long debug_cache_validate(struct kmem_cache *cache)
{
	unsigned long *map = bitmap_alloc(oo_objects(cache->oo), GFP_KERNEL);
	unsigned long flags, nr_partial, nr_slabs;
	struct kmem_cache_node *kn;
	struct slab *slab, *tmp;
	struct slab_pair p;
	long errors = 0;
	int node;

	if (!map)
		return -ENOMEM;
	for_each_kmem_cache_node(cache, node, kn) {
		nr_partial = 0;
		nr_slabs = 0;
		spin_lock_irqsave(&kn->list_lock, flags);
		list_for_each_entry(slab, &kn->full, slab_list) {
			errors += debug_slab_validate_locked(cache, kn, slab, map);
			nr_slabs++;
		}
		list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list) {
			errors += debug_slab_validate_locked(cache, kn, slab, map);
			nr_slabs++;
			slab_pair_read(slab, &p);
			if (p.freelist)
				nr_partial++;
			else	/* its freelist was cleared */
				slab_mark_full_locked(kn, slab);
		}
		if (nr_partial != kn->nr_partial) {
			pr_err("SLUB %s: node %d: %lu partial slabs counted but counter=%lu\n",
			       cache->name, node, nr_partial, kn->nr_partial);
			slab_add_kunit_errors();
			errors++;
		}
		if (nr_slabs != slub_node_slabs(kn)) {
			pr_err("SLUB %s: node %d: %lu slabs counted but counter=%lu\n",
			       cache->name, node, nr_slabs, slub_node_slabs(kn));
			slab_add_kunit_errors();
			errors++;
		}
		spin_unlock_irqrestore(&kn->list_lock, flags);
	}
	bitmap_free(map);
	return errors;
}

/* Other caches: report only, their slabs change under no lock of ours. */
static long plain_cache_validate(struct kmem_cache *cache)
{
	struct kmem_cache_node *kn;
	unsigned long flags, nr;
	struct slab *slab;
	long errors = 0;
	int node;

	slub_flush_all(cache);
	for_each_kmem_cache_node(cache, node, kn) {
		nr = 0;
		spin_lock_irqsave(&kn->list_lock, flags);
		list_for_each_entry(slab, &kn->partial, slab_list) {
			struct slab_pair snap;

			slab_pair_read(slab, &snap);
			if (snap.cnt.frozen) {
				pr_err("SLUB %s: frozen slab %p on node %d's partial list\n",
				       cache->name, slab, node);
				errors++;
			}
			errors += slab_validate(cache, slab);
			nr++;
		}
		if (nr != kn->nr_partial) {
			pr_err("SLUB %s: node %d nr_partial %lu but %lu listed\n",
			       cache->name, node, kn->nr_partial, nr);
			errors++;
		}
		spin_unlock_irqrestore(&kn->list_lock, flags);
	}
	return errors;
}

/**
 * validate_slab_cache - check the slabs of a cache
 * @cache: the cache
 *
 * A debug cache has every slab checked and repaired where that is safe;
 * other caches have the slabs on their node lists checked, after the cpu
 * slabs went back there.  Problems are reported on the console.
 *
 * Return: the number of problems found, or -ENOMEM.
 */
long validate_slab_cache(struct kmem_cache *cache)
{
	if (slub_debug_cache(cache))
		return debug_cache_validate(cache);
	return plain_cache_validate(cache);
}
EXPORT_SYMBOL(validate_slab_cache);

/* Print the objects still allocated in one slab. */
static void slab_report_leaks(struct kmem_cache *cache,
			      struct kmem_cache_node *kn, struct slab *slab,
			      unsigned long *map, bool partial)
{
	void *base = slab_address(slab), *obj;
	struct slab_pair p;
	unsigned int i;
	bool found;

	slab_pair_read(slab, &p);
	if (!p.cnt.inuse)
		return;
	report_slab(cache, slab, "Objects remaining in %s on __kmem_cache_shutdown()",
		    cache->name);
	bitmap_zero(map, p.cnt.objects);
	freelist_walk(cache, slab, &p, NULL, &found, map);
	if (partial)
		slab_unlist_cleared_locked(cache, kn, slab, &p);
	/* Each leaked object is one more error, as upstream counts them. */
	for (i = 0; i < p.cnt.objects; i++) {
		if (test_bit(i, map) || slab_add_kunit_errors())
			continue;
		obj = slot_object(cache, base, i);
		pr_err("Object 0x%p @offset=%tu\n", obj, obj - base);
		print_tracking(cache, obj);
	}
}

/**
 * slub_debug_report_leaks - list the objects a destroyed cache still has
 * @cache: the cache, flushed; nobody may allocate from it any more
 *
 * Covers the node partial slabs, and for debug caches the full ones.
 */
void slub_debug_report_leaks(struct kmem_cache *cache)
{
	unsigned long *map = bitmap_alloc(oo_objects(cache->oo), GFP_KERNEL);
	struct kmem_cache_node *kn;
	struct slab *slab, *tmp;
	unsigned long flags;
	int node;

	if (!map)
		return;
	for_each_kmem_cache_node(cache, node, kn) {
		spin_lock_irqsave(&kn->list_lock, flags);
		/* Full first: a partial slab may move there. */
		if (slub_debug_cache(cache))
			list_for_each_entry(slab, &kn->full, slab_list)
				slab_report_leaks(cache, kn, slab, map, false);
		list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list)
			slab_report_leaks(cache, kn, slab, map, true);
		spin_unlock_irqrestore(&kn->list_lock, flags);
	}
	bitmap_free(map);
}

#ifdef CONFIG_DEBUG_FS
/* The tracks of the allocated objects of one slab; list_lock held. */
static void slab_visit_tracks(struct kmem_cache *cache,
			      struct kmem_cache_node *kn, struct slab *slab,
			      unsigned long *map, struct slub_track_visit *v,
			      bool partial)
{
	void *base = slab_address(slab), *obj;
	struct slab_pair p;
	unsigned int i;
	bool found;

	slab_pair_read(slab, &p);
	bitmap_zero(map, p.cnt.objects);
	freelist_walk(cache, slab, &p, NULL, &found, map);
	if (partial)
		slab_unlist_cleared_locked(cache, kn, slab, &p);
	for_each_clear_bit(i, map, p.cnt.objects) {
		obj = slot_object(cache, base, i);
		meta_access_begin();
		v->fn(obj_track(cache, obj, v->item), slab_nid(slab), v->arg);
		meta_access_end();
	}
}

/**
 * slub_debug_visit_tracks - visit the tracks of allocated objects
 * @cache: a cache that records users
 * @v: what to call (@v->fn with the track, the object's node and
 *     @v->arg, under the node's list_lock) for which track (@v->item)
 *
 * Return: 0, or -ENOMEM.
 */
int slub_debug_visit_tracks(struct kmem_cache *cache,
			    struct slub_track_visit *v)
{
	unsigned long *map = bitmap_alloc(oo_objects(cache->oo), GFP_KERNEL);
	struct kmem_cache_node *kn;
	struct slab *slab, *tmp;
	unsigned long flags;
	int node;

	if (!map)
		return -ENOMEM;
	for_each_kmem_cache_node(cache, node, kn) {
		spin_lock_irqsave(&kn->list_lock, flags);
		/* Full first: a partial slab may move there. */
		list_for_each_entry(slab, &kn->full, slab_list)
			slab_visit_tracks(cache, kn, slab, map, v, false);
		list_for_each_entry_safe(slab, tmp, &kn->partial, slab_list)
			slab_visit_tracks(cache, kn, slab, map, v, true);
		spin_unlock_irqrestore(&kn->list_lock, flags);
	}
	bitmap_free(map);
	return 0;
}
#endif /* CONFIG_DEBUG_FS */

#ifdef CONFIG_SLUB_ENGINE_KUNIT_TEST
/* The KUnit suite reaches the static helpers from inside this file. */
#include "slub_debug_test.c"
#endif /* CONFIG_SLUB_ENGINE_KUNIT_TEST */
