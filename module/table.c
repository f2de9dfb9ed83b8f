// SPDX-License-Identifier: GPL-2.0
/*
 * The table of configured memory cgroups and their lifecycle: an RCU
 * hashtable keyed by cgroup id, so that the charge path can find a group
 * (or learn that it has none) with no lock; "add" and "remove"; the
 * cgroup's rmdir; module exit.
 *
 * Locking:
 *  mbr_names_mutex   the cgroups/<id> names: add, remove, reaping and
 *                    exit, around kobject_add()/kobject_del(), so that an
 *                    add never meets the name of a group being removed
 *  mbr_config_mutex  a group's configuration (its setting writes) against
 *                    its unlinking; never held across kobject_del(),
 *                    which waits for those very writes
 *  mbr_lock (raw)    the hash, the FIFO, the reap list, ->dead, taken in
 *                    any context
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"

#define MBR_HASH_BITS	12

/* How often the table is searched for groups whose rmdir went unseen. */
#define MBR_SWEEP_INTERVAL	(10 * HZ)

static DEFINE_HASHTABLE(mbr_groups, MBR_HASH_BITS);
DEFINE_RAW_SPINLOCK(mbr_lock);
static DEFINE_MUTEX(mbr_names_mutex);
static DEFINE_MUTEX(mbr_config_mutex);
atomic_t mbr_nr_groups = ATOMIC_INIT(0);
atomic_t mbr_nr_pinned = ATOMIC_INIT(0);	/* memcg references held */
static struct kobject *mbr_cgroups_kobj;

/* Groups unhashed from atomic context wait here for their kobject_del. */
static LIST_HEAD(mbr_reap_list);
static void mbr_reap_fn(struct work_struct *work);
static DECLARE_WORK(mbr_reap_work, mbr_reap_fn);
static void mbr_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mbr_sweep_work, mbr_sweep_fn);

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
	atomic_dec(&mbr_nr_groups);
	return true;
}

void mbr_group_put(struct mbr_group *g)
{
	kobject_put(&g->kobj);
}

/*
 * Drop the table's reference of an unlinked group; the last reference
 * frees it and its memcg reference. Caller holds mbr_names_mutex.
 */
static void mbr_group_destroy(struct mbr_group *g)
{
	kobject_del(&g->kobj);
	mbr_group_put(g);
}

static void mbr_reap_fn(struct work_struct *work)
{
	struct mbr_group *g;
	unsigned long flags;

	mutex_lock(&mbr_names_mutex);
	for (;;) {
		raw_spin_lock_irqsave(&mbr_lock, flags);
		g = list_first_entry_or_null(&mbr_reap_list, struct mbr_group,
					     reap);
		if (g)
			list_del_init(&g->reap);
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
		if (!g)
			break;
		mbr_group_destroy(g);
	}
	mutex_unlock(&mbr_names_mutex);
}

/* Unlink @g and hand it to the reaper; true if this call unlinked it. */
static bool mbr_group_unlink_to_reap(struct mbr_group *g)
{
	unsigned long flags;
	bool unlinked;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	unlinked = mbr_group_unlink_locked(g);
	if (unlinked)
		list_add_tail(&g->reap, &mbr_reap_list);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	return unlinked;
}

/**
 * mbr_group_offline() - a memcg goes offline (rmdir): forget its group
 * @memcg: the memcg
 *
 * Called from the css_offline hook. The group's directory is removed,
 * and its memcg reference dropped, from a work item.
 */
void mbr_group_offline(struct mem_cgroup *memcg)
{
	struct mbr_group *g;
	bool unlinked = false;

	rcu_read_lock();
	g = mbr_group_find_memcg_rcu(memcg);
	if (g)
		unlinked = mbr_group_unlink_to_reap(g);
	rcu_read_unlock();
	if (unlinked)
		schedule_work(&mbr_reap_work);
}

/*
 * The safety net under the offline hook: a group whose memcg went
 * offline unseen (the hook cannot be switched off, but memory safety
 * must not rest on it) only pins a zombie memcg, and this sweep drops
 * it within MBR_SWEEP_INTERVAL.
 */
static void mbr_sweep_fn(struct work_struct *work)
{
	struct mbr_group *g;
	unsigned int bkt, n = 0;

	rcu_read_lock();
	hash_for_each_rcu(mbr_groups, bkt, g, hnode)
		if (css_is_dying(&g->memcg->css) && mbr_group_unlink_to_reap(g))
			n++;
	rcu_read_unlock();
	if (n) {
		pr_warn_ratelimited("%u groups of removed cgroups dropped by the sweep\n",
				    n);
		mbr_reap_fn(NULL);
	}
	if (atomic_read(&mbr_nr_groups))
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);
}

