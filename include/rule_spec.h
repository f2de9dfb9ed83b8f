/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure rule logic: the parser of a rule line ("PATH key=value ...", the
 * rule_add file and the config file's rule lines alike) and the filter
 * that decides whether a rule applies to a cgroup (name glob, depth).
 * No kernel state is used, so the host unit tests and the CLI compile
 * this same header in user space.
 */
#ifndef MBR_RULE_SPEC_H
#define MBR_RULE_SPEC_H

#include "budget.h"
#include "wmark.h"
#ifdef __KERNEL__
#include <linux/kernel.h>
#else
#include <stdio.h>
#endif

/* A glob is at most this long; cgroup names are at most NAME_MAX. */
#define MBR_MATCH_MAX	128

/* A parsed rule line. The path points into the parsed buffer. */
struct mbr_rule_spec {
	const char *path;
	size_t path_len;
	struct mbr_wmark_conf wm;
	struct mbr_budget budget;	/* each group's cpu_budget */
	char match[MBR_MATCH_MAX];	/* "" matches every name */
	unsigned int max_depth;		/* 0: any depth below the rule */
};

/*
 * Glob match of a whole cgroup name: '*' matches any run of characters
 * (none included), '?' exactly one, every other character itself. No
 * classes and no escapes: cgroup names in practice (systemd units,
 * container ids) need neither. Iterative, with one backtrack point, so
 * its cost is bounded by the lengths' product and it never recurses.
 */
static inline bool mbr_glob_match(const char *pat, const char *str)
{
	const char *star = NULL, *resume = NULL;

	while (*str) {
		if (*pat == '*') {
			star = pat++;
			resume = str;
		} else if (*pat == '?' || *pat == *str) {
			pat++;
			str++;
		} else if (star) {
			pat = star + 1;
			str = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

/*
 * Does a rule apply to a cgroup @depth levels below the rule's own
 * (1 for a child), named @name?
 */
static inline bool mbr_rule_spec_matches(const char *match,
					 unsigned int max_depth,
					 const char *name, unsigned int depth)
{
	if (!depth || (max_depth && depth > max_depth))
		return false;
	return !match[0] || mbr_glob_match(match, name);
}

static inline bool mbr_spec_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The value of "key=value" if @tok (of @len) starts with @key=, or NULL. */
static inline const char *mbr_spec_value(const char *tok, size_t len,
					 const char *key, size_t *vlen)
{
	size_t k = 0;

	while (key[k] && k < len && tok[k] == key[k])
		k++;
	if (key[k] || k >= len || tok[k] != '=')
		return NULL;
	*vlen = len - k - 1;
	return tok + k + 1;
}

/* The keys of a rule line, in the order of mbr_rule_spec_parse()'s names. */
enum { MBR_KEY_RATIO, MBR_KEY_SCALE, MBR_KEY_HIGH, MBR_KEY_LOW,
	MBR_KEY_MATCH, MBR_KEY_DEPTH, MBR_KEY_BUDGET, MBR_KEY_AUTO,
	MBR_NR_KEYS };

/* One "key=value" token into @spec; 0 or -EINVAL. */
static inline int mbr_rule_spec_key(struct mbr_rule_spec *spec,
				    unsigned int key, const char *v,
				    size_t vlen)
{
	unsigned int num;
	size_t i;
	u64 size;

	switch (key) {
	case MBR_KEY_RATIO:
		if (mbr_parse_uint(v, vlen, 1, MBR_RATIO_MAX, &num))
			return -EINVAL;
		spec->wm.ratio = num;
		return 0;
	case MBR_KEY_SCALE:
		if (mbr_parse_uint(v, vlen, MBR_SCALE_MIN, MBR_SCALE_MAX, &num))
			return -EINVAL;
		spec->wm.scale = num;
		return 0;
	case MBR_KEY_HIGH:
	case MBR_KEY_LOW:
		if (mbr_parse_size(v, vlen, &size) || !size)
			return -EINVAL;
		if (key == MBR_KEY_HIGH)
			spec->wm.high_dist = size;
		else
			spec->wm.low_dist = size;
		return 0;
	case MBR_KEY_MATCH:
		if (!vlen || vlen >= MBR_MATCH_MAX)
			return -EINVAL;
		for (i = 0; i < vlen; i++) {
			if (v[i] == '/' || v[i] == '\0')
				return -EINVAL;
			spec->match[i] = v[i];
		}
		spec->match[vlen] = '\0';
		return 0;
	case MBR_KEY_DEPTH:
		if (mbr_parse_uint(v, vlen, 1, 1000, &num))
			return -EINVAL;
		spec->max_depth = num;
		return 0;
	case MBR_KEY_BUDGET:
		return mbr_budget_parse(v, vlen, '/', MBR_BUDGET_PERIOD_DEFAULT,
					&spec->budget);
	case MBR_KEY_AUTO:
		if (mbr_parse_switch(v, vlen, &spec->wm.autotune) ||
		    !spec->wm.autotune)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Parse "PATH key=value ..." (tokens separated by spaces or tabs, an
 * optional final newline). Keys: ratio=1..100 and scale=1..1000 (scale
 * only with ratio; default 50), or high=SIZE and low=SIZE (both, with
 * high > low > 0), or auto=1 (wmark_auto; with ratio= as its bound, no
 * scale, high or low); match=GLOB (at most MBR_MATCH_MAX - 1 characters,
 * no '/'); depth=N (1 to 1000); cpu_budget=QUOTA/PERIOD, QUOTA or max
 * (cpu.max's format with '/' for the space, microseconds; each group's
 * own). Each key at most once.
 * Returns 0, or -EINVAL with *@bad set to the offending token (or to the
 * path when the line as a whole is incomplete).
 */
static inline int mbr_rule_spec_parse(const char *buf, size_t len,
				      struct mbr_rule_spec *spec,
				      const char **bad)
{
	static const char *const keys[MBR_NR_KEYS] = {
		"ratio", "scale", "high", "low", "match", "depth",
		"cpu_budget", "auto",
	};
	unsigned int seen = 0, key;
	const char *end, *tok, *v = NULL;
	size_t vlen = 0;

	*spec = (struct mbr_rule_spec){
		.wm.scale = MBR_SCALE_DEFAULT,
		.budget.period_us = MBR_BUDGET_PERIOD_DEFAULT,
	};
	*bad = buf;
	if (len && buf[len - 1] == '\n')
		len--;
	end = buf + len;
	while (buf < end && mbr_spec_space(*buf))
		buf++;
	tok = buf;
	while (buf < end && !mbr_spec_space(*buf))
		buf++;
	if (buf == tok)
		return -EINVAL;
	spec->path = tok;
	spec->path_len = buf - tok;

	for (;;) {
		while (buf < end && mbr_spec_space(*buf))
			buf++;
		if (buf == end)
			break;
		tok = buf;
		while (buf < end && !mbr_spec_space(*buf))
			buf++;
		*bad = tok;
		for (key = 0; key < MBR_NR_KEYS; key++) {
			v = mbr_spec_value(tok, buf - tok, keys[key], &vlen);
			if (v)
				break;
		}
		if (key == MBR_NR_KEYS || (seen & (1U << key)) ||
		    mbr_rule_spec_key(spec, key, v, vlen))
			return -EINVAL;
		seen |= 1U << key;
	}

	/* Exactly one of the three forms, complete. */
	*bad = spec->path;
	if (seen & (1U << MBR_KEY_AUTO))
		return seen & (1U << MBR_KEY_SCALE | 1U << MBR_KEY_HIGH |
			       1U << MBR_KEY_LOW) ? -EINVAL : 0;
	if (seen & (1U << MBR_KEY_RATIO))
		return seen & (1U << MBR_KEY_HIGH | 1U << MBR_KEY_LOW) ?
			-EINVAL : 0;
	if ((seen & (1U << MBR_KEY_SCALE)) || !spec->wm.high_dist ||
	    !spec->wm.low_dist)
		return -EINVAL;
	return spec->wm.high_dist > spec->wm.low_dist ? 0 : -EINVAL;
}

/*
 * A rule's settings as the rules file shows them and as the CLI compares
 * them (so that an unchanged rule compares equal): the path, the marks in
 * their one form ("auto=1[ ratio=N]", "ratio=N scale=N" or "high=BYTES
 * low=BYTES"), then match=, depth= and cpu_budget= where set. With
 * snprintf()'s contract: writes at most @size bytes, NUL included, and
 * returns the length the whole text needs, so that @size 0 (and a NULL
 * @buf) only measures it.
 */
static inline size_t mbr_rule_spec_format(char *buf, size_t size,
					  const struct mbr_rule_spec *s)
{
	size_t n = 0;

#define MBR_ADD(...) \
	(n += snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, \
		       __VA_ARGS__))
	MBR_ADD("%.*s", (int)s->path_len, s->path);
	if (s->wm.autotune)
		MBR_ADD(" auto=1");
	if (s->wm.autotune && s->wm.ratio)
		MBR_ADD(" ratio=%u", s->wm.ratio);
	else if (s->wm.ratio)
		MBR_ADD(" ratio=%u scale=%u", s->wm.ratio, s->wm.scale);
	else if (!s->wm.autotune)
		MBR_ADD(" high=%llu low=%llu",
			(unsigned long long)s->wm.high_dist,
			(unsigned long long)s->wm.low_dist);
	if (s->match[0])
		MBR_ADD(" match=%s", s->match);
	if (s->max_depth)
		MBR_ADD(" depth=%u", s->max_depth);
	if (mbr_budget_set(&s->budget))
		MBR_ADD(" cpu_budget=%llu/%llu",
			(unsigned long long)s->budget.quota_us,
			(unsigned long long)s->budget.period_us);
#undef MBR_ADD
	return n;
}

#endif /* MBR_RULE_SPEC_H */
