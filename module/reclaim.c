// SPDX-License-Identifier: GPL-2.0
/*
 * One worker turn on one group: how much to reclaim, from which memcg
 * of the group's subtree, and what counts as progress.
 *
 * Background reclaim is voluntary, so it must never take memory that
 * memory.min or memory.low protect, in the group or any descendant, nor
 * what the memcgs above it protect in it under the limit that binds
 * (protect.c).
 * The kernel's memcg reclaim does not promise that: when a pass reclaims
 * nothing while it skipped memcgs below their memory.low, it retries
 * with memory.low ignored (memcg_low_reclaim, raising their "low"
 * events); 6.12 ignores the target's own protection, and 6.1 reads the
 * target's stale effective protection. So a turn never reclaims from a
 * subtree that holds a protected memcg: it picks the largest subtree of
 * the group in which no memcg has memory.min or memory.low set, and asks
 * at most for the slack every ancestor up to the group has above its own
 * protection. In such a subtree the kernel never skips, never retries
 * and never raises an event.
 *
 * The configured values are used, not the effective ones: they are an
 * upper bound of what the kernel protects without memory_recursiveprot,
 * so the rule errs on the side of protection. With memory_recursiveprot,
 * a memcg without settings of its own can inherit protection from an
 * ancestor; the ancestor's slack bound keeps that ancestor above its
 * protection, not the distribution below it.
 */
#include <linux/cgroup.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/page_counter.h>
#include <linux/sched.h>
#include <linux/swap.h>

#include "mbr.h"
#include "mbr_trace.h"

/*
 * The memcgs a turn looks at, at most: a turn's cost must not grow with
 * the number of cgroups below the group (dying ones included). A walk
 * cut short picks among the subtrees it saw whole; if none will do, the
 * group backs off as if all its excess were protected.
 */
#define MBR_WALK_MAX		65536
/* Levels below the group a walk tracks; deeper memcgs only taint. */
#define MBR_WALK_DEPTH		16

static unsigned long mbr_protection(struct mem_cgroup *memcg)
{
	return max(READ_ONCE(memcg->memory.min), READ_ONCE(memcg->memory.low));
}

/*
 * What a turn may ask of a memcg @room pages above its protection. The
 * kernel's reclaim takes more than it is asked: it reclaims each LRU
 * list in SWAP_CLUSTER_MAX batches and checks the target only between
 * rounds, and what it takes grows in steps (doc/design.md). So a turn
 * asks for half the room, four batches while the room is under sixteen,
 * and nothing under eight, so that the last turn stays above the
 * protection.
 */
static unsigned long mbr_room_to_ask(unsigned long room)
{
	/*
	 * A huge page goes whole, however little is asked of it; the THP
	 * counters, as of the last stats flush, may not show it yet.
	 */
	room = room > MBR_FOLIO_MARGIN ? room - MBR_FOLIO_MARGIN : 0;
	if (room < 8 * SWAP_CLUSTER_MAX)
		return 0;
	if (room < 16 * SWAP_CLUSTER_MAX)
		return 4 * SWAP_CLUSTER_MAX;
	return room / 2;
}

/*
 * What @memcg may lose without taking itself or any ancestor up to @top
 * below its protection; @top's is at least @inherited.
 */
static unsigned long mbr_slack(struct mem_cgroup *memcg,
			       struct mem_cgroup *top, unsigned long inherited)
{
	unsigned long slack = ULONG_MAX, usage, prot;

	for (; memcg; memcg = parent_mem_cgroup(memcg)) {
		usage = page_counter_read(&memcg->memory);
		prot = mbr_protection(memcg);
		if (memcg == top)
			prot = max(prot, inherited);
		if (prot)
			slack = min(slack, usage > prot ?
				    mbr_room_to_ask(usage - prot) : 0);
		else
			slack = min(slack, usage);
		if (memcg == top)
			break;
	}
	return slack;
}

/* A subtree the walk has entered and not yet left. */
struct mbr_walk_open {
	struct mem_cgroup *memcg;
	unsigned int level;	/* below the group */
	bool tainted;		/* a protected memcg lies in it */
};

