/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure watermark logic: the seed patches' arithmetic and write rules and
 * the size parser behind every distance file. No kernel state is used,
 * so the host unit tests compile this same header in user space.
 */
#ifndef MBR_WMARK_H
#define MBR_WMARK_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <errno.h>
typedef uint64_t u64;
#endif

/* Watermarks of one group, in bytes. */
struct mbr_marks {
	u64 low;	/* usage above this wakes background reclaim */
	u64 high;	/* background reclaim stops at or below this */
};

/*
 * low_wmark = limit - low_wmark_distance, high_wmark = limit -
 * high_wmark_distance. A group is active only when both distances are
 * set; an inactive group's marks both read as the limit, as in the
 * seeds. A distance that no longer fits under a lowered limit clamps
 * its mark at 0 rather than wrapping: reclaim then takes all it can and
 * backs off when it makes no progress.
 */
static inline bool mbr_marks_active(u64 high_dist, u64 low_dist)
{
	return high_dist && low_dist;
}

static inline struct mbr_marks mbr_marks_compute(u64 limit, u64 high_dist,
						 u64 low_dist)
{
	struct mbr_marks m = { .low = limit, .high = limit };

	if (!mbr_marks_active(high_dist, low_dist))
		return m;
	m.low = low_dist < limit ? limit - low_dist : 0;
	m.high = high_dist < limit ? limit - high_dist : 0;
	return m;
}

/*
 * Ratio watermarks (Alibaba Cloud Linux's memory.wmark_ratio and
 * memory.wmark_scale_factor, which Koordinator drives): background
 * reclaim wakes above limit * ratio / 100 and stops at or below that
 * minus limit * scale / 10000. A ratio of 0 is off.
 */
#define MBR_RATIO_MAX		100
#define MBR_SCALE_MIN		1
#define MBR_SCALE_MAX		1000
#define MBR_SCALE_DEFAULT	50

/* floor(x * num / den) for any 64-bit x, without overflow (num <= den). */
static inline u64 mbr_frac(u64 x, unsigned int num, unsigned int den)
{
	return x / den * num + x % den * num / den;
}

static inline struct mbr_marks mbr_marks_ratio(u64 limit, unsigned int ratio,
					       unsigned int scale)
{
	struct mbr_marks m = { .low = limit, .high = limit };
	u64 gap;

	if (!ratio)
		return m;
	m.low = mbr_frac(limit, ratio, 100);
	gap = mbr_frac(limit, scale, 10000);
	m.high = gap < m.low ? m.low - gap : 0;
	return m;
}

/*
 * Auto marks (wmark_auto): the module chooses the headroom, the distance
 * of the wake mark below the limit, itself. A fixed distance fits one
 * charge rate: a group must not reach its limit in the time the workers
 * take to answer a wakeup and catch up, and that time times the rate is
 * what a cycle (wake mark crossed, stop mark reached) uses of the
 * headroom. So each cycle measures how far usage rose above the wake
 * mark before the workers turned it back, and the next headroom is that
 * and half again: it grows at once to what a cycle needed, and shrinks
 * by a quarter of its excess per cycle, so that one quiet cycle does not
 * undo what a burst taught. A stall (a task of the group in direct
 * reclaim since the last cycle) at least doubles it. The stop mark lies
 * a quarter of the headroom, at least MBR_AUTO_GAP_MIN, below the wake
 * mark.
 *
 * MBR_AUTO_MIN is two worker turns' requests at the default batch_pages:
 * a cycle's measured rise is read at turn starts and misses what is
 * charged between them, so a smaller headroom lets a fast writer reach
 * the limit between two turns (doc/bench.md).
 *
 * The headroom stays between MBR_AUTO_MIN and, with a ratio, the limit
 * minus wmark_ratio percent of it (the wake mark never goes below the
 * ratio's, even where that bound is under MBR_AUTO_MIN), or without one
 * a quarter of the limit. A group starts at half that bound, as it has
 * nothing measured yet.
 */
#define MBR_AUTO_MIN		(2ULL << 20)
#define MBR_AUTO_GAP_MIN	(1ULL << 20)

static inline u64 mbr_auto_max(u64 limit, unsigned int ratio)
{
	if (ratio)
		return limit - mbr_frac(limit, ratio, 100);
	return limit / 4;
}

