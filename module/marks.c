// SPDX-License-Identifier: GPL-2.0
/*
 * The marks policy: the limit a group really runs under, its watermarks,
 * and, on each charge check, the decision to queue it for the workers or
 * to leave it backed off. Data flows one way: the charge hook calls in
 * here, and this file hands groups to the workers' queue.
 */
#include <linux/mm.h>
#include <linux/memcontrol.h>
#include <linux/page_counter.h>
#include <linux/swap.h>

#include "mbr.h"
#include "mbr_trace.h"

/**
 * mbr_memcg_limit() - the limit background reclaim works under, in pages
 * @memcg: the memory cgroup, kept alive by the caller
 *
 * The lowest memory.max or memory.high of the group and its ancestors:
 * a group with no limit of its own under a limited parent runs under
 * the parent's, and reclaiming ahead of memory.high also spares its
 * tasks the throttling. Read live, so a limit change anywhere up the
 * tree moves the watermarks at once. Ancestors are pinned by the child.
 */
unsigned long mbr_memcg_limit(struct mem_cgroup *memcg)
{
	unsigned long limit = PAGE_COUNTER_MAX;

	for (; memcg; memcg = parent_mem_cgroup(memcg)) {
		limit = min(limit, READ_ONCE(memcg->memory.max));
		limit = min(limit, READ_ONCE(memcg->memory.high));
	}
	return limit;
}

/* The room under a page counter's limit, in pages; 0 at or over it. */
static unsigned long mbr_counter_room(struct page_counter *pc,
				      unsigned long max)
{
	unsigned long usage = page_counter_read(pc);

	return max > usage ? max - usage : 0;
}

/**
 * mbr_memcg_headroom() - a group's usage as its limits see it, in pages
 * @memcg: the memory cgroup, kept alive by the caller
 * @h: where the usage, the limit (mbr_memcg_limit()), the lowest v1
 *	memsw limit, the pages a turn may swap out and the memcg whose
 *	limit binds (where the reclaim for a stalled charge starts) go
 *
 * What stalls a group's tasks is the least headroom (limit - usage)
 * over the group and every ancestor with a limit of its own: under a
 * parent at its limit (a slice with MemoryMax= and services beneath),
 * a child without a limit of its own stalls however little it holds. So
 * the marks, taken on @h->limit, are compared with the usage that leaves
 * that least headroom under it (@h->usage): the group's own usage when
 * its own limit binds, more when an ancestor's does; the group's own if
 * no limit applies.
 *
 * On cgroup v1, memory.memsw.limit_in_bytes is a headroom too: a charge
 * takes memory+swap first and fails there once swapped-out pages fill
 * it, however far memory.limit_in_bytes is. v1 keeps the memsw limit
 * at or above the memory limit of the same cgroup, so @h->limit stays
 * the memory limit; only the headroom can be memsw's. Swapping a page
 * out lowers memory usage but not memory+swap, so it narrows the gap
 * between the two rooms by a page; once memsw's room is the least (a
 * tie too: try_charge() charges memsw first), the kernel's charge path
 * reclaims without swap, and so must a turn. Until then a turn may swap
 * out no more than that gap (@h->swap).
 */
void mbr_memcg_headroom(struct mem_cgroup *memcg, struct mbr_headroom *h)
{
	unsigned long room = PAGE_COUNTER_MAX, swroom = PAGE_COUNTER_MAX;
	unsigned long own, sw, r, self = page_counter_read(&memcg->memory);
	/* memsw shares its place with cgroup2's swap counter: v1 only. */
	bool v1 = !cgroup_subsys_on_dfl(memory_cgrp_subsys);

	h->limit = PAGE_COUNTER_MAX;
	h->memsw = PAGE_COUNTER_MAX;
	h->binding = NULL;
	for (; memcg; memcg = parent_mem_cgroup(memcg)) {
		own = min(READ_ONCE(memcg->memory.max),
			  READ_ONCE(memcg->memory.high));
		if (own >= PAGE_COUNTER_MAX)
			continue;
		h->limit = min(h->limit, own);
		r = mbr_counter_room(&memcg->memory, own);
		/* A tie goes to the lowest: its charge fails first. */
		if (r < room) {
			h->binding = memcg;
			room = r;
		}
		sw = v1 ? READ_ONCE(memcg->memsw.max) : PAGE_COUNTER_MAX;
		if (sw >= PAGE_COUNTER_MAX)
			continue;
		h->memsw = min(h->memsw, sw);
		swroom = min(swroom, mbr_counter_room(&memcg->memsw, sw));
	}
	if (swroom >= PAGE_COUNTER_MAX)
		h->swap = PAGE_COUNTER_MAX;
	else
		h->swap = swroom > room ? swroom - room : 0;
	room = min(room, swroom);
	h->usage = h->limit >= PAGE_COUNTER_MAX ? self :
		   h->limit - min(room, h->limit);
}

