// SPDX-License-Identifier: GPL-2.0
/*
 * Rules: a cgroup, a watermark configuration, and a filter (name glob,
 * depth). A rule configures every descendant of its cgroup that the
 * filter admits: those that exist when it is made, and every one
 * created later, at creation, from the memcg's online probe, so that a
 * restarted container or service has its marks before its first charge.
 *
 * Precedence: a group configured by hand (add) is never touched by a
 * rule. Otherwise the nearest ancestor with a rule whose filter admits
 * the cgroup decides. Deleting a rule forgets the groups it configured
 * (or hands them to the next rule up that admits them).
 *
 * A rule holds no pointer to its cgroup, only the cgroup's id and
 * level, so nothing here can outlive its object; the rule of a removed
 * cgroup is dropped by a work item.
 *
 * Locking: mbr_rules_mutex serialises rule changes and the rescans that
 * follow them; the online probe reads the list under RCU.
 */
#include <linux/cgroup.h>
#include <linux/kernfs.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"

/* Enough for any fleet's policy; the rules file must also fit a page. */
#define MBR_MAX_RULES	32

struct mbr_rule {
	struct list_head node;		/* mbr_rules; RCU, mbr_rules_mutex */
	u64 id;				/* the rule's cgroup */
	unsigned int level;		/* its level in its hierarchy */
	bool dead;			/* its cgroup went offline */
	bool dfl;			/* on cgroup2 */
	struct mbr_wmark_conf wm;
	struct mbr_budget budget;	/* each group's */
	unsigned int max_depth;		/* 0: any */
	char match[MBR_MATCH_MAX];	/* "": any name */
	char *path;			/* as resolved when the rule was made */
	struct rcu_head rcu;
};

static LIST_HEAD(mbr_rules);
static DEFINE_MUTEX(mbr_rules_mutex);
static unsigned int mbr_nr_rules;	/* under mbr_rules_mutex */
/* A cgroup's path, for its name: kernfs_name() is not exported. */
static char mbr_path_buf[PATH_MAX];	/* under mbr_rules_mutex */

/* Groups configured by the online probe, and by the catch-up work. */
atomic64_t mbr_rule_groups_online = ATOMIC64_INIT(0);
atomic64_t mbr_rule_groups_late = ATOMIC64_INIT(0);

/*
 * Catch-up: every rule's subtree again, for cgroups the online probe saw
 * but had no spare group for, and to drop the rules of removed cgroups.
 */
static void mbr_rules_work_fn(struct work_struct *work);
static DECLARE_WORK(mbr_rules_work, mbr_rules_work_fn);
/*
 * The catch-up after a rule_add, for cgroups coming online meanwhile:
 * again, later each time, while a rescan passed over a cgroup still on
 * its way online (its creator may be preempted or throttled there).
 */
#define MBR_RULES_LATE		(HZ / 10)
#define MBR_RULES_LATE_TRIES	8	/* up to some 25 s after the add */
static unsigned int mbr_rules_coming;	/* under mbr_rules_mutex */
static unsigned int mbr_rules_late_try;	/* under mbr_rules_mutex */
static void mbr_rules_late_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mbr_rules_late_work, mbr_rules_late_fn);

static void mbr_rules_late_fn(struct work_struct *work)
{
	unsigned int try = MBR_RULES_LATE_TRIES;

	mbr_rules_work_fn(work);
	mutex_lock(&mbr_rules_mutex);
	if (mbr_rules_coming)
		try = ++mbr_rules_late_try;
	mutex_unlock(&mbr_rules_mutex);
	if (try < MBR_RULES_LATE_TRIES)
		schedule_delayed_work(&mbr_rules_late_work,
				      MBR_RULES_LATE << try);
}

static void mbr_rule_free(struct mbr_rule *r)
{
	kfree(r->path);
	kfree(r);
}

static void mbr_rule_free_rcu(struct rcu_head *head)
{
	mbr_rule_free(container_of(head, struct mbr_rule, rcu));
}

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
			mbr_group_forget(g);
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
static void mbr_rules_rescan(struct cgroup_subsys_state *root, bool late)
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

/*
 * Whether a rule's cgroup2 directory is still there, its memory
 * controller switched off. (cgroup v1's memory hierarchy has no such
 * state: a cgroup without its memcg is gone.)
 */
static bool mbr_rule_dormant(const struct mbr_rule *r)
{
	struct cgroup *cgrp;
	bool alive;

	if (!r->dfl)
		return false;
	cgrp = cgroup_get_from_id(r->id);
	if (IS_ERR(cgrp))
		return false;
	alive = READ_ONCE(cgrp->self.flags) & CSS_ONLINE;
	cgroup_put(cgrp);
	return alive;
}

