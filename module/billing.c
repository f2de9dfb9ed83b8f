// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_cgroup: bill a group's background reclaim to a cgroup the
 * operator names, for example one for the tenant's overhead, so that the
 * cgroup's cpu.stat shows the cost and its cpu.max limits it.
 *
 * The scheduler bills a thread's CPU to the cgroup the thread is in, so
 * such a group gets a worker of its own (workers.c's dedicated pool),
 * which is moved into the cgroup exactly as an operator would move a
 * task: its pid written to the cgroup's cgroup.procs, by the task that
 * wrote cpu_cgroup, with that task's credentials and namespaces. The
 * kernel's own checks apply: permissions, and cgroup v2's
 * no-internal-process rule, by which a cgroup that distributes
 * resources to children (controllers in its cgroup.subtree_control)
 * cannot hold tasks; such a cgroup is refused with -EBUSY and one line
 * saying why. Like any task in it, the worker keeps the cgroup from
 * being removed until cpu_cgroup is cleared or the group goes.
 */
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>

#include "mbr.h"

/* The cpu_cgroup strings, and one change at a time. */
static DEFINE_MUTEX(mbr_billing_mutex);

static int mbr_billing_refuse(const char *dir, int err, const char *why)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	if (__ratelimit(&rs))
		pr_warn("cpu_cgroup %*pE: %s\n", (int)strlen(dir), dir, why);
	return err;
}

/* Move @p's worker into the cgroup at @dir, a directory of a cgroup fs. */
static int mbr_billing_move(const char *dir, struct mbr_pool *p)
{
	char num[16], *path;
	unsigned long magic;
	struct file *f;
	loff_t pos = 0;
	pid_t pid;
	ssize_t n;
	int len;

	/* The pid as the writer's namespace sees it, as cgroup.procs reads it. */
	pid = mbr_pool_vpid(p);
	if (!pid)
		return mbr_billing_refuse(dir, -ESRCH,
					  "the worker is not visible in the writer's pid namespace");
	path = kasprintf(GFP_KERNEL, "%s/cgroup.procs", dir);
	if (!path)
		return -ENOMEM;
	f = filp_open(path, O_WRONLY, 0);
	kfree(path);
	if (IS_ERR(f))
		return mbr_billing_refuse(dir, PTR_ERR(f),
					  "not a cgroup directory (no cgroup.procs to write)");
	magic = file_inode(f)->i_sb->s_magic;
	if (magic != CGROUP2_SUPER_MAGIC && magic != CGROUP_SUPER_MAGIC) {
		filp_close(f, NULL);
		return mbr_billing_refuse(dir, -ENOTDIR,
					  "not in a cgroup file system");
	}
	len = snprintf(num, sizeof(num), "%d\n", pid);
	n = kernel_write(f, num, len, &pos);
	filp_close(f, NULL);
	if (n == -EBUSY)
		return mbr_billing_refuse(dir, -EBUSY,
					  "it has controllers enabled for its children (cgroup v2's no-internal-process rule): name a leaf cgroup");
	if (n == -EOPNOTSUPP)
		return mbr_billing_refuse(dir, -EOPNOTSUPP,
					  "it is not a valid domain for a task (threaded subtree)");
	if (n < 0)
		return mbr_billing_refuse(dir, n, "the kernel refused the move");
	return 0;
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
