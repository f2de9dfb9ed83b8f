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
 * calls (symbols.c). How such a call reaches the function, and what the
 * function must begin with for it, is the architecture's.
 *
 * x86-64: direct calls, patched by CONFIG_HAVE_STATIC_CALL (x86-64 since
 * 5.10). The generic fallback is an indirect call through the key, which
 * a CPU enforcing IBT faults on for a sealed function, so refuse to
 * build without it. A direct call needs no ENDBR: nothing to check.
 *
 * arm64: indirect calls. Without CONFIG_HAVE_STATIC_CALL (Debian's arm64
 * kernels) static_call() is <linux/static_call.h>'s generic
 * implementation, a call through the key's pointer; arm64's own
 * <asm/static_call.h> (present in 7.2's and 7.3's headers, not 6.12's)
 * is a trampoline that branches through a literal ("br x16"). Either way,
 * where the kernel enforces BTI (CONFIG_ARM64_BTI_KERNEL on a CPU with
 * FEAT_BTI, kernel text mapped guarded), the target must begin with a
 * landing pad, or the call takes a Branch Target exception: checked at
 * load, per function (mbr_check_call_target()). kCFI (CONFIG_CFI_CLANG;
 * CONFIG_CFI in 7.x's headers) checks a type hash at every indirect call
 * that the module cannot verify beforehand: refuse to build with it and
 * no trampoline (Debian builds arm64 with gcc, without kCFI).
 */
#if defined(CONFIG_X86_64)
#ifndef CONFIG_HAVE_STATIC_CALL
#error "memcg_bgreclaim needs CONFIG_HAVE_STATIC_CALL: it calls unexported functions only through direct static calls"
#endif
static inline int mbr_check_call_target(const char *name, unsigned long addr,
					bool force)
{
	return 0;
}
#elif defined(CONFIG_ARM64)
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#if (defined(CONFIG_CFI_CLANG) || defined(CONFIG_CFI)) && \
	!defined(CONFIG_HAVE_STATIC_CALL)
#error "memcg_bgreclaim does not support arm64 kCFI without static call trampolines"
#endif

/*
 * Whether kernel text is guarded (BTI): CONFIG_ARM64_BTI_KERNEL (5.8,
 * "arm64: bti: Support building kernel C code using BTI") and a CPU with
 * the capability, not turned off by arm64.nobti. system_supports_bti()
 * is the capability on 6.1 (cpus_have_const_cap()) and 6.12/7.3
 * (cpus_have_final_cap()); the kernel's own system_supports_bti_kernel()
 * (6.12, 7.3: the same test on the boot CPU's capability) is not in 6.1.
 */
static inline bool mbr_bti_enforced(void)
{
	return IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) && system_supports_bti();
}

/*
 * The instructions an indirect call (blr, or br x16/x17 from a
 * trampoline) may land on under BTI: bti c, bti jc, and paciasp and
 * pacibsp, which act as bti c. The hint encodings are <asm/insn.h>'s
 * (AARCH64_INSN_HINT_BTIC...), the same in 6.1, 6.12 and 7.3;
 * aarch64_insn_gen_hint() is an out-of-line function in 6.1 (inline in
 * 6.12 and 7.3), so the hint opcode comes from the inline
 * aarch64_insn_get_hint_value() that all three have.
 */
static inline bool mbr_is_landing_pad(u32 insn)
{
	u32 hint = aarch64_insn_get_hint_value();

	return insn == (hint | AARCH64_INSN_HINT_BTIC) ||
	       insn == (hint | AARCH64_INSN_HINT_BTIJC) ||
	       insn == (hint | AARCH64_INSN_HINT_PACIASP) ||
	       insn == (hint | AARCH64_INSN_HINT_PACIBSP);
}

/*
 * 0 if the module may call function @name at @addr (its start, from
 * kallsyms) through a pointer: always where BTI is not enforced (Debian's
 * arm64 kernels: CONFIG_ARM64_BTI_KERNEL unset); else only if its first
 * instruction is a landing pad. gcc gives every function that is not
 * only called directly a bti c ahead of its patchable-entry NOPs; a
 * kprobe planted on it would show a brk instead (symbols.c checks before
 * the module's own kprobes are planted: another's refuses the load,
 * -EBUSY, since the instruction it hides cannot be checked). @force: the
 * tests, as if BTI were enforced. Else -EOPNOTSUPP, with one line.
 */
static inline int mbr_check_call_target(const char *name, unsigned long addr,
					bool force)
{
	__le32 insn;

	if (!force && !mbr_bti_enforced())
		return 0;
	if (get_kernel_nofault(insn, (__le32 *)addr)) {
		pr_err("refusing to load: this kernel enforces BTI and the first instruction of %s cannot be read\n",
		       name);
		return -EFAULT;
	}
	if (mbr_is_landing_pad(le32_to_cpu(insn)))
		return 0;
	if (le32_to_cpu(insn) == BRK64_OPCODE_KPROBES) {
		pr_err("refusing to load: this kernel enforces BTI and a kprobe on %s hides its first instruction; remove that probe and load again\n",
		       name);
		return -EBUSY;
	}
	pr_err("refusing to load: this kernel enforces BTI and %s does not begin with a landing pad (bti c or paciasp; found %08x), so the module cannot call it\n",
	       name, le32_to_cpu(insn));
	return -EOPNOTSUPP;
}
#else
#error "memcg_bgreclaim supports x86-64 and arm64 only"
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
 * ftrace callback argument access, and the ftrace_ops flags it needs
 * (MBR_FTRACE_OPS_FL_ARGS, hooks.c).
 *
 * CONFIG_DYNAMIC_FTRACE_WITH_REGS (x86-64; arm64 up to 6.1):
 * FTRACE_OPS_FL_SAVE_REGS gives full pt_regs; ftrace_regs became opaque
 * in 6.x, so only ftrace_get_regs() is used.
 *
 * CONFIG_DYNAMIC_FTRACE_WITH_ARGS alone (arm64 from 6.2, "ftrace: arm64:
 * move from REGS to ARGS"; 6.3 added WITH_CALL_OPS): an ops that asks
 * for SAVE_REGS is refused by register_ftrace_function() (-EINVAL) and
 * ftrace_get_regs() is NULL (arch_ftrace_get_regs()), but x0-x7 are
 * saved for every callback: ftrace_regs_get_argument(), added with
 * arm64's WITH_ARGS in 6.2 ("ftrace: abstract DYNAMIC_FTRACE_WITH_ARGS
 * accesses"), reads them from 6.12's opaque struct __arch_ftrace_regs
 * as well.
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define MBR_FTRACE_OPS_FL_ARGS	FTRACE_OPS_FL_SAVE_REGS
static inline unsigned long mbr_ftrace_arg(struct ftrace_regs *fregs,
					   unsigned int n)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	return regs ? regs_get_kernel_argument(regs, n) : 0;
}
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define MBR_FTRACE_OPS_FL_ARGS	0
static inline unsigned long mbr_ftrace_arg(struct ftrace_regs *fregs,
					   unsigned int n)
{
	return fregs ? ftrace_regs_get_argument(fregs, n) : 0;
}
#else
#error "memcg_bgreclaim needs CONFIG_DYNAMIC_FTRACE_WITH_REGS or _WITH_ARGS"
#endif

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
 * as every entry did before callers were told apart. arm64's kretprobes
 * do not use rethook (6.1 to 7.3): theirs is __kretprobe_trampoline,
 * so named since 5.15 ("kprobes: treewide: Make it harder to refer
 * kretprobe_trampoline directly"); return_to_handler is arm64's too.
 */
#define MBR_RETURN_TRAMPOLINES \
	"arch_rethook_trampoline", "kretprobe_trampoline", \
	"__kretprobe_trampoline", "return_to_handler"

/*
 * The address a probed function will return to, read at its entry (a
 * kprobe on its first instruction, before its prologue): x86-64's call
 * pushed it on the stack (as arch_rethook_prepare() reads it); arm64's
 * bl left it in the link register, x30, not yet signed by the
 * function's paciasp (as arm64's arch_prepare_kretprobe() reads it),
 * procedure_link_pointer() in 6.1, 6.12 and 7.3.
 */
#if defined(CONFIG_X86_64)
static inline unsigned long mbr_entry_return_address(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}
#elif defined(CONFIG_ARM64)
static inline unsigned long mbr_entry_return_address(struct pt_regs *regs)
{
	return procedure_link_pointer(regs);
}
#endif

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
