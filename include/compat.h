/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel API differences are handled. Every other
 * file of the module is written against the interface defined here.
 * Each entry names the kernel change that made it necessary.
 */
#ifndef MBR_COMPAT_H
#define MBR_COMPAT_H

#include <linux/version.h>
#include <linux/cgroup.h>
#include <linux/swap.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/static_call.h>
#include <linux/sched/cputime.h>
#include <linux/rcupdate.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
#error "memcg_bgreclaim needs Linux 6.0 or later (reclaim_options flags)"
#endif

/*
 * Unexported functions are called only through the module's own static
 * calls (symbols.c), which are direct calls only where the architecture
 * patches them: with CONFIG_HAVE_STATIC_CALL (x86-64 since 5.10). The
 * generic fallback is an indirect call through the key, which a CPU
 * enforcing IBT faults on for a sealed function, so refuse to build.
 */
#ifndef CONFIG_HAVE_STATIC_CALL
#error "memcg_bgreclaim needs CONFIG_HAVE_STATIC_CALL: it calls unexported functions only through direct static calls"
#endif

/*
 * 7.3 moved try_to_free_mem_cgroup_pages() and its MEMCG_RECLAIM_*
 * flags from <linux/swap.h> to mm/internal.h, which no headers package
 * ships. The prototype and flags below are 7.3's (the same as 6.11's);
 * the prototype is checked against the running kernel's BTF at load
 * (btf.c, MBR_PROTO_TFMCP), so a later change refuses the load. The
 * flags are macros, which BTF does not record: their values have not
 * changed since 6.0 ("mm: vmscan: make memcg reclaim take flags").
 */
#ifndef MEMCG_RECLAIM_MAY_SWAP
#define MEMCG_RECLAIM_MAY_SWAP		(1 << 1)
#define MEMCG_RECLAIM_PROACTIVE		(1 << 2)
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg,
					   unsigned long nr_pages,
					   gfp_t gfp_mask,
					   unsigned int reclaim_options,
					   int *swappiness);
#endif

DECLARE_STATIC_CALL(mbr_try_to_free_mem_cgroup_pages,
		    try_to_free_mem_cgroup_pages);
DECLARE_STATIC_CALL(mbr_css_tryget_online_from_dir,
		    css_tryget_online_from_dir);
DECLARE_STATIC_CALL(mbr_task_sched_runtime, task_sched_runtime);
DECLARE_STATIC_CALL(mbr_memcg_page_state, memcg_page_state);
DECLARE_STATIC_CALL(mbr_mem_cgroup_flush_stats, mem_cgroup_flush_stats);
/* The cgroupfs files (cgfiles.c): declared in <linux/cgroup.h>, not exported. */
DECLARE_STATIC_CALL(mbr_cgroup_add_dfl_cftypes, cgroup_add_dfl_cftypes);
DECLARE_STATIC_CALL(mbr_cgroup_add_legacy_cftypes, cgroup_add_legacy_cftypes);
DECLARE_STATIC_CALL(mbr_cgroup_rm_cftypes, cgroup_rm_cftypes);

/*
 * Brings the memcg statistics up to date if enough has changed since
 * the last flush (the kernel's own threshold: some 64 pages per CPU);
 * the kernel's periodic flush is every 2 s. Process context: 6.12's
 * flush may sleep. 6.8: "mm: memcg: restore subtree stats flushing" made it
 * flush only @memcg's subtree, which it takes as an argument; 6.1
 * flushes the whole tree.
 */
static inline void mbr_memcg_flush_stats(struct mem_cgroup *memcg)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	static_call(mbr_mem_cgroup_flush_stats)(memcg);
#else
	static_call(mbr_mem_cgroup_flush_stats)();
#endif
}

