// SPDX-License-Identifier: GPL-2.0
/*
 * The table of configured memory cgroups: an RCU hashtable keyed by
 * cgroup id, so that the charge path can find a group (or learn that it
 * has none) with no lock and no reference on the memcg.
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/page_counter.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"
#include "mbr_trace.h"

#define MBR_HASH_BITS	12

static DEFINE_HASHTABLE(mbr_groups, MBR_HASH_BITS);
DEFINE_RAW_SPINLOCK(mbr_lock);		/* hash, FIFO, reap list, ->dead */
static DEFINE_MUTEX(mbr_config_mutex);	/* add, remove, distance writes */
atomic_t mbr_nr_groups = ATOMIC_INIT(0);
atomic_t mbr_nr_unreclaimable = ATOMIC_INIT(0);
static struct kobject *mbr_cgroups_kobj;

/* Groups unhashed from atomic context wait here for their kobject_del. */
static LIST_HEAD(mbr_reap_list);
static void mbr_reap_fn(struct work_struct *work);
static DECLARE_WORK(mbr_reap_work, mbr_reap_fn);

/**
 * mbr_group_lookup_rcu() - find a configured group by cgroup id
 * @id: the cgroup's id
 *
 * Context: rcu_read_lock() held; any context.
 * Return: the group, or NULL.
 */
struct mbr_group *mbr_group_lookup_rcu(u64 id)
{
	struct mbr_group *g;

	hash_for_each_possible_rcu_notrace(mbr_groups, g, hnode, id)
		if (g->id == id)
			return g;
	return NULL;
}

/**
 * mbr_group_find_memcg_rcu() - the configured group of a memcg, if any
 * @memcg: a memcg the caller keeps alive
 *
 * Context: rcu_read_lock() held; any context.
 * Return: the group, or NULL.
 */
struct mbr_group *mbr_group_find_memcg_rcu(struct mem_cgroup *memcg)
{
	struct mbr_group *g = mbr_group_lookup_rcu(cgroup_id(memcg->css.cgroup));

	return g && READ_ONCE(g->memcg) == memcg ? g : NULL;
}

/**
 * mbr_memcg_limit() - the limit background reclaim works under, in pages
 * @memcg: the memory cgroup
 *
 * memory.max, or memory.high when that is lower: reclaiming ahead of
 * memory.high also spares the group's tasks its throttling. Read live,
 * so a limit change moves the watermarks at once.
 */
unsigned long mbr_memcg_limit(struct mem_cgroup *memcg)
{
	return min(READ_ONCE(memcg->memory.max), READ_ONCE(memcg->memory.high));
}

/**
 * mbr_group_marks() - a group's watermarks, in bytes, from one limit read
 * @g: the group
 * @memcg: its memcg, kept alive by the caller
 */
struct mbr_marks mbr_group_marks(struct mbr_group *g, struct mem_cgroup *memcg)
{
	unsigned long limit = mbr_memcg_limit(memcg);
	u64 limit_bytes = (u64)limit << PAGE_SHIFT;
	struct mbr_marks marks = { .low = limit_bytes, .high = limit_bytes };
	struct mbr_dist *d;

	/* An unlimited group is inactive: its marks read as its limit. */
	if (limit >= PAGE_COUNTER_MAX)
		return marks;
	rcu_read_lock();
	d = rcu_dereference(g->dist);
	marks = mbr_marks_compute(limit_bytes, d->high, d->low);
	rcu_read_unlock();
	return marks;
}

static bool mbr_group_active(struct mbr_group *g, struct mem_cgroup *memcg)
{
	struct mbr_dist *d = rcu_dereference(g->dist);

	return mbr_marks_active(d->high, d->low) &&
	       mbr_memcg_limit(memcg) < PAGE_COUNTER_MAX;
}

void mbr_group_backoff(struct mbr_group *g, unsigned long limit)
{
	WRITE_ONCE(g->backoff_limit, limit);
	if (!test_and_set_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags)) {
		atomic_inc(&mbr_nr_unreclaimable);
		atomic64_inc(&g->stats.unreclaimable);
	}
}

bool mbr_group_clear_backoff(struct mbr_group *g)
{
	if (!test_and_clear_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags))
		return false;
	atomic_dec(&mbr_nr_unreclaimable);
	return true;
}

/**
 * mbr_group_charged() - a charge was seen: queue the group if it is
 *	above its low watermark
 * @g: the group
 * @memcg: its memcg, alive (being charged)
 *
 * Context: rcu_read_lock() held; any context but NMI.
 */
