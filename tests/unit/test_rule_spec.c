// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the rule line parser and the rule filter
 * (include/rule_spec.h). Output is TAP.
 */
#include <stdio.h>
#include <string.h>

#include "rule_spec.h"
#include "tap.h"

static int parse(const char *s, struct mbr_rule_spec *spec, const char **bad)
{
	return mbr_rule_spec_parse(s, strlen(s), spec, bad);
}

static void test_parse_good(void)
{
	struct mbr_rule_spec sp;
	const char *bad;

	ok(!parse("/kubepods.slice ratio=80\n", &sp, &bad) &&
	   sp.path_len == 15 && !strncmp(sp.path, "/kubepods.slice", 15) &&
	   sp.wm.ratio == 80 && sp.wm.scale == 50 && !sp.match[0] &&
	   !sp.max_depth, "ratio rule, default scale");
	ok(!parse("/k ratio=90 scale=200 match=*.scope depth=3", &sp, &bad) &&
	   sp.wm.scale == 200 && !strcmp(sp.match, "*.scope") &&
	   sp.max_depth == 3, "ratio, scale, match, depth");
	ok(!parse("  /k\thigh=24m  low=12m ", &sp, &bad) &&
	   sp.wm.high_dist == 24 << 20 && sp.wm.low_dist == 12 << 20 &&
	   !sp.wm.ratio, "distances, spaces and tabs");
	ok(!parse("12345 ratio=1", &sp, &bad) && sp.path_len == 5,
	   "an id as path");
	ok(!parse("/k auto=1", &sp, &bad) && sp.wm.autotune && !sp.wm.ratio,
	   "auto alone");
	ok(!parse("/k auto=1 ratio=70 depth=1", &sp, &bad) && sp.wm.autotune &&
	   sp.wm.ratio == 70 && sp.max_depth == 1, "auto bounded by a ratio");
}

static void test_parse_bad(void)
{
	static const char *const bad_lines[] = {
		"", "/k", "/k ratio=0", "/k ratio=101", "/k ratio=",
		"/k ratio=80 high=8m", "/k high=8m", "/k low=4m",
		"/k high=4m low=8m", "/k high=8m low=8m", "/k high=0 low=0",
		"/k ratio=80 ratio=70", "/k high=8m low=4m scale=5",
		"/k ratio=80 match=a/b", "/k ratio=80 match=", "/k ratio=80 depth=0",
		"/k ratio=80 foo=1", "/k ratio=80 ratio", "/k ratio=80 scale=0",
		"/k ratio=80 scale=1001", "/k ratio=8x", "/k high=1q low=1m",
		"/k auto=0", "/k auto=2", "/k auto=", "/k auto=1 scale=5",
		"/k auto=1 high=8m low=4m", "/k auto=1 low=4m", "/k auto=1 auto=1",
		"/k auto=01", "/k auto=1x",
	};
	struct mbr_rule_spec sp;
	const char *bad;
	char desc[96];
	size_t i;

	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		snprintf(desc, sizeof(desc), "refuses '%s'", bad_lines[i]);
		ok(parse(bad_lines[i], &sp, &bad) == -EINVAL, desc);
	}
	ok(parse("\n", &sp, &bad) == -EINVAL, "refuses a lone newline");
	parse("/k ratio=80 foo=1 depth=2", &sp, &bad);
	ok(!strncmp(bad, "foo=1", 5), "the error points at the bad token");
}

static void test_glob(void)
{
	ok(mbr_glob_match("*.scope", "cri-containerd-abc.scope"), "*.scope");
	ok(!mbr_glob_match("*.scope", "pod.slice"), "*.scope vs a slice");
	ok(mbr_glob_match("*-pod*.slice", "kubepods-burstable-pod12.slice"),
	   "*-pod*.slice");
	ok(mbr_glob_match("a?c", "abc") && !mbr_glob_match("a?c", "ac"), "?");
	ok(mbr_glob_match("*", "") && mbr_glob_match("", "") &&
	   !mbr_glob_match("", "a"), "empty cases");
	ok(mbr_glob_match("**a**b", "xaxxb") && !mbr_glob_match("*a*b", "xbxa"),
	   "several stars");
	ok(!mbr_glob_match("abc", "abcd") && !mbr_glob_match("abcd", "abc"),
	   "whole name only");
}

