// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time resolution of the unexported kernel symbols the module uses.
 *
 * kallsyms_lookup_name() itself stopped being exported in 5.7, so its
 * address is taken from a kprobe planted on it (and removed at once);
 * every other symbol comes from one table resolved through it. A missing
 * symbol refuses the load with one line naming it.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

#include "mbr.h"

struct mbr_symbols mbr_sym;

struct mbr_symbol {
	const char *name;
	void **addr;
	bool called;	/* called through the pointer: must be IBT-safe */
};

static const struct mbr_symbol mbr_symbol_table[] = {
	{ "try_to_free_mem_cgroup_pages",
	  (void **)&mbr_sym.try_to_free_mem_cgroup_pages, true },
};

/*
 * A kprobe sits past the ENDBR64 of the function it probes; the
 * function itself starts at the ENDBR.
 */
static unsigned long mbr_func_start(unsigned long addr)
{
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)(addr - 4), sizeof(insn)))
		return addr;
	return insn == MBR_ENDBR64_INSN ? addr - 4 : addr;
}

/*
 * With IBT enforced, an indirect call to a function without ENDBR64 (one
 * the kernel sealed at boot) takes a control-protection fault. Refuse
 * such a target instead of crashing later.
 */
static int mbr_check_callable(const char *name, unsigned long addr)
{
	u32 insn;

	if (!mbr_ibt_enforced())
		return 0;
	if (!copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)) &&
	    insn == MBR_ENDBR64_INSN)
		return 0;
	pr_err("%s has no ENDBR64 (sealed by IBT); cannot call it safely, boot with ibt=off to use this module\n",
	       name);
	return -ENOEXEC;
}

static int mbr_find_kallsyms(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot resolve kallsyms_lookup_name: kprobe failed (%d)\n",
		       ret);
		return ret;
	}
	addr = mbr_func_start((unsigned long)kp.addr);
	unregister_kprobe(&kp);

	ret = mbr_check_callable("kallsyms_lookup_name", addr);
	if (ret)
		return ret;
	mbr_sym.kallsyms_lookup_name = (void *)addr;
	return 0;
}

static int mbr_resolve_one(const char *name, void **addr, bool called)
{
	unsigned long a = mbr_sym.kallsyms_lookup_name(name);

	if (!a) {
		pr_err("cannot resolve %s: symbol not found, refusing to load\n",
		       name);
		return -ENOENT;
	}
	if (called) {
		int ret = mbr_check_callable(name, a);

		if (ret)
			return ret;
	}
	if (addr)
		*addr = (void *)a;
	return 0;
}

/**
 * mbr_symbols_init() - resolve every unexported symbol the module uses
 * @extra_required: one more symbol name that must resolve, or NULL; the
 *	tests use it to prove that a missing symbol fails the load cleanly
 *
 * Return: 0, or a negative errno after logging the symbol at fault.
 */
int mbr_symbols_init(const char *extra_required)
{
	unsigned int i;
	int ret;

	ret = mbr_find_kallsyms();
	if (ret)
		return ret;

	for (i = 0; i < ARRAY_SIZE(mbr_symbol_table); i++) {
		const struct mbr_symbol *s = &mbr_symbol_table[i];

		ret = mbr_resolve_one(s->name, s->addr, s->called);
		if (ret)
			return ret;
	}
	if (extra_required && *extra_required)
		return mbr_resolve_one(extra_required, NULL, false);
	return 0;
}
