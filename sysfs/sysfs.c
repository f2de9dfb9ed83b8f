// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/memcg_bgreclaim: the module's global files. The ABI is
 * documented in sysfs/ABI/testing/sysfs-kernel-memcg_bgreclaim.
 */
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "mbr.h"

static struct kobject *mbr_root_kobj;
static struct kobject *mbr_cgroups_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", mbr_version);
}

static ssize_t nr_workers_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mbr_nr_workers);
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(mbr_enabled));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int ret = mbr_parse_switch(buf, count, &on);

	if (ret)
		return ret;
	if (on && !READ_ONCE(mbr_enabled))
		atomic_inc(&mbr_enable_seq);
	WRITE_ONCE(mbr_enabled, on);
	if (!on)
		mbr_drain_queue();
	return count;
}

static ssize_t wmark_boost_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(mbr_wmark_boost));
}

/*
 * Off: the configured marks hold again at once (mbr_group_boost()), and
 * the node's boost is forgotten.
 */
static ssize_t wmark_boost_store(struct kobject *kobj,
				 struct kobj_attribute *attr, const char *buf,
				 size_t count)
{
	bool on;
	int ret = mbr_parse_switch(buf, count, &on);

	if (ret)
		return ret;
	WRITE_ONCE(mbr_wmark_boost, on);
	if (!on)
		mbr_boost_seed_forget();
	return count;
}

/* batch_pages and check_pages: a page count from 1 to 1 << 20. */
static int mbr_store_pages(const char *buf, unsigned int *dst)
{
	unsigned int val;
	int ret = kstrtouint(buf, 10, &val);

	if (ret || !val || val > (1U << 20))
		return -EINVAL;
	WRITE_ONCE(*dst, val);
	return 0;
}

#define MBR_PAGES_ATTR(name)						\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%u\n", READ_ONCE(mbr_##name));		\
}									\
static ssize_t name##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	return mbr_store_pages(buf, &mbr_##name) ?: count;		\
}

MBR_PAGES_ATTR(batch_pages)
MBR_PAGES_ATTR(check_pages)

static ssize_t add_store(struct kobject *kobj, struct kobj_attribute *attr,
			 const char *buf, size_t count)
{
	return mbr_group_add(buf, count) ?: count;
}

static ssize_t remove_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	return mbr_group_remove(buf, count) ?: count;
}

static ssize_t rule_add_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	return mbr_rule_add(buf, count) ?: count;
}

static ssize_t rule_del_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	return mbr_rule_del(buf, count) ?: count;
}

static ssize_t rules_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return mbr_rules_show(buf);
}

static ssize_t stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct mbr_stats sum = {};
	unsigned int nr;
	int len = 0;

	mbr_groups_sum(&sum, &nr);
	len += sysfs_emit_at(buf, len, "groups %u\n", nr);
	mbr_stats_show(&sum, buf, &len);
	len += sysfs_emit_at(buf, len, "direct_reclaims_missed %lu\n",
			     mbr_direct_missed());
	len += sysfs_emit_at(buf, len, "memcgs_pinned %d\n",
			     atomic_read(&mbr_nr_pinned));
	len += sysfs_emit_at(buf, len, "rule_groups_online %lld\n",
			     atomic64_read(&mbr_rule_groups_online));
	len += sysfs_emit_at(buf, len, "rule_groups_late %lld\n",
			     atomic64_read(&mbr_rule_groups_late));
	len += sysfs_emit_at(buf, len, "rule_online_missed %lu\n",
			     mbr_online_missed());
	len += sysfs_emit_at(buf, len, "worker_yields %lld\n",
			     atomic64_read(&mbr_pace_yields));
	len += sysfs_emit_at(buf, len, "cgroupfs_groups_online %lld\n",
			     atomic64_read(&mbr_cgfiles_groups_online));
	len += sysfs_emit_at(buf, len, "cgroupfs_groups_late %lld\n",
			     atomic64_read(&mbr_cgfiles_groups_late));
	len += sysfs_emit_at(buf, len, "boost_seed %llu\n",
			     READ_ONCE(mbr_boost_seed));
	return len;
}