static void test_filter(void)
{
	ok(!mbr_rule_spec_matches("", 0, "x", 0), "never the rule's own cgroup");
	ok(mbr_rule_spec_matches("", 0, "x", 7), "no filter: any depth");
	ok(mbr_rule_spec_matches("", 2, "x", 2) &&
	   !mbr_rule_spec_matches("", 2, "x", 3), "depth is a maximum");
	ok(!mbr_rule_spec_matches("*.scope", 0, "a.slice", 1), "glob filters");
}

static void test_budget_key(void)
{
	struct mbr_rule_spec sp;
	const char *bad;

	ok(!parse("/k ratio=80 cpu_budget=10000/100000", &sp, &bad) &&
	   sp.budget.quota_us == 10000 && sp.budget.period_us == 100000,
	   "cpu_budget=QUOTA/PERIOD");
	ok(!parse("/k ratio=80 cpu_budget=20000", &sp, &bad) &&
	   sp.budget.quota_us == 20000 && sp.budget.period_us == 100000,
	   "cpu_budget=QUOTA takes the default period");
	ok(!parse("/k ratio=80", &sp, &bad) && !mbr_budget_set(&sp.budget) &&
	   sp.budget.period_us == 100000, "no cpu_budget: max");
	ok(parse("/k ratio=80 cpu_budget=10", &sp, &bad) == -EINVAL &&
	   !strncmp(bad, "cpu_budget=10", 13), "a quota under 1 ms is refused, and named");
	ok(parse("/k ratio=80 cpu_budget=max cpu_budget=max", &sp, &bad) == -EINVAL,
	   "cpu_budget at most once");
}

/* fmt(LINE): LINE parsed, then formatted as the rules file shows it. */
static const char *fmt(const char *line)
{
	static char out[512];
	struct mbr_rule_spec sp;
	const char *bad;

	if (parse(line, &sp, &bad))
		return "(refused)";
	if (mbr_rule_spec_format(out, sizeof(out), &sp) >= sizeof(out))
		return "(too long)";
	return out;
}

static void test_format(void)
{
	struct mbr_rule_spec sp;
	const char *bad;
	char small[8], once[512];
	size_t n;

	ok(!strcmp(fmt("/k  high=24m low=12m"), "/k high=25165824 low=12582912"),
	   "format: distances in bytes");
	ok(!strcmp(fmt("/k ratio=80 depth=2"), "/k ratio=80 scale=50 depth=2"),
	   "format: a ratio with its scale made explicit");
	ok(!strcmp(fmt("/k auto=1"), "/k auto=1"), "format: auto alone");
	ok(!strcmp(fmt("/k depth=1 ratio=70 auto=1 match=*.scope cpu_budget=10000"),
		   "/k auto=1 ratio=70 match=*.scope depth=1 cpu_budget=10000/100000"),
	   "format: every key, in the file's order");
	snprintf(once, sizeof(once), "%s",
		 fmt("/k ratio=90 scale=200 cpu_budget=5000/50000"));
	ok(!strcmp(fmt(once), once) &&
	   !strcmp(once, "/k ratio=90 scale=200 cpu_budget=5000/50000"),
	   "format: its own output parses back to itself");
	parse("/kubepods.slice ratio=80", &sp, &bad);
	n = mbr_rule_spec_format(NULL, 0, &sp);
	ok(n == strlen("/kubepods.slice ratio=80 scale=50") &&
	   mbr_rule_spec_format(small, sizeof(small), &sp) == n &&
	   !strcmp(small, "/kubepo"),
	   "format: size 0 measures; a short buffer is cut and NUL-ended");
}

int main(void)
{
	test_format();
	test_budget_key();
	test_parse_good();
	test_parse_bad();
	test_glob();
	test_filter();
	printf("1..%d\n", nr_test);
	return nr_fail != 0;
}
