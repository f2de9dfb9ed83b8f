// SPDX-License-Identifier: GPL-2.0
/*
 * asuser UID CMD [ARGS...]: run a command as an unprivileged user (and
 * group) UID, with no supplementary groups and no capabilities.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID CMD [ARGS...]\n");
		return 2;
	}
	uid = atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("asuser");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
