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
 *  mem_cgroup_css_online (kretprobe) return: the new memcg is online,
 *                         its directory not yet visible: the rules
 *                         configure it (not on entry: a css_online that
 *                         fails frees the css whatever its references)
 *  mem_cgroup_css_offline rmdir: forget the group and drop its memcg,
 *                         and the rule of the cgroup, if any
 *  try_to_free_mem_cgroup_pages (kretprobe) entry and return: count and
 *                         time the direct reclaim stalls of other tasks,
 *                         and end a group's back-off when a task's own
 *                         reclaim in it made progress (as kswapd is
 *                         revived by successful direct reclaim)
 *
 * Callbacks run in any context the hooked functions run in (softirq and
 * irq included): no sleeping, no allocation, RCU for every lookup.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
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
	unsigned int nr, pending;
	int bit;

	if (!READ_ONCE(mbr_enabled) || !atomic_read(&mbr_nr_groups) ||
	    in_nmi())
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	memcg = (struct mem_cgroup *)mbr_ftrace_arg(fregs, MBR_ARG_CHARGE_MEMCG);
	nr = mbr_ftrace_arg(fregs, MBR_ARG_CHARGE_NR);
	if (!memcg ||
	    this_cpu_add_return(mbr_charged_pages, nr) < READ_ONCE(mbr_check_pages))
		goto out;
	this_cpu_write(mbr_charged_pages, 0);

	/*
	 * A charge over the per-CPU stock's batch lands on the counter whole
	 * (a large folio: 7.x page cache, THP), after this entry hook: judge
	 * the usage it makes, not the usage before it.
	 */
	pending = nr > MEMCG_CHARGE_BATCH ? nr : 0;
	/* Limits are hierarchical: a charge counts against every ancestor. */
	rcu_read_lock();
	for (; memcg && memcg->css.parent; memcg = parent_mem_cgroup(memcg)) {
		g = mbr_group_find_memcg_rcu(memcg);
		if (g && mbr_group_charged(g, memcg, pending))
			mbr_queue_group(g);
	}
	rcu_read_unlock();
out:
	ftrace_test_recursion_unlock(bit);
}

/*
 * Set once the hooked prototypes were checked against the kernel's BTF
 * (main.c, before the other hooks): the offline hook is attached
 * earlier, and until then does not read its argument. A missed offline
 * then is harmless: no group exists yet.
 */
static bool mbr_hook_args_checked;

/*
 * No recursion guard here on purpose: a missed offline would keep a
 * zombie memcg pinned until the table's sweep, and this callback calls
 * nothing that can lead back into mem_cgroup_css_offline().
 */
static void mbr_offline_hook(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct cgroup_subsys_state *css;

	if (!READ_ONCE(mbr_hook_args_checked))
		return;
	css = (struct cgroup_subsys_state *)mbr_ftrace_arg(fregs, MBR_ARG_CSS);
	if (css) {
		mbr_group_offline(mem_cgroup_from_css(css));
		mbr_rules_offline(mem_cgroup_from_css(css));
	}
}

/*
 * The rules configure a new memcg when its css_online has succeeded,
 * from the return of mem_cgroup_css_online(): until then the css may
 * still be freed (on -ENOMEM) with no offline and whatever references
 * it holds. The css is still unpublished and its directory inactive, so
 * no task can be charged to it yet. css_online runs under cgroup_mutex,
 * one at a time, so a few instances never run out.
 */
static int mbr_online_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct cgroup_subsys_state **css = (void *)ri->data;
	bool arm;

	*css = (struct cgroup_subsys_state *)regs_get_kernel_argument(regs,
								 MBR_ARG_CSS);
	/*
	 * Armed whether or not a rule exists now: a rule added before the
	 * return must still find this cgroup (mbr_rule_add()).
	 */
	arm = *css;

	/* The tests: a css_online that takes long, a wide race window. */
	if (mbr_fault_on("online_slow"))
		mdelay(2);
	return arm ? 0 : 1;	/* 1: do not arm */
}

static int mbr_online_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct cgroup_subsys_state **css = (void *)ri->data;

	if (!regs_return_value(regs)) {
		if (!mbr_cgfiles_online(mem_cgroup_from_css(*css)))
			mbr_rules_online(mem_cgroup_from_css(*css));
	}
	return 0;
}

static struct kretprobe mbr_online_probe = {
	.kp.symbol_name = "mem_cgroup_css_online",
	.entry_handler = mbr_online_entry,
	.handler = mbr_online_return,
	.data_size = sizeof(struct cgroup_subsys_state *),
	.maxactive = 8,
};

/**
 * mbr_online_missed() - css_online returns the kretprobe could not follow
 */
