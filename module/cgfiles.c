// SPDX-License-Identifier: GPL-2.0
/*
 * Alibaba Cloud Linux's per-memcg background reclaim files, in every
 * non-root memory cgroup of a stock kernel, so that Koordinator's
 * koordlet drives the module unchanged (doc/koordinator.md):
 *
 *   memory.wmark_ratio         rw  0-100; 0: off
 *   memory.wmark_scale_factor  rw  1-1000, in 0.01% of the limit
 *   memory.wmark_high          ro  the wake mark, bytes ("max": off)
 *   memory.wmark_low           ro  the stop mark, bytes ("max": off)
 *
 * Opt in (cgroupfs_files=1, or the sysfs switch): files in every memory
 * cgroup are visible to every tool on the host. The ABI document has
 * what a write does to a group by hand, a rule's, or none.
 *
 * The kernel reads and writes these files under kernfs' active
 * reference: cgroup_rm_cftypes() waits for every reader and writer
 * before it returns, so no call into this file outlives the switch.
 */
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "mbr.h"
#include "rules.h"

static DEFINE_MUTEX(mbr_cgfiles_mutex);
static bool mbr_cgfiles_on;	/* under mbr_cgfiles_mutex */
/*
 * Orders the files' writers against each other. Not mbr_cgfiles_mutex:
 * switching the files off holds that while the kernel waits for the
 * writers.
 */
static DEFINE_MUTEX(mbr_cgfiles_write_mutex);

/*
 * The files' view of a group: its ratio and scale, or the defaults for
 * a rule's group (whose configuration is the rule's, not the files'),
 * and for none. So a reconciler writing the defaults changes nothing of
 * a rule's group, and what it writes reads back as written.
 */
static struct mbr_wmark_conf mbr_cgfiles_view_rcu(struct mbr_group *g)
{
	struct mbr_wmark_conf wm = { .scale = MBR_SCALE_DEFAULT };
	const struct mbr_wmark_conf *c;

	/* Pairs with the release in mbr_conf_replace(): a takeover. */
	if (g && !smp_load_acquire(&g->rule_id)) {
		c = &rcu_dereference(g->conf)->wm;
		wm.ratio = c->ratio;
		wm.scale = c->scale;
	}
	return wm;
}

static struct mbr_wmark_conf mbr_cgfiles_view(struct mem_cgroup *memcg)
{
	struct mbr_wmark_conf wm;

	rcu_read_lock();
	wm = mbr_cgfiles_view_rcu(mbr_group_find_memcg_rcu(memcg));
	rcu_read_unlock();
	return wm;
}

static u64 mbr_ratio_read(struct cgroup_subsys_state *css, struct cftype *cft)
{
	return mbr_cgfiles_view(mem_cgroup_from_css(css)).ratio;
}

static u64 mbr_scale_read(struct cgroup_subsys_state *css, struct cftype *cft)
{
	return mbr_cgfiles_view(mem_cgroup_from_css(css)).scale;
}

/* The group of @memcg, referenced, or NULL. */
static struct mbr_group *mbr_cgfiles_group(struct mem_cgroup *memcg)
{
	struct mbr_group *g;

	rcu_read_lock();
	g = mbr_group_find_memcg_rcu(memcg);
	if (g)
		g = mbr_group_get_rcu(g);
	rcu_read_unlock();
	return g;
}

static bool mbr_cgfiles_default(const struct mbr_wmark_conf *wm)
{
	return !wm->ratio && wm->scale == MBR_SCALE_DEFAULT;
}

/*
 * A new group of the files' for @memcg, with @wm's ratio and scale.
 * Return: 0, -EAGAIN if a group came meanwhile (a rule's), -ENOENT if
 * the cgroup is going away, -ENOMEM.
 */
static int mbr_cgfiles_insert(struct mem_cgroup *memcg,
			      const struct mbr_wmark_conf *wm)
{
	struct mbr_group *g;

	g = mbr_group_alloc(memcg, cgroup_id(memcg->css.cgroup));
	if (!g)
		return -ENOMEM;
	rcu_dereference_protected(g->conf, true)->wm.ratio = wm->ratio;
	rcu_dereference_protected(g->conf, true)->wm.scale = wm->scale;
	set_bit(MBR_GROUP_CGROUPFS, &g->flags);
	if (mbr_group_insert(g))
		return 0;
	mbr_group_put(g);
	return css_is_dying(&memcg->css) ? -ENOENT : -EAGAIN;
}

static bool mbr_cgfiles_defer(struct cgroup_subsys_state *css, bool inherit);

