// SPDX-License-Identifier: GPL-2.0
/*
 * wmark_auto: a group's reclaim cycles, as its worker turns see them, and
 * the headroom they teach (the arithmetic is mbr_auto_next(), wmark.h).
 * A cycle opens at the first turn above the stop mark and closes at the
 * turn that finds the group back at its stop mark, or gives up on it.
 * Its peak is read at the start of each turn: the first one comes after
 * the wakeup's latency, which is the time the headroom has to cover.
 * Every field here is the worker's own (one worker has a group at a
 * time) but the headroom, which the charge hook reads.
 */
#include <linux/memcontrol.h>
#include <linux/page_counter.h>

#include "mbr.h"

/**
 * mbr_auto_reset() - start wmark_auto afresh on the next turn
 * @g: the group
 *
 * Context: the configuration path, under mbr_config_mutex.
 */
void mbr_auto_reset(struct mbr_group *g)
{
	WRITE_ONCE(g->auto_headroom, 0);
	set_bit(MBR_GROUP_AUTO_RESET, &g->flags);
}

/**
 * mbr_auto_observe() - a turn starts on a group above its stop mark
 * @g: the group
 * @m: its marks
 * @usage: its usage, in pages
 */
void mbr_auto_observe(struct mbr_group *g, const struct mbr_marks *m,
		      unsigned long usage)
{
	u64 bytes = (u64)usage << PAGE_SHIFT;

	if (test_and_clear_bit(MBR_GROUP_AUTO_RESET, &g->flags)) {
		g->auto_peak = 0;
		g->auto_stalls = atomic64_read(&g->stats.direct_reclaims);
		g->auto_throttled = atomic64_read(&g->stats.budget_throttled);
	}
	if (!g->auto_peak)
		g->auto_wake = m->low;
	g->auto_peak = max(g->auto_peak, bytes);
}

/**
 * mbr_auto_cycle_end() - the workers are done with a group for now
 * @g: the group
 *
 * A stall counts only if no cpu_budget period held the group back since
 * the last cycle: its tasks were meant to reclaim for themselves then,
 * and more headroom would not have spared them.
 */
void mbr_auto_cycle_end(struct mbr_group *g)
{
	s64 stalls = atomic64_read(&g->stats.direct_reclaims);
	s64 throttled = atomic64_read(&g->stats.budget_throttled);
	unsigned long limit;
	struct mbr_wmark_conf wm;
	bool stalled;
	u64 used;

	if (!g->auto_peak)
		return;
	stalled = stalls != g->auto_stalls && throttled == g->auto_throttled;
	g->auto_stalls = stalls;
	g->auto_throttled = throttled;
	used = g->auto_peak > g->auto_wake ? g->auto_peak - g->auto_wake : 0;
	g->auto_peak = 0;

	rcu_read_lock();
	wm = rcu_dereference(g->conf)->wm;
	rcu_read_unlock();
	limit = mbr_memcg_limit(g->memcg);
	if (!wm.autotune || limit >= PAGE_COUNTER_MAX ||
	    test_bit(MBR_GROUP_AUTO_RESET, &g->flags))
		return;
	WRITE_ONCE(g->auto_headroom,
		   mbr_auto_next(READ_ONCE(g->auto_headroom), used, stalled,
				 (u64)limit << PAGE_SHIFT, wm.ratio));
	atomic64_inc(&g->stats.auto_cycles);
}