struct mbr_walk_best {
	struct mem_cgroup *memcg;
	unsigned long usage, slack;
	unsigned long inherited;	/* mbr_inherited_protection() of top */
};

/*
 * The walk has left @o's subtree, all of it seen: a subtree without a
 * protected memcg may be the victim. An ancestor holds at least what a
 * descendant holds, so the largest is also maximal.
 */
static void mbr_walk_close(struct mbr_walk_open *o, struct mem_cgroup *top,
			   struct mbr_walk_best *best)
{
	unsigned long usage, slack;

	if (o->tainted)
		return;
	usage = page_counter_read(&o->memcg->memory);
	if (usage <= best->usage)
		return;
	slack = mbr_slack(o->memcg, top, best->inherited);
	/*
	 * As the reclaim root, 6.1 judges a memcg by the effective
	 * protection computed in an earlier reclaim, which may be stale:
	 * below it, the kernel would skip the memcg, then retry with
	 * memory.low ignored.
	 */
	if (usage <= max(READ_ONCE(o->memcg->memory.emin),
			 READ_ONCE(o->memcg->memory.elow)))
		slack = 0;
	if (slack) {
		best->memcg = o->memcg;
		best->usage = usage;
		best->slack = slack;
	}
}

/*
 * The memcg to reclaim from, with a reference, and how many pages it may
 * lose; NULL if all the group's excess is protected (@top's own usage
 * at least down to @inherited), or if the walk was
 * cut short before it found a victim. One pre-order walk of at most
 * MBR_WALK_MAX memcgs (the only subtree iterator the kernel exports),
 * keeping the open subtrees on a stack: the largest whole subtree
 * without a protected memcg wins.
 */
static struct mem_cgroup *mbr_pick_victim(struct mem_cgroup *top,
					  unsigned long inherited,
					  unsigned long *max_pages)
{
	struct mbr_walk_open open[MBR_WALK_DEPTH];
	struct mbr_walk_best best = { .inherited = inherited };
	unsigned int depth = 0, seen = 0, base, level, i;
	struct cgroup_subsys_state *css;
	struct mem_cgroup *m;

	rcu_read_lock();
	base = top->css.cgroup->level;
	css_for_each_descendant_pre(css, &top->css) {
		if (++seen > MBR_WALK_MAX) {
			depth = 0;	/* the open subtrees were not seen whole */
			break;
		}
		m = mem_cgroup_from_css(css);
		level = css->cgroup->level - base;
		while (depth && open[depth - 1].level >= level)
			mbr_walk_close(&open[--depth], top, &best);
		/* The group's own protection only bounds the slack. */
		if (m != top && mbr_protection(m))
			for (i = 0; i < depth; i++)
				open[i].tainted = true;
		if (depth < MBR_WALK_DEPTH)
			open[depth++] = (struct mbr_walk_open) {
				.memcg = m, .level = level,
				.tainted = m != top && mbr_protection(m),
			};
		else	/* too deep to track: its ancestors cannot vouch */
			open[depth - 1].tainted = true;
	}
	while (depth)
		mbr_walk_close(&open[--depth], top, &best);
	if (best.memcg && !css_tryget(&best.memcg->css))
		best.memcg = NULL;
	rcu_read_unlock();
	*max_pages = best.memcg ? best.slack : 0;
	return best.memcg;
}

/* The usage the marks compare with (mbr_memcg_headroom()), in pages. */
static unsigned long mbr_usage_pages(struct mem_cgroup *memcg)
{
	struct mbr_headroom h;

	mbr_memcg_headroom(memcg, &h);
	return h.usage;
}