void mbr_group_charged(struct mbr_group *g, struct mem_cgroup *memcg)
{
	struct mbr_marks marks;
	u64 usage;

	if (READ_ONCE(g->queued) || !mbr_group_active(g, memcg))
		return;
	if (test_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags)) {
		/* A new limit is a new chance to make progress. */
		if (mbr_memcg_limit(memcg) == READ_ONCE(g->backoff_limit))
			return;
		mbr_group_clear_backoff(g);
	}
	marks = mbr_group_marks(g, memcg);
	usage = (u64)page_counter_read(&memcg->memory) << PAGE_SHIFT;
	if (usage <= marks.low)
		return;
	trace_wakeup(g->id, usage, marks.low, marks.high);
	mbr_queue_group(g);
}

/**
 * mbr_group_uncharged() - pages were freed: lift a back-off
 * @g: the group
 *
 * Seed patch 8/9: a group that made no progress is left alone until
 * something is uncharged from it; the next charge check requeues it.
 */
void mbr_group_uncharged(struct mbr_group *g)
{
	if (test_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags))
		mbr_group_clear_backoff(g);
}

/* Unhash and dequeue; true if this call did it. Caller holds mbr_lock. */
static bool mbr_group_unlink_locked(struct mbr_group *g)
{
	if (g->dead)
		return false;
	WRITE_ONCE(g->dead, true);
	hash_del_rcu(&g->hnode);
	if (g->queued) {
		list_del_init(&g->fifo);
		WRITE_ONCE(g->queued, false);
	}
	mbr_group_clear_backoff(g);
	atomic_dec(&mbr_nr_groups);
	return true;
}

void mbr_group_put(struct mbr_group *g)
{
	kobject_put(&g->kobj);
}

/* Drop the table's reference of an unlinked group; process context. */
static void mbr_group_destroy(struct mbr_group *g)
{
	kobject_del(&g->kobj);
	mbr_group_put(g);
}

static void mbr_reap_fn(struct work_struct *work)
{
	struct mbr_group *g;
	unsigned long flags;

	for (;;) {
		raw_spin_lock_irqsave(&mbr_lock, flags);
		g = list_first_entry_or_null(&mbr_reap_list, struct mbr_group,
					     reap);
		if (g)
			list_del_init(&g->reap);
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
		if (!g)
			return;
		mbr_group_destroy(g);
	}
}

/**
 * mbr_group_offline() - a memcg goes offline (rmdir): forget its group
 * @memcg: the memcg
 *
 * Called from the css_offline hook, before the memcg can be freed. The
 * group's directory is removed from a work item, as this context may not
 * sleep.
 */
void mbr_group_offline(struct mem_cgroup *memcg)
{
	struct mbr_group *g;
	unsigned long flags;
	bool unlinked = false;

	rcu_read_lock();
	g = mbr_group_find_memcg_rcu(memcg);
	if (g) {
		raw_spin_lock_irqsave(&mbr_lock, flags);
		unlinked = mbr_group_unlink_locked(g);
		if (unlinked)
			list_add_tail(&g->reap, &mbr_reap_list);
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
	}
	rcu_read_unlock();
	if (unlinked)
		schedule_work(&mbr_reap_work);
}

static struct mbr_group *mbr_group_alloc(struct mem_cgroup *memcg, u64 id)
{
	struct mbr_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	struct mbr_dist *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!g || !d || mbr_should_fail("group_alloc")) {
		kfree(g);
		kfree(d);
		return NULL;
	}
	INIT_LIST_HEAD(&g->fifo);
	INIT_LIST_HEAD(&g->reap);
	g->memcg = memcg;
	g->id = id;
	RCU_INIT_POINTER(g->dist, d);
	kobject_init(&g->kobj, &mbr_group_ktype);
	return g;
}

/**
 * mbr_group_add() - configure a memory cgroup (the "add" file)
 * @arg: a cgroup path or id, as written by the user
 * @len: its length
 *
 * Context: process context.
 * Return: 0 or a negative errno; nothing changes on error.
 */
