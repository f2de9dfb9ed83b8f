// SPDX-License-Identifier: GPL-2.0
/*
 * A configured group's life: "add" and "remove", a rule's insert and
 * forget, the cgroup's rmdir (the offline hook, and a sweep under it),
 * and module exit. Every way out unhashes the group under mbr_lock, then
 * removes its directory and drops the table's reference from process
 * context, its dedicated worker stopped.
 *
 * Locking:
 *  mbr_names_mutex   the cgroups/<id> names: add, remove, reaping and
 *                    exit, around kobject_add()/kobject_del(), so that an
 *                    add never meets the name of a group being removed
 *  mbr_config_mutex  (conf.c) a group's configuration against its
 *                    unlinking
 *  mbr_lock (raw)    the table, the FIFO, the reap list, ->dead
 */
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "mbr.h"

/* How often the table is searched for groups whose rmdir went unseen. */
#define MBR_SWEEP_INTERVAL	(10 * HZ)
/* Groups one sweep looks at, at most. */
#define MBR_SWEEP_BATCH		1024

static DEFINE_MUTEX(mbr_names_mutex);
static struct kobject *mbr_cgroups_kobj;

/* Groups unhashed from atomic context wait here for their kobject_del. */
static LIST_HEAD(mbr_reap_list);
static void mbr_reap_fn(struct work_struct *work);
static DECLARE_WORK(mbr_reap_work, mbr_reap_fn);
static void mbr_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mbr_sweep_work, mbr_sweep_fn);

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
	unlinked = mbr_table_unlink_locked(g);
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
 * must not rest on it) only pins a zombie memcg, and the sweep drops it.
 * A run looks at some MBR_SWEEP_BATCH groups (whole buckets) and goes on
 * from there the next time, so that it never grows with the number of
 * groups: a zombie is dropped within 10 s per 1024 groups.
 */
static bool mbr_sweep_one(struct mbr_group *g)
{
	return css_is_dying(&g->memcg->css) && mbr_group_unlink_to_reap(g);
}

static void mbr_sweep_fn(struct work_struct *work)
{
	static unsigned int cursor;
	unsigned int n;

	rcu_read_lock();
	n = mbr_table_visit_rcu(&cursor, MBR_SWEEP_BATCH, mbr_sweep_one);
	rcu_read_unlock();
	if (n) {
		pr_warn_ratelimited("%u groups of removed cgroups dropped by the sweep\n",
				    n);
		mbr_reap_fn(NULL);
	}
	if (atomic_read(&mbr_nr_groups))
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);
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
	bool ok;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	ok = !mbr_table_add_locked(g);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	if (ok)
		schedule_delayed_work(&mbr_sweep_work, MBR_SWEEP_INTERVAL);
	return ok;
}

/**
 * mbr_group_forget() - unlink a group a rule, or the cgroupfs files, no
 *	longer configure
 * @g: the group, referenced by the caller
 * @files: the cgroupfs files' group (else a rule's)
 *
 * Context: process context.
 */
void mbr_group_forget(struct mbr_group *g, bool files)
{
	bool unlinked = false;

	/* Not one "add" or a cgroupfs write took over meanwhile. */
	mutex_lock(&mbr_config_mutex);
	if (files ? test_bit(MBR_GROUP_CGROUPFS, &g->flags) : !!g->rule_id)
		unlinked = mbr_group_unlink_to_reap(g);
	mutex_unlock(&mbr_config_mutex);
	if (unlinked)
		schedule_work(&mbr_reap_work);
}

/*
 * "add" of a cgroup that already has a group: one a rule or the cgroupfs
 * files configured becomes the user's, with a directory of its own
 * (settings made by hand override both); one added by hand is -EEXIST.
 * -ENOENT if there is none. Caller holds mbr_names_mutex.
 */
static int mbr_group_adopt(u64 id)
{
	struct mbr_group *g;
	int ret = -ENOENT;
	bool files = false;
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
	} else if (rule_id ||
		   test_and_clear_bit(MBR_GROUP_CGROUPFS, &g->flags)) {
		files = !rule_id;
		WRITE_ONCE(g->rule_id, 0);
		ret = 0;
	} else {
		ret = -EEXIST;
	}
	mutex_unlock(&mbr_config_mutex);
	if (!ret) {
		/* Under mbr_names_mutex: reaping waits for us to finish. */
		ret = mbr_should_fail("group_kobject") ? -ENOMEM :
			kobject_add(&g->kobj, mbr_cgroups_kobj, "%llu", id);
		if (ret) {
			mutex_lock(&mbr_config_mutex);
			WRITE_ONCE(g->rule_id, rule_id);
			if (files)
				set_bit(MBR_GROUP_CGROUPFS, &g->flags);
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
	 * A rule may have configured the cgroup since the lookup above
	 * (rules do not take mbr_names_mutex): then that group is adopted.
	 */
	raw_spin_lock_irqsave(&mbr_lock, flags);
	ret = mbr_table_add_locked(g);
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
		unlinked = mbr_table_unlink_locked(g);
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
	unsigned long flags;

	cancel_delayed_work_sync(&mbr_sweep_work);
	mbr_groups_spares_exit();
	mutex_lock(&mbr_names_mutex);
	mutex_lock(&mbr_config_mutex);
	raw_spin_lock_irqsave(&mbr_lock, flags);
	mbr_table_unlink_all_locked(&mbr_reap_list);
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
