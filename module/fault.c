// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection points (test variant only, see include/fault.h).
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "fault.h"

static char *fail_at;
module_param(fail_at, charp, 0400);
MODULE_PARM_DESC(fail_at, "testing only: the injection point that fails");

static int fail_nth = 1;
module_param(fail_nth, int, 0400);
MODULE_PARM_DESC(fail_nth, "testing only: which pass through it fails");

static atomic_t mbr_fault_passes = ATOMIC_INIT(0);

bool mbr_should_fail(const char *point)
{
	if (!fail_at || strcmp(fail_at, point))
		return false;
	return atomic_inc_return(&mbr_fault_passes) == fail_nth;
}

bool mbr_fault_on(const char *point)
{
	return fail_at && !strcmp(fail_at, point);
}
