// SPDX-License-Identifier: GPL-2.0
/*
 * ibt_negctl: the negative control of "make check-ibt".
 *
 * That a module loads and runs under CET IBT proves nothing unless the
 * CPU really enforces IBT. This module makes the one call IBT exists to
 * stop: an indirect call to the first byte of a function that is not a
 * valid indirect branch target. kallsyms_lookup_name() is never called
 * indirectly inside the kernel, so objtool lists it and the kernel seals
 * it at boot (apply_seal_endbr() overwrites its ENDBR64 with a 4-byte
 * NOP). On an enforcing CPU the call raises #CP: the kernel prints
 * "Missing ENDBR: kallsyms_lookup_name" and BUG()s (ibt=warn aside),
 * which kills insmod and leaves the rest of the kernel running; the test
 * asserts that line. On a CPU that does not enforce IBT the call simply
 * returns, and init says so and fails, so that the module never stays.
 *
 * Load it last: the oops leaves this module half-loaded for good.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/uaccess.h>

/* The first 4 bytes of a function, as a little-endian u32. */
#define ENDBR64		0xfa1e0ff3U	/* f3 0f 1e fa */
#define SEAL_NOP	0x001f0f66U	/* 66 0f 1f 00, a sealed ENDBR64 */

typedef unsigned long (*lookup_fn)(const char *name);

static int __init ibt_negctl_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long start, got;
	lookup_fn lookup;
	u32 head;
	int ret;

	/*
	 * kallsyms_lookup_name is not exported; a kprobe resolves it. The
	 * probe goes past an ENDBR64 or its seal (arch_adjust_kprobe_addr),
	 * so kp.addr is 4 bytes into the function on an IBT kernel.
	 */
	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("ibt_negctl: register_kprobe(kallsyms_lookup_name): %d\n",
		       ret);
		return ret;
	}
	start = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	if (!copy_from_kernel_nofault(&head, (void *)(start - 4), sizeof(head)) &&
	    (head == ENDBR64 || head == SEAL_NOP))
		start -= 4;
	else
		head = 0;
	pr_info("ibt_negctl: kallsyms_lookup_name at %pS starts with %s; calling it indirectly\n",
		(void *)start, head == SEAL_NOP ? "a sealed ENDBR64 (NOP)" :
		head == ENDBR64 ? "ENDBR64" : "no ENDBR64 at all");

	/*
	 * The indirect call under test. OPTIMIZER_HIDE_VAR keeps the
	 * compiler from seeing through the pointer: the call must stay an
	 * indirect one.
	 */
	lookup = (lookup_fn)start;
	OPTIMIZER_HIDE_VAR(lookup);
	got = lookup("jiffies");

	pr_err("ibt_negctl: no #CP: the indirect call returned %lx, so this CPU does not enforce IBT\n",
	       got);
	return -EOPNOTSUPP;
}

static void __exit ibt_negctl_exit(void)
{
}

module_init(ibt_negctl_init);
module_exit(ibt_negctl_exit);
MODULE_DESCRIPTION("make check-ibt negative control: an indirect call to a sealed function");
MODULE_LICENSE("GPL");
