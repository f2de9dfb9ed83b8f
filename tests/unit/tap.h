/* SPDX-License-Identifier: GPL-2.0 */
/* The TAP reporting shared by the host unit tests. */
#ifndef MBR_UNIT_TAP_H
#define MBR_UNIT_TAP_H

#include <stdio.h>

static int nr_test, nr_fail;

static void ok(int cond, const char *desc)
{
	nr_test++;
	if (!cond)
		nr_fail++;
	printf("%sok %d - unit: %s\n", cond ? "" : "not ", nr_test, desc);
}

#endif /* MBR_UNIT_TAP_H */
