/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included (gcc -include) into the kernel's memcg selftests by build.sh,
 * which also rewrites each "goto label;" of test_memcontrol.c and
 * test_kmem.c into "{ MBR_AT(); goto label; }". Nothing a test checks
 * changes; a run only says more:
 *
 * - Every goto prints "# mbr-at FUNCTION LINE" on stderr. A test
 *   function that fails leaves through a goto, so the last such line
 *   of a test_* function names the assertion that failed: the exception
 *   list waives a named assertion, never a whole test.
 * - stdout is line-buffered, as ksft_print_header() of newer
 *   selftests makes it. These two programs do not call it, and a fully
 *   buffered stdout (a pipe) would be copied into every child they
 *   fork and printed again when it exits.
 */
/* Before any header, as the sources' own #define comes after this file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>

#define MBR_AT() fprintf(stderr, "# mbr-at %s %d\n", __func__, __LINE__)

static void __attribute__((constructor)) mbr_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
