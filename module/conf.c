// SPDX-License-Identifier: GPL-2.0
/*
 * A group's configuration: every setter builds a new struct mbr_conf and
 * publishes it with one RCU replace (mbr_conf_replace()), so that the
 * charge path and the workers read a whole configuration without a lock.
 * mbr_config_mutex orders the setters against each other and against the
 * group's unlinking; it is never held across kobject_del(), which waits
 * for the very setting writes that take it.
 */
#include <linux/mutex.h>
#include <linux/slab.h>

#include "mbr.h"

DEFINE_MUTEX(mbr_config_mutex);

/* What a change of configuration means for the group's running state. */
#define MBR_CONF_RETRY		BIT(0)	/* a new chance: end a back-off */
#define MBR_CONF_BUDGET		BIT(1)	/* a fresh cpu_budget period */
#define MBR_CONF_AUTO		BIT(2)	/* wmark_auto starts from nothing */
#define MBR_CONF_FILES		BIT(3)	/* a rule's group becomes the files' */

/*
 * An edit of @new (a copy of @old) for @g, under mbr_config_mutex; it
 * may also set what of @g that mutex guards (->rule_id, read locklessly
 * only for display).
 * Return: a negative errno (nothing is published), 0 (nothing to
 * publish), or the MBR_CONF_* flags of what the change means.
 */
typedef int (*mbr_conf_edit_t)(struct mbr_group *g, struct mbr_conf *new,
			       const struct mbr_conf *old, const void *arg);

/*
 * A changed cpu_budget starts afresh: no group stays held back under a
 * budget it no longer has, and the worker refills its bucket.
 */
static void mbr_conf_reset_budget(struct mbr_group *g)
{
	set_bit(MBR_GROUP_BUDGET_RESET, &g->flags);
	/* Pairs with the barrier in mbr_budget_admit(). */
	smp_mb__after_atomic();
	WRITE_ONCE(g->throttled_until, 0);
}

/*
 * The one replace sequence: copy, edit, check the group is still there,
 * publish, and free the old copy after a grace period. @fault names the
 * test variant's injection point for the allocation (NULL: none, for
 * the rescans, which allocate for every group they pass).
 * Return: 0, the edit's errno, -ENOENT if the group is gone, -ENOMEM.
 */
static int mbr_conf_replace(struct mbr_group *g, mbr_conf_edit_t edit,
			    const void *arg, const char *fault)
{
	struct mbr_conf *old, *new;
	int ret;

	new = fault && mbr_should_fail(fault) ? NULL :
		kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mutex_lock(&mbr_config_mutex);
	if (READ_ONCE(g->dead)) {
		ret = -ENOENT;
		goto out_unlock;
	}
	old = rcu_dereference_protected(g->conf,
					lockdep_is_held(&mbr_config_mutex));
	*new = *old;
	ret = edit(g, new, old, arg);
	if (ret <= 0)
		goto out_unlock;
	rcu_assign_pointer(g->conf, new);
	if (ret & MBR_CONF_RETRY) {
		g->nr_failures = 0;
		mbr_group_clear_backoff(g);
	}
	if (ret & MBR_CONF_BUDGET)
		mbr_conf_reset_budget(g);
	/*
	 * New marks end a boost too: it was learnt under the old ones (an
	 * auto group's headroom only starts over when auto is turned on).
	 */
	if ((ret & MBR_CONF_AUTO) ||
	    (!new->wm.autotune && !mbr_wmark_conf_equal(&old->wm, &new->wm)))
		mbr_auto_reset(g);
	if (ret & MBR_CONF_FILES) {
		set_bit(MBR_GROUP_CGROUPFS, &g->flags);
		/*
		 * After the publish: a reader that sees rule_id 0 (acquire)
		 * sees the files' configuration, not the rule's.
		 */
		smp_store_release(&g->rule_id, 0);
	}
	mutex_unlock(&mbr_config_mutex);
	kfree_rcu(old, rcu);
	return 0;

out_unlock:
	mutex_unlock(&mbr_config_mutex);
	kfree(new);
	return ret;
}

struct mbr_conf_setting {
	enum mbr_setting what;
	u64 val;
};

