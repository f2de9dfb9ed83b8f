// SPDX-License-Identifier: GPL-2.0
/*
 * How a worker shares its CPU with the tasks it reclaims for.
 *
 * A worker is SCHED_BATCH, so it never preempts on wakeup; but once it
 * runs, a task that wakes on its CPU (a latency-sensitive one of the
 * very group it works for) waits until the scheduler takes the CPU
 * back: on 6.1 at a wakeup that beats the worker by the wakeup
 * granularity, or at a tick that finds its slice used; on 6.12 at the
 * end of the worker's protected slice (RUN_TO_PARITY), noticed at a
 * tick, 4 ms apart at Debian's HZ=250.
 *
 * So a worker that has run MBR_PACE_RUN_NS since it was first seen on
 * the CPU, while another task is runnable there, yields between two
 * steps of reclaim (and between two turns); while others wait, its
 * steps are MBR_PACE_CHUNK pages, so that the wait behind it is bounded
 * by a step, not by a slice (with step_alone, while it is alone too).
 *
 * Why not yield at every step: a yield gives the CPU to whoever is
 * next, a CPU-bound reader of the same group as likely as the waiting
 * probe, and the worker gets it back only when the scheduler takes it
 * from that task. What a worker loses stays bounded by the scheduler:
 * on 6.1 a yield only marks the worker as the skip buddy, which is not
 * skipped once the next task is a wakeup granularity ahead of it; on
 * 6.12 an eligible yielder's vruntime moves to its deadline, so the loss
 * per yield is what was left of one slice. MBR_PACE_RUN_NS sets how much
 * of its slice a worker keeps before it gives the rest up. yield() is
 * what is wanted here, for all checkpatch says: the worker stays
 * runnable, and no sleep of a fixed length would fit both a probe that
 * needs 50 us and a reader that keeps the CPU until the next tick.
 *
 * Limits, both on 6.12:
 * - a yield acts in the worker's own run queue: a dedicated worker
 *   alone in a cgroup with the cpu controller (cpu_cgroup) gives up
 *   nothing, as its cgroup's entity keeps its place one level up;
 * - single_task_running() counts tasks whose dequeue is delayed
 *   (DELAY_DEQUEUE) as runnable, so the steps are sometimes small with
 *   nobody waiting; a yield then switches to nobody.
 * Only yields after which another task did run are counted
 * (worker_yields), so stat shows what the pacing really gave away.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>

#include "mbr.h"

/* Yields after which another task ran, for stat (worker_yields). */
atomic64_t mbr_pace_yields = ATOMIC64_INIT(0);

/*
 * Off by default: on EEVDF kernels (6.6, RUN_TO_PARITY) a task that
 * wakes on a worker's CPU during one long call waits for the call to
 * end, which steps would bound, but a same-run bench found no gain in
 * the probe's tail (doc/bench.md). Kept for the bench to compare, and
 * for kernels where that changes.
 */
static bool step_alone;
module_param(step_alone, bool, 0644);
MODULE_PARM_DESC(step_alone,
		 "reclaim in steps of 64 pages even while a worker has its CPU to itself (default 0)");

/* Context switches of the current task so far (both kinds). */
static unsigned long mbr_nr_switches(void)
{
	return current->nvcsw + current->nivcsw;
}

/**
 * mbr_pace_init() - start pacing the current worker
 * @pace: its state, owned by the worker
 */
void mbr_pace_init(struct mbr_pace *pace)
{
	pace->nr_switches = mbr_nr_switches();
	pace->since = local_clock();
}

/**
 * mbr_pace_shared() - is another task waiting for this CPU?
 *
 * A hint (the worker may migrate right after, and see the limits
 * above), enough to size a step.
 */
bool mbr_pace_shared(void)
{
	return !single_task_running();
}

/**
 * mbr_pace_split() - may the next call of a turn on @g be a step?
 * @g: the group
 *
 * Always while another task waits for the CPU; while the worker is alone
 * only with step_alone, and only where steps are short
 * (mbr_pace_call_end()).
 */
bool mbr_pace_split(struct mbr_group *g)
{
	return mbr_pace_shared() ||
	       (READ_ONCE(step_alone) &&
		!test_bit(MBR_GROUP_SLOW_STEPS, &g->flags));
}

/**
 * mbr_pace_call_begin() - a reclaim call starts
 * @pace: the worker's state
 */
void mbr_pace_call_begin(struct mbr_pace *pace)
{
	pace->call_switches = mbr_nr_switches();
	pace->call_start = ktime_get_ns();
}

/**
 * mbr_pace_call_end() - learn from a reclaim call on @g how long a step is
 * @pace: the worker's state
 * @g: the group
 * @pages: what the call asked for
 * @split: whether it was a step
 *
 * A step exists to bound the wait behind the worker below a tick, where
 * the scheduler takes the CPU back anyway. A step that took longer on
 * the CPU bounds nothing, and each step pays the kernel's fixed cost of a
 * call again (one visit per memcg below the victim, dying ones
 * included): so the group's turns go back to one call while alone, until
 * a whole call of at least a step takes less than a tick, when a step
 * would too. A call during which the worker left the CPU tells nothing
 * of its own length.
 */
void mbr_pace_call_end(struct mbr_pace *pace, struct mbr_group *g,
		       unsigned long pages, bool split)
{
	u64 ns = ktime_get_ns() - pace->call_start;

	if (mbr_nr_switches() != pace->call_switches)
		return;
	if (split) {
		if (ns > TICK_NSEC &&
		    !test_bit(MBR_GROUP_SLOW_STEPS, &g->flags))
			set_bit(MBR_GROUP_SLOW_STEPS, &g->flags);
	} else if (pages >= MBR_PACE_CHUNK && ns <= TICK_NSEC &&
		   test_bit(MBR_GROUP_SLOW_STEPS, &g->flags)) {
		clear_bit(MBR_GROUP_SLOW_STEPS, &g->flags);
	}
}

/**
 * mbr_pace() - give the CPU to a waiting task if the worker has had it
 *	long enough; a scheduling point in any case
 * @pace: the worker's state
 *
 * Context: process context, no locks held.
 */
void mbr_pace(struct mbr_pace *pace)
{
	unsigned long nr = mbr_nr_switches();
	u64 now = local_clock();

	/* Off the CPU since the last look: a new run starts. */
	if (nr != pace->nr_switches) {
		pace->nr_switches = nr;
		pace->since = now;
	} else if (now - pace->since >= MBR_PACE_RUN_NS &&
		   mbr_pace_shared()) {
		yield();
		/* Switches are counted only when another task ran. */
		if (mbr_nr_switches() != nr)
			atomic64_inc(&mbr_pace_yields);
		mbr_pace_init(pace);
		return;
	}
	cond_resched();
}