int mbr_group_add(const char *arg, size_t len)
{
	struct cgroup_subsys_state *css;
	struct mbr_group *g;
	unsigned long flags;
	u64 id;
	int ret;

	css = mbr_memcg_css_from_arg(arg, len);
	if (IS_ERR(css))
		return PTR_ERR(css);

	id = cgroup_id(css->cgroup);
	ret = -ENOMEM;
	g = mbr_group_alloc(mem_cgroup_from_css(css), id);
	if (!g)
		goto out_put_css;

	mutex_lock(&mbr_config_mutex);
	rcu_read_lock();
	ret = mbr_group_lookup_rcu(id) ? -EEXIST : 0;
	rcu_read_unlock();
	if (ret)
		goto out_unlock;
	ret = mbr_should_fail("group_kobject") ? -ENOMEM :
		kobject_add(&g->kobj, mbr_cgroups_kobj, "%llu", id);
	if (ret)
		goto out_unlock;

	/*
	 * css_offline runs after the css is marked dying and takes mbr_lock
	 * to unhash: either it finds the group hashed, or we see it dying.
	 */
	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (css_is_dying(css)) {
		ret = -ENOENT;
	} else {
		hash_add_rcu(mbr_groups, &g->hnode, id);
		atomic_inc(&mbr_nr_groups);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	mutex_unlock(&mbr_config_mutex);
	if (ret)	/* outside the mutex, as in mbr_group_remove() */
		kobject_del(&g->kobj);
	goto out_put_group;

out_unlock:
	mutex_unlock(&mbr_config_mutex);
out_put_group:
	if (ret)
		mbr_group_put(g);
out_put_css:
	css_put(css);
	return ret;
}

/**
 * mbr_group_remove() - forget a configured group (the "remove" file)
 * @arg: a cgroup path or id
 * @len: its length
 *
 * Context: process context.
 * Return: 0, -ENOENT if it is not configured, or another negative errno.
 */
int mbr_group_remove(const char *arg, size_t len)
{
	struct mbr_group *g;
	unsigned long flags;
	bool unlinked = false;
	u64 id;
	int ret;

	ret = mbr_cgroup_id_from_arg(arg, len, &id);
	if (ret)
		return ret;

	mutex_lock(&mbr_config_mutex);
	rcu_read_lock();
	g = mbr_group_lookup_rcu(id);
	if (g) {
		raw_spin_lock_irqsave(&mbr_lock, flags);
		unlinked = mbr_group_unlink_locked(g);
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
	}
	rcu_read_unlock();
	mutex_unlock(&mbr_config_mutex);
	/*
	 * Outside the mutex: kobject_del() waits for the group's files to
	 * be idle, and a distance write in one of them may be waiting for
	 * the mutex.
	 */
	if (unlinked)
		mbr_group_destroy(g);
	return unlinked ? 0 : -ENOENT;
}

/**
 * mbr_group_set_dist() - write high_wmark_distance or low_wmark_distance
 * @g: the group
 * @high: true for the high distance
 * @val: the distance in bytes
 *
 * Context: process context.
 * Return: 0, -EINVAL if the seeds' rules refuse it, -ENOENT if the
 *	cgroup is gone, -ENOMEM.
 */
int mbr_group_set_dist(struct mbr_group *g, bool high, u64 val)
{
	struct mbr_dist *old, *new;
	u64 limit;
	int ret;

	new = mbr_should_fail("dist_alloc") ? NULL :
		kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	mutex_lock(&mbr_config_mutex);
	rcu_read_lock();
	if (READ_ONCE(g->dead)) {
		rcu_read_unlock();
		ret = -ENOENT;
		goto out_unlock;
	}
	limit = (u64)mbr_memcg_limit(g->memcg) << PAGE_SHIFT;
	rcu_read_unlock();

	old = rcu_dereference_protected(g->dist,
					lockdep_is_held(&mbr_config_mutex));
	*new = *old;
	if (high) {
		ret = mbr_check_high_dist(limit, old->low, val);
		new->high = val;
	} else {
		ret = mbr_check_low_dist(limit, old->high, val);
		new->low = val;
	}
	if (ret)
		goto out_unlock;
	rcu_assign_pointer(g->dist, new);
	/* A new configuration is a new chance to make progress. */
	g->nr_noprogress = 0;
	mbr_group_clear_backoff(g);
	mutex_unlock(&mbr_config_mutex);
	kfree_rcu(old, rcu);
	return 0;

out_unlock:
	mutex_unlock(&mbr_config_mutex);
	kfree(new);
	return ret;
}

/**
 * mbr_groups_sum() - the sums of all groups' counters
 * @sum: zeroed counters to add into
 * @nr: set to the number of groups
 */
void mbr_groups_sum(struct mbr_stats *sum, unsigned int *nr)
{
	struct mbr_group *g;
	unsigned int bkt;

	*nr = 0;
	rcu_read_lock();
	hash_for_each_rcu(mbr_groups, bkt, g, hnode) {
		mbr_stats_add(sum, &g->stats);
		(*nr)++;
	}
	rcu_read_unlock();
}

void mbr_groups_init(struct kobject *parent)
{
	mbr_cgroups_kobj = parent;
}

/*
 * Module exit: the hooks and workers are gone, so nothing can requeue
 * or unhash a group any more but us and a pending reap.
 */
void mbr_groups_exit(void)
{
	struct mbr_group *g;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;
	LIST_HEAD(doomed);

	flush_work(&mbr_reap_work);
	mutex_lock(&mbr_config_mutex);
	raw_spin_lock_irqsave(&mbr_lock, flags);
	hash_for_each_safe(mbr_groups, bkt, tmp, g, hnode) {
		mbr_group_unlink_locked(g);
		list_add_tail(&g->reap, &doomed);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	mutex_unlock(&mbr_config_mutex);
	while ((g = list_first_entry_or_null(&doomed, struct mbr_group,
					     reap))) {
		list_del_init(&g->reap);
		mbr_group_destroy(g);
	}
}
