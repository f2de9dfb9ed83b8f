// SPDX-License-Identifier: GPL-2.0
/*
 * The counters behind the stat files, and their "key value" rendering.
 */
#include <linux/sysfs.h>

#include "mbr.h"

const unsigned int mbr_lat_bucket_ms[MBR_NR_LAT_BUCKETS - 1] = {
	1, 5, 10, 100, 500, 1000,
};

const char *const mbr_lat_bucket_name[MBR_NR_LAT_BUCKETS] = {
	"direct_latency_le_1ms", "direct_latency_le_5ms",
	"direct_latency_le_10ms", "direct_latency_le_100ms",
	"direct_latency_le_500ms", "direct_latency_le_1000ms",
	"direct_latency_le_inf",
};

/**
 * mbr_stats_add() - add one group's counters into a sum
 * @sum: the sum
 * @st: the group's counters
 */
void mbr_stats_add(struct mbr_stats *sum, const struct mbr_stats *st)
{
	unsigned int i;

	atomic64_add(atomic64_read(&st->wakeups), &sum->wakeups);
	atomic64_add(atomic64_read(&st->reclaim_runs), &sum->reclaim_runs);
	atomic64_add(atomic64_read(&st->reclaimed_pages),
		     &sum->reclaimed_pages);
	atomic64_add(atomic64_read(&st->reclaim_cpu_ns), &sum->reclaim_cpu_ns);
	atomic64_add(atomic64_read(&st->direct_reclaims),
		     &sum->direct_reclaims);
	atomic64_add(atomic64_read(&st->direct_reclaim_ns),
		     &sum->direct_reclaim_ns);
	for (i = 0; i < MBR_NR_LAT_BUCKETS; i++)
		atomic64_add(atomic64_read(&st->direct_latency[i]),
			     &sum->direct_latency[i]);
	atomic64_add(atomic64_read(&st->unreclaimable), &sum->unreclaimable);
	atomic64_add(atomic64_read(&st->budget_throttled),
		     &sum->budget_throttled);
	atomic64_add(atomic64_read(&st->budget_throttled_ns),
		     &sum->budget_throttled_ns);
	atomic64_add(atomic64_read(&st->auto_cycles), &sum->auto_cycles);
	atomic64_add(atomic64_read(&st->boosts), &sum->boosts);
}

static void mbr_emit(char *buf, int *len, const char *key,
		     const atomic64_t *v)
{
	*len += sysfs_emit_at(buf, *len, "%s %lld\n", key, atomic64_read(v));
}

/**
 * mbr_stats_show() - render counters as "key value" lines
 * @st: the counters
 * @buf: a sysfs page
 * @len: bytes used in @buf so far, updated
 */
void mbr_stats_show(const struct mbr_stats *st, char *buf, int *len)
{
	unsigned int i;

	mbr_emit(buf, len, "wakeups", &st->wakeups);
	mbr_emit(buf, len, "reclaim_runs", &st->reclaim_runs);
	mbr_emit(buf, len, "reclaimed_pages", &st->reclaimed_pages);
	mbr_emit(buf, len, "reclaim_cpu_ns", &st->reclaim_cpu_ns);
	mbr_emit(buf, len, "direct_reclaims", &st->direct_reclaims);
	mbr_emit(buf, len, "direct_reclaim_ns", &st->direct_reclaim_ns);
	for (i = 0; i < MBR_NR_LAT_BUCKETS; i++)
		mbr_emit(buf, len, mbr_lat_bucket_name[i],
			 &st->direct_latency[i]);
	mbr_emit(buf, len, "unreclaimable", &st->unreclaimable);
	mbr_emit(buf, len, "budget_throttled", &st->budget_throttled);
	mbr_emit(buf, len, "budget_throttled_ns", &st->budget_throttled_ns);
	mbr_emit(buf, len, "auto_cycles", &st->auto_cycles);
	mbr_emit(buf, len, "boosts", &st->boosts);
}

/**
 * mbr_stats_account_direct() - account one direct reclaim stall
 * @st: the group's counters
 * @ns: how long the task spent in reclaim
 *
 * The histogram is cumulative, as "le" (less or equal) buckets are: a
 * 3 ms stall counts in le_5ms and every larger bucket, and le_inf
 * equals direct_reclaims.
 */
void mbr_stats_account_direct(struct mbr_stats *st, u64 ns)
{
	unsigned int i;

	for (i = 0; i < MBR_NR_LAT_BUCKETS; i++)
		if (i == MBR_NR_LAT_BUCKETS - 1 ||
		    ns <= (u64)mbr_lat_bucket_ms[i] * NSEC_PER_MSEC)
			atomic64_inc(&st->direct_latency[i]);
	atomic64_add(ns, &st->direct_reclaim_ns);
	atomic64_inc(&st->direct_reclaims);
}