/**
 * mbr_folio_margin() - how far above its stop mark a group's background
 *	reclaim ends, in pages
 * @memcg: the group's memcg, kept alive by the caller
 * @marks: its watermarks
 *
 * The kernel reclaims whole folios. A turn that needs a few more pages
 * and meets a transparent huge page frees all HPAGE_PMD_NR of it, and
 * the group ends up to 2 MiB below its stop mark, outside a band of a few
 * MiB. So while the group holds PMD-sized folios, a turn stops
 * MBR_FOLIO_MARGIN pages (a huge page, plus the SWAP_CLUSTER_MAX the
 * kernel rounds a request up to) short of the mark, so that the huge
 * page its last request meets does not take the group below it. A group
 * without huge pages is reclaimed to the mark.
 *
 * The margin is at most half the band between the marks: a band
 * narrower than a huge page would otherwise have no room left for a turn
 * at all, and a group holding one huge page (7.x page cache holds many)
 * would never be reclaimed in the background. Such a group may end a
 * huge page below its stop mark.
 *
 * The count is as of the last stats flush, which the kernel does once
 * enough has changed (some 64 pages per CPU) or every 2 s; a worker
 * flushes before a turn that could reach the margin.
 *
 * Context: any context but NMI.
 */
unsigned long mbr_folio_margin(struct mem_cgroup *memcg,
			       const struct mbr_marks *marks)
{
	unsigned long band;

	if (!MBR_FOLIO_MARGIN || marks->low <= marks->high ||
	    !mbr_memcg_thp_pages(memcg))
		return 0;
	band = (marks->low - marks->high) >> PAGE_SHIFT;
	return min_t(unsigned long, MBR_FOLIO_MARGIN, band / 2);
}

/*
 * The group's boost whatever the switch: the node's while the group has
 * none of its own (a new group, or a reset, pending or applied: the
 * worker clears the bit before the reset's, clear_bit_unlock()). The
 * worker writes the boost before it sets the bit (smp_mb__before_atomic()).
 */
u64 mbr_group_boost_raw(struct mbr_group *g)
{
	if (test_bit_acquire(MBR_GROUP_AUTO_RESET, &g->flags) ||
	    !test_bit_acquire(MBR_GROUP_BOOST_OWN, &g->flags))
		return READ_ONCE(mbr_boost_seed);
	return READ_ONCE(g->boost);
}

/* The group's boost in force: none while wmark_boost is off. */
u64 mbr_group_boost(struct mbr_group *g)
{
	return READ_ONCE(mbr_wmark_boost) ? mbr_group_boost_raw(g) : 0;
}

/**
 * mbr_group_boost_headroom() - the headroom in force under a boost
 * @g: the group
 * @memcg: its memcg
 *
 * Return: the distance of the boosted wake mark below the limit, in
 * bytes; 0 while no boost moves the marks (none, or the limit's bound
 * leaves none above the configured headroom).
 */
u64 mbr_group_boost_headroom(struct mbr_group *g, struct mem_cgroup *memcg)
{
	unsigned long limit = mbr_memcg_limit(memcg);
	u64 limit_bytes = (u64)limit << PAGE_SHIFT;
	const struct mbr_wmark_conf *wm;
	struct mbr_marks conf, boosted;

	if (limit >= PAGE_COUNTER_MAX)
		return 0;
	rcu_read_lock();
	wm = &rcu_dereference(g->conf)->wm;
	conf = mbr_conf_marks(wm, limit_bytes, READ_ONCE(g->auto_headroom));
	boosted = mbr_conf_marks_boosted(wm, limit_bytes,
					 READ_ONCE(g->auto_headroom),
					 mbr_group_boost(g));
	rcu_read_unlock();
	return boosted.low != conf.low ? limit_bytes - boosted.low : 0;
}

/**
 * mbr_group_marks() - a group's watermarks, in bytes, from one limit read
 * @g: the group
 * @memcg: its memcg
 */
struct mbr_marks mbr_group_marks(struct mbr_group *g, struct mem_cgroup *memcg)
{
	unsigned long limit = mbr_memcg_limit(memcg);
	u64 limit_bytes = (u64)limit << PAGE_SHIFT;
	struct mbr_marks marks = { .low = limit_bytes, .high = limit_bytes };

	/* An unlimited group is inactive: its marks read as its limit. */
	if (limit >= PAGE_COUNTER_MAX)
		return marks;
	rcu_read_lock();
	marks = mbr_conf_marks_boosted(&rcu_dereference(g->conf)->wm,
				       limit_bytes, READ_ONCE(g->auto_headroom),
				       mbr_group_boost(g));
	rcu_read_unlock();
	return marks;
}

