// SPDX-License-Identifier: GPL-2.0
/*
 * What the memcgs above a group protect in it.
 *
 * A turn reclaims from inside the group (reclaim.c), and the kernel's
 * reclaim rooted there ignores everything above its root. The group's
 * tasks, stalled at the limit that binds, would reclaim from that
 * limit's memcg down instead, where each memcg on the way passes an
 * effective memory.min and memory.low to its children. With the mount
 * option memory_recursiveprot, a child without settings of its own
 * inherits a share of its parent's (a container in a pod with
 * memory.low, under a limited slice); without it, a child is given
 * only what it claims itself, scaled down when its siblings claim more
 * than the parent has. A turn must not take what that reclaim would
 * leave alone.
 */
#include <linux/cgroup.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/page_counter.h>

#include "mbr.h"

/*
 * Levels between the binding memcg and the group that are followed;
 * above them, the highest one followed is taken as the binding memcg's
 * child (its own settings, in full).
 */
#define MBR_PROT_DEPTH		32

/*
 * The kernel's effective_protection() (mm/page_counter.c as of 7.3;
 * mm/memcontrol.c before 6.11, with the same arithmetic).
 */
static unsigned long mbr_effective(unsigned long usage,
				   unsigned long parent_usage,
				   unsigned long setting,
				   unsigned long parent_effective,
				   unsigned long siblings_protected,
				   bool recursive)
{
	unsigned long protected = min(usage, setting), ep, unprotected;

	if (siblings_protected > parent_effective)
		return mul_u64_u64_div_u64(protected, parent_effective,
					   siblings_protected);
	ep = protected;
	if (!recursive)
		return ep;
	if (parent_effective > siblings_protected &&
	    parent_usage > siblings_protected && usage > protected) {
		unprotected = min(usage - protected,
				  parent_usage - siblings_protected);
		ep += mul_u64_u64_div_u64(parent_effective - siblings_protected,
					  unprotected,
					  parent_usage - siblings_protected);
	}
	return ep;
}

/**
 * mbr_inherited_protection() - what a reclaim rooted at the binding
 *	memcg would protect of a group's usage, in pages
 * @memcg: the group's memcg, kept alive by the caller
 * @binding: the memcg whose limit binds (struct mbr_headroom), or NULL
 *
 * Computed as the kernel computes it, top-down from @binding's child to
 * @memcg: the larger of the effective memory.min and memory.low. 0 when
 * @memcg's own limit binds (the kernel's reclaim then starts at @memcg
 * and ignores its own protection and all above it) or none does.
 */
unsigned long mbr_inherited_protection(struct mem_cgroup *memcg,
				       struct mem_cgroup *binding)
{
	bool recursive = cgrp_dfl_root.flags & CGRP_ROOT_MEMORY_RECURSIVE_PROT;
	struct mem_cgroup *path[MBR_PROT_DEPTH], *m;
	unsigned long emin, elow, usage, parent_usage;
	int n = 0;

	if (!binding || binding == memcg)
		return 0;
	for (m = memcg; m && m != binding && n < MBR_PROT_DEPTH;
	     m = parent_mem_cgroup(m))
		path[n++] = m;
	/* @binding is not above @memcg: nothing of its reclaim applies. */
	if (!m)
		return 0;
	emin = READ_ONCE(path[n - 1]->memory.min);
	elow = READ_ONCE(path[n - 1]->memory.low);
	while (--n > 0) {
		m = path[n - 1];
		usage = page_counter_read(&m->memory);
		if (!usage)
			return 0;
		parent_usage = page_counter_read(&path[n]->memory);
		emin = mbr_effective(usage, parent_usage,
				     READ_ONCE(m->memory.min), emin,
				     atomic_long_read(&path[n]->memory.children_min_usage),
				     recursive);
		elow = mbr_effective(usage, parent_usage,
				     READ_ONCE(m->memory.low), elow,
				     atomic_long_read(&path[n]->memory.children_low_usage),
				     recursive);
	}
	return max(emin, elow);
}
