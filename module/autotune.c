// SPDX-License-Identifier: GPL-2.0
/*
 * wmark_auto: a group's reclaim cycles, as its worker turns see them, and
 * the headroom they teach (the arithmetic is mbr_auto_next(), wmark.h).
 * A cycle opens at the first turn above the stop mark and closes at the
 * turn that finds the group back at its stop mark. Its peak is read at
 * the start of each turn: the first one comes after the wakeup's
 * latency, which is the time the headroom has to cover.
 *
 * Only what the headroom could have prevented teaches it. A cycle that
 * ends because the group backs off, or because background reclaim was
 * turned off, is discarded, and so are the stalls of such times and of
 * cpu_budget's periods: the group's tasks were meant to reclaim then.
 *
 * Every field here is the worker's own (one worker has a group at a
 * time) but the headroom and wmark_boost's boost, which the charge hook
 * reads and a reset zeroes (a back-off zeroes the boost too); the worker
 * applies every reset itself, at its next turn, so that a cycle of the
 * old configuration cannot write over one.
 */
#include <linux/memcontrol.h>
#include <linux/page_counter.h>

#include "mbr.h"

/**
 * mbr_auto_reset() - start wmark_auto afresh
 * @g: the group
 *
 * Context: the configuration path, under mbr_config_mutex.
 */
void mbr_auto_reset(struct mbr_group *g)
{
	WRITE_ONCE(g->auto_headroom, 0);
	WRITE_ONCE(g->boost, 0);
	set_bit(MBR_GROUP_AUTO_RESET, &g->flags);
}

/* Forget the open cycle and the stalls so far. */
static void mbr_auto_rebase(struct mbr_group *g)
{
	g->auto_peak = 0;
	g->auto_stalls = atomic64_read(&g->stats.direct_reclaims);
	g->auto_throttled = atomic64_read(&g->stats.budget_throttled);
	g->auto_seq = atomic_read(&mbr_enable_seq);
}

/*
 * The worker applies a reset at its next turn, whichever way the turn
 * goes: a cycle of the old configuration cannot write over it then.
 */
static bool mbr_auto_apply_reset(struct mbr_group *g)
{
	if (!test_bit(MBR_GROUP_AUTO_RESET, &g->flags))
		return false;
	WRITE_ONCE(g->auto_headroom, 0);
	WRITE_ONCE(g->boost, 0);
	/* After the zeroes: while set, the boost reads as none. */
	clear_bit_unlock(MBR_GROUP_AUTO_RESET, &g->flags);
	g->auto_discarded = false;
	mbr_auto_rebase(g);
	return true;
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

	if (mbr_auto_apply_reset(g))
		return;		/* the marks were of the old headroom */
	/* The stalls of a back-off, or of reclaim turned off, teach nothing. */
	if (g->auto_discarded) {
		g->auto_discarded = false;
		mbr_auto_rebase(g);
	}
	/* A limit or configuration change moved the marks: start over. */
	if (g->auto_peak && m->low != g->auto_wake)
		g->auto_peak = 0;
	if (!g->auto_peak) {
		/*
		 * A cycle starts at the wake mark: one resumed below it, after
		 * a back-off, says nothing of the headroom.
		 */
		if (bytes <= m->low)
			return;
		g->auto_wake = m->low;
	}
	g->auto_peak = max(g->auto_peak, bytes);
}

/**
 * mbr_auto_cycle_discard() - the cycle ends without teaching anything
 * @g: the group
 * @backoff: because the group backed off (else reclaim is off)
 */
void mbr_auto_cycle_discard(struct mbr_group *g, bool backoff)
{
	mbr_auto_rebase(g);
	g->auto_discarded = true;
	/*
	 * A boosted group that backs off cannot reach its boosted stop mark
	 * (anon without swap, protection): the boost would only cost it its
	 * page cache each time the back-off ends.
	 */
	if (backoff)
		WRITE_ONCE(g->boost, 0);
}

/* wmark_boost: the configured marks' cycle ends (wmark.h). */
static void mbr_boost_cycle_end(struct mbr_group *g,
				const struct mbr_wmark_conf *wm, u64 limit,
				u64 used, bool stalled, bool excused)
{
	u64 conf = limit - mbr_conf_marks(wm, limit, 0).low;
	bool on = READ_ONCE(mbr_wmark_boost);
	u64 boost = 0;

	/* Stalls of a hold or of reclaim turned off: not a quiet cycle. */
	if (excused && on)
		return;

	g->boost_quiet = stalled ? 0 :
			 min_t(unsigned int, g->boost_quiet + 1, MBR_BOOST_HOLD + 1);
	if (on && mbr_conf_active(wm))
		boost = mbr_boost_next(READ_ONCE(g->boost), used, stalled,
				       g->boost_quiet, limit, conf);
	if (boost > READ_ONCE(g->boost))
		atomic64_inc(&g->stats.boosts);
	WRITE_ONCE(g->boost, boost);
}

/**
 * mbr_auto_cycle_end() - the group is back at its stop mark
 * @g: the group
 */
void mbr_auto_cycle_end(struct mbr_group *g)
{
	s64 stalls = atomic64_read(&g->stats.direct_reclaims);
	s64 throttled = atomic64_read(&g->stats.budget_throttled);
	int seq = atomic_read(&mbr_enable_seq);
	unsigned long limit;
	struct mbr_wmark_conf wm;
	bool opened = g->auto_peak, stalled, excused;
	u64 used;

	if (mbr_auto_apply_reset(g))
		return;
	rcu_read_lock();
	wm = rcu_dereference(g->conf)->wm;
	rcu_read_unlock();
	stalled = stalls != g->auto_stalls && !g->auto_discarded &&
		  throttled == g->auto_throttled && seq == g->auto_seq;
	excused = stalls != g->auto_stalls && !stalled;
	/*
	 * No turn found the group above its stop mark, yet its tasks
	 * stalled since the last cycle: their own reclaim got there first
	 * (7.x's readahead: a window's charge fails at the limit before
	 * the worker's first turn). To the boost, that is a cycle with a
	 * stall.
	 */
	if (!opened && !stalled) {
		/* A stale base (a new group, a hold, a discard): from now. */
		if (g->auto_discarded || seq != g->auto_seq ||
		    throttled != g->auto_throttled) {
			g->auto_discarded = false;
			mbr_auto_rebase(g);
		}
		return;
	}
	/* wmark_auto learns from cycles: the stalls count in the next one. */
	if (!opened && wm.autotune)
		return;
	used = g->auto_peak > g->auto_wake ? g->auto_peak - g->auto_wake : 0;
	g->auto_discarded = false;
	mbr_auto_rebase(g);

	if (test_bit(MBR_GROUP_AUTO_RESET, &g->flags))
		return;
	limit = mbr_memcg_limit(g->memcg);
	if (limit >= PAGE_COUNTER_MAX)
		return;
	if (!wm.autotune) {
		mbr_boost_cycle_end(g, &wm, (u64)limit << PAGE_SHIFT, used,
				    stalled, excused);
		return;
	}
	WRITE_ONCE(g->auto_headroom,
		   mbr_auto_next(READ_ONCE(g->auto_headroom), used, stalled,
				 (u64)limit << PAGE_SHIFT, wm.ratio));
	atomic64_inc(&g->stats.auto_cycles);
}
