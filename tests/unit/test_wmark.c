// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the pure watermark logic (include/wmark.h): the
 * seed patches' arithmetic and write rules, and the size parser.
 * Output is TAP.
 */
#include <stdio.h>
#include <string.h>

#include "wmark.h"
#include "tap.h"

#define MiB (1ULL << 20)

static int parse(const char *s, u64 *v)
{
	return mbr_parse_size(s, strlen(s), v);
}

static void test_seed_example(void)
{
	struct mbr_marks m = mbr_marks_compute(500 * MiB, 50 * MiB, 40 * MiB);

	ok(m.low == 482344960ULL, "seed example low_wmark 482344960");
	ok(m.high == 471859200ULL, "seed example high_wmark 471859200");
}

static void test_inactive(void)
{
	struct mbr_marks m;

	m = mbr_marks_compute(500 * MiB, 0, 0);
	ok(m.low == 500 * MiB && m.high == 500 * MiB,
	   "no distances: both marks at the limit");
	m = mbr_marks_compute(500 * MiB, 50 * MiB, 0);
	ok(m.low == 500 * MiB && m.high == 500 * MiB,
	   "high distance only: inactive, marks at the limit");
	ok(!mbr_marks_active(50 * MiB, 0), "low distance 0 is inactive");
	ok(!mbr_marks_active(0, 0), "high distance 0 is inactive");
	ok(mbr_marks_active(50 * MiB, 40 * MiB), "both set is active");
}

static void test_clamp(void)
{
	/* limit lowered to 45M under distances 50M/40M */
	struct mbr_marks m = mbr_marks_compute(45 * MiB, 50 * MiB, 40 * MiB);

	ok(m.low == 5 * MiB, "low mark follows a lowered limit");
	ok(m.high == 0, "high mark clamps at 0, no wrap-around");
	m = mbr_marks_compute(30 * MiB, 50 * MiB, 40 * MiB);
	ok(m.low == 0 && m.high == 0, "both marks clamp at 0");
}

static void test_rules(void)
{
	u64 lim = 500 * MiB;

	ok(!mbr_check_high_dist(lim, 0, 50 * MiB), "high set first: ok");
	ok(mbr_check_low_dist(lim, 0, 40 * MiB) == -EINVAL,
	   "low before high: EINVAL");
	ok(!mbr_check_low_dist(lim, 50 * MiB, 40 * MiB), "low below high: ok");
	ok(mbr_check_low_dist(lim, 50 * MiB, 50 * MiB) == -EINVAL,
	   "low == high: EINVAL");
	ok(mbr_check_low_dist(lim, 50 * MiB, 60 * MiB) == -EINVAL,
	   "low > high: EINVAL");
	ok(mbr_check_high_dist(lim, 40 * MiB, 40 * MiB) == -EINVAL,
	   "high == low: EINVAL");
	ok(mbr_check_high_dist(lim, 40 * MiB, 30 * MiB) == -EINVAL,
	   "high < low: EINVAL");
	ok(mbr_check_high_dist(lim, 40 * MiB, 0) == -EINVAL,
	   "high cleared before low: EINVAL");
	ok(!mbr_check_low_dist(lim, 50 * MiB, 0), "low cleared: ok");
	ok(!mbr_check_high_dist(lim, 0, 0), "high cleared after low: ok");
	ok(mbr_check_high_dist(lim, 0, lim) == -EINVAL, "high == limit: EINVAL");
	ok(mbr_check_high_dist(lim, 0, lim + 1) == -EINVAL,
	   "high > limit: EINVAL");
	ok(mbr_check_low_dist(lim, lim + 10, lim) == -EINVAL,
	   "low == limit: EINVAL");
	ok(!mbr_check_high_dist(lim, 0, lim - 1), "high just below limit: ok");
}

