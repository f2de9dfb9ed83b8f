// SPDX-License-Identifier: GPL-2.0
/*
 * The background reclaim workers: a pool of int_sqrt(num_online_cpus())
 * + 1 kernel threads sharing one FIFO of groups above their low
 * watermark, and dedicated pools of one thread each, for groups whose
 * reclaim is billed to a cgroup of the operator's (billing.c): a thread
 * is billed to the cgroup it is in, so such a group's reclaim must run
 * in a thread of its own.
 *
 * Like kswapd, a worker reclaims a batch, then looks again: a group that
 * is still above its high watermark goes back to the tail of its FIFO,
 * so that every queued group gets a turn before any gets a second one.
 * A group is on a FIFO at most once, and ->queued stays set while a
 * worker has it, so two workers never reclaim the same group at once.
 */
#include <linux/completion.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <uapi/linux/sched/types.h>
#include <linux/swait.h>

#include "mbr.h"

/*
 * A FIFO and the threads that serve it. Which pool a group is queued on
 * is read and changed under mbr_lock only (->pool, NULL for the shared
 * one), so a pool that no group points to is never queued on again.
 */
struct mbr_pool {
	struct list_head fifo;		/* under mbr_lock */
	/*
	 * A simple wait queue: its lock is a raw spinlock, so the charge
	 * hook may wake a worker with preemption disabled (inside
	 * ftrace's recursion lock) even on PREEMPT_RT, where a
	 * wait_queue_head's spinlock_t sleeps.
	 */
	struct swait_queue_head wq;
	struct list_head node;		/* mbr_pools, under mbr_lock */
	struct task_struct *task;	/* a dedicated pool's thread */
	/*
	 * A new kthread may not change cgroups until it has first run
	 * (no_cgroup_migration, cleared by kthread() just before calling
	 * the thread function): billing.c waits for this.
	 */
	struct completion started;
};

static struct task_struct **mbr_workers;
static struct mbr_pool mbr_shared = {
	.fifo = LIST_HEAD_INIT(mbr_shared.fifo),
	.wq = __SWAIT_QUEUE_HEAD_INITIALIZER(mbr_shared.wq),
	.node = LIST_HEAD_INIT(mbr_shared.node),
};
static LIST_HEAD(mbr_pools);		/* the dedicated ones, under mbr_lock */

static int mbr_worker_fn(void *data);

/* The pool @g is queued on. Caller holds mbr_lock. */
static struct mbr_pool *mbr_pool_of(struct mbr_group *g)
{
	return g->pool ?: &mbr_shared;
}

/**
 * mbr_queue_group() - hand a group to the workers
 * @g: the group
 *
 * Context: any but NMI; no locks of ours held.
 */