/*
 * Pages of @memcg's subtree held in PMD-sized folios (anon, shmem and
 * file), as of the last stats flush (mbr_memcg_flush_stats(); the kernel
 * flushes at least every 2 s). memcg_page_state() is hierarchical and counts
 * these items in pages in 6.1 and 6.12 (since "mm: memcontrol: convert
 * NR_ANON_THPS account to pages"); it takes a node_stat_item in both
 * (6.8's compacted arrays map it with memcg_stats_index()).
 */
static inline unsigned long mbr_memcg_thp_pages(struct mem_cgroup *memcg)
{
	return static_call(mbr_memcg_page_state)(memcg, NR_ANON_THPS) +
	       static_call(mbr_memcg_page_state)(memcg, NR_SHMEM_THPS) +
	       static_call(mbr_memcg_page_state)(memcg, NR_FILE_THPS);
}

/*
 * The CPU time @p has run, up to now: task_sched_runtime() brings the
 * running task's sum_exec_runtime up to date, which otherwise lags by up
 * to a tick (4 ms at HZ=250) until the next tick or switch; a budget of
 * 10 ms per period could not be kept on figures that late. The same in
 * 6.1 and 6.12.
 */
static inline u64 mbr_task_cpu_ns(struct task_struct *p)
{
	return static_call(mbr_task_sched_runtime)(p);
}

/*
 * try_to_free_mem_cgroup_pages(), whose key is typed from the prototype
 * in this very kernel's <linux/swap.h> (before 7.3) or the one above.
 *
 * 5.19/6.0: "mm: vmscan: make memcg reclaim take flags" turned the bool
 * may_swap into unsigned int reclaim_options (MEMCG_RECLAIM_MAY_SWAP).
 * 6.11: "mm: add swappiness= arg to memory.reclaim" appended
 * int *swappiness; NULL means the memcg's own vm.swappiness.
 */
static inline unsigned long mbr_call_tfmcp(struct mem_cgroup *memcg,
					   unsigned long nr_pages, gfp_t gfp,
					   unsigned int reclaim_options)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	return static_call(mbr_try_to_free_mem_cgroup_pages)(memcg, nr_pages,
							      gfp,
							      reclaim_options,
							      NULL);
#else
	return static_call(mbr_try_to_free_mem_cgroup_pages)(memcg, nr_pages,
							      gfp,
							      reclaim_options);
#endif
}

/*
 * The cgroup of a directory in any mounted cgroup file system, v1 or v2,
 * online and with a reference (cgroup_put() it): its "self" css, which
 * css_tryget_online_from_dir() returns for a NULL subsystem. Or
 * ERR_PTR(-EBADF) if @dentry is not a cgroup directory, ERR_PTR(-ENOENT)
 * if its cgroup is being removed. The same in 6.1 and 6.12.
 */
static inline struct cgroup *mbr_cgroup_from_dir(struct dentry *dentry)
{
	struct cgroup_subsys_state *css;

	css = static_call(mbr_css_tryget_online_from_dir)(dentry, NULL);
	/* NULL is the key's default, never seen once the module loaded. */
	if (IS_ERR_OR_NULL(css))
		return css ? ERR_CAST(css) : ERR_PTR(-ENOENT);
	return css->cgroup;
}

/*
 * The name of a cgroup whose memory css is coming online (from its
 * css_online), read without kernfs_rename_lock, which cgroup_name()
 * takes and which may sleep on PREEMPT_RT: css_online runs under
 * cgroup_mutex, and so does the only rename of a cgroup directory
 * (cgroup1_rename()), so the name cannot change under us.
 * 6.15, "kernfs: Use RCU to access kernfs_node::name", made the name
 * __rcu; before, it is a plain pointer.
 */
static inline const char *mbr_cgroup_new_name(struct cgroup *cgrp)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	return rcu_dereference_protected(cgrp->kn->name, true);
#else
	return cgrp->kn->name;
#endif
}

