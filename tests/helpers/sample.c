// SPDX-License-Identifier: GPL-2.0
/*
 * sample FILE PID OUT [INTERVAL_MS]: append FILE's content (one value,
 * at most 64 bytes) to OUT every INTERVAL_MS (default 20) while process
 * PID runs (until it is gone or a zombie). One process for the whole
 * run: a shell loop forks a cat and a usleep per sample, and on an
 * arm64 guest under TCG those forks alone took the background
 * reclaim's pace (doc/testing.md).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Running: /proc/PID/stat exists and its state is not Z (or X). */
static int running(const char *stat)
{
	char buf[512], *p;
	ssize_t n;
	int fd;

	fd = open(stat, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the comm may hold spaces and parens */
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int main(int argc, char **argv)
{
	char stat[64], buf[64];
	struct timespec ts;
	long ms = argc > 4 ? atol(argv[4]) : 20;
	int in, out;
	ssize_t n;

	if (argc < 4 || ms <= 0) {
		fprintf(stderr, "usage: sample FILE PID OUT [INTERVAL_MS]\n");
		return 2;
	}
	snprintf(stat, sizeof(stat), "/proc/%s/stat", argv[2]);
	in = open(argv[1], O_RDONLY);
	out = open(argv[3], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (in < 0 || out < 0) {
		perror(in < 0 ? argv[1] : argv[3]);
		return 1;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	while (running(stat)) {
		n = pread(in, buf, sizeof(buf), 0);
		if (n <= 0 || write(out, buf, n) != n) {
			fprintf(stderr, "sample: cannot copy %s to %s\n",
				argv[1], argv[3]);
			return 1;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}
