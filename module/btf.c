// SPDX-License-Identifier: GPL-2.0
/*
 * The prototypes the module relies on without a header to check them,
 * checked at load against the running kernel's own BTF (the data behind
 * /sys/kernel/btf/vmlinux): the functions it hooks, whose arguments it
 * reads by position, and the functions it calls through a prototype of
 * its own (compat.h). A kernel whose signature differs refuses the
 * load with one line naming the function, the argument, and both types,
 * instead of reading or passing the wrong thing.
 *
 * The BTF is read in place, between __start_BTF and __stop_BTF (found
 * through kallsyms: data, never called), so nothing here depends on
 * the BPF subsystem's unexported helpers. kallsyms lists data only with
 * CONFIG_KALLSYMS_ALL, which Debian's 6.1 arm64 kernel lacks: there, a
 * copy is read from /sys/kernel/btf/vmlinux instead.
 */
#include <linux/btf.h>
#include <linux/kallsyms.h>
#include <linux/kernel_read_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "mbr.h"

struct mbr_proto {
	const char *func;
	const char *args[MBR_PROTO_MAX_ARGS];
};

static const struct mbr_proto mbr_protos[] = {
	{ "try_charge_memcg", { MBR_PROTO_TRY_CHARGE_MEMCG } },
	{ "mem_cgroup_css_online", { MBR_PROTO_CSS_HOOK } },
	{ "mem_cgroup_css_offline", { MBR_PROTO_CSS_HOOK } },
	{ "try_to_free_mem_cgroup_pages", { MBR_PROTO_TFMCP } },
};

struct mbr_btf {
	const u8 *types;	/* the first type, id 1 */
	const char *strs;
	u32 types_len, strs_len;
	u32 nr;			/* types, id 1 to nr */
	u32 *off;		/* type id - 1 -> offset in types */
};

static const struct btf_type *mbr_btf_type(const struct mbr_btf *b, u32 id)
{
	if (!id || id > b->nr)
		return NULL;
	return (const struct btf_type *)(b->types + b->off[id - 1]);
}

static const char *mbr_btf_name(const struct mbr_btf *b, u32 off)
{
	return off < b->strs_len ? b->strs + off : "?";
}

/* Size of the kind-specific data that follows a btf_type. */
static long mbr_btf_extra(const struct btf_type *t)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;	/* a kind newer than this module */
	}
}

static int mbr_btf_open(struct mbr_btf *b, const u8 *start, const u8 *end)
{
	const struct btf_header *h = (const void *)start;
	u32 pos, n = 0;

	if (end - start < (long)sizeof(*h) || h->magic != BTF_MAGIC ||
	    h->hdr_len > end - start ||
	    (u64)h->hdr_len + h->type_off + h->type_len > end - start ||
	    (u64)h->hdr_len + h->str_off + h->str_len > end - start)
		return -EINVAL;
	b->types = start + h->hdr_len + h->type_off;
	b->types_len = h->type_len;
	b->strs = (const char *)start + h->hdr_len + h->str_off;
	b->strs_len = h->str_len;
	/* Every type is at least a btf_type: an upper bound for the index. */
	b->off = kvmalloc_array(b->types_len / sizeof(struct btf_type) + 1,
				sizeof(u32), GFP_KERNEL);
	if (!b->off)
		return -ENOMEM;
	for (pos = 0; pos + sizeof(struct btf_type) <= b->types_len; n++) {
		long extra = mbr_btf_extra((const void *)(b->types + pos));

		if (extra < 0)
			break;
		b->off[n] = pos;
		pos += sizeof(struct btf_type) + extra;
	}
	b->nr = n;
	return pos == b->types_len ? 0 : -EINVAL;
}

/*
 * Spell type @id as compat.h writes prototypes: "struct mem_cgroup *",
 * "gfp_t" (a typedef by its name), "long unsigned int" (as DWARF names
 * the base types). Modifiers and type tags (__rcu...) are skipped.
 */
static void mbr_btf_spell(const struct mbr_btf *b, u32 id, char *buf,
			  size_t len)
{
	const struct btf_type *t = NULL;
	unsigned int depth, ptrs = 0;
	const char *kw = "";

	for (depth = 0; depth < 16; depth++) {
		t = mbr_btf_type(b, id);
		if (!t) {
			kw = id ? "?" : "void";
			break;
		}
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_PTR:
			ptrs++;
			fallthrough;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		case BTF_KIND_STRUCT:
			kw = "struct ";
			break;
		case BTF_KIND_UNION:
			kw = "union ";
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			kw = "enum ";
			break;
		case BTF_KIND_FWD:
			kw = BTF_INFO_KFLAG(t->info) ? "union " : "struct ";
			break;
		default:
			break;
		}
		break;
	}
	snprintf(buf, len, "%s%s%s%.*s", kw,
		 t ? mbr_btf_name(b, t->name_off) : "", ptrs ? " " : "",
		 min(ptrs, 4U), "****");
}

