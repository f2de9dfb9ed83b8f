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
 * A changed cpu_budget starts afresh: no group stays held back under a
 * budget it no longer has, and the worker refills its bucket.
 */
static void mbr_group_reset_budget(struct mbr_group *g)
{
	set_bit(MBR_GROUP_BUDGET_RESET, &g->flags);
	/* Pairs with the barrier in mbr_budget_admit(). */
	smp_mb__after_atomic();
	WRITE_ONCE(g->throttled_until, 0);
}

/*
 * Drop the table's reference of an unlinked group; the last reference
 * frees it and its memcg reference. Its dedicated worker, if any, goes
 * to @stop: the caller stops it once mbr_names_mutex, which it holds, is
 * released, so that no add or remove waits for that worker's turn.
 */
static void mbr_group_destroy(struct mbr_group *g, struct list_head *stop)
{
	mbr_pool_detach_later(g, stop);
	/* A group a rule configured has no directory. */
	if (g->kobj.state_in_sysfs)
		kobject_del(&g->kobj);
	mbr_group_put(g);
}

static void mbr_reap_fn(struct work_struct *work)
{
	struct mbr_group *g;
	unsigned long flags;
	LIST_HEAD(stop);

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
		mbr_group_destroy(g, &stop);
	}
	mutex_unlock(&mbr_names_mutex);
	mbr_pools_stop(&stop);
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

/*
 * Spare groups for the online probe, which may not allocate (it can run
 * with preemption off, and on PREEMPT_RT no allocation is allowed
 * there): it takes one from here, and a work item refills the pool.
 * A burst of creations beyond MBR_NR_SPARES is configured by that work
 * item instead, a little later (counted in rule_groups_late).
 */
#define MBR_NR_SPARES	64
static struct mbr_group *mbr_spares[MBR_NR_SPARES];
static unsigned int mbr_nr_spares;	/* under mbr_lock */
static void mbr_spares_fill_fn(struct work_struct *work);
static DECLARE_WORK(mbr_spares_work, mbr_spares_fill_fn);

/* A group's memory, zeroed, with its configuration (inactive). */
static struct mbr_group *mbr_group_alloc_raw(void)
{
	struct mbr_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	struct mbr_conf *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!g || !c || mbr_should_fail("group_alloc")) {
		kfree(g);
		kfree(c);
		return NULL;
	}
	c->wm.scale = MBR_SCALE_DEFAULT;
	c->budget.period_us = MBR_BUDGET_PERIOD_DEFAULT;
	RCU_INIT_POINTER(g->conf, c);
	return g;
}

static void mbr_group_free_raw(struct mbr_group *g)
{
	kfree(rcu_dereference_protected(g->conf, true));
	kfree(g);
}

/* Make @g the group of @memcg. Any context: nothing sleeps. */
static void mbr_group_init(struct mbr_group *g, struct mem_cgroup *memcg,
			   u64 id)
{
	INIT_LIST_HEAD(&g->fifo);
	INIT_LIST_HEAD(&g->reap);
	css_get(&memcg->css);	/* dropped by the kobject's release */
	atomic_inc(&mbr_nr_pinned);
	g->memcg = memcg;
	g->id = id;
	kobject_init(&g->kobj, &mbr_group_ktype);
}

static struct mbr_group *mbr_group_alloc(struct mem_cgroup *memcg, u64 id)
{
	struct mbr_group *g = mbr_group_alloc_raw();

	if (g)
		mbr_group_init(g, memcg, id);
	return g;
}

static void mbr_spares_fill_fn(struct work_struct *work)
{
	struct mbr_group *g;
	unsigned long flags;

	for (;;) {
		g = mbr_group_alloc_raw();
		if (!g)
			return;
		raw_spin_lock_irqsave(&mbr_lock, flags);
		if (mbr_nr_spares < MBR_NR_SPARES) {
			mbr_spares[mbr_nr_spares++] = g;
			g = NULL;
		}
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
		if (g) {
			mbr_group_free_raw(g);
			return;
		}
	}
}

