// SPDX-License-Identifier: GPL-2.0
/*
 * memcg_bgreclaim: background reclaim for memory cgroups.
 *
 * Tasks in a cgroup near its limit stall in direct reclaim on their own
 * allocations. This module reclaims for them ahead of time, the way
 * kswapd does for the whole machine: per-group watermarks below the
 * limit (Ying Han's 2011 per-memcg background reclaim), checked from
 * the charge path, and a small pool of worker threads that reclaim a
 * group from its low watermark down to its high one.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/math.h>

#include "mbr.h"

#ifndef MBR_VERSION
#define MBR_VERSION "0.0.0"
#endif

const char mbr_version[] = MBR_VERSION;
bool mbr_enabled = true;
/* Times background reclaim was turned back on: see autotune.c. */
atomic_t mbr_enable_seq = ATOMIC_INIT(0);
unsigned int mbr_nr_workers;

/*
 * Defaults (see the ABI document for the measurements behind them):
 * 256 pages (1 MiB) per worker turn keeps a turn short enough to share
 * the pool fairly; a check every 32 pages (128 KiB) charged per CPU
 * wakes reclaim well before a group can run from its low mark to its
 * limit.
 */
unsigned int mbr_batch_pages = 256;
unsigned int mbr_check_pages = 32;
/*
 * wmark_boost is off by default: configured marks hold as set, as on
 * Alibaba's kernels, and the kernel's memcg selftests read a group at
 * its limit (test_memcg_high failed on 6.1 with the boost on).
 */
bool mbr_wmark_boost;

static bool cgroupfs_files;
module_param(cgroupfs_files, bool, 0444);
MODULE_PARM_DESC(cgroupfs_files,
		 "add memory.wmark_ratio, _scale_factor, _high and _low to every memory cgroup (as Alibaba Cloud Linux has them, for Koordinator)");

static char *test_require_symbol;
module_param(test_require_symbol, charp, 0400);
MODULE_PARM_DESC(test_require_symbol,
		 "testing only: one more symbol that must resolve at load");
static char *test_hook_target;
module_param(test_hook_target, charp, 0400);
MODULE_PARM_DESC(test_hook_target,
		 "testing only: one more function checked at load as if hooked");

static int __init mbr_init(void)
{
	int ret;

	ret = mbr_hooks_init_offline();
	if (ret)
		return ret;

	ret = mbr_symbols_init(test_require_symbol);
	if (ret)
		goto out_unhook_offline;

	ret = mbr_btf_check();
	if (ret)
		goto out_unhook_offline;

	ret = mbr_hooks_check_targets(test_hook_target);
	if (ret)
		goto out_unhook_offline;

	ret = mbr_should_fail("billing_wq") ? -ENOMEM : mbr_billing_init();
	if (ret)
		goto out_unhook_offline;

	mbr_nr_workers = int_sqrt(num_online_cpus()) + 1;
	ret = mbr_workers_init();
	if (ret)
		goto out_billing_exit;

	ret = mbr_hooks_init_observers();
	if (ret)
		goto out_stop_workers;

	ret = mbr_proc_init();
	if (ret)
		goto out_unhook_observers;

	ret = mbr_sysfs_init();
	if (ret)
		goto out_proc_exit;

	/* Without the files, rather than not at all: the switch reads 0. */
	ret = cgroupfs_files ? mbr_cgfiles_set(true) : 0;
	if (ret)
		pr_warn("cgroupfs_files=1: cannot add the memory.wmark_* files (%d), loaded without them\n",
			ret);

	pr_info("loaded, version %s, %u workers\n", mbr_version,
		mbr_nr_workers);
	return 0;

out_proc_exit:
	mbr_proc_exit();
out_unhook_observers:
	mbr_hooks_exit_observers();
out_stop_workers:
	mbr_workers_exit();
out_billing_exit:
	mbr_billing_exit();
out_unhook_offline:
	mbr_hooks_exit();
	return ret;
}

/*
 * The offline hook goes last: every group is unlinked while it still
 * runs, so that no rmdir during the exit goes unseen.
 */
static void __exit mbr_exit(void)
{
	mbr_sysfs_remove_files();	/* no add, remove or write in flight */
	mbr_cgfiles_set(false);		/* nor in the cgroupfs files */
	mbr_proc_exit();		/* no reader of the table */
	mbr_hooks_exit_observers();	/* nothing queues or adds a group now */
	mbr_cgfiles_exit();		/* no inheritance comes late */
	mbr_rules_exit();		/* nor does a rule */
	mbr_workers_exit();		/* dedicated workers stop with their groups */
	mbr_groups_exit();		/* every group unlinked and destroyed */
	mbr_hooks_exit();		/* the offline hook */
	mbr_groups_flush();		/* a reap it scheduled on its way out */
	mbr_sysfs_exit();
	mbr_billing_exit();		/* no move's work function runs */
	rcu_barrier();			/* our kfree_rcu()s are done */
	pr_info("unloaded\n");
}

module_init(mbr_init);
module_exit(mbr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Background reclaim for memory cgroups");
MODULE_VERSION(MBR_VERSION);