/* The headroom to use: @headroom within its bounds, 0 the starting one. */
static inline u64 mbr_auto_headroom(u64 headroom, u64 limit,
				    unsigned int ratio)
{
	u64 max = mbr_auto_max(limit, ratio);

	if (!headroom)
		headroom = max / 2;
	if (headroom < MBR_AUTO_MIN)
		headroom = MBR_AUTO_MIN;
	/* The bound wins: the wake mark never goes below the ratio's. */
	return headroom > max ? max : headroom;
}

static inline struct mbr_marks mbr_marks_auto(u64 limit, u64 headroom,
					      unsigned int ratio)
{
	u64 gap;

	headroom = mbr_auto_headroom(headroom, limit, ratio);
	gap = headroom / 4 > MBR_AUTO_GAP_MIN ? headroom / 4 : MBR_AUTO_GAP_MIN;
	return mbr_marks_compute(limit, headroom + gap, headroom);
}

/*
 * The headroom after a cycle that rose @used bytes above its wake mark,
 * under @headroom (0: the starting one); @stalled: a task of the group
 * reclaimed directly since the previous cycle.
 */
static inline u64 mbr_auto_next(u64 headroom, u64 used, bool stalled,
				u64 limit, unsigned int ratio)
{
	u64 want = used + used / 2;

	headroom = mbr_auto_headroom(headroom, limit, ratio);
	if (stalled && want < 2 * headroom)
		want = 2 * headroom;
	else if (want < headroom)
		want = headroom - (headroom - want + 3) / 4;
	return mbr_auto_headroom(want, limit, ratio);
}

/*
 * The watermark configuration of a group: the seed's two distances, a
 * ratio, or auto. Auto decides the marks (with the ratio as its bound);
 * else a non-zero ratio does. The settings not in use are kept, so that
 * turning auto or the ratio off restores what was set before.
 */
struct mbr_wmark_conf {
	u64 high_dist;		/* high_wmark_distance, bytes */
	u64 low_dist;		/* low_wmark_distance, bytes */
	unsigned int ratio;	/* wmark_ratio, 0 (off) to 100 */
	unsigned int scale;	/* wmark_scale_factor, 1 to 1000 */
	bool autotune;		/* wmark_auto */
};

static inline bool mbr_conf_active(const struct mbr_wmark_conf *c)
{
	return c->autotune || c->ratio ||
	       mbr_marks_active(c->high_dist, c->low_dist);
}

/* Field by field: the struct has padding, which memcmp() would read. */
static inline bool mbr_wmark_conf_equal(const struct mbr_wmark_conf *a,
					const struct mbr_wmark_conf *b)
{
	return a->high_dist == b->high_dist && a->low_dist == b->low_dist &&
	       a->ratio == b->ratio && a->scale == b->scale &&
	       a->autotune == b->autotune;
}

/* @headroom: the group's auto headroom (0: the starting one). */
static inline struct mbr_marks mbr_conf_marks(const struct mbr_wmark_conf *c,
					      u64 limit, u64 headroom)
{
	if (c->autotune)
		return mbr_marks_auto(limit, headroom, c->ratio);
	if (c->ratio)
		return mbr_marks_ratio(limit, c->ratio, c->scale);
	return mbr_marks_compute(limit, c->high_dist, c->low_dist);
}

/*
 * Boost (wmark_boost): configured marks, distances or a ratio, fix the
 * headroom, the distance of the wake mark below the limit. A group whose
 * tasks stalled at the limit in a cycle the workers ran from the wake
 * mark on was charged faster than that headroom covers: 7.x's readahead
 * charges a whole window of large folios back to back (8 MiB on a
 * rotational disk). As kswapd boosts its watermarks after stalls, the
 * wake and stop marks then move down together: such a cycle at least
 * doubles the headroom in force, up to a quarter of the limit (never
 * below the configured headroom). The boost holds for MBR_BOOST_HOLD
 * cycles without a stall (@quiet counts them, this one included): a
 * boost given back at once brings the stall back at once. Each quiet
 * cycle after those gives back a quarter of the boost above what it
 * used and half again (the rise above the wake mark, as wmark_auto
 * measures it); a cycle that used more than that keeps it. 0: no boost.
 */
#define MBR_BOOST_HOLD	8
/*
 * A cycle that lasts (a worker slower than the group's charges: a
 * handful of cycles in a whole streaming read on 6.12) would teach the
 * boost only at its few ends, whatever stalled between them: after
 * MBR_BOOST_LONG turns, one whose tasks stalled ends there for the
 * boost, and the next starts at the next turn.
 */
#define MBR_BOOST_LONG	32
/*
 * The node's boost (boost_seed) stops at twice the largest readahead
 * window seen (8 MiB, 7.x on a rotational disk): it stands for the
 * window, not for the size of the group that stalled first.
 */