/**
 * mbr_groups_reserve() - fill the spare pool now, before a rule needs it
 *
 * Context: process context.
 */
void mbr_groups_reserve(void)
{
	mbr_spares_fill_fn(NULL);
}

/**
 * mbr_group_alloc_atomic() - a group for @memcg from the spare pool
 * @memcg: the memcg, kept alive by the caller
 * @id: its cgroup id
 *
 * Context: any but NMI.
 * Return: the group (inactive, not hashed, no directory), or NULL if
 *	the pool is empty.
 */
struct mbr_group *mbr_group_alloc_atomic(struct mem_cgroup *memcg, u64 id)
{
	struct mbr_group *g = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (mbr_nr_spares)
		g = mbr_spares[--mbr_nr_spares];
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	schedule_work(&mbr_spares_work);
	if (g)
		mbr_group_init(g, memcg, id);
	return g;
}

/**
 * mbr_group_alloc_rule() - a group for @memcg, configured by a rule
 * @memcg: the memcg, kept alive by the caller
 * @id: its cgroup id
 * @wm: the rule's watermarks
 * @budget: the rule's CPU budget
 * @rule_id: the rule's cgroup id
 *
 * Context: process context.
 */
struct mbr_group *mbr_group_alloc_rule(struct mem_cgroup *memcg, u64 id,
				       const struct mbr_wmark_conf *wm,
				       const struct mbr_budget *budget,
				       u64 rule_id)
{
	struct mbr_group *g = mbr_group_alloc(memcg, id);

	if (g) {
		rcu_dereference_protected(g->conf, true)->wm = *wm;
		rcu_dereference_protected(g->conf, true)->budget = *budget;
		g->rule_id = rule_id;
	}
	return g;
}

/**
 * mbr_group_insert() - hash a new group with no directory (a rule's)
 * @g: the group, from mbr_group_alloc_atomic() or mbr_group_alloc_rule()
 *
 * On failure the caller still owns @g and drops it with mbr_group_put().
 *
 * Context: any but NMI.
 * Return: true if hashed; false if its cgroup already has a group or is
 *	going away.
 */
bool mbr_group_insert(struct mbr_group *g)
{
	unsigned long flags;
	bool ok = false;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (!mbr_group_lookup_rcu(g->id) && !css_is_dying(&g->memcg->css)) {
		hash_add_rcu(mbr_groups, &g->hnode, g->id);
		atomic_inc(&mbr_nr_groups);
		ok = true;
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	if (ok)
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);
	return ok;
}

/**
 * mbr_group_forget() - unlink a group a rule no longer configures
 * @g: the group, referenced by the caller
 *
 * Context: process context.
 */
void mbr_group_forget(struct mbr_group *g)
{
	bool unlinked = false;

	/* Not one "add" made the user's meanwhile. */
	mutex_lock(&mbr_config_mutex);
	if (g->rule_id)
		unlinked = mbr_group_unlink_to_reap(g);
	mutex_unlock(&mbr_config_mutex);
	if (unlinked)
		schedule_work(&mbr_reap_work);
}

/**
 * mbr_group_set_rule() - give a rule's group a rule's configuration
 * @g: the group, referenced by the caller
 * @wm: the watermarks
 * @budget: the CPU budget
 * @rule_id: the rule's cgroup id
 *
 * Nothing happens to a group configured by hand in the meantime.
 *
 * Context: process context.
 * Return: 0, -ENOENT if the group is gone, or -ENOMEM.
 */