static void test_parse(void)
{
	u64 v = 0;

	ok(!parse("40m", &v) && v == 40 * MiB, "40m");
	ok(!parse("40M\n", &v) && v == 40 * MiB, "40M with newline");
	ok(!parse("1G", &v) && v == 1ULL << 30, "1G");
	ok(!parse("4096", &v) && v == 4096, "4096");
	ok(!parse("0", &v) && v == 0, "0");
	ok(!parse("3k", &v) && v == 3072, "3k");
	ok(!parse("18446744073709551615", &v) && v == ~0ULL, "u64 max");
	ok(!parse("15e", &v) && v == 15ULL << 60, "15e");
	ok(parse("16e", &v) == -EINVAL, "16e overflows");
	ok(parse("99999999999999999999", &v) == -EINVAL, "20 nines overflow");
	ok(parse("18446744073709551616", &v) == -EINVAL, "u64 max + 1");
	ok(parse("abc", &v) == -EINVAL, "abc");
	ok(parse("-1", &v) == -EINVAL, "-1");
	ok(parse("1x", &v) == -EINVAL, "1x");
	ok(parse("", &v) == -EINVAL, "empty");
	ok(parse("\n", &v) == -EINVAL, "newline only");
	ok(parse("1mm", &v) == -EINVAL, "two suffixes");
	ok(parse(" 1", &v) == -EINVAL, "leading space");
	ok(parse("1 ", &v) == -EINVAL, "trailing space");
	ok(parse("1\n\n", &v) == -EINVAL, "two newlines");
	ok(parse("+1", &v) == -EINVAL, "plus sign");
	ok(parse("0x10", &v) == -EINVAL, "hex");
	ok(mbr_parse_size("12\0", 3, &v) == -EINVAL, "embedded NUL");
}

static void test_switch(void)
{
	bool b;

	ok(!mbr_parse_switch("1", 1, &b) && b, "switch 1");
	ok(!mbr_parse_switch("0\n", 2, &b) && !b, "switch 0 with newline");
	ok(mbr_parse_switch("2", 1, &b) == -EINVAL, "switch 2");
	ok(mbr_parse_switch("", 0, &b) == -EINVAL, "switch empty");
	ok(mbr_parse_switch("10", 2, &b) == -EINVAL, "switch 10");
}

static void test_ratio(void)
{
	struct mbr_wmark_conf c = { .ratio = 80, .scale = 50 };
	u64 lim = 100 * MiB, odd = 100 * MiB + 12288, huge = ~0ULL >> 1;
	struct mbr_marks m;

	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == 83886080ULL, "ratio 80: start 80% of 100M");
	ok(m.high == 83886080ULL - 524288, "scale 50: stop 0.5% of the limit below");
	c.ratio = 33;
	c.scale = 7;
	m = mbr_conf_marks(&c, odd, 0);
	ok(m.low == odd * 33 / 100, "start rounds down");
	ok(m.high == odd * 33 / 100 - odd * 7 / 10000, "gap rounds down");
	c.scale = 1000;
	c.ratio = 5;
	m = mbr_conf_marks(&c, lim, 0);
	ok(m.high == 0, "a gap above the start clamps the stop mark at 0");
	c.ratio = 100;
	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == lim, "ratio 100: start at the limit");
	c.ratio = 99;
	m = mbr_conf_marks(&c, huge, 0);
	ok(m.low == huge / 100 * 99 + huge % 100 * 99 / 100,
	   "a 2^63 limit does not overflow");
	ok(m.low < huge && m.low > huge / 100 * 98, "and stays in range");
	c.ratio = 0;
	c.high_dist = 24 * MiB;
	c.low_dist = 12 * MiB;
	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == 88 * MiB && m.high == 76 * MiB,
	   "ratio 0: the distances decide");
	ok(mbr_conf_active(&c), "distances alone are active");
	c.high_dist = 0;
	c.low_dist = 0;
	ok(!mbr_conf_active(&c), "nothing set is inactive");
	c.ratio = 1;
	ok(mbr_conf_active(&c), "a ratio alone is active");
}