/* The live css of a rule's cgroup, referenced, or NULL. */
static struct cgroup_subsys_state *mbr_rule_css(const struct mbr_rule *r)
{
	struct cgroup_subsys_state *css;
	char id[24];

	snprintf(id, sizeof(id), "%llu", r->id);
	css = mbr_memcg_css_from_arg("rule", id, strlen(id));
	return IS_ERR(css) ? NULL : css;
}

static void mbr_rules_work_fn(struct work_struct *work)
{
	struct cgroup_subsys_state *css;
	struct mbr_rule *r, *tmp;

	mutex_lock(&mbr_rules_mutex);
	mbr_rules_coming = 0;
	list_for_each_entry_safe(r, tmp, &mbr_rules, node) {
		/* Marked by the offline hook, or gone before it could be. */
		css = READ_ONCE(r->dead) ? NULL : mbr_rule_css(r);
		if (!css && !READ_ONCE(r->dead) && mbr_rule_dormant(r))
			continue;
		if (!css) {
			list_del_rcu(&r->node);
			mbr_nr_rules--;
			call_rcu(&r->rcu, mbr_rule_free_rcu);
			continue;
		}
		mbr_rules_rescan(css, true);
		css_put(css);
	}
	mutex_unlock(&mbr_rules_mutex);
}

/* A rule's settings, as the parser would give them, for the formatter. */
static void mbr_rule_spec_of(const struct mbr_rule *r,
			     struct mbr_rule_spec *s)
{
	s->path = r->path;
	s->path_len = strlen(r->path);
	s->wm = r->wm;
	s->budget = r->budget;
	strscpy(s->match, r->match, sizeof(s->match));
	s->max_depth = r->max_depth;
}

/* The widest tail of a line: the rule's id and its number of groups. */
#define MBR_RULE_TAIL_MAX \
	sizeof(" id=18446744073709551615 groups=4294967295\n")

/* The length of a rule's line in the rules file, at most. */
static size_t mbr_rule_show_len(const struct mbr_rule *r)
{
	struct mbr_rule_spec s;

	mbr_rule_spec_of(r, &s);
	return mbr_rule_spec_format(NULL, 0, &s) + MBR_RULE_TAIL_MAX;
}

/* The rules file's length at most, without @skip. Under the mutex. */
static size_t mbr_rules_show_len(const struct mbr_rule *skip)
{
	const struct mbr_rule *r;
	size_t len = 0;

	list_for_each_entry(r, &mbr_rules, node)
		if (r != skip)
			len += mbr_rule_show_len(r);
	return len;
}

/**
 * mbr_rule_add() - make or replace a rule (the "rule_add" file)
 * @buf: "PATH key=value ...", see include/rule_spec.h
 * @len: its length
 *
 * The rule applies at once to the existing descendants, then to new
 * ones as they are created. Replacing a rule reconfigures its groups.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a malformed line, the root cgroup or a cgroup
 *	without a memory controller; -ENOENT no such cgroup; -ENOSPC
 *	MBR_MAX_RULES rules exist, or their lines would not fit in the
 *	rules file (one page); -ENOMEM.
 */
int mbr_rule_add(const char *buf, size_t len)
{
	struct cgroup_subsys_state *css;
	struct mbr_rule *r, *old = NULL, *pos;
	struct mbr_rule_spec spec;
	const char *bad;
	int ret;

	ret = mbr_rule_spec_parse(buf, len, &spec, &bad);
	if (ret) {
		pr_warn_ratelimited("rule_add: bad rule at \"%.*s\"\n",
				    (int)strcspn(bad, " \t\n"), bad);
		return ret;
	}
	css = mbr_memcg_css_from_arg("rule_add", spec.path, spec.path_len);
	if (IS_ERR(css))
		return PTR_ERR(css);

	/* The online probe cannot allocate: have its spares ready. */
	mbr_groups_reserve();
	ret = -ENOMEM;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		goto out_put_css;
	r->path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!r->path)
		goto out_free;
	ret = cgroup_path(css->cgroup, r->path, PATH_MAX);
	if (ret < 0)
		goto out_free;
	r->id = cgroup_id(css->cgroup);
	r->level = css->cgroup->level;
	r->dfl = css->cgroup->root == &cgrp_dfl_root;
	r->wm = spec.wm;
	r->budget = spec.budget;
	r->max_depth = spec.max_depth;
	memcpy(r->match, spec.match, sizeof(r->match));

	mutex_lock(&mbr_rules_mutex);
	list_for_each_entry(pos, &mbr_rules, node)
		if (pos->id == r->id && !pos->dead)
			old = pos;
	ret = -ENOSPC;
	if (!old && mbr_nr_rules >= MBR_MAX_RULES)
		goto out_unlock;
	if (mbr_rules_show_len(old) + mbr_rule_show_len(r) > PAGE_SIZE)
		goto out_unlock;	/* the rules file must hold them all */
	if (old) {
		list_replace_rcu(&old->node, &r->node);
	} else {
		list_add_tail_rcu(&r->node, &mbr_rules);
		mbr_nr_rules++;
	}
	/* An rmdir whose offline ran before the rule was in the list. */
	if (css_is_dying(css))
		WRITE_ONCE(r->dead, true);
	/* No online probe still applies the replaced rule after the rescan. */
	synchronize_rcu();
	mbr_rules_rescan(css, false);
	mutex_unlock(&mbr_rules_mutex);
	/*
	 * A cgroup whose css_online returned before the rule was published
	 * (the online probe found no rule) but that was not CSS_ONLINE yet
	 * for the rescan (online_css() sets that right after, under
	 * cgroup_mutex, which modules cannot take) is configured by a
	 * catch-up rescan a little later.
	 */
	mutex_lock(&mbr_rules_mutex);
	mbr_rules_late_try = 0;
	mutex_unlock(&mbr_rules_mutex);
	mod_delayed_work(system_wq, &mbr_rules_late_work, MBR_RULES_LATE);
	if (old)
		call_rcu(&old->rcu, mbr_rule_free_rcu);
	css_put(css);
	return 0;

