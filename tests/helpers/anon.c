// SPDX-License-Identifier: GPL-2.0
/*
 * anon MiB [HOLD_S]: map MiB of anonymous memory, touch every page,
 * keep it HOLD_S seconds (default 0), then free it and exit. Prints
 * "touched <MiB>" once all pages are touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 0;
	int hold = argc > 2 ? atoi(argv[2]) : 0;
	size_t len = (size_t)mib << 20, off;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (mib <= 0) {
		fprintf(stderr, "usage: anon MiB [HOLD_S]\n");
		return 2;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += page)
		p[off] = 1;
	printf("touched %ld\n", mib);
	fflush(stdout);
	sleep(hold);
	munmap(p, len);
	return 0;
}
