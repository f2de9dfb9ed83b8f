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
 * time) but the headroom and wmark_boost's boost and its
 * MBR_GROUP_BOOST_OWN bit, which the charge hook reads and a reset
 * zeroes (a back-off zeroes the boost too); the worker applies every
 * reset itself, at its next turn, so that a cycle of the old
 * configuration cannot write over one. The node's boost (mbr_boost_seed)
 * is raised by any worker and read by the charge hook.
 */
#include <linux/memcontrol.h>
#include <linux/page_counter.h>
#include <linux/spinlock.h>

#include "mbr.h"

/*
 * wmark_boost's node-wide boost: the largest a stall has raised since
 * wmark_boost was turned on, up to MBR_BOOST_SEED_MAX, in a group with
 * less than half that of configured headroom. What a stall teaches is
 * mostly the kernel's and the disk's (a readahead window), not the
 * group's: a group with no boost of its own yet starts from this one,
 * for its first fill, instead of stalling once to learn it. The lock
 * makes a raise and wmark_boost 0's zero one order: a raise that read
 * the switch on never lands after the zero. The charge hook reads it
 * without (a u64 load is single-copy atomic on the module's 64-bit
 * architectures).
 */
u64 mbr_boost_seed;
static DEFINE_SPINLOCK(mbr_boost_seed_lock);

/*
 * A group whose configured headroom @conf covers half MBR_BOOST_SEED_MAX
 * did not stall for a window's width: its boost would teach the node its
 * own size.
 */
static void mbr_boost_seed_raise(u64 boost, u64 conf)
{
	if (conf >= MBR_BOOST_SEED_MAX / 2)
		return;
	boost = min_t(u64, boost, MBR_BOOST_SEED_MAX);
	spin_lock(&mbr_boost_seed_lock);
	if (READ_ONCE(mbr_wmark_boost) && boost > mbr_boost_seed)
		WRITE_ONCE(mbr_boost_seed, boost);
	spin_unlock(&mbr_boost_seed_lock);
}

/**
 * mbr_boost_seed_forget() - wmark_boost was turned off
 *
 * Context: after the switch's write; process context.
 */
void mbr_boost_seed_forget(void)
{
	spin_lock(&mbr_boost_seed_lock);
	WRITE_ONCE(mbr_boost_seed, 0);
	spin_unlock(&mbr_boost_seed_lock);
}

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
	g->auto_turns = 0;
	g->auto_stalls = atomic64_read(&g->stats.direct_reclaims);
	g->auto_throttled = atomic64_read(&g->stats.budget_throttled);
	g->auto_seq = atomic_read(&mbr_enable_seq);
}

/*
 * Stalls since the base that teach: none of a discarded cycle's (a
 * back-off, reclaim turned off), of a cpu_budget hold or of an enable
 * switch in between.
 */
static bool mbr_auto_stalled(const struct mbr_group *g, s64 stalls,
			     s64 throttled, int seq)
{
	return stalls != g->auto_stalls && !g->auto_discarded &&
	       throttled == g->auto_throttled && seq == g->auto_seq;
}

/* From now the group's boost is its own: the node's no longer applies. */
static void mbr_boost_own(struct mbr_group *g)
{
	/* After the boost's write: pairs with mbr_group_boost_raw()'s acquire. */
	smp_mb__before_atomic();
	set_bit(MBR_GROUP_BOOST_OWN, &g->flags);
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
	g->boost_quiet = 0;	/* the node's boost holds as a new one's */
	/* The new marks start from the node's boost; the bit last. */
	clear_bit(MBR_GROUP_BOOST_OWN, &g->flags);
	clear_bit_unlock(MBR_GROUP_AUTO_RESET, &g->flags);
	g->auto_discarded = false;
	mbr_auto_rebase(g);
	return true;
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
	if (backoff) {
		WRITE_ONCE(g->boost, 0);
		mbr_boost_own(g);	/* nor the node's */
	}
}

/* wmark_boost: the configured marks' cycle ends (wmark.h). */
static void mbr_boost_cycle_end(struct mbr_group *g,
				const struct mbr_wmark_conf *wm, u64 limit,
				u64 used, bool stalled, bool excused)
{
	u64 conf = limit - mbr_conf_marks(wm, limit, 0).low;
	bool on = READ_ONCE(mbr_wmark_boost);
	u64 cur = on ? mbr_group_boost_raw(g) : 0, boost = 0;

	/* Stalls of a hold or of reclaim turned off: not a quiet cycle. */
	if (excused && on)
		return;

	g->boost_quiet = stalled ? 0 :
			 min_t(unsigned int, g->boost_quiet + 1, MBR_BOOST_HOLD + 1);
	if (on && mbr_conf_active(wm))
		boost = mbr_boost_next(cur, used, stalled, g->boost_quiet,
				       limit, conf);
	if (boost > cur) {
		atomic64_inc(&g->stats.boosts);
		mbr_boost_seed_raise(boost, conf);
	}
	WRITE_ONCE(g->boost, boost);
	/*
	 * The node's boost is for a group's first fill only: a group that
	 * has cycled keeps its own, zero included, so that a stall elsewhere
	 * does not lower the marks of every group at once.
	 */
	if (!test_bit(MBR_GROUP_BOOST_OWN, &g->flags))
		mbr_boost_own(g);
}

/* wmark_boost: a cycle of MBR_BOOST_LONG turns so far (wmark.h). */
static void mbr_boost_long_cycle(struct mbr_group *g)
{
	struct mbr_wmark_conf wm;
	unsigned long limit;
	u64 used;

	g->auto_turns = 0;
	/* As at a cycle's end: stalls that teach nothing wait for it. */
	if (!READ_ONCE(mbr_wmark_boost) ||
	    !mbr_auto_stalled(g, atomic64_read(&g->stats.direct_reclaims),
			      atomic64_read(&g->stats.budget_throttled),
			      atomic_read(&mbr_enable_seq)) ||
	    test_bit(MBR_GROUP_AUTO_RESET, &g->flags))
		return;
	rcu_read_lock();
	wm = rcu_dereference(g->conf)->wm;
	rcu_read_unlock();
	if (wm.autotune)
		return;
	limit = mbr_memcg_limit(g->memcg);
	if (limit >= PAGE_COUNTER_MAX)
		return;
	used = g->auto_peak > g->auto_wake ? g->auto_peak - g->auto_wake : 0;
	mbr_boost_cycle_end(g, &wm, (u64)limit << PAGE_SHIFT, used, true,
			    false);
	mbr_auto_rebase(g);
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
		g->auto_turns = 0;
	}
	g->auto_peak = max(g->auto_peak, bytes);
	if (++g->auto_turns >= MBR_BOOST_LONG)
		mbr_boost_long_cycle(g);
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
	stalled = mbr_auto_stalled(g, stalls, throttled, seq);
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
