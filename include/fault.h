/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the failure-path tests. Built only with
 * MBR_FAULT_INJECT=1 (a test variant of the module); in the normal
 * build every check is a constant false and compiles away.
 *
 * Load the variant with fail_at=<point> (and fail_nth=<n>, default 1)
 * and the n-th pass through that point fails as an allocation or
 * creation failure would. mbr_fault_on() is true on every pass: for a
 * point that slows a path down, to widen a race window.
 */
#ifndef MBR_FAULT_H
#define MBR_FAULT_H

#include <linux/types.h>

#ifdef MBR_FAULT_INJECT
bool mbr_should_fail(const char *point);
bool mbr_fault_on(const char *point);
#else
static inline bool mbr_should_fail(const char *point)
{
	return false;
}

static inline bool mbr_fault_on(const char *point)
{
	return false;
}
#endif

#endif /* MBR_FAULT_H */
