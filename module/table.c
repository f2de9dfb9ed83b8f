// SPDX-License-Identifier: GPL-2.0
/*
 * The table of configured memory cgroups: an RCU hashtable keyed by
 * cgroup id, so that the charge path can find a group (or learn that it
 * has none) with no lock. Adding and unlinking take mbr_lock, a raw
 * spinlock, because the online and offline hooks do it in any context;
 * the same lock guards the workers' FIFO, the reap list and ->dead.
 * Each bucket is kept in increasing id, so that a walk that has let go
 * of RCU can resume after the last id it saw, gone or not.
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>

#include "mbr.h"

#define MBR_HASH_BITS	12

static DEFINE_HASHTABLE(mbr_groups, MBR_HASH_BITS);
DEFINE_RAW_SPINLOCK(mbr_lock);
atomic_t mbr_nr_groups = ATOMIC_INIT(0);

/**
 * mbr_group_lookup_rcu() - find a configured group by cgroup id
 * @id: the cgroup's id
 *
 * Context: rcu_read_lock() held; any context.
 * Return: the group, or NULL.
 */
struct mbr_group *mbr_group_lookup_rcu(u64 id)
{
	struct mbr_group *g;

	hash_for_each_possible_rcu_notrace(mbr_groups, g, hnode, id)
		if (g->id == id)
			return g;
	return NULL;
}

/**
 * mbr_group_find_memcg_rcu() - the configured group of a memcg, if any
 * @memcg: a memcg the caller keeps alive
 *
 * Context: rcu_read_lock() held; any context.
 * Return: the group, or NULL.
 */
struct mbr_group *mbr_group_find_memcg_rcu(struct mem_cgroup *memcg)
{
	struct mbr_group *g = mbr_group_lookup_rcu(cgroup_id(memcg->css.cgroup));

	return g && READ_ONCE(g->memcg) == memcg ? g : NULL;
}

/* Into its bucket, before the first group of a higher id. */
static int mbr_table_insert_sorted(struct mbr_group *g)
{
	struct hlist_head *head = &mbr_groups[hash_min(g->id, MBR_HASH_BITS)];
	struct mbr_group *pos, *prev = NULL;

	hlist_for_each_entry(pos, head, hnode) {
		if (pos->id == g->id)
			return -EEXIST;
		if (pos->id > g->id)
			break;
		prev = pos;
	}
	if (prev)
		hlist_add_behind_rcu(&g->hnode, &prev->hnode);
	else
		hlist_add_head_rcu(&g->hnode, head);
	return 0;
}

/**
 * mbr_table_add_locked() - hash a group
 * @g: the group, not hashed
 *
 * css_offline runs after the css is marked dying and takes mbr_lock to
 * unhash: either it finds the group hashed, or this sees it dying.
 *
 * Context: mbr_lock held.
 * Return: 0, -ENOENT if its cgroup is going away, -EEXIST if it already
 *	has a group.
 */
int mbr_table_add_locked(struct mbr_group *g)
{
	int ret;

	lockdep_assert_held(&mbr_lock);
	if (css_is_dying(&g->memcg->css))
		return -ENOENT;
	ret = mbr_table_insert_sorted(g);
	if (!ret)
		atomic_inc(&mbr_nr_groups);
	return ret;
}

/**
 * mbr_table_unlink_locked() - unhash and dequeue a group
 * @g: the group
 *
 * Context: mbr_lock held.
 * Return: true if this call did it.
 */
bool mbr_table_unlink_locked(struct mbr_group *g)
{
	lockdep_assert_held(&mbr_lock);
	if (g->dead)
		return false;
	WRITE_ONCE(g->dead, true);
	hash_del_rcu(&g->hnode);
	if (g->queued) {
		list_del_init(&g->fifo);
		WRITE_ONCE(g->queued, false);
	}
	atomic_dec(&mbr_nr_groups);
	return true;
}

/**
 * mbr_table_unlink_all_locked() - unlink every group, at module exit
 * @list: where the unlinked groups go, on their ->reap
 *
 * Context: mbr_lock held.
 */