out_unlock:
	mutex_unlock(&mbr_rules_mutex);
out_free:
	mbr_rule_free(r);
out_put_css:
	css_put(css);
	return ret < 0 ? ret : -EINVAL;
}

/**
 * mbr_rule_del() - delete a rule (the "rule_del" file)
 * @buf: its cgroup, a path or an id
 * @len: its length
 *
 * The groups it configured are forgotten, or configured by the next
 * rule up that admits them; groups configured by hand stay.
 *
 * Context: process context.
 * Return: 0, -ENOENT if there is no such rule, or another errno.
 */
int mbr_rule_del(const char *buf, size_t len)
{
	struct cgroup_subsys_state *css;
	struct mbr_rule *r, *found = NULL;
	u64 id;
	int ret;

	ret = mbr_cgroup_id_from_arg("rule_del", buf, len, &id);
	if (ret)
		return ret;
	mutex_lock(&mbr_rules_mutex);
	list_for_each_entry(r, &mbr_rules, node)
		if (r->id == id)
			found = r;
	if (!found) {
		mutex_unlock(&mbr_rules_mutex);
		return -ENOENT;
	}
	list_del_rcu(&found->node);
	mbr_nr_rules--;
	/* No online probe still applies the rule after the rescan. */
	synchronize_rcu();
	css = mbr_rule_css(found);
	if (css) {
		mbr_rules_rescan(css, false);
		css_put(css);
	}
	mutex_unlock(&mbr_rules_mutex);
	call_rcu(&found->rcu, mbr_rule_free_rcu);
	return 0;
}

/**
 * mbr_rules_show() - the "rules" file: one line per rule
 * @buf: a sysfs page
 *
 * Return: the length written.
 */
int mbr_rules_show(char *buf)
{
	struct mbr_rule_spec s;
	struct mbr_rule *r;
	int len = 0;

	mutex_lock(&mbr_rules_mutex);
	list_for_each_entry(r, &mbr_rules, node) {
		if (r->dead)
			continue;
		/*
		 * Fits: mbr_rule_add() refuses a rule whose line could take
		 * the file past a page. Clamped all the same, so that a bug
		 * there truncates the file instead of writing past it.
		 */
		mbr_rule_spec_of(r, &s);
		len += min_t(size_t, mbr_rule_spec_format(buf + len,
							  PAGE_SIZE - len, &s),
			     PAGE_SIZE - 1 - len);
		len += sysfs_emit_at(buf, len, " id=%llu groups=%u\n", r->id,
				     mbr_groups_of_rule(r->id));
	}
	mutex_unlock(&mbr_rules_mutex);
	return len;
}

/**
 * mbr_rules_exit() - forget every rule, at module exit
 *
 * Called with the online probe gone; the groups the rules configured are
 * forgotten with all the others afterwards.
 */
void mbr_rules_exit(void)
{
	struct mbr_rule *r, *tmp;

	mutex_lock(&mbr_rules_mutex);
	list_for_each_entry_safe(r, tmp, &mbr_rules, node) {
		list_del_rcu(&r->node);
		call_rcu(&r->rcu, mbr_rule_free_rcu);
	}
	mbr_nr_rules = 0;
	mutex_unlock(&mbr_rules_mutex);
	/*
	 * The offline hook, still attached, schedules the work when it
	 * finds a rule: only once no hook can see one is the work cancelled
	 * for good.
	 */
	synchronize_rcu();
	cancel_delayed_work_sync(&mbr_rules_late_work);
	cancel_work_sync(&mbr_rules_work);
}
