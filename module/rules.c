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
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"
#include "rules.h"

/* Enough for any fleet's policy; the rules file must also fit a page. */
#define MBR_MAX_RULES	32

LIST_HEAD(mbr_rules);
DEFINE_MUTEX(mbr_rules_mutex);
static unsigned int mbr_nr_rules;	/* under mbr_rules_mutex */

/*
 * Catch-up: every rule's subtree again, for cgroups the online probe saw
 * but had no spare group for, and to drop the rules of removed cgroups.
 */
static void mbr_rules_work_fn(struct work_struct *work);
DECLARE_WORK(mbr_rules_work, mbr_rules_work_fn);
/*
 * The catch-up after a rule_add, for cgroups coming online meanwhile:
 * again, later each time, while a rescan passed over a cgroup still on
 * its way online (its creator may be preempted or throttled there).
 */
#define MBR_RULES_LATE		(HZ / 10)
#define MBR_RULES_LATE_TRIES	8	/* up to some 25 s after the add */
unsigned int mbr_rules_coming;		/* under mbr_rules_mutex */
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
