// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time resolution of the unexported kernel functions the module
 * calls, and the static calls through which it calls them.
 *
 * Every such function is called through a static call the module owns.
 * On x86-64 the call sites are direct rel32 calls, patched to the
 * resolved address when the key is updated (as kvm.ko does with its own
 * static calls). Never through a pointer: on a kernel with
 * CONFIG_X86_KERNEL_IBT the ENDBR of every function whose address is
 * never taken is overwritten at boot ("sealed"), on every CPU, and an
 * indirect call to such a function takes a #CP fault on a CPU that
 * enforces IBT. All functions below are sealed in Debian's 6.12. A
 * direct call needs no ENDBR.
 *
 * arm64 has no direct static calls: the call goes through a pointer, and
 * where the kernel enforces BTI each function must begin with a landing
 * pad, which mbr_check_call_target() (compat.h) checks before the key is
 * updated, and refuses the load with one line otherwise.
 *
 * kallsyms_lookup_name() stopped being exported in 5.7; its address is
 * taken from a kprobe planted on it (and removed at once), and it is
 * then called, like the others, through its own static call. A missing
 * symbol refuses the load with one line naming it.
 */
#include <linux/cgroup.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/static_call.h>

#include "mbr.h"

/*
 * The keys take their types from the kernel's own prototypes, so a
 * changed signature is a compile error. Until updated they return 0:
 * a lookup finds nothing, a reclaim turn frees nothing, a cgroup
 * directory is not found (NULL, taken as an error by its caller), a
 * task has run for no time, a memcg holds no huge pages, a
 * flush does nothing.
 */
DEFINE_STATIC_CALL_RET0(mbr_kallsyms_lookup_name, kallsyms_lookup_name);
DEFINE_STATIC_CALL_RET0(mbr_try_to_free_mem_cgroup_pages,
			try_to_free_mem_cgroup_pages);
DEFINE_STATIC_CALL_RET0(mbr_css_tryget_online_from_dir,
			css_tryget_online_from_dir);
DEFINE_STATIC_CALL_RET0(mbr_task_sched_runtime, task_sched_runtime);
DEFINE_STATIC_CALL_RET0(mbr_memcg_page_state, memcg_page_state);
DEFINE_STATIC_CALL_RET0(mbr_mem_cgroup_flush_stats, mem_cgroup_flush_stats);
DEFINE_STATIC_CALL_RET0(mbr_cgroup_add_dfl_cftypes, cgroup_add_dfl_cftypes);
DEFINE_STATIC_CALL_RET0(mbr_cgroup_add_legacy_cftypes,
			cgroup_add_legacy_cftypes);
DEFINE_STATIC_CALL_RET0(mbr_cgroup_rm_cftypes, cgroup_rm_cftypes);

struct mbr_symbol {
	const char *name;
	struct static_call_key *key;
	void *tramp;
};

#define MBR_SYMBOL(sym) {						\
	.name = #sym,							\
	.key = &STATIC_CALL_KEY(mbr_##sym),				\
	.tramp = STATIC_CALL_TRAMP_ADDR(mbr_##sym),			\
}

/* Resolved through kallsyms_lookup_name, in this order. */
static const struct mbr_symbol mbr_symbol_table[] = {
	MBR_SYMBOL(try_to_free_mem_cgroup_pages),
	MBR_SYMBOL(css_tryget_online_from_dir),
	MBR_SYMBOL(task_sched_runtime),
	MBR_SYMBOL(memcg_page_state),
	MBR_SYMBOL(mem_cgroup_flush_stats),
	MBR_SYMBOL(cgroup_add_dfl_cftypes),
	MBR_SYMBOL(cgroup_add_legacy_cftypes),
	MBR_SYMBOL(cgroup_rm_cftypes),
};

/*
 * Where @addr lies in function @name, as kallsyms tells it
 * ("name+off/size"): false if @addr is not in a function of that name.
 */
static bool mbr_symbol_at(const char *name, unsigned long addr,
			  unsigned long *off, unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);

	sprint_symbol(buf, addr);
	return !strncmp(buf, name, len) && buf[len] == '+' &&
	       sscanf(buf + len, "+%lx/%lx", off, size) == 2 && *off < *size;
}