static int mbr_conf_edit_setting(struct mbr_group *g, struct mbr_conf *new,
				 const struct mbr_conf *old, const void *arg)
{
	const struct mbr_conf_setting *s = arg;
	u64 limit = (u64)mbr_memcg_limit(g->memcg) << PAGE_SHIFT;
	int ret = 0;

	switch (s->what) {
	case MBR_SET_HIGH_DIST:
		ret = mbr_check_high_dist(limit, old->wm.low_dist, s->val);
		new->wm.high_dist = s->val;
		break;
	case MBR_SET_LOW_DIST:
		ret = mbr_check_low_dist(limit, old->wm.high_dist, s->val);
		new->wm.low_dist = s->val;
		break;
	case MBR_SET_RATIO:
		if (s->val > MBR_RATIO_MAX)
			ret = -EINVAL;
		new->wm.ratio = s->val;
		break;
	case MBR_SET_SCALE:
		if (s->val < MBR_SCALE_MIN || s->val > MBR_SCALE_MAX)
			ret = -EINVAL;
		new->wm.scale = s->val;
		break;
	case MBR_SET_AUTO:
		if (s->val > 1)
			ret = -EINVAL;
		new->wm.autotune = s->val;
		break;
	}
	if (ret)
		return ret;
	/* A new configuration is a new chance to make progress. */
	ret = MBR_CONF_RETRY;
	/* Turned on, auto starts from nothing measured. */
	if (new->wm.autotune && !old->wm.autotune)
		ret |= MBR_CONF_AUTO;
	return ret;
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
	struct mbr_conf_setting s = { .what = what, .val = val };

	return mbr_conf_replace(g, mbr_conf_edit_setting, &s, "conf_alloc");
}

static int mbr_conf_edit_files(struct mbr_group *g, struct mbr_conf *new,
			       const struct mbr_conf *old, const void *arg)
{
	const struct mbr_wmark_conf *wm = arg;

	if (g->rule_id) {
		/* Taken from its rule: the files' marks alone, no budget. */
		new->wm = (struct mbr_wmark_conf){
			.ratio = wm->ratio, .scale = wm->scale,
		};
		new->budget = (struct mbr_budget){
			.period_us = MBR_BUDGET_PERIOD_DEFAULT,
		};
		return MBR_CONF_RETRY | MBR_CONF_BUDGET | MBR_CONF_FILES;
	}
	/*
	 * The same values again change nothing: no back-off ends, no
	 * wmark_auto cycle starts over (koordlet rewrites them every
	 * minute; the caller compares too, this is for a race with a
	 * sysfs write).
	 */
	if (old->wm.ratio == wm->ratio && old->wm.scale == wm->scale)
		return 0;
	new->wm.ratio = wm->ratio;
	new->wm.scale = wm->scale;
	return MBR_CONF_RETRY;
}

/**
 * mbr_group_set_files() - a write of the cgroupfs files: ratio and scale
 * @g: the group
 * @wm: its ratio and scale (the rest is not looked at)
 *
 * A rule's group becomes the files' (MBR_GROUP_CGROUPFS) with just
 * those marks and no cpu_budget; a group by hand or the files' keeps
 * its other settings.
 *
 * Context: process context.
 * Return: 0, -ENOENT if the cgroup is gone, or -ENOMEM.
 */
int mbr_group_set_files(struct mbr_group *g, const struct mbr_wmark_conf *wm)
{
	return mbr_conf_replace(g, mbr_conf_edit_files, wm, "conf_alloc");
}

static int mbr_conf_edit_budget(struct mbr_group *g, struct mbr_conf *new,
				const struct mbr_conf *old, const void *arg)
{
	new->budget = *(const struct mbr_budget *)arg;
	return MBR_CONF_BUDGET;
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
	return mbr_conf_replace(g, mbr_conf_edit_budget, b, "conf_alloc");
}

struct mbr_conf_rule {
	const struct mbr_wmark_conf *wm;
	const struct mbr_budget *budget;
	u64 rule_id;
};

/* Only a rule's group, and only if something changed. */
static int mbr_conf_edit_rule(struct mbr_group *g, struct mbr_conf *new,
			      const struct mbr_conf *old, const void *arg)
{
	const struct mbr_conf_rule *r = arg;

	if (!g->rule_id || (g->rule_id == r->rule_id &&
			    mbr_wmark_conf_equal(&old->wm, r->wm) &&
			    !memcmp(&old->budget, r->budget,
				    sizeof(*r->budget))))
		return 0;
	new->wm = *r->wm;
	new->budget = *r->budget;
	WRITE_ONCE(g->rule_id, r->rule_id);
	return MBR_CONF_RETRY | MBR_CONF_BUDGET |
		(r->wm->autotune ? MBR_CONF_AUTO : 0);
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
	struct mbr_conf_rule r = {
		.wm = wm, .budget = budget, .rule_id = rule_id,
	};

	return mbr_conf_replace(g, mbr_conf_edit_rule, &r, NULL);
}
