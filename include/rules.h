/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules' shared state: the list (rules.c) and its application to
 * cgroups (rule_apply.c).
 */
#ifndef MBR_RULES_H
#define MBR_RULES_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "mbr.h"

struct mbr_rule {
	struct list_head node;		/* mbr_rules; RCU, mbr_rules_mutex */
	u64 id;				/* the rule's cgroup */
	unsigned int level;		/* its level in its hierarchy */
	bool dead;			/* its cgroup went offline */
	bool dfl;			/* on cgroup2 */
	struct mbr_wmark_conf wm;
	struct mbr_budget budget;	/* each group's */
	unsigned int max_depth;		/* 0: any */
	char match[MBR_MATCH_MAX];	/* "": any name */
	char *path;			/* as resolved when the rule was made */
	struct rcu_head rcu;
};

/* Serialises rule changes and the rescans that follow them. */
extern struct list_head mbr_rules;	/* RCU, mbr_rules_mutex */
extern struct mutex mbr_rules_mutex;
/* Cgroups a rescan passed over on their way online. */
extern unsigned int mbr_rules_coming;	/* under mbr_rules_mutex */
/* Catch-up: every rule's subtree again, and removed cgroups' rules. */
extern struct work_struct mbr_rules_work;

/* rule_apply.c */
void mbr_rules_rescan(struct cgroup_subsys_state *root, bool late);

#endif /* MBR_RULES_H */