/**
 * mbr_group_backoff() - stop reclaiming a group that makes no progress
 * @g: the group
 * @h: its headroom when it failed: the limits it failed under
 *
 * Under mbr_lock, so that a group unlinked meanwhile is not counted.
 */
void mbr_group_backoff(struct mbr_group *g, const struct mbr_headroom *h)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (!g->dead) {
		WRITE_ONCE(g->backoff_limit, h->limit);
		WRITE_ONCE(g->backoff_memsw, h->memsw);
		WRITE_ONCE(g->backoff_usage, h->usage);
		if (g->backoff_streak < MBR_BACKOFF_STREAK_MAX)
			WRITE_ONCE(g->backoff_streak, g->backoff_streak + 1);
		if (!test_and_set_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags))
			atomic64_inc(&g->stats.unreclaimable);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

/**
 * mbr_group_progress() - a turn made progress: back-offs are no longer
 *	in a row
 * @g: the group
 *
 * Context: the worker that has @g.
 */
void mbr_group_progress(struct mbr_group *g)
{
	if (g->backoff_streak)
		WRITE_ONCE(g->backoff_streak, 0);
}

/**
 * mbr_group_clear_backoff() - give a backed-off group a new chance
 * @g: the group
 *
 * Return: whether it was backed off.
 */
bool mbr_group_clear_backoff(struct mbr_group *g)
{
	return test_and_clear_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags);
}

/*
 * The usage (pages) at which a backed-off group gets another chance. A
 * turn can fail on memory that is reclaimable a moment later: pages the
 * kernel's reclaim skips while they are locked, as a large folio is from
 * its charge until its read completes (7.x page cache). What tells such
 * a group from one with nothing to reclaim is growth: only a group that
 * keeps being charged holds new pages. No wait in time would: a binary
 * that refaults in between looks like progress. The distance doubles
 * with each back-off in a row, so a group whose excess stays protected
 * or unreclaimable costs a bounded number of turns as it grows.
 */
static unsigned long mbr_backoff_regrown(struct mbr_group *g)
{
	unsigned long pages = (unsigned long)READ_ONCE(mbr_batch_pages) *
			      MBR_BACKOFF_REGROW;
	unsigned int streak = READ_ONCE(g->backoff_streak);

	return READ_ONCE(g->backoff_usage) + (pages << (streak ? streak - 1 : 0));
}

/**
 * mbr_group_charged() - a charge was seen: should the group be queued?
 * @g: the group
 * @memcg: its memcg
 * @pending: pages of the charge under way not yet in its usage
 *
 * A backed-off group stays off the queue until something has changed
 * that could make reclaim succeed: its limit (on v1, its memsw limit
 * too), its usage back at the stop mark by itself, or its usage grown
 * well past where it backed off (mbr_backoff_regrown()). (A task's
 * successful direct reclaim in it also ends the back-off, from the
 * direct-reclaim probe.) A group over its cpu_budget stays off until its
 * period ends.
 *
 * Context: rcu_read_lock() held; any context but NMI.
 * Return: true if it is above its low watermark and should be queued
 *	(the wakeup is traced here, with the marks it was judged by).
 */
bool mbr_group_charged(struct mbr_group *g, struct mem_cgroup *memcg,
		       unsigned long pending)
{
	struct mbr_headroom h;
	struct mbr_marks marks;
	struct mbr_wmark_conf *wm;
	u64 usage;

	if (READ_ONCE(g->queued) || mbr_budget_throttled(g))
		return false;
	wm = &rcu_dereference(g->conf)->wm;
	if (!mbr_conf_active(wm))
		return false;
	mbr_memcg_headroom(memcg, &h);
	if (h.limit >= PAGE_COUNTER_MAX)
		return false;
	usage = (u64)(h.usage + pending) << PAGE_SHIFT;
	marks = mbr_conf_marks_boosted(wm, (u64)h.limit << PAGE_SHIFT,
				       READ_ONCE(g->auto_headroom),
				       mbr_group_boost(g));
	if (test_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags)) {
		bool same = h.limit == READ_ONCE(g->backoff_limit) &&
			    h.memsw == READ_ONCE(g->backoff_memsw);

		if (usage > marks.high && same &&
		    h.usage + pending < mbr_backoff_regrown(g))
			return false;
		mbr_group_clear_backoff(g);
		/* Grown back: the cycle the back-off cut short goes on. */
		if (same && usage > marks.high)
			goto wake;
	}
	/*
	 * Above the wake mark is above the stop mark's huge page margin
	 * too: the margin is at most half the band.
	 */
	if (usage <= marks.low)
		return false;
wake:
	trace_wakeup(g->id, usage, marks.low, marks.high);
	return true;
}