/*
 * Whether this kernel has the cgroup v1 memory controller at all.
 * 6.11: "mm: memcg: put cgroup v1-specific code under a config option"
 * made it optional (CONFIG_MEMCG_V1, not set in Debian's 6.12); without
 * it "mount -t cgroup -o memory" fails and memory is always on cgroup2.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0) && !IS_ENABLED(CONFIG_MEMCG_V1)
#define MBR_HAVE_MEMCG_V1	false
#else
#define MBR_HAVE_MEMCG_V1	true
#endif

/*
 * ftrace callback argument access. FTRACE_OPS_FL_SAVE_REGS gives full
 * pt_regs on both x86 kernels we support (DYNAMIC_FTRACE_WITH_REGS);
 * ftrace_regs became opaque in 6.x, so only ftrace_get_regs() is used.
 */
static inline unsigned long mbr_ftrace_arg(struct ftrace_regs *fregs,
					   unsigned int n)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	return regs ? regs_get_kernel_argument(regs, n) : 0;
}

/*
 * The hooked functions' arguments, read by position (hooks.c), and the
 * prototypes of the functions the module hooks or calls without a
 * header to type them, as the kernel's BTF spells them: btf.c refuses
 * to load where the running kernel's differ.
 *
 * try_charge_memcg(memcg, gfp_mask, nr_pages): the same since 5.17
 * ("mm/memcg: rename try_charge to try_charge_memcg" made it so), static
 * since 6.14. mem_cgroup_css_online/offline(css): as every css op.
 * try_to_free_mem_cgroup_pages(): 6.0 turned bool may_swap into
 * unsigned int reclaim_options; 6.11 appended int *swappiness.
 */
#define MBR_ARG_CHARGE_MEMCG	0
#define MBR_ARG_CHARGE_NR	2
#define MBR_ARG_CSS		0
#define MBR_ARG_TFMCP_MEMCG	0
#define MBR_ARG_TFMCP_OPTIONS	3

/*
 * The callers of try_to_free_mem_cgroup_pages() that are a task's own
 * charge: try_charge_memcg() at the limit (or its cold part), and
 * memory.high's reclaim on the way back to user space, reclaim_high(),
 * which gcc may fold into its caller: mem_cgroup_handle_over_high() in
 * 6.1 and 6.12, __mem_cgroup_handle_over_high() in 7.3 (the former an
 * inline wrapper there). Its other callers, the writers of memory.max
 * and memory.high and v1's resize and force_empty, are no task's stall;
 * nor is the kworker that reclaims for memory.high (high_work_func()).
 * The first is required; the others may be inlined away.
 */
#define MBR_CHARGE_RECLAIMERS \
	"try_charge_memcg", "try_charge_memcg.cold", "reclaim_high", \
	"mem_cgroup_handle_over_high", "__mem_cgroup_handle_over_high"

/*
 * Where a return address points when another kretprobe or a
 * function-graph tracer on try_to_free_mem_cgroup_pages() took it
 * first: the real caller is unknown, and the entry counts as a stall,
 * as every entry did before callers were told apart.
 */
#define MBR_RETURN_TRAMPOLINES \
	"arch_rethook_trampoline", "kretprobe_trampoline", "return_to_handler"

/*
 * The address a probed function will return to, read at its entry:
 * x86-64's call pushed it on the stack (as arch_rethook_prepare() reads
 * it).
 */
#ifndef CONFIG_X86_64
#error "mbr_entry_return_address() reads x86-64's stack"
#endif
static inline unsigned long mbr_entry_return_address(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}

#define MBR_PROTO_MAX_ARGS	6
#define MBR_PROTO_TRY_CHARGE_MEMCG \
	"struct mem_cgroup *", "gfp_t", "unsigned int"
#define MBR_PROTO_CSS_HOOK	"struct cgroup_subsys_state *"
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define MBR_PROTO_TFMCP \
	"struct mem_cgroup *", "long unsigned int", "gfp_t", \
	"unsigned int", "int *"
#else
#define MBR_PROTO_TFMCP \
	"struct mem_cgroup *", "long unsigned int", "gfp_t", "unsigned int"
#endif

#endif /* MBR_COMPAT_H */