/*
 * The start of the function that contains @addr, which must be @name.
 * A kprobe on a function reports the address it probes: past the
 * ENDBR64 of an IBT kernel, past the 4-byte NOP that replaced a sealed
 * ENDBR (is_endbr() accepts both), or the start itself on a kernel
 * without IBT. kallsyms knows the offset whatever the case.
 */
static unsigned long mbr_func_start(const char *name, unsigned long addr)
{
	unsigned long off, size;

	return mbr_symbol_at(name, addr, &off, &size) ? addr - off : 0;
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
	addr = mbr_func_start(kp.symbol_name, (unsigned long)kp.addr);
	unregister_kprobe(&kp);
	if (!addr) {
		pr_err("cannot resolve kallsyms_lookup_name: kprobe address %pS is not in it\n",
		       kp.addr);
		return -ENOENT;
	}
	/* After unregister_kprobe(): its brk is gone from the first instruction. */
	ret = mbr_check_call_target(kp.symbol_name, addr,
				    mbr_should_fail("bti_enforced"));
	if (ret)
		return ret;
	static_call_update(mbr_kallsyms_lookup_name,
			   (typeof(&kallsyms_lookup_name))addr);
	return 0;
}

static int mbr_resolve_one(const char *name, struct static_call_key *key,
			   void *tramp)
{
	unsigned long a = static_call(mbr_kallsyms_lookup_name)(name);
	int ret;

	if (!a) {
		pr_err("cannot resolve %s: symbol not found, refusing to load\n",
		       name);
		return -ENOENT;
	}
	/* kallsyms gives the start; a static call must land exactly there. */
	if (mbr_func_start(name, a) != a) {
		pr_err("cannot resolve %s: %pS is not the start of a function of that name\n",
		       name, (void *)a);
		return -ENOENT;
	}
	if (!key)
		return 0;
	/*
	 * Before any kprobe of the module's own (mbr_hooks_init_observers())
	 * hides a first instruction behind a brk.
	 */
	ret = mbr_check_call_target(name, a, mbr_should_fail("bti_enforced"));
	if (ret)
		return ret;
	__static_call_update(key, tramp, (void *)a);
	return 0;
}

/**
 * mbr_kallsyms_lookup() - the address of a kernel symbol, or 0
 * @name: a data symbol; never called through the result
 */
unsigned long mbr_kallsyms_lookup(const char *name)
{
	return static_call(mbr_kallsyms_lookup_name)(name);
}

/*
 * The suffixes gcc gives a function's copies: a specialised clone
 * (.isra, .constprop) or the split-off body of a partly inlined
 * function (.part). Callers of a copy branch to it directly, past the
 * original's ftrace site.
 */
static const char *const mbr_clone_kinds[] = { "isra", "constprop", "part" };
#define MBR_CLONE_NUMBERS	4

/**
 * mbr_symbol_clone() - whether gcc made a copy of function @name
 * @name: the function
 * @buf: where the copy's name goes
 * @len: its size
 *
 * Return: true, with the first copy's name in @buf, if kallsyms knows
 * one of @name.isra.N, @name.constprop.N or @name.part.N (N < 4).
 */
bool mbr_symbol_clone(const char *name, char *buf, size_t len)
{
	unsigned int k, n;

	for (k = 0; k < ARRAY_SIZE(mbr_clone_kinds); k++) {
		for (n = 0; n < MBR_CLONE_NUMBERS; n++) {
			snprintf(buf, len, "%s.%s.%u", name, mbr_clone_kinds[k], n);
			if (mbr_kallsyms_lookup(buf))
				return true;
		}
	}
	return false;
}

/**
 * mbr_symbol_range() - where function @name lies in the kernel's text
 * @name: the function
 * @start: its first byte
 * @end: the byte after its last
 *
 * Return: whether kallsyms knows it (gcc may have inlined it away).
 */
bool mbr_symbol_range(const char *name, unsigned long *start,
		      unsigned long *end)
{
	unsigned long a = mbr_kallsyms_lookup(name), off, size;

	if (!a || !mbr_symbol_at(name, a, &off, &size) || off)
		return false;
	*start = a;
	*end = a + size;
	return true;
}

/**
 * mbr_symbols_init() - resolve every unexported function the module calls
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

		ret = mbr_resolve_one(s->name, s->key, s->tramp);
		if (ret)
			return ret;
	}
	if (extra_required && *extra_required)
		return mbr_resolve_one(extra_required, NULL, NULL);
	return 0;
}
