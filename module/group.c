// SPDX-License-Identifier: GPL-2.0
/*
 * A configured group as an object: its allocation, from process context
 * or, for the online hook, from a pool of spares; its references; its
 * destructor. The group pins its memcg from allocation to destruction.
 */
#include <linux/cgroup.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"

atomic_t mbr_nr_pinned = ATOMIC_INIT(0);	/* memcg references held */

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

/**
 * mbr_group_alloc() - a group for @memcg
 * @memcg: the memcg, kept alive by the caller
 * @id: its cgroup id
 *
 * Context: process context.
 * Return: the group (inactive, not hashed, no directory), or NULL.
 */
struct mbr_group *mbr_group_alloc(struct mem_cgroup *memcg, u64 id)
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
 * mbr_group_get_rcu() - a reference on a group found under RCU
 * @g: the group
 *
 * Return: @g, or NULL if its last reference is already gone.
 */
struct mbr_group *mbr_group_get_rcu(struct mbr_group *g)
{
	return kobject_get_unless_zero(&g->kobj) ? g : NULL;
}

/**
 * mbr_group_release() - the kobject's release: the last reference is gone
 * @kobj: the group's kobject
 *
 * Hook readers may still hold the group under RCU, but they never
 * dereference its memcg after a lookup that failed to find it, so the
 * memcg reference can go at once.
 */
void mbr_group_release(struct kobject *kobj)
{
	struct mbr_group *g = container_of(kobj, struct mbr_group, kobj);
	struct mbr_conf *c = rcu_dereference_protected(g->conf, true);

	/* Every path that unlinks a group stops its dedicated worker. */
	WARN_ON_ONCE(g->pool);
	css_put(&g->memcg->css);
	atomic_dec(&mbr_nr_pinned);
	kfree(g->cpu_cgroup);
	kfree_rcu(c, rcu);
	kfree_rcu(g, rcu);
}

/**
 * mbr_groups_spares_exit() - free the spare pool, at module exit
 *
 * Called once nothing takes from it any more (the online hook is gone).
 */
void mbr_groups_spares_exit(void)
{
	cancel_work_sync(&mbr_spares_work);
	while (mbr_nr_spares)
		mbr_group_free_raw(mbr_spares[--mbr_nr_spares]);
}
