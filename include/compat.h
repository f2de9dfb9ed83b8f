/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel API differences are handled. Every other
 * file of the module is written against the interface defined here.
 * Each entry names the kernel change that made it necessary.
 */
#ifndef MBR_COMPAT_H
#define MBR_COMPAT_H

#include <linux/version.h>
#include <linux/swap.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <asm/cpufeature.h>

/*
 * try_to_free_mem_cgroup_pages() is not exported; we call it through a
 * pointer found by kallsyms. The pointer's type is taken from the
 * prototype in this very kernel's <linux/swap.h>, so a signature we did
 * not expect is a compile error rather than an oops in vmscan.
 *
 * 5.19/6.0: "mm: vmscan: make memcg reclaim take flags" turned the bool
 * may_swap into unsigned int reclaim_options (MEMCG_RECLAIM_MAY_SWAP).
 * 6.11: "mm: add swappiness= arg to memory.reclaim" appended
 * int *swappiness; NULL means the memcg's own vm.swappiness.
 */
typedef typeof(&try_to_free_mem_cgroup_pages) mbr_tfmcp_fn;

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
#error "memcg_bgreclaim needs Linux 6.0 or later (reclaim_options flags)"
#endif

static inline unsigned long mbr_call_tfmcp(mbr_tfmcp_fn fn,
					   struct mem_cgroup *memcg,
					   unsigned long nr_pages, gfp_t gfp,
					   unsigned int reclaim_options)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	return fn(memcg, nr_pages, gfp, reclaim_options, NULL);
#else
	return fn(memcg, nr_pages, gfp, reclaim_options);
#endif
}

/*
 * Indirect Branch Tracking (5.18, CONFIG_X86_KERNEL_IBT; on in Debian's
 * 6.12, off in its 6.1): an indirect call must land on ENDBR64. kprobes
 * place a probe past a function's ENDBR (5.18: "x86/ibt,kprobes"), and
 * at boot the kernel seals (overwrites) the ENDBR of every function
 * whose address is never taken, so such a function cannot be called
 * through a pointer at all while IBT is enforced.
 */
#define MBR_ENDBR64_INSN	0xfa1e0ff3U	/* f3 0f 1e fa, little endian */

static inline bool mbr_ibt_enforced(void)
{
#ifdef X86_FEATURE_IBT
	return IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	       cpu_feature_enabled(X86_FEATURE_IBT);
#else
	return false;
#endif
}

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
 * uncharge_batch() takes mm/memcontrol.c's private struct
 * uncharge_gather, whose first member has been the memcg being
 * uncharged since it was introduced (5.x) and still is in 6.12.
 */
struct mbr_uncharge_gather_head {
	struct mem_cgroup *memcg;
};

#endif /* MBR_COMPAT_H */