/* The FUNC_PROTO of function @name, or NULL. */
static const struct btf_type *mbr_btf_func(const struct mbr_btf *b,
					   const char *name)
{
	const struct btf_type *t;
	u32 id;

	for (id = 1; id <= b->nr; id++) {
		t = mbr_btf_type(b, id);
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    !strcmp(mbr_btf_name(b, t->name_off), name))
			return mbr_btf_type(b, t->type);
	}
	return NULL;
}

static int mbr_proto_check(const struct mbr_btf *b, const struct mbr_proto *p)
{
	const struct btf_type *fp = mbr_btf_func(b, p->func);
	const struct btf_param *arg;
	unsigned int i, n = 0;
	const char *want;
	char got[64];

	while (n < MBR_PROTO_MAX_ARGS && p->args[n])
		n++;
	/* The tests: a kernel whose prototype gained an argument. */
	if (mbr_should_fail("btf_nargs"))
		n--;
	if (!fp || BTF_INFO_KIND(fp->info) != BTF_KIND_FUNC_PROTO) {
		pr_err("refusing to load: %s is not in this kernel's BTF, so its prototype cannot be checked\n",
		       p->func);
		return -ENOENT;
	}
	arg = (const struct btf_param *)(fp + 1);
	if (BTF_INFO_VLEN(fp->info) != n) {
		pr_err("refusing to load: %s takes %u arguments on this kernel, the module was built for %u\n",
		       p->func, BTF_INFO_VLEN(fp->info), n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		want = p->args[i];
		/* The tests: a kernel whose argument changed type. */
		if (!i && mbr_should_fail("btf_type"))
			want = "struct folio *";
		mbr_btf_spell(b, arg[i].type, got, sizeof(got));
		if (strcmp(got, want)) {
			pr_err("refusing to load: argument %u of %s is '%s' on this kernel, the module expects '%s'\n",
			       i + 1, p->func, got, want);
			return -EINVAL;
		}
	}
	return 0;
}

#define MBR_BTF_FILE	"/sys/kernel/btf/vmlinux"

/*
 * The kernel's BTF, from @start to @end: in place, or in *@copy (to be
 * vfree()d) read from MBR_BTF_FILE when kallsyms has no __start_BTF.
 */
static int mbr_btf_blob(const u8 **start, const u8 **end, void **copy)
{
	size_t size;
	ssize_t n;

	*copy = NULL;
	*start = (const u8 *)mbr_kallsyms_lookup("__start_BTF");
	*end = (const u8 *)mbr_kallsyms_lookup("__stop_BTF");
	if (*start && *end > *start && !mbr_should_fail("btf_kallsyms"))
		return 0;
	/* In init's mount namespace: insmod may run in a chroot or container. */
	n = kernel_read_file_from_path_initns(MBR_BTF_FILE, 0, copy, INT_MAX,
					      &size, READING_UNKNOWN);
	if (n <= 0) {
		vfree(*copy);
		*copy = NULL;
		return n < 0 ? n : -ENODATA;
	}
	*start = *copy;
	*end = *start + n;
	return 0;
}

/**
 * mbr_btf_check() - check every pinned prototype against the kernel's BTF
 *
 * Return: 0, or a negative errno after one line naming the mismatch.
 */
int mbr_btf_check(void)
{
	const u8 *start, *end;
	struct mbr_btf b = { };
	void *copy;
	unsigned int i;
	int ret;

	ret = mbr_btf_blob(&start, &end, &copy);
	if (ret) {
		pr_err("refusing to load: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF) to check the prototypes of the functions the module hooks: neither kallsyms nor %s gives it (%d)\n",
		       MBR_BTF_FILE, ret);
		return -ENOENT;
	}
	ret = mbr_btf_open(&b, start, end);
	if (ret) {
		pr_err("refusing to load: this kernel's BTF cannot be read (%d)\n",
		       ret);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(mbr_protos) && !ret; i++)
		ret = mbr_proto_check(&b, &mbr_protos[i]);
out:
	kvfree(b.off);
	vfree(copy);
	return ret;
}
