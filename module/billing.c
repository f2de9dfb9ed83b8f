// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_cgroup: bill a group's background reclaim to a cgroup the
 * operator names, for example one for the tenant's overhead, so that the
 * cgroup's cpu.stat shows the cost and its cpu.max limits it.
 *
 * The scheduler bills a thread's CPU to the cgroup the thread is in, so
 * such a group gets a worker of its own (workers.c's dedicated pool),
 * which is moved into the cgroup exactly as an operator would move a
 * task: its pid written to the cgroup's cgroup.procs, through the
 * kernel's own migration path and its checks, among them cgroup v2's
 * no-internal-process rule, by which a cgroup that distributes
 * resources to children (controllers in its cgroup.subtree_control)
 * cannot hold tasks; such a cgroup is refused with -EBUSY and one line
 * saying why. Like any task in it, the worker keeps the cgroup from
 * being removed until cpu_cgroup is cleared or the group goes.
 *
 * Only cgroup2 directories owned by root are accepted. A v1 hierarchy
 * may carry the v1 freezer, which freezes kernel threads, and a frozen
 * worker could not be stopped (rmdir, rmmod) until thawed; cgroup2's
 * freezer leaves kernel threads alone. A delegated cgroup's owner could
 * move our thread within the delegated subtree, for instance under a
 * tiny cpu.max, where it could be throttled mid-reclaim while holding
 * memory-management locks other tasks wait for.
 *
 * The pid is written by a work item, not by the writer of cpu_cgroup:
 * that writer holds its sysfs file's kernfs mutex, and cgroup.procs's is
 * of the same lockdep class, so a nested write would look like a
 * recursive lock to lockdep (it is not one: two files). The work item
 * runs with the kernel's credentials and namespaces, so it sees every
 * cgroup and names the thread by its global pid.
 *
 * The work runs on a workqueue of the module's own, which exit destroys:
 * after complete() the work function still runs the module's code, and
 * destroy_workqueue() waits for it to return before the text goes.
 *
 * The writer waits for the work on a completion, not with flush_work():
 * lockdep (make check-debug) saw a cycle through flush_work's
 * dependency on the work, sb_writers(cgroup2) -> kernfs of->mutex ->
 * mbr_billing_mutex -> the work -> sb_writers(cgroup2), since opening
 * cgroup.procs for writing takes the mount's write access. No such
 * deadlock can happen: the work's of->mutex is that of its own, new
 * open file, and sb_writers is taken only for read, which waits only
 * for a freeze, and cgroup2 cannot be frozen (kernfs has no freeze_fs).
 */
#include <linux/cgroup.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mbr.h"

/* The cpu_cgroup strings, and one change at a time. */
static DEFINE_MUTEX(mbr_billing_mutex);
static struct workqueue_struct *mbr_billing_wq;

static int mbr_billing_refuse(const char *dir, int err, const char *why)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	if (__ratelimit(&rs))
		pr_warn("cpu_cgroup %*pE: %s\n", (int)strlen(dir), dir, why);
	return err;
}

/* A move of one thread into the cgroup at ->dir, done by a work item. */
struct mbr_billing_move {
	struct work_struct work;
	struct completion done;
	struct path dir;
	pid_t pid;
	ssize_t ret;
};

/*
 * Write the pid to the directory's own cgroup.procs: opened below the
 * directory already resolved, never through a symlink, and checked to
 * be that very file (not a bind mount over it, nor another cgroup file)
 * before anything is written.
 */
static void mbr_billing_move_fn(struct work_struct *work)
{
	struct mbr_billing_move *m =
		container_of(work, struct mbr_billing_move, work);
	struct dentry *d;
	struct file *f;
	char num[16];
	loff_t pos = 0;
	int len;

	f = file_open_root(&m->dir, "cgroup.procs", O_WRONLY | O_NOFOLLOW, 0);
	if (IS_ERR(f)) {
		m->ret = PTR_ERR(f);
		goto out;
	}
	d = f->f_path.dentry;
	if (f->f_path.mnt != m->dir.mnt || d->d_parent != m->dir.dentry ||
	    strcmp(d->d_name.name, "cgroup.procs")) {
		m->ret = -EXDEV;
	} else {
		len = snprintf(num, sizeof(num), "%d\n", m->pid);
		m->ret = kernel_write(f, num, len, &pos);
	}
	filp_close(f, NULL);
out:
	/* The last touch of *m: the waiter's stack frame holds it. */
	complete(&m->done);
	/* The tests: module code still running after complete(). */
	if (mbr_should_fail("billing_linger"))
		msleep(1000);
}