/*
 * Write one of ratio and scale. A cgroup without a group gets one of
 * the files' (with no directory, as a rule's); a rule's group becomes
 * the files'; a group by hand takes the value as its own setting. A
 * group of the files' back at the defaults is forgotten, and the rules
 * decide again, from a work item. Nothing here waits for cgroup_mutex,
 * or for a lock whose holder might: the holder of cgroup_mutex may be
 * waiting for this writer (rmdir, or the files switched off).
 */
static int mbr_cgfiles_write(struct cgroup_subsys_state *css,
			     enum mbr_setting what, u64 val)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(css);
	struct mbr_wmark_conf cur, want;
	struct mbr_group *g;
	int tries = 3, ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&mbr_cgfiles_write_mutex);
again:
	g = mbr_cgfiles_group(memcg);
	rcu_read_lock();
	cur = mbr_cgfiles_view_rcu(g);
	rcu_read_unlock();
	want = cur;
	if (what == MBR_SET_RATIO)
		want.ratio = val;
	else
		want.scale = val;
	ret = 0;
	if (want.ratio == cur.ratio && want.scale == cur.scale)
		goto out_put;
	if (!g) {
		ret = mbr_cgfiles_insert(memcg, &want);
		if (ret == -EAGAIN && --tries)
			goto again;
		goto out_unlock;
	}
	ret = mbr_group_set_files(g, &want);
	if (ret == -ENOENT && !css_is_dying(css) && --tries) {
		/* Its group was forgotten meanwhile (remove, a rule's end). */
		mbr_group_put(g);
		goto again;
	}
	if (!ret && mbr_cgfiles_default(&want) &&
	    test_bit(MBR_GROUP_CGROUPFS, &g->flags)) {
		mbr_group_forget(g, true);
		if (!mbr_cgfiles_defer(css, false))
			schedule_work(&mbr_rules_work);	/* all the rules */
	}
out_put:
	if (g)
		mbr_group_put(g);
out_unlock:
	mutex_unlock(&mbr_cgfiles_write_mutex);
	return ret;
}

static int mbr_ratio_write(struct cgroup_subsys_state *css,
			   struct cftype *cft, u64 val)
{
	if (val > MBR_RATIO_MAX)
		return -EINVAL;
	return mbr_cgfiles_write(css, MBR_SET_RATIO, val);
}

static int mbr_scale_write(struct cgroup_subsys_state *css,
			   struct cftype *cft, u64 val)
{
	if (val < MBR_SCALE_MIN || val > MBR_SCALE_MAX)
		return -EINVAL;
	return mbr_cgfiles_write(css, MBR_SET_SCALE, val);
}

/* The wake or stop mark, as memory.max prints a limit. */
static int mbr_mark_show(struct seq_file *m, bool wake)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(seq_css(m));
	struct mbr_marks marks = { };
	struct mbr_group *g;
	bool on = false;

	g = mbr_cgfiles_group(memcg);
	if (g) {
		marks = mbr_group_marks(g, memcg);
		rcu_read_lock();
		on = mbr_conf_active(&rcu_dereference(g->conf)->wm);
		rcu_read_unlock();
		mbr_group_put(g);
	}
	if (!on || marks.low >= (u64)PAGE_COUNTER_MAX << PAGE_SHIFT)
		seq_puts(m, "max\n");
	else
		seq_printf(m, "%llu\n", wake ? marks.low : marks.high);
	return 0;
}

static int mbr_high_show(struct seq_file *m, void *v)
{
	return mbr_mark_show(m, true);
}

static int mbr_low_show(struct seq_file *m, void *v)
{
	return mbr_mark_show(m, false);
}

static const struct cftype mbr_cgfiles_template[] = {
	{
		.name = "wmark_ratio",
		.flags = CFTYPE_NOT_ON_ROOT,
		.read_u64 = mbr_ratio_read,
		.write_u64 = mbr_ratio_write,
	},
	{
		.name = "wmark_scale_factor",
		.flags = CFTYPE_NOT_ON_ROOT,
		.read_u64 = mbr_scale_read,
		.write_u64 = mbr_scale_write,
	},
	{
		.name = "wmark_high",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = mbr_high_show,
	},
	{
		.name = "wmark_low",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = mbr_low_show,
	},
	{ }	/* terminate */
};

/*
 * One array per hierarchy: the kernel links a cftype array once, and
 * fills in its own fields; each is copied afresh from the template
 * before it is added.
 */
