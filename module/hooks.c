// SPDX-License-Identifier: GPL-2.0
/*
 * The module's hooks into the memory controller. All of them only
 * observe (no IPMODIFY): they read arguments, bump counters and queue
 * work, so there is no original function to call back into, no conflict
 * with livepatch or BPF trampolines, and unregistering them is enough
 * to know they no longer run.
 *
 *  try_charge_memcg       every charge: per-CPU page count, and every
 *                         check_pages pages a watermark check of the
 *                         charging memcg and its ancestors
 *  uncharge_batch         pages freed: lift an unreclaimable back-off
 *  mem_cgroup_css_offline rmdir: forget the group before its memcg dies
 *  try_to_free_mem_cgroup_pages (kretprobe) entry and return: count and
 *                         time the direct reclaim stalls of other tasks
 *
 * Callbacks run in any context the hooked functions run in (softirq and
 * irq included): no sleeping, no allocation, RCU for every lookup.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include "mbr.h"

/* Pages charged on this CPU since the last watermark check. */
static DEFINE_PER_CPU(unsigned int, mbr_charged_pages);

static void mbr_charge_hook(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct mem_cgroup *memcg;
	struct mbr_group *g;
	unsigned int nr;
	int bit;

	if (!READ_ONCE(mbr_enabled) || !atomic_read(&mbr_nr_groups) ||
	    in_nmi())
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	memcg = (struct mem_cgroup *)mbr_ftrace_arg(fregs, 0);
	nr = mbr_ftrace_arg(fregs, 2);
	if (!memcg ||
	    this_cpu_add_return(mbr_charged_pages, nr) < READ_ONCE(mbr_check_pages))
		goto out;
	this_cpu_write(mbr_charged_pages, 0);

	/* Limits are hierarchical: a charge counts against every ancestor. */
	rcu_read_lock();
	for (; memcg && memcg->css.parent; memcg = parent_mem_cgroup(memcg)) {
		g = mbr_group_find_memcg_rcu(memcg);
		if (g)
			mbr_group_charged(g, memcg);
	}
	rcu_read_unlock();
out:
	ftrace_test_recursion_unlock(bit);
}

static void mbr_uncharge_hook(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct mbr_uncharge_gather_head *ug;
	struct mem_cgroup *memcg;
	struct mbr_group *g;
	int bit;

	/* Only a backed-off group cares about uncharges. */
	if (!atomic_read(&mbr_nr_unreclaimable) || in_nmi())
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	ug = (const struct mbr_uncharge_gather_head *)mbr_ftrace_arg(fregs, 0);
	rcu_read_lock();
	for (memcg = ug ? ug->memcg : NULL; memcg && memcg->css.parent;
	     memcg = parent_mem_cgroup(memcg)) {
		g = mbr_group_find_memcg_rcu(memcg);
		if (g)
			mbr_group_uncharged(g);
	}
	rcu_read_unlock();
	ftrace_test_recursion_unlock(bit);
}

/*
 * No recursion guard here on purpose: a missed offline would leave a
 * group pointing at a memcg about to be freed, and this callback calls
 * nothing that can lead back into mem_cgroup_css_offline().
 */
static void mbr_offline_hook(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct cgroup_subsys_state *css;

	css = (struct cgroup_subsys_state *)mbr_ftrace_arg(fregs, 0);
	if (css)
		mbr_group_offline(mem_cgroup_from_css(css));
}

struct mbr_hook {
	const char *name;
	struct ftrace_ops ops;
	bool registered;
};

static struct mbr_hook mbr_hooks[] = {
	{ .name = "mem_cgroup_css_offline",
	  .ops = { .func = mbr_offline_hook, .flags = FTRACE_OPS_FL_SAVE_REGS } },
	{ .name = "uncharge_batch",
	  .ops = { .func = mbr_uncharge_hook, .flags = FTRACE_OPS_FL_SAVE_REGS } },
	{ .name = "try_charge_memcg",
	  .ops = { .func = mbr_charge_hook, .flags = FTRACE_OPS_FL_SAVE_REGS } },
};