static ssize_t cgroupfs_files_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", mbr_cgfiles_enabled());
}

static ssize_t cgroupfs_files_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	bool on;
	int ret = mbr_parse_switch(buf, count, &on);

	return ret ?: mbr_cgfiles_set(on) ?: count;
}

static struct kobj_attribute version_attr = __ATTR_RO(version);
static struct kobj_attribute nr_workers_attr = __ATTR_RO(nr_workers);
static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute wmark_boost_attr = __ATTR_RW(wmark_boost);
static struct kobj_attribute batch_pages_attr = __ATTR_RW(batch_pages);
static struct kobj_attribute check_pages_attr = __ATTR_RW(check_pages);
static struct kobj_attribute add_attr = __ATTR_WO(add);
static struct kobj_attribute remove_attr = __ATTR_WO(remove);
static struct kobj_attribute stat_attr = __ATTR_RO(stat);
static struct kobj_attribute rule_add_attr = __ATTR_WO(rule_add);
static struct kobj_attribute rule_del_attr = __ATTR_WO(rule_del);
static struct kobj_attribute rules_attr = __ATTR_RO(rules);
static struct kobj_attribute cgroupfs_files_attr = __ATTR_RW(cgroupfs_files);

static struct attribute *mbr_root_attrs[] = {
	&version_attr.attr,
	&nr_workers_attr.attr,
	&enabled_attr.attr,
	&wmark_boost_attr.attr,
	&batch_pages_attr.attr,
	&check_pages_attr.attr,
	&add_attr.attr,
	&remove_attr.attr,
	&stat_attr.attr,
	&rule_add_attr.attr,
	&rule_del_attr.attr,
	&rules_attr.attr,
	&cgroupfs_files_attr.attr,
	NULL,
};

static const struct attribute_group mbr_root_group = {
	.attrs = mbr_root_attrs,
};

/**
 * mbr_sysfs_init() - create /sys/kernel/memcg_bgreclaim and cgroups/
 *
 * The files come last: once "add" exists, groups can be added under
 * cgroups/.
 *
 * Return: 0 or a negative errno, with nothing left created.
 */
int mbr_sysfs_init(void)
{
	int ret;

	if (mbr_should_fail("sysfs_root"))
		return -ENOMEM;
	mbr_root_kobj = kobject_create_and_add("memcg_bgreclaim", kernel_kobj);
	if (!mbr_root_kobj)
		return -ENOMEM;
	mbr_cgroups_kobj = mbr_should_fail("sysfs_cgroups") ? NULL :
		kobject_create_and_add("cgroups", mbr_root_kobj);
	if (!mbr_cgroups_kobj) {
		ret = -ENOMEM;
		goto out_put_root;
	}
	mbr_groups_init(mbr_cgroups_kobj);
	ret = mbr_should_fail("sysfs_files") ? -ENOMEM :
		sysfs_create_group(mbr_root_kobj, &mbr_root_group);
	if (ret)
		goto out_put_cgroups;
	return 0;

out_put_cgroups:
	kobject_put(mbr_cgroups_kobj);
out_put_root:
	kobject_put(mbr_root_kobj);
	return ret;
}

/**
 * mbr_sysfs_remove_files() - remove the global files
 *
 * Waits for writers in flight, so no add can race with module exit.
 */
void mbr_sysfs_remove_files(void)
{
	sysfs_remove_group(mbr_root_kobj, &mbr_root_group);
}

/**
 * mbr_sysfs_exit() - remove the (by now empty) directories
 */
void mbr_sysfs_exit(void)
{
	kobject_put(mbr_cgroups_kobj);
	kobject_put(mbr_root_kobj);
}
