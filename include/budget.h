/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure CPU budget logic: the parser of cpu.max's format, which the
 * cpu_budget file and the rules' cpu_budget key share, and the token
 * bucket that enforces it. No kernel state is used, so the host unit
 * tests and the CLI compile this same header in user space.
 */
#ifndef MBR_BUDGET_H
#define MBR_BUDGET_H

#include "wmark.h"

#ifndef __KERNEL__
typedef int64_t s64;
#endif

/*
 * cpu.max's bounds: a period of 1 ms to 1 s, a quota of at least 1 ms.
 * The quota has no upper bound there; here one worker serves a group at
 * a time, so a quota above the period means "never held back", and is
 * accepted as cpu.max accepts it.
 */
#define MBR_BUDGET_PERIOD_MIN		1000ULL
#define MBR_BUDGET_PERIOD_MAX		1000000ULL
#define MBR_BUDGET_PERIOD_DEFAULT	100000ULL
#define MBR_BUDGET_QUOTA_MIN		1000ULL
#define MBR_BUDGET_QUOTA_MAX		(1ULL << 40)	/* 12.7 days */

/* A group's CPU budget, in microseconds; quota 0 is "max" (none). */
struct mbr_budget {
	u64 quota_us;
	u64 period_us;
};

static inline bool mbr_budget_set(const struct mbr_budget *b)
{
	return b->quota_us != 0;
}

/*
 * Parse cpu.max's format with @sep between the two fields: "QUOTA
 * PERIOD", "QUOTA" (the period is @period_us, the one already set),
 * "max" or "max PERIOD"; the sysfs file separates with a space, a rule
 * (whose tokens are space-separated) with '/'. One trailing newline.
 * Returns 0 or -EINVAL.
 */
static inline int mbr_budget_parse(const char *buf, size_t len, char sep,
				   u64 period_us, struct mbr_budget *out)
{
	const char *p2 = NULL;
	u64 quota = 0;
	size_t l1, i;

	if (len && buf[len - 1] == '\n')
		len--;
	l1 = len;
	for (i = 0; i < len; i++) {
		if (buf[i] == sep) {
			l1 = i;
			p2 = buf + i + 1;
			break;
		}
	}
	if (p2 && mbr_parse_digits(p2, len - l1 - 1, 19, &period_us))
		return -EINVAL;
	if (period_us < MBR_BUDGET_PERIOD_MIN ||
	    period_us > MBR_BUDGET_PERIOD_MAX)
		return -EINVAL;
	if (!(l1 == 3 && buf[0] == 'm' && buf[1] == 'a' && buf[2] == 'x')) {
		if (mbr_parse_digits(buf, l1, 19, &quota) ||
		    quota < MBR_BUDGET_QUOTA_MIN || quota > MBR_BUDGET_QUOTA_MAX)
			return -EINVAL;
	}
	out->quota_us = quota;
	out->period_us = period_us;
	return 0;
}

/*
 * The token bucket behind a budget, kept by the one worker that holds
 * the group. Like CFS bandwidth control, a turn may overrun what is
 * left (a reclaim call cannot be cut short); the overrun is a debt that
 * the next periods' quotas pay first, so that over any run of periods
 * the CPU spent stays within quota per period plus one turn.
 */
struct mbr_bucket {
	u64 start_ns;	/* the current period's start */
	s64 left_ns;	/* runtime left in it; negative: debt */
};

/* Bring @bk to the period that holds @now_ns. */
static inline void mbr_bucket_refill(struct mbr_bucket *bk,
				     const struct mbr_budget *b, u64 now_ns)
{
	u64 period = b->period_us * 1000, quota = b->quota_us * 1000;
	u64 n, debt;

	if (now_ns < bk->start_ns + period)
		return;
	n = (now_ns - bk->start_ns) / period;
	bk->start_ns += n * period;
	debt = bk->left_ns < 0 ? (u64)-bk->left_ns : 0;
	/* Enough periods to pay any debt and fill the bucket. */
	if (n > debt / quota + 1)
		bk->left_ns = quota;
	else if ((s64)(bk->left_ns + n * quota) > (s64)quota)
		bk->left_ns = quota;
	else
		bk->left_ns += n * quota;
}

/* A fresh bucket, full, its period starting at @now_ns. */
static inline void mbr_bucket_reset(struct mbr_bucket *bk,
				    const struct mbr_budget *b, u64 now_ns)
{
	bk->start_ns = now_ns;
	bk->left_ns = b->quota_us * 1000;
}

/*
 * May a turn start at @now_ns? If not, *@until_ns is when the current
 * period ends: the earliest time the next one may.
 */
static inline bool mbr_bucket_admit(struct mbr_bucket *bk,
				    const struct mbr_budget *b, u64 now_ns,
				    u64 *until_ns)
{
	mbr_bucket_refill(bk, b, now_ns);
	if (bk->left_ns > 0)
		return true;
	*until_ns = bk->start_ns + b->period_us * 1000;
	return false;
}

/* A turn spent @cpu_ns. */
static inline void mbr_bucket_charge(struct mbr_bucket *bk, u64 cpu_ns)
{
	bk->left_ns -= (s64)cpu_ns;
}

#endif /* MBR_BUDGET_H */
