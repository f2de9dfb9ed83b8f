// SPDX-License-Identifier: GPL-2.0
/*
 * What a user writes to name a cgroup ("add", "remove"): its id (the
 * directory's inode number), a path in a mounted cgroup file system
 * (cgroup2, or the cgroup v1 hierarchy the memory controller is bound
 * to), or a path relative to the cgroup2 root.
 *
 * The memory controller is on exactly one hierarchy at a time: cgroup2,
 * or, on a kernel that has the v1 memory controller, the v1 hierarchy
 * mounted with "-o memory". A cgroup anywhere else has no memcg. Such a
 * refusal, like any whose errno alone would not say what is wrong, logs
 * one line naming the input and the reason.
 */
#include <linux/cgroup.h>
#include <linux/kstrtox.h>
#include <linux/namei.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>

#include "mbr.h"

/* Trim one trailing newline; reject empty input and embedded NULs. */
static char *mbr_dup_arg(const char *arg, size_t len)
{
	if (len && arg[len - 1] == '\n')
		len--;
	if (!len || len >= PATH_MAX || memchr(arg, '\0', len))
		return ERR_PTR(-EINVAL);
	return kmemdup_nul(arg, len, GFP_KERNEL) ?: ERR_PTR(-ENOMEM);
}

static bool mbr_is_id(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Log why @s was refused and return @err. One rate limit for all
 * reasons: a script writing bad input in a loop must not flood the log.
 * The input is escaped, as any bytes can be written.
 */
static int mbr_refuse(const char *op, const char *s, int err, const char *why)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	if (__ratelimit(&rs))
		pr_warn("%s %*pE: %s\n", op, (int)strlen(s), s, why);
	return err;
}

static bool mbr_cgroup_is_v1(struct cgroup *cgrp)
{
	return cgrp->root != &cgrp_dfl_root;
}

/*
 * cgroup_get_from_id() searches cgroup2 only. With the memory controller
 * on a v1 hierarchy, search the memcg tree: each cgroup of that
 * hierarchy has its memcg, and the id is the cgroup's. Its top, the
 * root memcg, is not exported: it is found from the current task's memcg
 * up. Not through memory_cgrp_subsys.root, which an unmount may free
 * under us: cgroup_root is not RCU-freed on every kernel this builds for.
 */
static struct cgroup *mbr_cgroup_get_v1_id(u64 id)
{
	struct cgroup *cgrp = ERR_PTR(-ENOENT);
	struct cgroup_subsys_state *top, *pos;

	rcu_read_lock();
	top = &mem_cgroup_from_task(current)->css;
	while (top->parent)
		top = top->parent;
	css_for_each_descendant_pre(pos, top) {
		if (cgroup_id(pos->cgroup) != id)
			continue;
		if (cgroup_tryget(pos->cgroup))
			cgrp = pos->cgroup;
		break;
	}
	rcu_read_unlock();
	return cgrp;
}

/* The cgroup of id @s, with a reference. */
static struct cgroup *mbr_cgroup_get_id(const char *s)
{
	u64 id;

	if (kstrtou64(s, 10, &id))
		return ERR_PTR(-EINVAL);
	if (cgroup_subsys_on_dfl(memory_cgrp_subsys))
		return cgroup_get_from_id(id);
	return mbr_cgroup_get_v1_id(id);
}

/*
 * The cgroup @s names, with a reference: an id, the path of a cgroup
 * directory, or a path relative to the cgroup2 root. A path in no
 * cgroup file system is taken as relative, as it always was.
 */
static struct cgroup *mbr_cgroup_get(const char *op, const char *s)
{
	struct cgroup *cgrp;
	struct path path;

	if (mbr_is_id(s))
		return mbr_cgroup_get_id(s);
	if (s[0] != '/')
		return ERR_PTR(-EINVAL);
	if (kern_path(s, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path))
		return cgroup_get_from_path(s);
	cgrp = mbr_cgroup_from_dir(path.dentry);
	path_put(&path);
	if (PTR_ERR_OR_ZERO(cgrp) != -EBADF)
		return cgrp;
	cgrp = cgroup_get_from_path(s);
	/* A directory that exists: "no such cgroup" alone would mislead. */
	if (PTR_ERR_OR_ZERO(cgrp) == -ENOENT)
		mbr_refuse(op, s, -ENOENT,
			   "not a cgroup directory, nor a cgroup below the cgroup2 root");
	return cgrp;
}

/*
 * 0 if the memory controller is on @cgrp's hierarchy, or a negative
 * errno after logging where it is instead.
 */
