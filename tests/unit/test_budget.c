// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of cpu_budget's parser and token bucket
 * (include/budget.h). Output is TAP.
 */
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "tap.h"

static int parse(const char *s, char sep, u64 period, struct mbr_budget *b)
{
	return mbr_budget_parse(s, strlen(s), sep, period, b);
}

static void test_parse(void)
{
	static const char *const bad[] = {
		"", "\n", "maxx", "ma", "-1 100000", "999 100000", "10000 999",
		"10000 1000001", "10000  100000", "10000 100000 1", " 10000",
		"10000 ", "1e4 100000", "max 0", "99999999999999999999 100000",
		"1099511627777 100000",
	};
	struct mbr_budget b = { 7, 7 };
	unsigned int i;
	int all = 1;

	ok(!parse("10000 100000\n", ' ', 100000, &b) && b.quota_us == 10000 &&
	   b.period_us == 100000, "\"10000 100000\" as cpu.max reads it");
	ok(!parse("5000", ' ', 20000, &b) && b.quota_us == 5000 &&
	   b.period_us == 20000, "a quota alone keeps the period set");
	ok(!parse("max", ' ', 50000, &b) && b.quota_us == 0 &&
	   b.period_us == 50000 && !mbr_budget_set(&b), "max: no budget");
	ok(!parse("max 1000000", ' ', 100000, &b) && !b.quota_us &&
	   b.period_us == 1000000, "max PERIOD");
	ok(!parse("1000 1000", ' ', 100000, &b) && b.quota_us == 1000 &&
	   b.period_us == 1000, "the smallest quota and period");
	ok(!parse("200000 100000", ' ', 100000, &b) && b.quota_us == 200000,
	   "a quota above the period, as cpu.max accepts");
	ok(!parse("10000/100000", '/', 100000, &b) && b.quota_us == 10000 &&
	   b.period_us == 100000, "a rule's QUOTA/PERIOD");
	ok(parse("10000 100000", '/', 100000, &b) == -EINVAL,
	   "a rule token takes no space");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = (struct mbr_budget){ 7, 7 };
		if (parse(bad[i], ' ', 100000, &b) != -EINVAL || b.quota_us != 7) {
			printf("# accepted '%s'\n", bad[i]);
			all = 0;
		}
	}
	ok(all, "malformed and out-of-range budgets are refused, untouched");
}

/*
 * A worker that runs turns of @turn_ns back to back whenever admitted,
 * for @periods periods: the CPU it is allowed must be quota per period,
 * give or take one turn.
 */
static u64 simulate(const struct mbr_budget *b, u64 turn_ns, unsigned int periods)
{
	struct mbr_bucket bk;
	u64 now = 1000000000ULL, end, until, used = 0;

	end = now + periods * b->period_us * 1000;
	mbr_bucket_reset(&bk, b, now);
	while (now < end) {
		if (mbr_bucket_admit(&bk, b, now, &until)) {
			mbr_bucket_charge(&bk, turn_ns);
			used += turn_ns;
			now += turn_ns;
		} else {
			if (until <= now) {
				printf("# held back until %llu at %llu\n",
				       (unsigned long long)until,
				       (unsigned long long)now);
				return ~0ULL;
			}
			now = until;
		}
	}
	return used;
}

static void test_bucket(void)
{
	struct mbr_budget b = { 10000, 100000 };
	struct mbr_bucket bk;
	u64 used, until = 0;

	used = simulate(&b, 300000, 100);	/* 0.3 ms turns */
	ok(used >= 100 * 10000000ULL && used <= 100 * 10000000ULL + 300000,
	   "0.3 ms turns: 10 ms of every 100 ms, within one turn");
	used = simulate(&b, 25000000, 100);	/* 25 ms turns: debt */
	ok(used <= 100 * 10000000ULL + 25000000,
	   "25 ms turns overrun the quota, and the debt is paid back");
	ok(used >= 100 * 10000000ULL - 25000000,
	   "and the debt does not starve the group beyond it");

	mbr_bucket_reset(&bk, &b, 1000);
	mbr_bucket_charge(&bk, 35000000);	/* 3.5 periods' quota */
	ok(!mbr_bucket_admit(&bk, &b, 1000 + 100000000ULL * 2 + 5, &until) &&
	   until == 1000 + 100000000ULL * 3,
	   "a debt of 2.5 quotas is held back for the next two periods");
	ok(mbr_bucket_admit(&bk, &b, 1000 + 100000000ULL * 3, &until) &&
	   bk.left_ns == 5000000, "then runs on the half quota left");
	mbr_bucket_reset(&bk, &b, 1000);
	ok(mbr_bucket_admit(&bk, &b, 1000 + 100000000ULL * 1000000, &until) &&
	   bk.left_ns == 10000000, "a long idle refills to one quota, no more");
}

int main(void)
{
	test_parse();
	test_bucket();
	printf("1..%d\n", nr_test);
	return nr_fail != 0;
}