/*
 * MEMCG_RECLAIM_PROACTIVE, as memory.reclaim passes: reclaim ahead
 * of need is not memory pressure, so it must not feed vmpressure,
 * which on cgroup v2 would set the group's socket_pressure and
 * throttle its TCP for a second. The scan still counts as
 * pgscan_direct in memory.stat, which both kernels decide by
 * current_is_kswapd() alone (6.12: or the khugepaged thread
 * function). Running as kswapd (PF_KSWAPD) would change far more
 * than the counter:
 * - 6.12's MGLRU (on in Debian's 6.12): should_abort_scan() ends
 *   a kswapd scan once the node's zones are above their high
 *   watermarks, that is at once when the pressure is a cgroup's
 *   limit; and clear_mm_walk() frees the walk buffer of proactive
 *   reclaim only for non-kswapd tasks, so every turn would leak one.
 * - Both kernels' shrink_node(): kswapd's scan results set the
 *   node-wide PGDAT_WRITEBACK and PGDAT_DIRTY flags and throttle on
 *   writeback, steering global reclaim and every other tenant.
 * So the counter stays as memory.reclaim's, and the group's own
 * stat file counts what the workers did (reclaimed_pages).
 */
static unsigned long mbr_reclaim_step(struct mem_cgroup *victim,
				      unsigned long nr_pages, bool may_swap)
{
	return mbr_call_tfmcp(victim, nr_pages, GFP_KERNEL,
			      (may_swap ? MEMCG_RECLAIM_MAY_SWAP : 0) |
			      MEMCG_RECLAIM_PROACTIVE);
}

/*
 * Where a turn on @memcg stops, in pages: its high mark, or the huge page
 * margin above it (mbr_folio_margin()). The margin can change a turn only
 * once the turn could reach it, so only then are the statistics behind it
 * flushed: a flush takes the kernel's rstat lock, and 6.12's reclaim does
 * not flush them for us (6.1's shrink_node() does).
 */
static unsigned long mbr_turn_stop(struct mem_cgroup *memcg,
				   const struct mbr_marks *marks,
				   unsigned long usage)
{
	unsigned long stop = marks->high >> PAGE_SHIFT;

	if (usage <= stop)
		return stop;
	if (usage - stop <= READ_ONCE(mbr_batch_pages) + MBR_FOLIO_MARGIN)
		mbr_memcg_flush_stats(memcg);
	return stop + mbr_folio_margin(memcg, marks);
}

/*
 * May a paced turn take another step? Not if the worker must stop or
 * freeze, background reclaim was switched off, the group went, or it is
 * back at its stop mark (the yield may have been long, and the task's
 * own reclaim may have run meanwhile).
 */
static bool mbr_turn_goes_on(struct mbr_group *g, unsigned long stop)
{
	return !kthread_should_stop() && !freezing(current) &&
		READ_ONCE(mbr_enabled) && !READ_ONCE(g->dead) &&
		mbr_usage_pages(g->memcg) > stop;
}

/*
 * @requested pages of @g from @victim: MBR_PACE_CHUNK pages a step while
 * another task is runnable on the worker's CPU, and with step_alone while
 * it is not, pacing in between; in one call otherwise (pace.c). A
 * remainder the kernel would round up to SWAP_CLUSTER_MAX anyway is not
 * split off. A step that gets less than a quarter of what it asked for
 * ends the turn; the turn's progress rule judges the sum. Without
 * @may_swap, anonymous memory stays.
 */
static unsigned long mbr_reclaim_steps(struct mbr_group *g,
				       struct mem_cgroup *victim,
				       unsigned long requested,
				       unsigned long stop, bool may_swap,
				       struct mbr_pace *pace)
{
	unsigned long reclaimed = 0, step, got;
	bool split;

	for (;;) {
		step = requested - reclaimed;
		split = step >= MBR_PACE_CHUNK + SWAP_CLUSTER_MAX &&
			mbr_pace_split(g);
		if (split)
			step = MBR_PACE_CHUNK;
		mbr_pace_call_begin(pace);
		got = mbr_reclaim_step(victim, step, may_swap);
		mbr_pace_call_end(pace, g, step, split);
		reclaimed += got;
		if (!split || reclaimed >= requested || got * 4 < step)
			return reclaimed;
		mbr_pace(pace);
		if (!mbr_turn_goes_on(g, stop))
			return reclaimed;
	}
}

/**
 * mbr_reclaim_turn() - one batch of reclaim if the group is still above
 *	its stop mark
 * @g: the group, with a reference held by the caller
 * @pace: the worker's pacing state
 *
 * Return: whether the group should go back on the FIFO.
 */