static struct cftype mbr_dfl_files[ARRAY_SIZE(mbr_cgfiles_template)];
static struct cftype mbr_legacy_files[ARRAY_SIZE(mbr_cgfiles_template)];

/*
 * What the files leave to process context, by css (referenced): a
 * child's inheritance the online hook could not do (the spare pool was
 * empty: a burst of creations), and the rules' say on a cgroup whose
 * files' group was forgotten.
 */
#define MBR_CGFILES_DEFERRED	256
struct mbr_cgfiles_deferred {
	struct cgroup_subsys_state *css;
	bool inherit;
};

static struct mbr_cgfiles_deferred mbr_cgfiles_q[MBR_CGFILES_DEFERRED];
static unsigned int mbr_cgfiles_nr_q;		/* under mbr_cgfiles_q_lock */
static DEFINE_RAW_SPINLOCK(mbr_cgfiles_q_lock);
static void mbr_cgfiles_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(mbr_cgfiles_work, mbr_cgfiles_work_fn);
atomic64_t mbr_cgfiles_groups_online = ATOMIC64_INIT(0);
atomic64_t mbr_cgfiles_groups_late = ATOMIC64_INIT(0);

/* Context: any but NMI. Return: false if the queue is full. */
static bool mbr_cgfiles_defer(struct cgroup_subsys_state *css, bool inherit)
{
	unsigned long flags;
	bool queued = false;

	css_get(css);
	raw_spin_lock_irqsave(&mbr_cgfiles_q_lock, flags);
	if (mbr_cgfiles_nr_q < MBR_CGFILES_DEFERRED) {
		mbr_cgfiles_q[mbr_cgfiles_nr_q++] =
			(struct mbr_cgfiles_deferred){ css, inherit };
		queued = true;
	}
	raw_spin_unlock_irqrestore(&mbr_cgfiles_q_lock, flags);
	if (queued)
		mod_delayed_work(system_wq, &mbr_cgfiles_work, 0);
	else
		css_put(css);
	return queued;
}

/* What a child of @parent inherits: the files' view, if it is on. */
static bool mbr_cgfiles_inherits_rcu(struct mem_cgroup *parent,
				     struct mbr_wmark_conf *wm)
{
	*wm = mbr_cgfiles_view_rcu(mbr_group_find_memcg_rcu(parent));
	return wm->ratio;
}

/* A late inheritance: over nothing, or over a rule's group. */
static void mbr_cgfiles_inherit_late(struct mem_cgroup *memcg)
{
	struct mbr_wmark_conf wm;
	struct mbr_group *g;
	bool inherit;

	if (!READ_ONCE(mbr_cgfiles_on))
		return;
	rcu_read_lock();
	inherit = mbr_cgfiles_inherits_rcu(parent_mem_cgroup(memcg), &wm);
	rcu_read_unlock();
	if (!inherit)
		return;
	g = mbr_cgfiles_group(memcg);
	if (!g && !mbr_cgfiles_insert(memcg, &wm))
		atomic64_inc(&mbr_cgfiles_groups_late);
	if (g && READ_ONCE(g->rule_id) && !mbr_group_set_files(g, &wm))
		atomic64_inc(&mbr_cgfiles_groups_late);
	if (g)
		mbr_group_put(g);
}

static void mbr_cgfiles_work_fn(struct work_struct *work)
{
	/* Not reentered: one work item runs on one CPU at a time. */
	static struct mbr_cgfiles_deferred q[MBR_CGFILES_DEFERRED];
	unsigned int n, i, wait = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_cgfiles_q_lock, flags);
	n = mbr_cgfiles_nr_q;
	memcpy(q, mbr_cgfiles_q, n * sizeof(q[0]));
	mbr_cgfiles_nr_q = 0;
	raw_spin_unlock_irqrestore(&mbr_cgfiles_q_lock, flags);

	for (i = 0; i < n; i++) {
		struct cgroup_subsys_state *css = q[i].css;

		/* Still in mkdir, after its css_online: a little later. */
		if (!css_is_dying(css) &&
		    !(READ_ONCE(css->flags) & CSS_ONLINE)) {
			bool again = false;

			raw_spin_lock_irqsave(&mbr_cgfiles_q_lock, flags);
			if (mbr_cgfiles_nr_q < MBR_CGFILES_DEFERRED) {
				mbr_cgfiles_q[mbr_cgfiles_nr_q++] = q[i];
				again = true;
			}
			raw_spin_unlock_irqrestore(&mbr_cgfiles_q_lock, flags);
			if (again) {
				wait = HZ / 50 ?: 1;
				continue;
			}
		}
		if (!css_is_dying(css) && q[i].inherit)
			mbr_cgfiles_inherit_late(mem_cgroup_from_css(css));
		else if (!css_is_dying(css))
			mbr_rules_apply_one(mem_cgroup_from_css(css));
		css_put(css);
		cond_resched();
	}
	if (wait)
		mod_delayed_work(system_wq, &mbr_cgfiles_work, wait);
}