static void test_auto(void)
{
	struct mbr_wmark_conf c = { .autotune = true, .ratio = 80,
				    .high_dist = 24 * MiB, .low_dist = 12 * MiB };
	u64 lim = 128 * MiB, h;
	struct mbr_marks m;

	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == lim - 12 * MiB - 819 * 1024 - 205,
	   "auto starts at half its bound (ratio 80: 25.6M / 2)");
	c.ratio = 0;
	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == lim - 16 * MiB && m.high == lim - 20 * MiB,
	   "no ratio: bound a quarter of the limit, stop a quarter below");
	m = mbr_conf_marks(&c, lim, 2 * MiB);
	ok(m.low == lim - 2 * MiB && m.high == lim - 3 * MiB,
	   "a small headroom keeps a gap of MBR_AUTO_GAP_MIN");
	m = mbr_conf_marks(&c, lim, 1);
	ok(m.low == lim - MBR_AUTO_MIN, "the headroom is at least MBR_AUTO_MIN");
	m = mbr_conf_marks(&c, lim, lim);
	ok(m.low == lim - lim / 4, "and at most its bound");
	m = mbr_conf_marks(&c, MiB, 0);
	ok(m.low == MiB - MiB / 4 && m.high == 0,
	   "under 4 MiB the bound wins over MBR_AUTO_MIN; stop clamps at 0");
	c.ratio = 100;
	m = mbr_conf_marks(&c, lim, 0);
	ok(m.low == lim, "ratio 100: the wake mark stays at the limit");
	c.ratio = 99;
	m = mbr_conf_marks(&c, 64 * MiB, 8 * MiB);
	ok(m.low == mbr_frac(64 * MiB, 99, 100), "ratio 99: never below the ratio's mark");
	c.ratio = 0;
	ok(mbr_conf_active(&c), "auto alone is active");

	h = mbr_auto_next(16 * MiB, 4 * MiB, false, lim, 0);
	ok(h == 16 * MiB - (16 * MiB - 6 * MiB) / 4,
	   "a cycle that used less shrinks by a quarter of the excess");
	h = mbr_auto_next(4 * MiB, 8 * MiB, false, lim, 0);
	ok(h == 12 * MiB, "a cycle that used more grows to it and half again");
	h = mbr_auto_next(4 * MiB, 0, true, lim, 0);
	ok(h == 8 * MiB, "a stall doubles it");
	h = mbr_auto_next(4 * MiB, 8 * MiB, true, lim, 0);
	ok(h == 12 * MiB, "or grows to what the cycle used, if more");
	h = mbr_auto_next(30 * MiB, 30 * MiB, true, lim, 0);
	ok(h == lim / 4, "never past its bound");
	h = mbr_auto_next(4 * MiB, 0, false, lim, 0);
	ok(h == 3 * MiB, "a quiet cycle shrinks it");
	h = mbr_auto_next(2 * MiB + 4, 0, false, lim, 0);
	ok(h == MBR_AUTO_MIN, "but not under MBR_AUTO_MIN");
	for (h = 32 * MiB; h > MBR_AUTO_MIN;)
		h = mbr_auto_next(h, 0, false, lim, 0);
	ok(h == MBR_AUTO_MIN, "quiet cycles take it down to MBR_AUTO_MIN");
}