bool mbr_reclaim_turn(struct mbr_group *g, struct mbr_pace *pace)
{
	struct mem_cgroup *memcg = g->memcg, *victim;
	unsigned long requested, reclaimed, usage, stop, slack;
	struct mbr_headroom h;
	struct mbr_budget budget;
	struct mbr_marks marks;
	u64 start_ns, walk_ns;
	bool progress;

	if (!READ_ONCE(mbr_enabled) ||
	    test_bit(MBR_GROUP_UNRECLAIMABLE, &g->flags))
		goto discard;
	marks = mbr_group_marks(g, memcg);
	mbr_memcg_headroom(memcg, &h);
	usage = h.usage;
	stop = mbr_turn_stop(memcg, &marks, usage);
	if (usage <= stop)
		goto idle;
	mbr_auto_observe(g, &marks, usage);
	rcu_read_lock();
	budget = rcu_dereference(g->conf)->budget;
	rcu_read_unlock();
	/*
	 * Held back: its tasks reclaim for themselves until the period
	 * ends. The cycle stays open: it goes on after the period.
	 */
	if (mbr_budget_set(&budget) && !mbr_budget_admit(g, &budget))
		return false;

	walk_ns = ktime_get_ns();
	victim = mbr_pick_victim(memcg,
				 mbr_inherited_protection(memcg, h.binding),
				 &slack);
	walk_ns = ktime_get_ns() - walk_ns;
	if (!victim) {
		/*
		 * Only protected memory is left above the mark, or, in a
		 * walk cut short, in what a turn may look at. Below the wake
		 * mark the cycle ends there, as at the stop mark: the next
		 * wake is the next cycle. Above it, a group the next turns
		 * would walk in vain, as costly every time, backs off.
		 */
		if ((u64)usage << PAGE_SHIFT <= marks.low)
			goto idle;
		goto backoff;
	}
	/* Never more than the way down to the stop mark. */
	requested = min3((unsigned long)READ_ONCE(mbr_batch_pages),
			 usage - stop, slack);
	start_ns = ktime_get_ns();
	/*
	 * Swap only while the whole request could go to swap before a v1
	 * memsw limit binds: past that, a page swapped frees nothing the
	 * marks see (mbr_memcg_headroom()).
	 */
	reclaimed = mbr_reclaim_steps(g, victim, requested, stop,
				      h.swap >= requested, pace);
	css_put(&victim->css);
	atomic64_inc(&g->stats.reclaim_runs);
	atomic64_add(reclaimed, &g->stats.reclaimed_pages);
	/*
	 * The victim walk's time apart from the reclaim's wall time (its
	 * paced yields included): the walk is the module's own cost, and it
	 * grows with the cgroups below the group, dying ones included.
	 */
	trace_reclaim(g->id, (u64)usage << PAGE_SHIFT, marks.low, marks.high,
		      requested, reclaimed, walk_ns, ktime_get_ns() - start_ns);

	mbr_memcg_headroom(memcg, &h);
	usage = h.usage;
	marks = mbr_group_marks(g, memcg);
	stop = mbr_turn_stop(memcg, &marks, usage);
	/*
	 * Progress is a real step toward the stop mark: a turn that got
	 * much less than it asked for while the group is still above the
	 * mark failed, even if it freed a few pages (the last file pages
	 * of a group full of anon without swap: its executables).
	 */
	progress = reclaimed >= requested / 4;
	if (progress)
		mbr_group_progress(g);
	if (usage <= stop || progress) {
		g->nr_failures = 0;
	} else if (++g->nr_failures >= MBR_MAX_FAILURES) {
		g->nr_failures = 0;
		goto backoff;
	}
	if (usage > stop)
		return true;
idle:
	/* Back at the stop mark: wmark_auto learns from the cycle. */
	mbr_auto_cycle_end(g);
	return false;
backoff:
	mbr_group_backoff(g, &h);
	mbr_auto_cycle_discard(g, true);
	return false;
discard:
	/* Turned off or backed off: the headroom was not what failed. */
	mbr_auto_cycle_discard(g, false);
	return false;
}