/* Move @p's worker into the cgroup2 directory @dir. */
static int mbr_billing_move(const char *dir, struct mbr_pool *p)
{
	struct mbr_billing_move m = { .pid = mbr_pool_pid(p) };
	struct cgroup *cgrp;
	struct inode *inode;
	int ret;

	ret = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &m.dir);
	if (ret)
		return mbr_billing_refuse(dir, ret, "no such directory");
	inode = d_inode(m.dir.dentry);
	cgrp = mbr_cgroup_from_dir(m.dir.dentry);
	if (IS_ERR(cgrp)) {
		ret = mbr_billing_refuse(dir, -ENOTDIR,
					 "not a cgroup directory");
		goto out_path;
	}
	if (cgrp->root != &cgrp_dfl_root) {
		ret = mbr_billing_refuse(dir, -EOPNOTSUPP,
					 "a cgroup v1 hierarchy: only cgroup2 is accepted");
		goto out_cgroup;
	}
	if (!uid_eq(inode->i_uid, GLOBAL_ROOT_UID)) {
		ret = mbr_billing_refuse(dir, -EPERM,
					 "a delegated cgroup (not owned by root)");
		goto out_cgroup;
	}

	INIT_WORK_ONSTACK(&m.work, mbr_billing_move_fn);
	init_completion(&m.done);
	queue_work(mbr_billing_wq, &m.work);
	wait_for_completion(&m.done);
	destroy_work_on_stack(&m.work);
	ret = m.ret < 0 ? m.ret : 0;
	if (ret == -EBUSY)
		mbr_billing_refuse(dir, ret,
				   "it has controllers enabled for its children (cgroup v2's no-internal-process rule): name a leaf cgroup");
	else if (ret == -EOPNOTSUPP)
		mbr_billing_refuse(dir, ret,
				   "it is not a valid domain for a task (threaded subtree)");
	else if (ret == -EXDEV)
		mbr_billing_refuse(dir, ret,
				   "its cgroup.procs is not the cgroup's own file");
	else if (ret)
		mbr_billing_refuse(dir, ret, "the kernel refused the move");
out_cgroup:
	if (!IS_ERR(cgrp))
		cgroup_put(cgrp);
out_path:
	path_put(&m.dir);
	return ret;
}

/**
 * mbr_group_set_cpu_cgroup() - bill @g's reclaim to a cgroup, or stop
 * @g: the group
 * @buf: an absolute path of a cgroup directory, or "" (or a newline)
 *	for the shared workers
 * @len: its length
 *
 * On success the group is served by a new dedicated worker in that
 * cgroup from its next turn on; a previous dedicated worker finishes
 * its turn and stops. Nothing changes on error.
 *
 * Context: process context, the writer's.
 * Return: 0 or a negative errno.
 */
int mbr_group_set_cpu_cgroup(struct mbr_group *g, const char *buf, size_t len)
{
	struct mbr_pool *p = NULL, *old;
	char *dir = NULL;
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len) {
		if (buf[0] != '/' || len >= PATH_MAX || memchr(buf, '\0', len))
			return -EINVAL;
		dir = kmemdup_nul(buf, len, GFP_KERNEL);
		if (!dir)
			return -ENOMEM;
	}

	mutex_lock(&mbr_billing_mutex);
	if (dir) {
		p = mbr_pool_create(g->id);
		if (IS_ERR(p)) {
			ret = PTR_ERR(p);
			goto out_unlock;
		}
		ret = mbr_billing_move(dir, p);
		if (ret)
			goto out_destroy;
	}
	old = mbr_pool_swap(g, p);
	if (IS_ERR(old)) {
		ret = PTR_ERR(old);
		goto out_destroy;
	}
	swap(g->cpu_cgroup, dir);
	mutex_unlock(&mbr_billing_mutex);
	if (old)
		mbr_pool_destroy(old);
	kfree(dir);
	return 0;

out_destroy:
	if (p)
		mbr_pool_destroy(p);
out_unlock:
	mutex_unlock(&mbr_billing_mutex);
	kfree(dir);
	return ret;
}

/**
 * mbr_group_show_cpu_cgroup() - the cpu_cgroup file
 * @g: the group
 * @buf: a sysfs page
 *
 * Return: the length written.
 */
ssize_t mbr_group_show_cpu_cgroup(struct mbr_group *g, char *buf)
{
	ssize_t len;

	mutex_lock(&mbr_billing_mutex);
	len = sysfs_emit(buf, "%s\n", g->cpu_cgroup ?: "");
	mutex_unlock(&mbr_billing_mutex);
	return len;
}

/**
 * mbr_billing_init() - the workqueue that moves workers into cgroups
 *
 * Return: 0 or -ENOMEM.
 */
int mbr_billing_init(void)
{
	mbr_billing_wq = alloc_workqueue("memcg_bgrcl_bill", WQ_UNBOUND, 1);
	return mbr_billing_wq ? 0 : -ENOMEM;
}

/**
 * mbr_billing_exit() - wait for every move to have returned, once no
 *	cpu_cgroup writer is left (the sysfs files are gone)
 */
void mbr_billing_exit(void)
{
	destroy_workqueue(mbr_billing_wq);
}