/**
 * mbr_cgfiles_online() - a memcg is being created: inherit its parent's
 *	ratio and scale, as Alibaba's kernel does
 * @memcg: the new memcg
 *
 * The parent's values as its files show them, and only while its
 * background reclaim is on through them (ratio above 0): a rule's group
 * passes nothing on (the rule configures the child itself), nor does a
 * parent at ratio 0.
 *
 * Context: as mbr_rules_online(): nothing here sleeps or allocates.
 * Return: true if @memcg has a group now, or will have one from the
 *	work (the rules keep out).
 */
bool mbr_cgfiles_online(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	u64 id = cgroup_id(memcg->css.cgroup);
	struct mbr_wmark_conf wm;
	struct mbr_group *g;
	bool done = false;

	if (!READ_ONCE(mbr_cgfiles_on) || !parent)
		return false;
	rcu_read_lock();
	if (!mbr_cgfiles_inherits_rcu(parent, &wm))
		goto out;
	/* The tests: an empty spare pool, the late path every time. */
	g = mbr_fault_on("spares_empty") ? NULL :
		mbr_group_alloc_atomic(memcg, id);
	if (!g) {
		/* The rules keep out meanwhile. */
		done = mbr_cgfiles_defer(&memcg->css, true);
		if (!done)
			pr_warn_ratelimited("cgroupfs files: a new cgroup did not inherit its parent's memory.wmark_ratio (too many created at once)\n");
		goto out;
	}
	rcu_dereference_protected(g->conf, true)->wm.ratio = wm.ratio;
	rcu_dereference_protected(g->conf, true)->wm.scale = wm.scale;
	set_bit(MBR_GROUP_CGROUPFS, &g->flags);
	done = mbr_group_insert(g);
	if (done)
		atomic64_inc(&mbr_cgfiles_groups_online);
	else
		mbr_group_put(g);
out:
	rcu_read_unlock();
	return done;
}

/**
 * mbr_cgfiles_exit() - at module exit, once the online hook is gone
 */
void mbr_cgfiles_exit(void)
{
	cancel_delayed_work_sync(&mbr_cgfiles_work);
	while (mbr_cgfiles_nr_q)
		css_put(mbr_cgfiles_q[--mbr_cgfiles_nr_q].css);
}

/**
 * mbr_cgfiles_set() - add or remove the files in every memory cgroup
 * @on: add them
 *
 * Context: process context; not under cgroup_mutex.
 * Return: 0, or the kernel's errno from adding them.
 */
int mbr_cgfiles_set(bool on)
{
	int ret = 0;

	mutex_lock(&mbr_cgfiles_mutex);
	if (on == mbr_cgfiles_on)
		goto out_unlock;
	if (!on) {
		WRITE_ONCE(mbr_cgfiles_on, false);
		static_call(mbr_cgroup_rm_cftypes)(mbr_legacy_files);
		static_call(mbr_cgroup_rm_cftypes)(mbr_dfl_files);
		goto out_unlock;
	}
	mbr_groups_reserve();	/* spares for the children's inheritance */
	memcpy(mbr_dfl_files, mbr_cgfiles_template, sizeof(mbr_dfl_files));
	memcpy(mbr_legacy_files, mbr_cgfiles_template,
	       sizeof(mbr_legacy_files));
	ret = mbr_should_fail("cgfiles_add") ? -ENOMEM :
		static_call(mbr_cgroup_add_dfl_cftypes)(&memory_cgrp_subsys,
							 mbr_dfl_files);
	if (ret)
		goto out_unlock;
	if (MBR_HAVE_MEMCG_V1)
		ret = static_call(mbr_cgroup_add_legacy_cftypes)(&memory_cgrp_subsys,
								  mbr_legacy_files);
	if (ret) {
		static_call(mbr_cgroup_rm_cftypes)(mbr_dfl_files);
		goto out_unlock;
	}
	WRITE_ONCE(mbr_cgfiles_on, true);
out_unlock:
	mutex_unlock(&mbr_cgfiles_mutex);
	return ret;
}

bool mbr_cgfiles_enabled(void)
{
	return READ_ONCE(mbr_cgfiles_on);
}
