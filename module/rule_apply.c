// SPDX-License-Identifier: GPL-2.0
/*
 * Rules applied to cgroups: at creation, from the memcg's online probe
 * (no sleeping, no allocation: a group from the spare pool), and by the
 * rescans that follow a rule's change, in process context.
 */
#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/rculist.h>

#include "mbr.h"
#include "rules.h"

/* Groups configured by the online probe, and by the catch-up work. */
atomic64_t mbr_rule_groups_online = ATOMIC64_INIT(0);
atomic64_t mbr_rule_groups_late = ATOMIC64_INIT(0);

/* A cgroup's path, for its name: kernfs_name() is not exported. */
static char mbr_path_buf[PATH_MAX];	/* under mbr_rules_mutex */

/*
 * The rule that decides for @memcg (named @name, at @level): the nearest
 * ancestor's rule that admits it. Context: rcu_read_lock() or
 * mbr_rules_mutex held.
 */
static const struct mbr_rule *mbr_rule_for(struct mem_cgroup *memcg,
					   const char *name,
					   unsigned int level)
{
	const struct mbr_rule *r;
	struct mem_cgroup *a;

	for (a = parent_mem_cgroup(memcg); a; a = parent_mem_cgroup(a)) {
		u64 aid = cgroup_id(a->css.cgroup);

		list_for_each_entry_rcu(r, &mbr_rules, node,
					lockdep_is_held(&mbr_rules_mutex)) {
			if (r->id != aid || READ_ONCE(r->dead) ||
			    level <= r->level)
				continue;
			if (mbr_rule_spec_matches(r->match, r->max_depth, name,
						  level - r->level))
				return r;
		}
	}
	return NULL;
}

/**
 * mbr_rules_online() - a memcg is being created: configure it by rule
 * @memcg: the new memcg, whose css_online has just succeeded
 *
 * Called from the online probe, before the cgroup's directory is
 * visible, hence before any task can be charged to it.
 *
 * Context: a kretprobe handler, preemption disabled: nothing here
 * sleeps or allocates.
 */
void mbr_rules_online(struct mem_cgroup *memcg)
{
	struct cgroup *cgrp = memcg->css.cgroup;
	const struct mbr_rule *r;
	struct mbr_group *g;
	u64 id;

	if (list_empty(&mbr_rules))
		return;
	rcu_read_lock();
	r = mbr_rule_for(memcg, mbr_cgroup_new_name(cgrp), cgrp->level);
	if (!r)
		goto out;
	id = cgroup_id(cgrp);
	g = mbr_group_alloc_atomic(memcg, id);
	if (!g) {
		/* Too many at once for the spare pool: a little later. */
		schedule_work(&mbr_rules_work);
		goto out;
	}
	rcu_dereference_protected(g->conf, true)->wm = r->wm;
	rcu_dereference_protected(g->conf, true)->budget = r->budget;
	g->rule_id = r->id;
	if (mbr_group_insert(g))
		atomic64_inc(&mbr_rule_groups_online);
	else
		mbr_group_put(g);
out:
	rcu_read_unlock();
}

/**
 * mbr_rules_offline() - a memcg goes offline: drop its rule, if any
 * @memcg: the memcg
 *
 * Context: as mbr_rules_online().
 */
void mbr_rules_offline(struct mem_cgroup *memcg)
{
	struct cgroup *cgrp = memcg->css.cgroup;
	u64 id = cgroup_id(cgrp);
	struct mbr_rule *r;

	/*
	 * Only the cgroup's removal ends its rule. A memory controller
	 * switched off above it ("-memory" in the parent's
	 * subtree_control) takes its memcg, not the directory: the rule
	 * waits for the controller to come back.
	 */
	if (READ_ONCE(cgrp->self.flags) & CSS_ONLINE)
		return;

	rcu_read_lock();
	list_for_each_entry_rcu(r, &mbr_rules, node) {
		if (r->id == id) {
			WRITE_ONCE(r->dead, true);
			schedule_work(&mbr_rules_work);
		}
	}
	rcu_read_unlock();
}

/*
 * Bring @memcg's group in line with the rules. Caller holds
 * mbr_rules_mutex and a reference on @memcg.
 */
static void mbr_rules_apply(struct mem_cgroup *memcg, bool late)
{
	struct cgroup *cgrp = memcg->css.cgroup;
	const struct mbr_rule *r;
	struct mbr_group *g;
	u64 id = cgroup_id(cgrp);

	if (cgroup_path(cgrp, mbr_path_buf, sizeof(mbr_path_buf)) < 0)
		return;
	r = mbr_rule_for(memcg, strrchr(mbr_path_buf, '/') + 1, cgrp->level);

	rcu_read_lock();
	g = mbr_group_lookup_rcu(id);
	if (g)
		g = mbr_group_get_rcu(g);
	rcu_read_unlock();

	if (g) {
		/* A group configured by hand (rule_id 0): rules keep out. */
		if (READ_ONCE(g->rule_id) && !r)
			mbr_group_forget(g, false);
		else if (READ_ONCE(g->rule_id))
			mbr_group_set_rule(g, &r->wm, &r->budget, r->id);
		mbr_group_put(g);
		return;
	}
	if (!r)
		return;
	g = mbr_group_alloc_rule(memcg, id, &r->wm, &r->budget, r->id);
	if (!g)
		return;
	if (!mbr_group_insert(g))
		mbr_group_put(g);
	else if (late)
		atomic64_inc(&mbr_rule_groups_late);
}

/*
 * Apply the rules to every live descendant of @root. The walk drops RCU
 * around each step (which allocates): css_next_descendant_pre() only
 * needs the current position pinned. Caller holds mbr_rules_mutex.
 */
void mbr_rules_rescan(struct cgroup_subsys_state *root, bool late)
{
	struct cgroup_subsys_state *pos;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, root) {
		/*
		 * Not a css whose css_online has not returned yet: it could
		 * still fail and be freed whatever its references. The
		 * online probe configures it if it succeeds; if its return
		 * came before the rule, the late work looks again.
		 */
		if (pos != root && !(READ_ONCE(pos->flags) & CSS_ONLINE) &&
		    !css_is_dying(pos))
			mbr_rules_coming++;
		if (pos == root || !(READ_ONCE(pos->flags) & CSS_ONLINE) ||
		    !css_tryget_online(pos))
			continue;
		rcu_read_unlock();
		mbr_rules_apply(mem_cgroup_from_css(pos), late);
		cond_resched();
		rcu_read_lock();
		css_put(pos);
	}
	rcu_read_unlock();
}


/**
 * mbr_rules_apply_one() - bring one memcg's group in line with the rules
 * @memcg: the memcg, referenced by the caller
 *
 * Context: process context.
 */
void mbr_rules_apply_one(struct mem_cgroup *memcg)
{
	mutex_lock(&mbr_rules_mutex);
	mbr_rules_apply(memcg, false);
	mutex_unlock(&mbr_rules_mutex);
}
