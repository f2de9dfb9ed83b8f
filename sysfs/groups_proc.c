// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/memcg_bgreclaim/groups: every configured group, by hand or by
 * rule, one line each. Groups that rules configure have no directory
 * under /sys/kernel/memcg_bgreclaim/cgroups (their memory stays that of
 * the group alone), and a sysfs file holds one page, too little for
 * ten thousand groups: this table is a seq_file, read under RCU.
 */
#include <linux/cgroup.h>
#include <linux/page_counter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "mbr.h"

static struct proc_dir_entry *mbr_proc_dir;

/*
 * Where the last read stopped: the record at @pos is the first group
 * after the one of id @after (cgroup ids start at 1: after 0 is the
 * first group). Each read() starts the walk again; resuming by id, not
 * by counting @pos records from the start, costs no more as the table
 * grows and neither skips nor repeats a group when others come or go
 * in between.
 */
struct mbr_groups_iter {
	loff_t pos;
	u64 after;
};

static void *mbr_groups_seq_start(struct seq_file *m, loff_t *pos)
	__acquires(RCU)
{
	struct mbr_groups_iter *it = m->private;
	struct mbr_group *g;
	loff_t n = *pos;

	rcu_read_lock();
	if (!n)
		return SEQ_START_TOKEN;
	if (n == it->pos)
		return mbr_group_after_rcu(it->after);
	/*
	 * Not reached through read(): seq_file replays a seek from record
	 * 0 with ->next(). Counting from the start is right anyway.
	 */
	for (g = mbr_group_next_rcu(NULL); g && --n; g = mbr_group_next_rcu(g))
		;
	return g;
}

static void *mbr_groups_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct mbr_groups_iter *it = m->private;
	struct mbr_group *g = v == SEQ_START_TOKEN ? NULL : v;

	it->pos = ++*pos;
	it->after = g ? g->id : 0;
	return mbr_group_next_rcu(g);
}

static void mbr_groups_seq_stop(struct seq_file *m, void *v)
	__releases(RCU)
{
	rcu_read_unlock();
}

static int mbr_groups_seq_show(struct seq_file *m, void *v)
{
	struct mbr_group *g = v;
	struct mbr_marks marks;
	size_t size;
	char *buf;
	int len;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# id rule limit usage low_wmark high_wmark reclaimed_pages reclaim_cpu_ns direct_reclaims unreclaimable origin path\n");
		return 0;
	}
	/* An unlinked group's memcg may be on its way out: skip it. */
	if (READ_ONCE(g->dead))
		return SEQ_SKIP;
	marks = mbr_group_marks(g, g->memcg);
	seq_printf(m, "%llu %llu %llu %llu %llu %llu %lld %lld %lld %lld %s ",
		   g->id, READ_ONCE(g->rule_id),
		   (u64)mbr_memcg_limit(g->memcg) << PAGE_SHIFT,
		   (u64)page_counter_read(&g->memcg->memory) << PAGE_SHIFT,
		   marks.low, marks.high,
		   atomic64_read(&g->stats.reclaimed_pages),
		   atomic64_read(&g->stats.reclaim_cpu_ns),
		   atomic64_read(&g->stats.direct_reclaims),
		   atomic64_read(&g->stats.unreclaimable),
		   mbr_group_origin(g));
	/* The path last: it is the rest of the line, spaces included. */
	size = seq_get_buf(m, &buf);
	len = size ? cgroup_path(g->memcg->css.cgroup, buf, size) : -1;
	if (len < 0 || len + 1 >= size) {
		seq_commit(m, -1);	/* overflow: seq_file retries bigger */
		return 0;
	}
	buf[len++] = '\n';
	seq_commit(m, len);
	return 0;
}

static const struct seq_operations mbr_groups_seq_ops = {
	.start = mbr_groups_seq_start,
	.next = mbr_groups_seq_next,
	.stop = mbr_groups_seq_stop,
	.show = mbr_groups_seq_show,
};

/**
 * mbr_proc_init() - create /proc/memcg_bgreclaim/groups
 *
 * Return: 0 or -ENOMEM, with nothing left created.
 */
int mbr_proc_init(void)
{
	mbr_proc_dir = mbr_should_fail("proc") ? NULL :
		proc_mkdir("memcg_bgreclaim", NULL);
	if (!mbr_proc_dir)
		return -ENOMEM;
	/* Root only: it names every configured cgroup with its usage. */
	if (!proc_create_seq_private("groups", 0400, mbr_proc_dir,
				     &mbr_groups_seq_ops,
				     sizeof(struct mbr_groups_iter), NULL)) {
		proc_remove(mbr_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/**
 * mbr_proc_exit() - remove it, waiting for its readers
 */
void mbr_proc_exit(void)
{
	proc_remove(mbr_proc_dir);
}