int mbr_group_set_rule(struct mbr_group *g, const struct mbr_wmark_conf *wm,
		       const struct mbr_budget *budget, u64 rule_id)
{
	struct mbr_conf *old, *new = kmalloc(sizeof(*new), GFP_KERNEL);
	bool replaced = false;
	int ret = 0;

	if (!new)
		return -ENOMEM;
	new->wm = *wm;
	new->budget = *budget;
	mutex_lock(&mbr_config_mutex);
	old = rcu_dereference_protected(g->conf,
					lockdep_is_held(&mbr_config_mutex));
	if (READ_ONCE(g->dead)) {
		ret = -ENOENT;
	} else if (g->rule_id && (g->rule_id != rule_id ||
				  !mbr_wmark_conf_equal(&old->wm, wm) ||
				  memcmp(&old->budget, budget,
					 sizeof(*budget)))) {
		rcu_assign_pointer(g->conf, new);
		WRITE_ONCE(g->rule_id, rule_id);
		g->nr_failures = 0;
		mbr_group_clear_backoff(g);
		mbr_group_reset_budget(g);
		if (wm->autotune)
			mbr_auto_reset(g);
		replaced = true;
	}
	mutex_unlock(&mbr_config_mutex);
	if (replaced)
		kfree_rcu(old, rcu);
	else
		kfree(new);
	return ret;
}

/**
 * mbr_group_get_rcu() - a reference on a group found under RCU
 * @g: the group
 *
 * Return: @g, or NULL if its last reference is already gone.
 */
struct mbr_group *mbr_group_get_rcu(struct mbr_group *g)
{
	return kobject_get_unless_zero(&g->kobj) ? g : NULL;
}

/*
 * "add" of a cgroup that already has a group: one a rule configured
 * becomes the user's, with a directory of its own (settings made by
 * hand override rules); one added by hand is -EEXIST. -ENOENT if there
 * is none. Caller holds mbr_names_mutex.
 */
static int mbr_group_adopt(u64 id)
{
	struct mbr_group *g;
	int ret = -ENOENT;
	u64 rule_id;

	rcu_read_lock();
	g = mbr_group_lookup_rcu(id);
	if (g)
		g = mbr_group_get_rcu(g);
	rcu_read_unlock();
	if (!g)
		return ret;
	/*
	 * It is the user's from here on: a rule rescan that meets it now
	 * leaves it alone (mbr_group_set_rule() and mbr_group_forget()
	 * check rule_id under the config mutex).
	 */
	mutex_lock(&mbr_config_mutex);
	rule_id = g->rule_id;
	if (READ_ONCE(g->dead)) {
		ret = -ENOENT;
	} else if (!rule_id) {
		ret = -EEXIST;
	} else {
		WRITE_ONCE(g->rule_id, 0);
		ret = 0;
	}
	mutex_unlock(&mbr_config_mutex);
	if (!ret) {
		/* Under mbr_names_mutex: reaping waits for us to finish. */
		ret = mbr_should_fail("group_kobject") ? -ENOMEM :
			kobject_add(&g->kobj, mbr_cgroups_kobj, "%llu", id);
		if (ret) {
			mutex_lock(&mbr_config_mutex);
			WRITE_ONCE(g->rule_id, rule_id);
			mutex_unlock(&mbr_config_mutex);
		}
	}
	mbr_group_put(g);
	return ret;
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
	bool adopted = false;
	u64 id;
	int ret;

	css = mbr_memcg_css_from_arg("add", arg, len);
	if (IS_ERR(css))
		return PTR_ERR(css);

	id = cgroup_id(css->cgroup);
	ret = -ENOMEM;
	g = mbr_group_alloc(mem_cgroup_from_css(css), id);
	if (!g)
		goto out_put_css;

	mutex_lock(&mbr_names_mutex);
	ret = mbr_group_adopt(id);
	if (ret != -ENOENT) {
		adopted = !ret;
		goto out_unlock;
	}
	ret = mbr_should_fail("group_kobject") ? -ENOMEM :
		kobject_add(&g->kobj, mbr_cgroups_kobj, "%llu", id);
	if (ret)
		goto out_unlock;

	/*
	 * css_offline runs after the css is marked dying and takes mbr_lock
	 * to unhash: either it finds the group hashed, or we see it dying.
	 * A rule may have configured the cgroup since the lookup above
	 * (rules do not take mbr_names_mutex): then that group is adopted.
	 */
	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (css_is_dying(css)) {
		ret = -ENOENT;
	} else if (mbr_group_lookup_rcu(id)) {
		ret = -EEXIST;
	} else {
		hash_add_rcu(mbr_groups, &g->hnode, id);
		atomic_inc(&mbr_nr_groups);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	if (ret) {
		/*
		 * Its directory was briefly visible: a cpu_cgroup write
		 * may have given it a worker. kobject_del() waits for
		 * writers, so after it nothing gives it another.
		 */
		kobject_del(&g->kobj);
		mbr_pool_detach(g);
	} else {
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);
	}
	if (ret == -EEXIST) {
		ret = mbr_group_adopt(id);
		adopted = !ret;
	}

out_unlock:
	mutex_unlock(&mbr_names_mutex);
	if (ret || adopted)
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
	LIST_HEAD(stop);
	u64 id;
	int ret;

	ret = mbr_cgroup_id_from_arg("remove", arg, len, &id);
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
		mbr_group_destroy(g, &stop);
	mutex_unlock(&mbr_names_mutex);
	/* Its dedicated worker's turn ends without the names mutex held. */
	mbr_pools_stop(&stop);
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
	case MBR_SET_AUTO:
		if (val > 1)
			ret = -EINVAL;
		new->wm.autotune = val;
		break;
	}
	if (ret)
		goto out_unlock;
	rcu_assign_pointer(g->conf, new);
	/* Turned on, auto starts from nothing measured. */
	if (new->wm.autotune && !old->wm.autotune)
		mbr_auto_reset(g);
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
 * mbr_group_set_budget() - set a group's cpu_budget
 * @g: the group
 * @b: the budget (quota 0: none)
 *
 * The group starts a fresh period with a full quota.
 *
 * Context: process context.
 * Return: 0, -ENOENT if the cgroup is gone, or -ENOMEM.
 */