void mbr_queue_group(struct mbr_group *g)
{
	struct mbr_pool *p = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (!g->queued && !g->dead && READ_ONCE(mbr_enabled)) {
		p = mbr_pool_of(g);
		list_add_tail(&g->fifo, &p->fifo);
		WRITE_ONCE(g->queued, true);
		atomic64_inc(&g->stats.wakeups);
		/* Woken under the lock: the pool may go once it is dropped. */
		swake_up_one(&p->wq);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

/* Take every group off @p's FIFO. Caller holds mbr_lock. */
static void mbr_pool_drain(struct mbr_pool *p)
{
	struct mbr_group *g, *tmp;

	list_for_each_entry_safe(g, tmp, &p->fifo, fifo) {
		list_del_init(&g->fifo);
		WRITE_ONCE(g->queued, false);
	}
}

/**
 * mbr_drain_queue() - take every waiting group off the FIFO
 *
 * Used when background reclaim is switched off. A group a worker holds
 * now is not requeued, as the worker checks mbr_enabled.
 */
void mbr_drain_queue(void)
{
	struct mbr_pool *p;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	mbr_pool_drain(&mbr_shared);
	list_for_each_entry(p, &mbr_pools, node)
		mbr_pool_drain(p);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

/**
 * mbr_current_is_worker() - is the current task one of our workers?
 *
 * Our own reclaim must not count as a direct reclaim stall.
 */
bool mbr_current_is_worker(void)
{
	return (current->flags & PF_KTHREAD) &&
		kthread_func(current) == mbr_worker_fn;
}

/* The head of @p's FIFO, with a reference; it stays ->queued. */
static struct mbr_group *mbr_fifo_pop(struct mbr_pool *p)
{
	struct mbr_group *g;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	g = list_first_entry_or_null(&p->fifo, struct mbr_group, fifo);
	if (g) {
		list_del_init(&g->fifo);
		kobject_get(&g->kobj);
	}
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	return g;
}

/*
 * End of a turn on @from's FIFO: back to the tail of the group's FIFO,
 * or off it. The worker that requeues looks at its FIFO again at once,
 * so a wakeup is needed only if the group's pool changed meanwhile.
 */
static void mbr_fifo_done(struct mbr_group *g, struct mbr_pool *from,
			  bool requeue)
{
	struct mbr_pool *p;
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (requeue && g->queued && !g->dead && READ_ONCE(mbr_enabled)) {
		p = mbr_pool_of(g);
		list_add_tail(&g->fifo, &p->fifo);
		if (p != from)
			swake_up_one(&p->wq);
	} else
		WRITE_ONCE(g->queued, false);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
}

/*
 * One turn on @g. Every nanosecond of a worker's CPU time is billed to
 * one group: to the group of a turn goes the worker's CPU since the end
 * of its previous turn (@cpu_mark), so the cost of being woken, of
 * scheduling and of the FIFO goes with the turn that caused it, and the
 * groups' reclaim_cpu_ns add up to the workers' CPU time. cpu_budget
 * is charged the same figure.
 */
static void mbr_work_on(struct mbr_pool *p, struct mbr_group *g,
			u64 *cpu_mark, struct mbr_pace *pace)
{
	bool requeue = false;
	u64 now;

	/* The memcg is pinned by the group; a dying one is left alone. */
	if (!READ_ONCE(g->dead) && !css_is_dying(&g->memcg->css))
		requeue = mbr_reclaim_turn(g, pace);
	now = mbr_task_cpu_ns(current);
	atomic64_add(now - *cpu_mark, &g->stats.reclaim_cpu_ns);
	mbr_budget_charge(g, now - *cpu_mark);
	*cpu_mark = now;
	mbr_fifo_done(g, p, requeue);
}

/*
 * A worker is woken from the charge path of the very tasks it works for,
 * often on the CPU they run on. As a SCHED_NORMAL task, the wakeup (with
 * its sleeper credit) would preempt them at once, and the worker's turn
 * would then delay the latency-sensitive task it exists to help. As
 * SCHED_BATCH, it keeps its full share of CPU time but never preempts on
 * wakeup: it takes an idle CPU at once, or waits for the running task's
 * slice to end. Root may still change it (chrt, renice).
 *
 * A lower policy near the limit lets the workers fall behind, and the
 * tasks stall in direct reclaim again (doc/design.md); what bounds the
 * waits behind a worker instead is its pacing (pace.c).
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

static int mbr_worker_fn(void *data)
{
	struct mbr_pool *p = data;
	struct mbr_pace pace;
	struct mbr_group *g;
	u64 cpu_mark;

	if (p != &mbr_shared)
		complete(&p->started);
	mbr_worker_set_policy();
	set_freezable();
	cpu_mark = mbr_task_cpu_ns(current);
	mbr_pace_init(&pace);
	while (!kthread_should_stop()) {
		/* The freezer wakes kthreads in TASK_INTERRUPTIBLE. */
		swait_event_interruptible_exclusive(p->wq,
				kthread_should_stop() || freezing(current) ||
				!list_empty_careful(&p->fifo));
		if (try_to_freeze())
			continue;
		g = mbr_fifo_pop(p);
		if (!g)
			continue;
		mbr_work_on(p, g, &cpu_mark, &pace);
		mbr_group_put(g);
		mbr_pace(&pace);
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
			kthread_run(mbr_worker_fn, &mbr_shared,
				    "memcg_bgrcl/%u", i);
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

/**
 * mbr_pool_create() - a dedicated pool of one worker, not yet in use
 * @id: the cgroup id of the group it is for, for the thread's name
 *
 * The worker has started when this returns, so it may be moved to
 * another cgroup.
 *
 * Context: process context.
 * Return: the pool, or an ERR_PTR.
 */
struct mbr_pool *mbr_pool_create(u64 id)
{
	struct mbr_pool *p = kzalloc(sizeof(*p), GFP_KERNEL);
	unsigned long flags;
	int err;

	if (!p)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&p->fifo);
	init_swait_queue_head(&p->wq);
	init_completion(&p->started);
	p->task = kthread_run(mbr_worker_fn, p, "memcg_bgrcl/g%llu", id);
	if (IS_ERR(p->task)) {
		err = PTR_ERR(p->task);
		kfree(p);
		return ERR_PTR(err);
	}
	wait_for_completion(&p->started);
	raw_spin_lock_irqsave(&mbr_lock, flags);
	list_add_tail(&p->node, &mbr_pools);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	return p;
}

/* A dedicated pool's worker's pid, as the initial namespace sees it. */
pid_t mbr_pool_pid(struct mbr_pool *p)
{
	return task_pid_nr(p->task);
}

/**
 * mbr_pool_swap() - queue a group on another pool from now on
 * @g: the group
 * @p: its dedicated pool, or NULL for the shared one
 *
 * A group waiting on the old pool's FIFO moves to the new one; a group
 * a worker holds now goes to the new one at the end of the turn.
 *
 * Return: the old dedicated pool, or NULL; no group is queued on it
 *	any more, and the caller destroys it. ERR_PTR(-ENOENT) if @p is
 *	a pool and the group is unlinked: its destruction, which swaps in
 *	NULL after the unlink, would not see @p.
 */
struct mbr_pool *mbr_pool_swap(struct mbr_group *g, struct mbr_pool *p)
{
	struct mbr_pool *old;
	unsigned long flags;
	bool waiting;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	if (p && g->dead) {
		raw_spin_unlock_irqrestore(&mbr_lock, flags);
		return ERR_PTR(-ENOENT);
	}
	old = g->pool;
	waiting = g->queued && !list_empty(&g->fifo);
	if (waiting)
		list_del_init(&g->fifo);
	g->pool = p;
	if (waiting) {
		list_add_tail(&g->fifo, &mbr_pool_of(g)->fifo);
		swake_up_one(&mbr_pool_of(g)->wq);
	}
	if (old)
		list_del_init(&old->node);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	return old;
}

/**
 * mbr_pool_detach() - give a group back to the shared workers, stopping
 *	its dedicated worker, if any
 * @g: the group
 *
 * Context: process context.
 */
void mbr_pool_detach(struct mbr_group *g)
{
	struct mbr_pool *p = mbr_pool_swap(g, NULL);

	if (p)
		mbr_pool_destroy(p);
}

/**
 * mbr_pool_detach_later() - give a group back to the shared workers now,
 *	and its dedicated worker, if any, to @stop for mbr_pools_stop()
 * @g: the group
 * @stop: a list of the caller's
 *
 * For a caller that holds a mutex others wait on: stopping a worker
 * waits for its turn to end, which a small cpu.max can make long.
 */
void mbr_pool_detach_later(struct mbr_group *g, struct list_head *stop)
{
	struct mbr_pool *p = mbr_pool_swap(g, NULL);

	/* Off mbr_pools since the swap: ->node is free for @stop. */
	if (p)
		list_add_tail(&p->node, stop);
}

/**
 * mbr_pools_stop() - stop the workers mbr_pool_detach_later() set aside
 * @stop: the list
 *
 * Context: process context, none of the module's mutexes held.
 */
void mbr_pools_stop(struct list_head *stop)
{
	struct mbr_pool *p, *tmp;

	list_for_each_entry_safe(p, tmp, stop, node) {
		list_del_init(&p->node);
		kthread_stop(p->task);
		kfree(p);
	}
}

/**
 * mbr_pool_destroy() - stop a dedicated pool's worker and free the pool
 * @p: a pool no group points to (mbr_pool_swap() returned it), or one
 *	never handed to a group
 *
 * Waits for a turn in progress to end.
 *
 * Context: process context.
 */
void mbr_pool_destroy(struct mbr_pool *p)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&mbr_lock, flags);
	list_del_init(&p->node);
	raw_spin_unlock_irqrestore(&mbr_lock, flags);
	kthread_stop(p->task);
	kfree(p);
}
