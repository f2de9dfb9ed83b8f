// SPDX-License-Identifier: GPL-2.0
/*
 * The background reclaim workers: int_sqrt(num_online_cpus()) + 1
 * kernel threads sharing one FIFO of groups above their low watermark.
 *
 * Like kswapd, a worker reclaims a batch, then looks again: a group that
 * is still above its high watermark goes back to the tail of the FIFO,
 * so that every queued group gets a turn before any gets a second one.
 * A group is on the FIFO at most once, and ->queued stays set while a
 * worker has it, so two workers never reclaim the same group at once.
 */
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <uapi/linux/sched/types.h>
#include <linux/swait.h>

#include "mbr.h"

static struct task_struct **mbr_workers;
static LIST_HEAD(mbr_fifo);		/* under mbr_lock */
/*
 * A simple wait queue: its lock is a raw spinlock, so the charge hook
 * may wake a worker with preemption disabled (inside ftrace's recursion
 * lock) even on PREEMPT_RT, where a wait_queue_head's spinlock_t sleeps.
 */
static DECLARE_SWAIT_QUEUE_HEAD(mbr_wq);

/**
 * mbr_queue_group() - hand a group to the workers
 * @g: the group
 *
 * Context: any but NMI; no locks of ours held.
 */
void mbr_queue_group(struct mbr_group *g)
{
	unsigned long flags;
	bool added = false;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (!g->queued && !g->dead && READ_ONCE(mbr_enabled)) {
		list_add_tail(&g->fifo, &mbr_fifo);
		WRITE_ONCE(g->queued, true);
		atomic64_inc(&g->stats.wakeups);
		added = true;
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	if (added)
		swake_up_one(&mbr_wq);
}

/**
 * mbr_drain_queue() - take every waiting group off the FIFO
 *
 * Used when background reclaim is switched off. A group a worker holds
 * now is not requeued, as the worker checks mbr_enabled.
 */
void mbr_drain_queue(void)
{
	struct mbr_group *g, *tmp;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	list_for_each_entry_safe(g, tmp, &mbr_fifo, fifo) {
		list_del_init(&g->fifo);
		WRITE_ONCE(g->queued, false);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

/**
 * mbr_current_is_worker() - is the current task one of our workers?
 *
 * Our own reclaim must not count as a direct reclaim stall.
 */
bool mbr_current_is_worker(void)
{
	unsigned int i;

	if (!(current->flags & PF_KTHREAD) || !mbr_workers)
		return false;
	for (i = 0; i < mbr_nr_workers; i++)
		if (READ_ONCE(mbr_workers[i]) == current)
			return true;
	return false;
}

/* The FIFO's head, with a reference; it stays ->queued. */
static struct mbr_group *mbr_fifo_pop(void)
{
	struct mbr_group *g;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	g = list_first_entry_or_null(&mbr_fifo, struct mbr_group, fifo);
	if (g) {
		list_del_init(&g->fifo);
		kobject_get(&g->kobj);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	return g;
}

/* End of a turn: back to the tail, or off the FIFO. */
static void mbr_fifo_done(struct mbr_group *g, bool requeue)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (requeue && g->queued && !g->dead && READ_ONCE(mbr_enabled))
		list_add_tail(&g->fifo, &mbr_fifo);
	else
		WRITE_ONCE(g->queued, false);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

static void mbr_work_on(struct mbr_group *g)
{
	bool requeue = false;

	/* The memcg is pinned by the group; a dying one is left alone. */
	if (!READ_ONCE(g->dead) && !css_is_dying(&g->memcg->css))
		requeue = mbr_reclaim_turn(g);
	mbr_fifo_done(g, requeue);
}

/*
 * A worker is woken from the charge path of the very tasks it works for,
 * often on the CPU they run on. As a SCHED_NORMAL task, the wakeup (with
 * its sleeper credit) would preempt them at once, and the worker's turn
 * would then delay the latency-sensitive task it exists to help. As
 * SCHED_BATCH, it keeps its full share of CPU time but never preempts on
 * wakeup: it takes an idle CPU at once, or waits for the running task's
 * slice to end. Root may still change it (chrt, renice).
 */
static void mbr_worker_set_policy(void)
{
	struct sched_attr attr = {
		.size		= sizeof(attr),
		.sched_policy	= SCHED_BATCH,
		.sched_nice	= 0,
	};
	int err = sched_setattr_nocheck(current, &attr);

	if (err)
		pr_warn_once("workers stay SCHED_NORMAL (%d)\n", err);
}

static int mbr_worker_fn(void *unused)
{
	struct mbr_group *g;

	mbr_worker_set_policy();
	set_freezable();
	while (!kthread_should_stop()) {
		/* The freezer wakes kthreads in TASK_INTERRUPTIBLE. */
		swait_event_interruptible_exclusive(mbr_wq,
				kthread_should_stop() || freezing(current) ||
				!list_empty_careful(&mbr_fifo));
		if (try_to_freeze())
			continue;
		g = mbr_fifo_pop();
		if (!g)
			continue;
		mbr_work_on(g);
		mbr_group_put(g);
		cond_resched();
	}
	return 0;
}

static void mbr_stop_workers(unsigned int n)
{
	while (n--)
		kthread_stop(mbr_workers[n]);
}

/**
 * mbr_workers_init() - start the worker pool
 *
 * Return: 0 or a negative errno, with no worker left running.
 */
int mbr_workers_init(void)
{
	struct task_struct *t;
	unsigned int i;

	if (mbr_should_fail("workers_alloc"))
		return -ENOMEM;
	mbr_workers = kcalloc(mbr_nr_workers, sizeof(*mbr_workers), GFP_KERNEL);
	if (!mbr_workers)
		return -ENOMEM;
	for (i = 0; i < mbr_nr_workers; i++) {
		t = mbr_should_fail("kthread") ? ERR_PTR(-ENOMEM) :
			kthread_run(mbr_worker_fn, NULL, "memcg_bgrcl/%u", i);
		if (IS_ERR(t)) {
			pr_err("cannot start worker %u (%ld)\n", i, PTR_ERR(t));
			mbr_stop_workers(i);
			kfree(mbr_workers);
			mbr_workers = NULL;
			return PTR_ERR(t);
		}
		WRITE_ONCE(mbr_workers[i], t);
	}
	return 0;
}

/**
 * mbr_workers_exit() - stop the pool; no worker runs after this returns
 */
void mbr_workers_exit(void)
{
	mbr_drain_queue();
	mbr_stop_workers(mbr_nr_workers);
	kfree(mbr_workers);
	mbr_workers = NULL;
}