int mbr_group_set_budget(struct mbr_group *g, const struct mbr_budget *b)
{
	struct mbr_conf *old, *new;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&mbr_config_mutex);
	if (READ_ONCE(g->dead)) {
		mutex_unlock(&mbr_config_mutex);
		kfree(new);
		return -ENOENT;
	}
	old = rcu_dereference_protected(g->conf,
					lockdep_is_held(&mbr_config_mutex));
	*new = *old;
	new->budget = *b;
	rcu_assign_pointer(g->conf, new);
	mbr_group_reset_budget(g);
	mutex_unlock(&mbr_config_mutex);
	kfree_rcu(old, rcu);
	return 0;
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

/**
 * mbr_group_next_rcu() - walk the table
 * @g: the group to go on from, or NULL for the first
 *
 * A group unlinked meanwhile still leads on to the rest of its bucket.
 *
 * Context: rcu_read_lock() held.
 * Return: the next group, or NULL at the end.
 */
struct mbr_group *mbr_group_next_rcu(struct mbr_group *g)
{
	unsigned int bkt = g ? hash_min(g->id, MBR_HASH_BITS) : 0;
	struct hlist_node *n;

	n = g ? rcu_dereference(hlist_next_rcu(&g->hnode)) :
		rcu_dereference(hlist_first_rcu(&mbr_groups[0]));
	while (!n && ++bkt < HASH_SIZE(mbr_groups))
		n = rcu_dereference(hlist_first_rcu(&mbr_groups[bkt]));
	return n ? hlist_entry(n, struct mbr_group, hnode) : NULL;
}

/**
 * mbr_groups_of_rule() - how many groups a rule configures now
 * @rule_id: the rule's cgroup id
 */
unsigned int mbr_groups_of_rule(u64 rule_id)
{
	struct mbr_group *g;
	unsigned int bkt, n = 0;

	rcu_read_lock();
	hash_for_each_rcu(mbr_groups, bkt, g, hnode)
		n += READ_ONCE(g->rule_id) == rule_id;
	rcu_read_unlock();
	return n;
}

void mbr_groups_init(struct kobject *parent)
{
	mbr_cgroups_kobj = parent;
}

/**
 * mbr_groups_exit() - forget every group, at module exit
 *
 * Called with the charge and online probes, the rules and the workers
 * gone (so no group is added any more) but the offline hook
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
	cancel_work_sync(&mbr_spares_work);
	while (mbr_nr_spares)
		mbr_group_free_raw(mbr_spares[--mbr_nr_spares]);
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