static void test_boost(void)
{
	struct mbr_wmark_conf c = { .ratio = 95, .scale = 20 };
	u64 lim = 96 * MiB, conf, b;
	struct mbr_marks m, mb;

	m = mbr_conf_marks(&c, lim, 0);
	conf = lim - m.low;
	ok(mbr_boost_next(0, 0, false, 99, lim, conf) == 0,
	   "boost: a quiet cycle leaves none");
	b = mbr_boost_next(0, conf, true, 0, lim, conf);
	ok(b == 2 * conf, "a stall doubles the configured headroom");
	ok(mbr_boost_next(0, 8 * MiB, true, 0, lim, conf) == 12 * MiB,
	   "or takes what the cycle used and half again, if more");
	ok(mbr_boost_next(b, 8 * MiB, false, 99, lim, conf) == b,
	   "a cycle without a stall that used more keeps it");
	ok(mbr_boost_next(b, 0, false, MBR_BOOST_HOLD, lim, conf) == b,
	   "the boost holds for MBR_BOOST_HOLD quiet cycles");
	ok(mbr_boost_next(b, 0, false, MBR_BOOST_HOLD + 1, lim, conf) ==
	   b - (b + 3) / 4, "a quiet cycle after those gives back a quarter");
	ok(mbr_boost_next(20 * MiB, 20 * MiB, true, 0, lim, conf) == lim / 4,
	   "never past a quarter of the limit");
	ok(mbr_boost_next(0, 0, true, 0, 8 * MiB, 4 * MiB) == 0,
	   "nor past the configured headroom where that is more");
	for (b = 2 * conf; b;)
		b = mbr_boost_next(b, 0, false, MBR_BOOST_HOLD + 1, lim, conf);
	ok(b == 0, "quiet cycles take it back to none");

	mb = mbr_conf_marks_boosted(&c, lim, 0, 2 * conf);
	ok(mb.low == m.low - conf && mb.high == m.high - conf,
	   "a boost moves both marks down together");
	mb = mbr_conf_marks_boosted(&c, lim, 0, conf);
	ok(mb.low == m.low && mb.high == m.high,
	   "a boost at the configured headroom changes nothing");
	mb = mbr_conf_marks_boosted(&c, lim, 0, 2 * lim);
	ok(mb.low == lim - lim / 4 && mb.high == m.high - (lim / 4 - conf),
	   "a boost past a quarter of the limit (the limit fell) stops there");
	mb = mbr_conf_marks_boosted(&c, 8 * MiB, 0, 4 * MiB);
	ok(mb.low == 6 * MiB, "a quarter of the limit now, not when learnt");
	c.ratio = 0;
	mb = mbr_conf_marks_boosted(&c, lim, 0, 8 * MiB);
	ok(mb.low == lim && mb.high == lim, "an inactive group is not boosted");
	c.high_dist = 2 * MiB;
	c.low_dist = 1 * MiB;
	mb = mbr_conf_marks_boosted(&c, lim, 0, 4 * MiB);
	ok(mb.low == lim - 4 * MiB && mb.high == lim - 5 * MiB,
	   "distances move as a ratio does");
	c.autotune = true;
	m = mbr_conf_marks(&c, lim, 0);
	mb = mbr_conf_marks_boosted(&c, lim, 0, lim / 4);
	ok(mb.low == m.low && mb.high == m.high, "wmark_auto is never boosted");
}

static void test_uint(void)
{
	unsigned int v = 7;

	ok(!mbr_parse_uint("80\n", 3, 0, 100, &v) && v == 80, "uint 80");
	ok(!mbr_parse_uint("0", 1, 0, 100, &v) && v == 0, "uint 0");
	ok(mbr_parse_uint("101", 3, 0, 100, &v) == -EINVAL, "uint above max");
	ok(mbr_parse_uint("0", 1, 1, 100, &v) == -EINVAL, "uint below min");
	ok(mbr_parse_uint("-1", 2, 0, 100, &v) == -EINVAL, "uint sign");
	ok(mbr_parse_uint("", 0, 0, 100, &v) == -EINVAL, "uint empty");
	ok(mbr_parse_uint("99999999999", 11, 0, 100, &v) == -EINVAL,
	   "uint too long");
	ok(mbr_parse_uint("4294967296", 10, 0, 0xffffffffU, &v) == -EINVAL,
	   "uint above 32 bits");
	ok(mbr_parse_uint("1 ", 2, 0, 100, &v) == -EINVAL, "uint trailing space");
}

int main(void)
{
	test_seed_example();
	test_inactive();
	test_clamp();
	test_rules();
	test_parse();
	test_switch();
	test_ratio();
	test_uint();
	test_auto();
	test_boost();
	printf("1..%d\n", nr_test);
	return nr_fail != 0;
}