unsigned long mbr_online_missed(void)
{
	return mbr_online_probe.nmissed;
}

struct mbr_hook {
	const char *name;
	struct ftrace_ops ops;
	bool registered;
};

/*
 * The offline hook is first in and last out: groups are unlinked at
 * module exit while it still runs. It is PERMANENT, so that
 * "sysctl kernel.ftrace_enabled=0" is refused while the module is
 * loaded instead of silently switching it off, and loading with ftrace
 * disabled fails. MBR_FTRACE_OPS_FL_ARGS: what this kernel's ftrace
 * needs for mbr_ftrace_arg() (compat.h).
 */
#define MBR_HOOK_OFFLINE	0
static struct mbr_hook mbr_hooks[] = {
	[MBR_HOOK_OFFLINE] = { .name = "mem_cgroup_css_offline",
	  .ops = { .func = mbr_offline_hook,
		   .flags = MBR_FTRACE_OPS_FL_ARGS | FTRACE_OPS_FL_PERMANENT } },
	{ .name = "try_charge_memcg",
	  .ops = { .func = mbr_charge_hook, .flags = MBR_FTRACE_OPS_FL_ARGS } },
};

/*
 * The charge path's callers of memcg reclaim, and the return trampolines
 * that hide a caller, where they lie in text (0, 0 if inlined away).
 */
static const char *const mbr_reclaimer_names[] = {
	MBR_CHARGE_RECLAIMERS, MBR_RETURN_TRAMPOLINES
};
static struct {
	unsigned long start, end;
} mbr_reclaimers[ARRAY_SIZE(mbr_reclaimer_names)];

/*
 * Whether memcg reclaim entered from @ret is a task's own charge: a
 * write of memory.max below usage, say, is not a stall, and must not
 * end a back-off or grow wmark_auto's headroom. Kernel threads (the
 * kworker of memory.high, say) never stall a task.
 */
static bool mbr_from_charge(unsigned long ret)
{
	unsigned int i;

	if (current->flags & PF_KTHREAD)
		return false;
	for (i = 0; i < ARRAY_SIZE(mbr_reclaimers); i++)
		if (ret >= mbr_reclaimers[i].start && ret < mbr_reclaimers[i].end)
			return true;
	return false;
}

/*
 * The group a task's stall in the reclaim of @memcg belongs to, by id:
 * @memcg's own; or, if it has none, the nearest configured group from
 * the task's memcg up to @memcg, for a child that wakes on an ancestor's
 * headroom (mbr_memcg_headroom()): its stall is what it failed to
 * prevent, and its success ends that group's back-off. 0: none.
 */
static u64 mbr_stall_group_id(struct mem_cgroup *memcg)
{
	struct mem_cgroup *m;
	u64 id = 0;

	rcu_read_lock();
	if (mbr_group_find_memcg_rcu(memcg)) {
		id = cgroup_id(memcg->css.cgroup);
		goto out;
	}
	m = mem_cgroup_from_css(task_css(current, memory_cgrp_id));
	if (!mem_cgroup_is_descendant(m, memcg))
		goto out;
	for (; m && m != memcg; m = parent_mem_cgroup(m)) {
		if (mbr_group_find_memcg_rcu(m)) {
			id = cgroup_id(m->css.cgroup);
			break;
		}
	}
out:
	rcu_read_unlock();
	return id;
}

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

	memcg = (struct mem_cgroup *)regs_get_kernel_argument(regs,
							  MBR_ARG_TFMCP_MEMCG);
	if (!memcg || !atomic_read(&mbr_nr_groups) || mbr_current_is_worker())
		return 1;	/* do not arm the return probe */
	/*
	 * memory.reclaim (an agent such as senpai) is no task's stall; it
	 * would also pin wmark_auto's headroom at its bound.
	 */
	if (regs_get_kernel_argument(regs, MBR_ARG_TFMCP_OPTIONS) &
	    MEMCG_RECLAIM_PROACTIVE ||
	    !mbr_from_charge(mbr_entry_return_address(regs)))
		return 1;
	call->id = mbr_stall_group_id(memcg);
	if (!call->id)
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
	if (g) {
		mbr_stats_account_direct(&g->stats, ns);
		/* The kernel found reclaimable memory: try again. */
		if (regs_return_value(regs))
			mbr_group_clear_backoff(g);
	}
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

static void mbr_unhook_one(struct mbr_hook *h)
{
	if (!h->registered)
		return;
	unregister_ftrace_function(&h->ops);
	ftrace_free_filter(&h->ops);
	h->registered = false;
}

