// SPDX-License-Identifier: GPL-2.0
/*
 * modload KO [PARAMS]: load a module with finit_module(2) and print "OK"
 * or the errno name the kernel returned, so tests can assert on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: modload KO [PARAMS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	if (syscall(SYS_finit_module, fd, argc == 3 ? argv[2] : "", 0)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("OK\n");
	return 0;
}
