// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/memcg_bgreclaim/cgroups/<id>/: one configured group.
 */
#include <linux/cgroup.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "mbr.h"

static struct mbr_group *to_group(struct kobject *kobj)
{
	return container_of(kobj, struct mbr_group, kobj);
}

static ssize_t path_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct mbr_group *g = to_group(kobj);
	int len = -ENOENT;

	/* Read live: a cgroup2 directory can be renamed. */
	rcu_read_lock();
	if (!READ_ONCE(g->dead))
		len = cgroup_path(g->memcg->css.cgroup, buf, PAGE_SIZE - 1);
	rcu_read_unlock();
	if (len < 0)
		return len;
	if (len >= PAGE_SIZE - 1)
		return -ENAMETOOLONG;
	buf[len++] = '\n';
	return len;
}

static ssize_t mbr_setting_show(struct mbr_group *g, enum mbr_setting what,
				char *buf)
{
	struct mbr_wmark_conf wm;
	u64 val = 0;

	rcu_read_lock();
	wm = rcu_dereference(g->conf)->wm;
	rcu_read_unlock();
	switch (what) {
	case MBR_SET_HIGH_DIST:
		val = wm.high_dist;
		break;
	case MBR_SET_LOW_DIST:
		val = wm.low_dist;
		break;
	case MBR_SET_RATIO:
		val = wm.ratio;
		break;
	case MBR_SET_SCALE:
		val = wm.scale;
		break;
	case MBR_SET_AUTO:
		val = wm.autotune;
		break;
	}
	return sysfs_emit(buf, "%llu\n", val);
}

static ssize_t mbr_setting_store(struct mbr_group *g, enum mbr_setting what,
				 const char *buf, size_t count)
{
	unsigned int num;
	u64 val;
	int ret;

	if (what == MBR_SET_HIGH_DIST || what == MBR_SET_LOW_DIST) {
		ret = mbr_parse_size(buf, count, &val);
	} else if (what == MBR_SET_AUTO) {
		bool on;

		ret = mbr_parse_switch(buf, count, &on);
		val = on;
	} else {
		ret = mbr_parse_uint(buf, count, 0, UINT_MAX, &num);
		val = num;
	}
	if (ret)
		return ret;
	return mbr_group_set(g, what, val) ?: count;
}

/* One show/store pair per setting file. */
#define MBR_SETTING_ATTR(name, what)					\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return mbr_setting_show(to_group(kobj), what, buf);		\
}									\
static ssize_t name##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	return mbr_setting_store(to_group(kobj), what, buf, count);	\
}									\
static struct kobj_attribute name##_attr = __ATTR_RW(name)

MBR_SETTING_ATTR(high_wmark_distance, MBR_SET_HIGH_DIST);
MBR_SETTING_ATTR(low_wmark_distance, MBR_SET_LOW_DIST);
MBR_SETTING_ATTR(wmark_ratio, MBR_SET_RATIO);
MBR_SETTING_ATTR(wmark_scale_factor, MBR_SET_SCALE);
MBR_SETTING_ATTR(wmark_auto, MBR_SET_AUTO);

static ssize_t cpu_budget_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct mbr_group *g = to_group(kobj);
	struct mbr_budget b;

	rcu_read_lock();
	b = rcu_dereference(g->conf)->budget;
	rcu_read_unlock();
	if (!mbr_budget_set(&b))
		return sysfs_emit(buf, "max %llu\n", b.period_us);
	return sysfs_emit(buf, "%llu %llu\n", b.quota_us, b.period_us);
}

/* cpu.max's format: "QUOTA PERIOD", "QUOTA", "max" or "max PERIOD". */
static ssize_t cpu_budget_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	struct mbr_group *g = to_group(kobj);
	struct mbr_budget b;
	u64 period;
	int ret;

	rcu_read_lock();
	period = rcu_dereference(g->conf)->budget.period_us;
	rcu_read_unlock();
	ret = mbr_budget_parse(buf, count, ' ', period, &b);
	if (ret)
		return ret;
	return mbr_group_set_budget(g, &b) ?: count;
}

static ssize_t cpu_cgroup_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return mbr_group_show_cpu_cgroup(to_group(kobj), buf);
}

static ssize_t cpu_cgroup_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	return mbr_group_set_cpu_cgroup(to_group(kobj), buf, count) ?: count;
}

static ssize_t reclaim_wmarks_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct mbr_group *g = to_group(kobj);
	struct mbr_marks marks;

	rcu_read_lock();
	if (READ_ONCE(g->dead)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	marks = mbr_group_marks(g, g->memcg);
	rcu_read_unlock();
	return sysfs_emit(buf, "low_wmark %llu\nhigh_wmark %llu\n", marks.low,
			  marks.high);
}

static ssize_t stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct mbr_group *g = to_group(kobj);
	u64 boost = 0;
	int len = 0;

	mbr_stats_show(&g->stats, buf, &len);
	rcu_read_lock();
	if (!READ_ONCE(g->dead))
		boost = mbr_group_boost_headroom(g, g->memcg);
	rcu_read_unlock();
	len += sysfs_emit_at(buf, len, "boost_headroom %llu\n", boost);
	return len;
}

static struct kobj_attribute path_attr = __ATTR_RO(path);
static struct kobj_attribute reclaim_wmarks_attr = __ATTR_RO(reclaim_wmarks);
static struct kobj_attribute stat_attr = __ATTR_RO(stat);
static struct kobj_attribute cpu_budget_attr = __ATTR_RW(cpu_budget);
static struct kobj_attribute cpu_cgroup_attr = __ATTR_RW(cpu_cgroup);

static struct attribute *mbr_group_attrs[] = {
	&path_attr.attr,
	&high_wmark_distance_attr.attr,
	&low_wmark_distance_attr.attr,
	&wmark_ratio_attr.attr,
	&wmark_scale_factor_attr.attr,
	&wmark_auto_attr.attr,
	&reclaim_wmarks_attr.attr,
	&cpu_budget_attr.attr,
	&cpu_cgroup_attr.attr,
	&stat_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mbr_group);

/* The destructor is the group object's own (group.c). */
struct kobj_type mbr_group_ktype = {
	.release = mbr_group_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = mbr_group_groups,
};