void mbr_table_unlink_all_locked(struct list_head *list)
{
	struct mbr_group *g;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(mbr_groups, bkt, tmp, g, hnode)
		if (mbr_table_unlink_locked(g))
			list_add_tail(&g->reap, list);
}

/**
 * mbr_table_visit_rcu() - visit a bounded part of the table
 * @cursor: the bucket to start at; set to where the next call starts
 * @max: groups to visit at most (whole buckets, so a few more)
 * @visit: called for each group; returns whether it counts
 *
 * Periodic work goes round the table in parts, so that no run of it
 * grows with the number of groups.
 *
 * Context: rcu_read_lock() held.
 * Return: how many visits counted.
 */
unsigned int mbr_table_visit_rcu(unsigned int *cursor, unsigned int max,
				 bool (*visit)(struct mbr_group *g))
{
	unsigned int bkt = *cursor % HASH_SIZE(mbr_groups), seen = 0, n = 0;
	unsigned int left = HASH_SIZE(mbr_groups);
	struct mbr_group *g;

	for (; left && seen < max; left--) {
		hlist_for_each_entry_rcu(g, &mbr_groups[bkt], hnode) {
			seen++;
			n += visit(g);
		}
		bkt = (bkt + 1) % HASH_SIZE(mbr_groups);
	}
	*cursor = bkt;
	return n;
}

/**
 * mbr_groups_sum() - the sums of all groups' counters
 * @sum: zeroed counters to add into
 * @nr: set to the number of groups
 */
void mbr_groups_sum(struct mbr_stats *sum, unsigned int *nr)
{
	struct mbr_group *g;
	unsigned int bkt;

	*nr = 0;
	rcu_read_lock();
	hash_for_each_rcu(mbr_groups, bkt, g, hnode) {
		mbr_stats_add(sum, &g->stats);
		(*nr)++;
	}
	rcu_read_unlock();
}

/* The first group of bucket @bkt or of a later one, or NULL. */
static struct mbr_group *mbr_group_from_bucket_rcu(unsigned int bkt)
{
	struct hlist_node *n = NULL;

	for (; !n && bkt < HASH_SIZE(mbr_groups); bkt++)
		n = rcu_dereference(hlist_first_rcu(&mbr_groups[bkt]));
	return n ? hlist_entry(n, struct mbr_group, hnode) : NULL;
}

/**
 * mbr_group_next_rcu() - walk the table
 * @g: the group to go on from, or NULL for the first
 *
 * A group unlinked meanwhile still leads on to the rest of its bucket.
 *
 * Context: rcu_read_lock() held.
 * Return: the next group, or NULL at the end.
 */
struct mbr_group *mbr_group_next_rcu(struct mbr_group *g)
{
	struct hlist_node *n;

	if (!g)
		return mbr_group_from_bucket_rcu(0);
	n = rcu_dereference(hlist_next_rcu(&g->hnode));
	if (n)
		return hlist_entry(n, struct mbr_group, hnode);
	return mbr_group_from_bucket_rcu(hash_min(g->id, MBR_HASH_BITS) + 1);
}

/**
 * mbr_group_after_rcu() - resume a walk of the table
 * @id: the id of the last group the walk saw, which may be gone
 *
 * Context: rcu_read_lock() held.
 * Return: the first group after @id in walk order (bucket by bucket,
 *	each in increasing id), or NULL at the end.
 */
struct mbr_group *mbr_group_after_rcu(u64 id)
{
	unsigned int bkt = hash_min(id, MBR_HASH_BITS);
	struct mbr_group *g;

	hlist_for_each_entry_rcu(g, &mbr_groups[bkt], hnode)
		if (g->id > id)
			return g;
	return mbr_group_from_bucket_rcu(bkt + 1);
}

/**
 * mbr_groups_of_rule() - how many groups a rule configures now
 * @rule_id: the rule's cgroup id
 */
unsigned int mbr_groups_of_rule(u64 rule_id)
{
	struct mbr_group *g;
	unsigned int bkt, n = 0;

	rcu_read_lock();
	hash_for_each_rcu(mbr_groups, bkt, g, hnode)
		n += READ_ONCE(g->rule_id) == rule_id;
	rcu_read_unlock();
	return n;
}

