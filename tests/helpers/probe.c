// SPDX-License-Identifier: GPL-2.0
/*
 * probe SECONDS INTERVAL_US KIB: the latency probe of the benchmarks.
 * Every INTERVAL_US it maps KIB of fresh anonymous memory, touches every
 * page and unmaps it, timing each operation; at the end it prints
 * "n <ops> p50 <ns> p99 <ns> p999 <ns> max <ns>".
 *
 * chunks TOTAL_MIB CHUNK_MIB (same binary, called as "chunks"): touch
 * TOTAL_MIB of anonymous memory in CHUNK_MIB pieces, kept until the end,
 * and print the same percentiles over the per-chunk times.
 *
 * pfault ITERATIONS MIB (called as "pfault"): map, touch and unmap MIB
 * ITERATIONS times; print "ns <total>" (the hook overhead loop).
 *
 * bursts SECONDS MIB (called as "bursts"): the bursty load of the auto
 * marks bench, with the same percentiles over its 1 MiB pieces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void report(long long *lat, long n)
{
	if (!n) {
		printf("n 0\n");
		return;
	}
	qsort(lat, n, sizeof(*lat), cmp);
	printf("n %ld p50 %lld p99 %lld p999 %lld max %lld\n", n, lat[n / 2],
	       lat[(long)(n * 0.99)], lat[(long)(n * 0.999)], lat[n - 1]);
}

static long long touch(size_t len, int keep)
{
	long long t0 = now_ns();
	long page = 4096;
	size_t off;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (off = 0; off < len; off += page)
		p[off] = 1;
	if (!keep)
		munmap(p, len);
	return now_ns() - t0;
}

static int probe(int argc, char **argv)
{
	long long end, next, *lat;
	long n = 0, cap, interval;
	size_t len;

	if (argc != 4)
		return 2;
	interval = atol(argv[2]) * 1000;
	len = (size_t)atol(argv[3]) << 10;
	cap = atol(argv[1]) * 1000000000LL / interval + 16;
	lat = calloc(cap, sizeof(*lat));
	end = now_ns() + atol(argv[1]) * 1000000000LL;
	next = now_ns();
	while (now_ns() < end && n < cap) {
		struct timespec ts;

		lat[n++] = touch(len, 0);
		next += interval;
		if (next > now_ns()) {
			ts.tv_sec = (next - now_ns()) / 1000000000LL;
			ts.tv_nsec = (next - now_ns()) % 1000000000LL;
			nanosleep(&ts, NULL);
		} else {
			next = now_ns();
		}
	}
	report(lat, n);
	return 0;
}

static int chunks(int argc, char **argv)
{
	long total, chunk, n, i;
	long long *lat;

	if (argc != 3)
		return 2;
	total = atol(argv[1]);
	chunk = atol(argv[2]);
	n = total / chunk;
	lat = calloc(n, sizeof(*lat));
	for (i = 0; i < n; i++)
		lat[i] = touch((size_t)chunk << 20, 1);
	report(lat, n);
	return 0;
}

/*
 * bursts SECONDS MIB: each second, a burst: MIB of anonymous memory
 * touched at full speed in 1 MiB pieces (timed), held to the half
 * second, then freed, and idle to the next second.
 */
static int bursts(int argc, char **argv)
{
	long long start, t, *lat;
	long secs, mib, n = 0, i, s;
	size_t len = 1 << 20;
	char **held;

	if (argc != 3)
		return 2;
	secs = atol(argv[1]);
	mib = atol(argv[2]);
	lat = calloc(secs * mib, sizeof(*lat));
	held = calloc(mib, sizeof(*held));
	start = now_ns();
	for (s = 0; s < secs; s++) {
		struct timespec ts;

		for (i = 0; i < mib; i++) {
			long long t0 = now_ns();
			size_t off;

			held[i] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (held[i] == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			for (off = 0; off < len; off += 4096)
				held[i][off] = 1;
			lat[n++] = now_ns() - t0;
		}
		for (t = start + s * 1000000000LL + 500000000LL;
		     now_ns() < t;) {
			ts.tv_sec = 0;
			ts.tv_nsec = t - now_ns();
			nanosleep(&ts, NULL);
		}
		for (i = 0; i < mib; i++)
			munmap(held[i], len);
		for (t = start + (s + 1) * 1000000000LL; now_ns() < t;) {
			ts.tv_sec = 0;
			ts.tv_nsec = t - now_ns() > 999999999 ? 999999999 :
				     t - now_ns();
			nanosleep(&ts, NULL);
		}
	}
	report(lat, n);
	return 0;
}

static int pfault(int argc, char **argv)
{
	long long t0 = now_ns();
	long i, iters;

	if (argc != 3)
		return 2;
	iters = atol(argv[1]);
	for (i = 0; i < iters; i++)
		touch((size_t)atol(argv[2]) << 20, 0);
	printf("ns %lld\n", now_ns() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	name = name ? name + 1 : argv[0];
	if (!strcmp(name, "chunks"))
		return chunks(argc, argv);
	if (!strcmp(name, "pfault"))
		return pfault(argc, argv);
	if (!strcmp(name, "bursts"))
		return bursts(argc, argv);
	return probe(argc, argv);
}