/* Direct reclaim accounting, per stall in flight. */
struct mbr_direct_call {
	u64 id;
	u64 start_ns;
};

static int mbr_direct_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct mbr_direct_call *call = (struct mbr_direct_call *)ri->data;
	struct mem_cgroup *memcg;
	bool watched;

	memcg = (struct mem_cgroup *)regs_get_kernel_argument(regs, 0);
	if (!memcg || !atomic_read(&mbr_nr_groups) || mbr_current_is_worker())
		return 1;	/* do not arm the return probe */
	call->id = cgroup_id(memcg->css.cgroup);
	rcu_read_lock();
	watched = mbr_group_lookup_rcu(call->id);
	rcu_read_unlock();
	if (!watched)
		return 1;
	call->start_ns = ktime_get_ns();
	return 0;
}

static int mbr_direct_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct mbr_direct_call *call = (struct mbr_direct_call *)ri->data;
	u64 ns = ktime_get_ns() - call->start_ns;
	struct mbr_group *g;

	rcu_read_lock();
	g = mbr_group_lookup_rcu(call->id);
	if (g)
		mbr_stats_account_direct(&g->stats, ns);
	rcu_read_unlock();
	return 0;
}

static struct kretprobe mbr_direct_probe = {
	.kp.symbol_name = "try_to_free_mem_cgroup_pages",
	.entry_handler = mbr_direct_entry,
	.handler = mbr_direct_return,
	.data_size = sizeof(struct mbr_direct_call),
};

/**
 * mbr_direct_missed() - direct reclaims the kretprobe could not follow
 *
 * More tasks were in direct reclaim at once than it has instances for.
 */
unsigned long mbr_direct_missed(void)
{
	return mbr_direct_probe.nmissed;
}

static void mbr_unhook(unsigned int n)
{
	while (n--) {
		struct mbr_hook *h = &mbr_hooks[n];

		if (!h->registered)
			continue;
		unregister_ftrace_function(&h->ops);
		ftrace_free_filter(&h->ops);
		h->registered = false;
	}
}

static int mbr_hook_one(struct mbr_hook *h)
{
	int ret;

	ret = mbr_should_fail("ftrace_filter") ? -EINVAL :
		ftrace_set_filter(&h->ops, (unsigned char *)h->name,
				  strlen(h->name), 1);
	if (ret) {
		pr_err("cannot hook %s: not in available_filter_functions (%d)\n",
		       h->name, ret);
		return ret;
	}
	ret = mbr_should_fail("ftrace_register") ? -EBUSY :
		register_ftrace_function(&h->ops);
	if (ret) {
		pr_err("cannot hook %s: register_ftrace_function failed (%d)\n",
		       h->name, ret);
		ftrace_free_filter(&h->ops);
		return ret;
	}
	h->registered = true;
	return 0;
}

/**
 * mbr_hooks_init() - attach every hook, or none
 *
 * Return: 0 or a negative errno, logged with the function at fault.
 */
int mbr_hooks_init(void)
{
	unsigned int i;
	int ret;

	mbr_direct_probe.maxactive = max(64U, 8 * num_possible_cpus());
	ret = mbr_should_fail("kretprobe") ? -ENOMEM :
		register_kretprobe(&mbr_direct_probe);
	if (ret) {
		pr_err("cannot probe try_to_free_mem_cgroup_pages (%d)\n", ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(mbr_hooks); i++) {
		ret = mbr_hook_one(&mbr_hooks[i]);
		if (ret)
			goto out_unhook;
	}
	return 0;

out_unhook:
	mbr_unhook(i);
	unregister_kretprobe(&mbr_direct_probe);
	return ret;
}

/**
 * mbr_hooks_exit() - detach every hook; none runs after this returns
 */
void mbr_hooks_exit(void)
{
	mbr_unhook(ARRAY_SIZE(mbr_hooks));
	unregister_kretprobe(&mbr_direct_probe);
}
