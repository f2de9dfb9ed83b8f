// SPDX-License-Identifier: GPL-2.0
/*
 * timeit CMD [ARGS...]: run a command and print, on stderr,
 * "real_ns <n> user_ns <n> sys_ns <n>" from its wall clock and rusage.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns(struct timespec ts)
{
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: timeit CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("timeit");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "real_ns %lld user_ns %lld sys_ns %lld\n",
		ns(t1) - ns(t0), tv_ns(ru.ru_utime), tv_ns(ru.ru_stime));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