static int mbr_hook_one(struct mbr_hook *h)
{
	bool injected;
	int ret;

	ret = mbr_should_fail("ftrace_filter") ? -EINVAL :
		ftrace_set_filter(&h->ops, (unsigned char *)h->name,
				  strlen(h->name), 1);
	if (ret) {
		pr_err("cannot hook %s: not in available_filter_functions (%d)\n",
		       h->name, ret);
		return ret;
	}
	injected = mbr_should_fail("ftrace_register");
	ret = injected ? -EBUSY : register_ftrace_function(&h->ops);
	/* ftrace refuses a PERMANENT ops only when it is switched off. */
	if (ret == -EBUSY && !injected &&
	    (h->ops.flags & FTRACE_OPS_FL_PERMANENT)) {
		pr_err("cannot hook %s: ftrace is disabled (sysctl kernel.ftrace_enabled=0)\n",
		       h->name);
		ftrace_free_filter(&h->ops);
		return ret;
	}
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
 * mbr_hooks_init_offline() - attach the offline hook, first of all
 *
 * Before anything else, because it is the one that tells whether
 * ftrace is switched off (it is PERMANENT): the kprobe that finds
 * kallsyms_lookup_name must not be planted and removed while ftrace is
 * off, as removing an ftrace-based kprobe then trips a kernel warning
 * and shuts ftrace down for good.
 *
 * Return: 0 or a negative errno, logged.
 */
int mbr_hooks_init_offline(void)
{
	return mbr_hook_one(&mbr_hooks[MBR_HOOK_OFFLINE]);
}

/**
 * mbr_hooks_check_targets() - refuse a kernel where gcc copied a hooked
 *	function (callers of the copy would bypass the hook unseen); call
 *	it once their prototypes passed mbr_btf_check()
 * @extra: one more function to check as if hooked (the tests), or NULL
 *
 * Return: 0 or -EOPNOTSUPP, logged with the function and its copy.
 */
int mbr_hooks_check_targets(const char *extra)
{
	const char *const names[] = {
		mbr_hooks[MBR_HOOK_OFFLINE].name, mbr_hooks[1].name,
		mbr_online_probe.kp.symbol_name,
		mbr_direct_probe.kp.symbol_name, extra,
	};
	char clone[KSYM_NAME_LEN];
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(mbr_hooks) != 2);
	/* The first, the charge itself, must be there; the others may be inlined. */
	for (i = 0; i < ARRAY_SIZE(mbr_reclaimers); i++) {
		if (mbr_symbol_range(mbr_reclaimer_names[i],
				     &mbr_reclaimers[i].start,
				     &mbr_reclaimers[i].end) || i)
			continue;
		pr_err("refusing to load: %s, where tasks enter memcg reclaim, is not in kallsyms\n",
		       mbr_reclaimer_names[i]);
		return -ENOENT;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i] || !*names[i] ||
		    !mbr_symbol_clone(names[i], clone, sizeof(clone)))
			continue;
		pr_err("refusing to load: gcc made a copy of %s, %s, whose callers the hook would miss\n",
		       names[i], clone);
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(mbr_hook_args_checked, true);
	return 0;
}

/**
 * mbr_hooks_init_observers() - attach the other hooks, or none of them
 *
 * Return: 0 or a negative errno, logged with the function at fault.
 */
int mbr_hooks_init_observers(void)
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
	ret = mbr_should_fail("kretprobe") ? -ENOMEM :
		register_kretprobe(&mbr_online_probe);
	if (ret) {
		pr_err("cannot probe mem_cgroup_css_online (%d)\n", ret);
		goto out_unprobe_direct;
	}
	for (i = MBR_HOOK_OFFLINE + 1; i < ARRAY_SIZE(mbr_hooks); i++) {
		ret = mbr_hook_one(&mbr_hooks[i]);
		if (ret)
			goto out_unhook;
	}
	return 0;

out_unhook:
	while (i-- > MBR_HOOK_OFFLINE + 1)
		mbr_unhook_one(&mbr_hooks[i]);
	unregister_kretprobe(&mbr_online_probe);
out_unprobe_direct:
	unregister_kretprobe(&mbr_direct_probe);
	return ret;
}

/**
 * mbr_hooks_exit_observers() - detach every hook but the offline one:
 *	nothing queues a group or counts a stall after this returns
 */
void mbr_hooks_exit_observers(void)
{
	unsigned int i;

	for (i = ARRAY_SIZE(mbr_hooks); i-- > MBR_HOOK_OFFLINE + 1;)
		mbr_unhook_one(&mbr_hooks[i]);
	unregister_kretprobe(&mbr_online_probe);
	unregister_kretprobe(&mbr_direct_probe);
}

/**
 * mbr_hooks_exit() - detach the offline hook, the last one
 */
void mbr_hooks_exit(void)
{
	mbr_unhook_one(&mbr_hooks[MBR_HOOK_OFFLINE]);
}