static struct mbr_group *mbr_group_alloc(struct mem_cgroup *memcg, u64 id)
{
	struct mbr_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	struct mbr_conf *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!g || !c || mbr_should_fail("group_alloc")) {
		kfree(g);
		kfree(c);
		return NULL;
	}
	c->wm.scale = MBR_SCALE_DEFAULT;
	INIT_LIST_HEAD(&g->fifo);
	INIT_LIST_HEAD(&g->reap);
	css_get(&memcg->css);	/* dropped by the kobject's release */
	atomic_inc(&mbr_nr_pinned);
	g->memcg = memcg;
	g->id = id;
	RCU_INIT_POINTER(g->conf, c);
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

	mutex_lock(&mbr_names_mutex);
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
	if (ret)
		kobject_del(&g->kobj);
	else
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);

out_unlock:
	mutex_unlock(&mbr_names_mutex);
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

	mutex_lock(&mbr_names_mutex);
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
	 * Outside the config mutex: kobject_del() waits for the group's
	 * files to be idle, and a setting write in one of them may be
	 * waiting for that mutex. Inside the names mutex: an add of the
	 * same cgroup waits for its name to be free.
	 */
	if (unlinked)
		mbr_group_destroy(g);
	mutex_unlock(&mbr_names_mutex);
	return unlinked ? 0 : -ENOENT;
}

/**
 * mbr_group_set() - write one setting of a group's configuration
 * @g: the group
 * @what: which one
 * @val: the value: bytes for a distance, else the number
 *
 * Distances are checked against the limit the group runs under (see
 * mbr_memcg_limit()) and against each other by the seeds' rules; the
 * ratio (0 to 100) and the scale factor (1 to 1000) only by range.
 *
 * Context: process context.
 * Return: 0, -EINVAL if refused, -ENOENT if the cgroup is gone, -ENOMEM.
 */
int mbr_group_set(struct mbr_group *g, enum mbr_setting what, u64 val)
{
	struct mbr_conf *old, *new;
	u64 limit;
	int ret = 0;

	new = mbr_should_fail("dist_alloc") ? NULL :
		kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	mutex_lock(&mbr_config_mutex);
	if (READ_ONCE(g->dead)) {
		ret = -ENOENT;
		goto out_unlock;
	}
	limit = (u64)mbr_memcg_limit(g->memcg) << PAGE_SHIFT;

	old = rcu_dereference_protected(g->conf,
					lockdep_is_held(&mbr_config_mutex));
	*new = *old;
	switch (what) {
	case MBR_SET_HIGH_DIST:
		ret = mbr_check_high_dist(limit, old->wm.low_dist, val);
		new->wm.high_dist = val;
		break;
	case MBR_SET_LOW_DIST:
		ret = mbr_check_low_dist(limit, old->wm.high_dist, val);
		new->wm.low_dist = val;
		break;
	case MBR_SET_RATIO:
		if (val > MBR_RATIO_MAX)
			ret = -EINVAL;
		new->wm.ratio = val;
		break;
	case MBR_SET_SCALE:
		if (val < MBR_SCALE_MIN || val > MBR_SCALE_MAX)
			ret = -EINVAL;
		new->wm.scale = val;
		break;
	}
	if (ret)
		goto out_unlock;
	rcu_assign_pointer(g->conf, new);
	/* A new configuration is a new chance to make progress. */
	g->nr_failures = 0;
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

/**
 * mbr_groups_exit() - forget every group, at module exit
 *
 * Called with the charge hook and the workers gone but the offline hook
 * still attached, so that an rmdir racing with the exit is either seen
 * by the hook or finds its group already unlinked here; the caller
 * removes the offline hook afterwards and calls mbr_groups_flush().
 */
void mbr_groups_exit(void)
{
	struct mbr_group *g;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int bkt;

	cancel_delayed_work_sync(&mbr_sweep_work);
	mutex_lock(&mbr_names_mutex);
	mutex_lock(&mbr_config_mutex);
	raw_spin_lock_irqsave(&mbr_lock, flags);
	hash_for_each_safe(mbr_groups, bkt, tmp, g, hnode)
		if (mbr_group_unlink_locked(g))
			list_add_tail(&g->reap, &mbr_reap_list);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	mutex_unlock(&mbr_config_mutex);
	mutex_unlock(&mbr_names_mutex);
	mbr_groups_flush();
}

/**
 * mbr_groups_flush() - destroy every unlinked group now
 *
 * Waits for a reap the offline hook scheduled, then reaps what is left.
 */
void mbr_groups_flush(void)
{
	flush_work(&mbr_reap_work);
	mbr_reap_fn(NULL);
}