#define MBR_BOOST_SEED_MAX	(16ULL << 20)

static inline u64 mbr_boost_next(u64 boost, u64 used, bool stalled,
				 unsigned int quiet, u64 limit, u64 conf)
{
	u64 max = limit / 4 > conf ? limit / 4 : conf;
	u64 cur = boost > conf ? boost : conf;
	u64 want = used + used / 2;

	if (stalled)
		want = want > 2 * cur ? want : 2 * cur;
	else if (want < cur && quiet > MBR_BOOST_HOLD)
		want = cur - (cur - want + 3) / 4;
	else
		want = cur;
	if (want > max)
		want = max;
	return want > conf ? want : 0;
}

/*
 * The marks in force: the configured ones, moved down together by what
 * @boost adds to their headroom (wmark_auto's are never boosted: it
 * learns its own headroom).
 */
static inline struct mbr_marks
mbr_conf_marks_boosted(const struct mbr_wmark_conf *c, u64 limit,
		       u64 headroom, u64 boost)
{
	struct mbr_marks m = mbr_conf_marks(c, limit, headroom);
	u64 conf, d;

	if (c->autotune || !mbr_conf_active(c))
		return m;
	/* Within its bound under the limit now: limits change. */
	conf = limit - m.low;
	if (boost > limit / 4)
		boost = limit / 4;
	if (boost <= conf)
		return m;
	d = boost - conf;
	m.low -= d;
	m.high = m.high > d ? m.high - d : 0;
	return m;
}

/*
 * Write rules of the seeds: high is set before low, low is cleared
 * before high, and high_wmark_distance > low_wmark_distance whenever
 * both are set, so that the stop mark lies below the wake mark.
 */
static inline int mbr_check_high_dist(u64 limit, u64 low_dist, u64 val)
{
	if (val >= limit || val < low_dist || (low_dist && val == low_dist))
		return -EINVAL;
	return 0;
}

static inline int mbr_check_low_dist(u64 limit, u64 high_dist, u64 val)
{
	if (val >= limit || val > high_dist || (high_dist && val == high_dist))
		return -EINVAL;
	return 0;
}

/*
 * Parse a size as memparse() reads it ("40m", "1G", "4096"), but strict:
 * digits, at most one unit suffix (k, m, g, t, p, e in either case), at
 * most one trailing newline, no sign, no overflow. Returns 0 or -EINVAL.
 */
static inline int mbr_parse_size(const char *buf, size_t len, u64 *out)
{
	u64 val = 0;
	unsigned int shift = 0;
	size_t i = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		unsigned int digit = buf[i] - '0';

		if (val > (~(u64)0 - digit) / 10)
			return -EINVAL;
		val = val * 10 + digit;
	}
	if (i < len) {
		switch (buf[i] | 0x20) {
		case 'k':
			shift = 10;
			break;
		case 'm':
			shift = 20;
			break;
		case 'g':
			shift = 30;
			break;
		case 't':
			shift = 40;
			break;
		case 'p':
			shift = 50;
			break;
		case 'e':
			shift = 60;
			break;
		default:
			return -EINVAL;
		}
		if (++i != len)
			return -EINVAL;
	}
	if (shift && val > (~(u64)0 >> shift))
		return -EINVAL;
	*out = val << shift;
	return 0;
}

/*
 * All @len bytes of @s as decimal digits, 1 to @max_len of them (at most
 * 19, so that no value overflows). Returns 0 or -EINVAL.
 */
static inline int mbr_parse_digits(const char *s, size_t len, size_t max_len,
				   u64 *out)
{
	u64 val = 0;
	size_t i;

	if (!len || len > max_len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		val = val * 10 + (s[i] - '0');
	}
	*out = val;
	return 0;
}

/*
 * Parse a decimal integer in [min, max], with an optional newline.
 */
static inline int mbr_parse_uint(const char *buf, size_t len, unsigned int min,
				 unsigned int max, unsigned int *out)
{
	u64 val;

	if (len && buf[len - 1] == '\n')
		len--;
	if (mbr_parse_digits(buf, len, 10, &val) || val < min || val > max)
		return -EINVAL;
	*out = val;
	return 0;
}

/*
 * Parse a boolean switch: "0" or "1", with an optional newline.
 */
static inline int mbr_parse_switch(const char *buf, size_t len, bool *out)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	*out = buf[0] == '1';
	return 0;
}

#endif /* MBR_WMARK_H */
