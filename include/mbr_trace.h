/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of memcg_bgreclaim: when a group is queued for background
 * reclaim, and what each worker turn did. They let the reaction time
 * (low watermark crossed to first reclaim) be measured from timestamps.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM memcg_bgreclaim

#if !defined(MBR_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MBR_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(wakeup,
	TP_PROTO(u64 id, u64 usage, u64 low, u64 high),
	TP_ARGS(id, usage, low, high),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, usage)
		__field(u64, low)
		__field(u64, high)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->usage = usage;
		__entry->low = low;
		__entry->high = high;
	),
	TP_printk("cgroup=%llu usage=%llu low_wmark=%llu high_wmark=%llu",
		  __entry->id, __entry->usage, __entry->low, __entry->high)
);

TRACE_EVENT(reclaim,
	TP_PROTO(u64 id, u64 usage, u64 low, u64 high, unsigned long requested,
		 unsigned long reclaimed, u64 walk_ns, u64 ns),
	TP_ARGS(id, usage, low, high, requested, reclaimed, walk_ns, ns),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, usage)
		__field(u64, low)
		__field(u64, high)
		__field(unsigned long, requested)
		__field(unsigned long, reclaimed)
		__field(u64, walk_ns)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->usage = usage;
		__entry->low = low;
		__entry->high = high;
		__entry->requested = requested;
		__entry->reclaimed = reclaimed;
		__entry->walk_ns = walk_ns;
		__entry->ns = ns;
	),
	TP_printk("cgroup=%llu usage=%llu low_wmark=%llu high_wmark=%llu requested=%lu reclaimed=%lu walk_ns=%llu ns=%llu",
		  __entry->id, __entry->usage, __entry->low, __entry->high,
		  __entry->requested, __entry->reclaimed, __entry->walk_ns,
		  __entry->ns)
);

#endif /* MBR_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mbr_trace
#include <trace/define_trace.h>
