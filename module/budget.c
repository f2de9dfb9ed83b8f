// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_budget: at most QUOTA of worker CPU time per PERIOD on one group.
 *
 * Who pays for background reclaim is what kept per-memcg background
 * reclaim out of mainline: work done for a group should be charged to
 * that group. The budget bounds what a group can cost the machine's
 * shared workers. Past it, the group is not reclaimed in the background
 * until its next period, and its tasks reclaim for themselves, on their
 * own time, as they would without this module.
 *
 * The bucket (include/budget.h) is kept by the worker holding the group
 * (one at a time); the charge hook reads only ->throttled_until, so a
 * held-back group costs a charge one clock read and no queueing.
 */
#include <linux/ktime.h>

#include "mbr.h"

/**
 * mbr_budget_admit() - may a worker turn on @g start now?
 * @g: the group, held by the calling worker
 * @b: its budget
 *
 * If not, the group is held back until the end of its period.
 */
bool mbr_budget_admit(struct mbr_group *g, const struct mbr_budget *b)
{
	u64 now = ktime_get_ns(), until;

	if (test_and_clear_bit(MBR_GROUP_BUDGET_RESET, &g->flags) ||
	    !g->bucket.start_ns)
		mbr_bucket_reset(&g->bucket, b, now);
	if (mbr_bucket_admit(&g->bucket, b, now, &until)) {
		WRITE_ONCE(g->throttled_until, 0);
		return true;
	}
	WRITE_ONCE(g->throttled_until, until);
	/*
	 * A budget changed since the reset check above must not leave the
	 * group held back under the old one: either the writer's clearing
	 * comes after our store, or we see its flag and clear it.
	 */
	smp_mb();
	if (test_bit(MBR_GROUP_BUDGET_RESET, &g->flags)) {
		WRITE_ONCE(g->throttled_until, 0);
		return false;
	}
	atomic64_inc(&g->stats.budget_throttled);
	atomic64_add(until - now, &g->stats.budget_throttled_ns);
	return false;
}

/**
 * mbr_budget_charge() - a turn on @g spent @cpu_ns
 * @g: the group, held by the calling worker
 * @cpu_ns: the turn's CPU time
 */
void mbr_budget_charge(struct mbr_group *g, u64 cpu_ns)
{
	bool set;

	rcu_read_lock();
	set = mbr_budget_set(&rcu_dereference(g->conf)->budget);
	rcu_read_unlock();
	if (set)
		mbr_bucket_charge(&g->bucket, cpu_ns);
}

/**
 * mbr_budget_throttled() - is @g held back by its budget now?
 * @g: the group
 *
 * Context: any but NMI (the charge hook).
 */
bool mbr_budget_throttled(struct mbr_group *g)
{
	u64 until = READ_ONCE(g->throttled_until);

	return until && ktime_get_ns() < until;
}
