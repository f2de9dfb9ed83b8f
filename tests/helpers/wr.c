// SPDX-License-Identifier: GPL-2.0
/*
 * wr FILE DATA: write DATA to FILE in one write(2), as a program would,
 * and print "OK" or the errno name (EINVAL, ...). Exit 0 on success.
 * DATA is taken literally (no newline added); "-" reads it from stdin,
 * so that binary data and NULs can be written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: wr FILE DATA|-\n");
		return 2;
	}
	if (!strcmp(argv[2], "-")) {
		len = fread(buf, 1, sizeof(buf), stdin);
	} else {
		len = strlen(argv[2]);
		memcpy(buf, argv[2], len);
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("OK\n");
	return 0;
}
