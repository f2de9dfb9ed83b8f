// SPDX-License-Identifier: GPL-2.0
/*
 * stream [-r] FILE [PASSES [MBPS]]: read FILE sequentially PASSES times
 * (default 1) with 1 MiB reads, at most MBPS MiB/s if given (a steady,
 * "well-behaved" reader), and print "bytes <n> ns <elapsed>".
 *
 * -r: POSIX_FADV_RANDOM, no readahead. Each read then fills the page
 * cache with order-0 pages, as readahead did before file systems had
 * large folios (ext4 from 6.16): reclaim frees them a page at a time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	long long bytes = 0, start;
	long long mbps, ahead;
	int passes;
	struct timespec ts;
	ssize_t n;
	int fd, i, err, rnd = argc > 1 && !strcmp(argv[1], "-r");

	argc -= rnd;
	argv += rnd;
	if (argc < 2) {
		fprintf(stderr, "usage: stream [-r] FILE [PASSES [MBPS]]\n");
		return 2;
	}
	passes = argc > 2 ? atoi(argv[2]) : 1;
	mbps = argc > 3 ? atoll(argv[3]) : 0;
	start = now_ns();
	for (i = 0; i < passes; i++) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		/* It returns the error; errno is left alone. */
		err = rnd ? posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) : 0;
		if (err) {
			fprintf(stderr, "posix_fadvise: %s\n", strerror(err));
			return 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			bytes += n;
			if (mbps <= 0)
				continue;
			/* Ahead of the rate: sleep until the bytes are due. */
			ahead = start + bytes * 1000000000LL / (mbps << 20) -
				now_ns();
			if (ahead > 0) {
				ts.tv_sec = ahead / 1000000000LL;
				ts.tv_nsec = ahead % 1000000000LL;
				nanosleep(&ts, NULL);
			}
		}
		if (n < 0) {
			perror("read");
			return 1;
		}
		close(fd);
	}
	printf("bytes %lld ns %lld\n", bytes, now_ns() - start);
	return 0;
}
