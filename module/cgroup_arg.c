// SPDX-License-Identifier: GPL-2.0
/*
 * What a user writes to name a cgroup ("add", "remove"): its id (the
 * directory's inode number), a path in a mounted cgroup2 file system, or
 * a path relative to the cgroup2 root.
 */
#include <linux/cgroup.h>
#include <linux/kstrtox.h>
#include <linux/magic.h>
#include <linux/namei.h>
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

static struct cgroup *mbr_cgroup_get(const char *s)
{
	struct cgroup *cgrp = ERR_PTR(-ENOENT);
	struct path path;
	u64 id;

	if (mbr_is_id(s)) {
		if (kstrtou64(s, 10, &id))
			return ERR_PTR(-EINVAL);
		return cgroup_get_from_id(id);
	}
	if (s[0] != '/')
		return ERR_PTR(-EINVAL);
	if (!kern_path(s, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path)) {
		if (path.dentry->d_sb->s_magic == CGROUP2_SUPER_MAGIC)
			cgrp = cgroup_get_from_id(d_inode(path.dentry)->i_ino);
		path_put(&path);
		if (!IS_ERR(cgrp))
			return cgrp;
	}
	return cgroup_get_from_path(s);
}

/**
 * mbr_cgroup_from_arg() - the cgroup a user named
 * @arg: an id or a path, as written (one trailing newline allowed)
 * @len: its length
 *
 * Context: process context.
 * Return: the cgroup with a reference (cgroup_put() it), or an ERR_PTR.
 */
struct cgroup *mbr_cgroup_from_arg(const char *arg, size_t len)
{
	struct cgroup *cgrp;
	char *s = mbr_dup_arg(arg, len);

	if (IS_ERR(s))
		return ERR_CAST(s);
	cgrp = mbr_cgroup_get(s);
	kfree(s);
	return cgrp;
}

/**
 * mbr_cgroup_id_from_arg() - the id of the cgroup a user named
 * @arg: an id or a path, as written
 * @len: its length
 * @id: set to the id
 *
 * An id is taken as it is, so that a group whose cgroup can no longer be
 * looked up can still be named.
 *
 * Return: 0 or a negative errno.
 */
int mbr_cgroup_id_from_arg(const char *arg, size_t len, u64 *id)
{
	struct cgroup *cgrp;
	char *s = mbr_dup_arg(arg, len);
	int ret = 0;

	if (IS_ERR(s))
		return PTR_ERR(s);
	if (mbr_is_id(s)) {
		ret = kstrtou64(s, 10, id) ? -EINVAL : 0;
	} else {
		cgrp = mbr_cgroup_get(s);
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