static int mbr_check_hierarchy(const char *op, const char *s,
			       struct cgroup *cgrp)
{
	if (READ_ONCE(memory_cgrp_subsys.root) == cgrp->root)
		return 0;
	if (!mbr_cgroup_is_v1(cgrp))
		return mbr_refuse(op, s, -EINVAL,
				  "in cgroup2, but the memory controller is on a cgroup v1 hierarchy");
	if (!MBR_HAVE_MEMCG_V1)
		return mbr_refuse(op, s, -EOPNOTSUPP,
				  "in a cgroup v1 hierarchy, and this kernel has no cgroup v1 memory controller (CONFIG_MEMCG_V1 is not set)");
	if (cgroup_subsys_on_dfl(memory_cgrp_subsys))
		return mbr_refuse(op, s, -EINVAL,
				  "in a cgroup v1 hierarchy without the memory controller, which is on cgroup2");
	return mbr_refuse(op, s, -EINVAL,
			  "in a cgroup v1 hierarchy without the memory controller, which is on another one");
}

/* Why @cgrp, on memory's hierarchy, has no online memcg of its own. */
static int mbr_no_own_memcg(const char *op, const char *s,
			    struct cgroup *cgrp)
{
	/* Every cgroup of a v1 memory hierarchy has one until removed. */
	if (mbr_cgroup_is_v1(cgrp))
		return -ENOENT;
	return mbr_refuse(op, s, -EINVAL,
			  "no memory controller of its own: its parent does not enable \"memory\" in cgroup.subtree_control");
}

/* Common to add and remove: the cgroup @s names, on memory's hierarchy. */
static struct cgroup *mbr_memory_cgroup_get(const char *op, const char *s)
{
	struct cgroup *cgrp = mbr_cgroup_get(op, s);
	int ret;

	if (IS_ERR(cgrp))
		return cgrp;
	ret = mbr_check_hierarchy(op, s, cgrp);
	if (ret) {
		cgroup_put(cgrp);
		return ERR_PTR(ret);
	}
	return cgrp;
}

/**
 * mbr_memcg_css_from_arg() - the memory cgroup a user named
 * @op: the file written ("add", "rule_add"), for the log line of a refusal
 * @arg: an id or a path, as written (one trailing newline allowed)
 * @len: its length
 *
 * Context: process context.
 * Return: the cgroup's own memcg css, online, with a reference
 *	(css_put() it), or an ERR_PTR: -ENOENT no such cgroup, -EINVAL the
 *	root, a cgroup without its own memcg or one on a hierarchy without
 *	the memory controller, -EOPNOTSUPP a cgroup v1 path on a kernel
 *	without the v1 memory controller.
 */
struct cgroup_subsys_state *mbr_memcg_css_from_arg(const char *op,
						   const char *arg, size_t len)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;
	char *s = mbr_dup_arg(arg, len);

	if (IS_ERR(s))
		return ERR_CAST(s);
	cgrp = mbr_memory_cgroup_get(op, s);
	if (IS_ERR(cgrp)) {
		css = ERR_CAST(cgrp);
		goto out_free;
	}
	if (!cgroup_parent(cgrp)) {
		css = ERR_PTR(mbr_refuse(op, s, -EINVAL,
					 "the root cgroup, which has no limit"));
		goto out_put_cgrp;
	}
	/* The effective css is an ancestor's when @cgrp has none online. */
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	if (css->cgroup != cgrp) {
		css_put(css);
		css = ERR_PTR(mbr_no_own_memcg(op, s, cgrp));
	}
out_put_cgrp:
	cgroup_put(cgrp);
out_free:
	kfree(s);
	return css;
}

/**
 * mbr_cgroup_id_from_arg() - the id of the cgroup a user named
 * @op: the file written ("remove", "rule_del"), for the log line
 * @arg: an id or a path, as written
 * @len: its length
 * @id: set to the id
 *
 * An id is taken as it is, so that a group whose cgroup can no longer be
 * looked up can still be named. A path is refused as in "add" if the
 * memory controller is not on its hierarchy.
 *
 * Return: 0 or a negative errno.
 */
int mbr_cgroup_id_from_arg(const char *op, const char *arg, size_t len,
			   u64 *id)
{
	struct cgroup *cgrp;
	char *s = mbr_dup_arg(arg, len);
	int ret = 0;

	if (IS_ERR(s))
		return PTR_ERR(s);
	if (mbr_is_id(s)) {
		ret = kstrtou64(s, 10, id) ? -EINVAL : 0;
	} else {
		cgrp = mbr_memory_cgroup_get(op, s);
		if (IS_ERR(cgrp)) {
			ret = PTR_ERR(cgrp);
		} else {
			*id = cgroup_id(cgrp);
			cgroup_put(cgrp);
		}
	}
	kfree(s);
	return ret;
}
