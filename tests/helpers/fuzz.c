// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz SEED COUNT SYSFS GROUPDIR -- PATH...: seeded, repeatable fuzzing of
 * every writable file of the module.
 *
 * Writes COUNT generated inputs to each writable file (empty, binary,
 * no newline, 4096+ bytes, huge and negative numbers, unit suffixes,
 * paths that do not exist or lie outside the cgroup mount, ids of
 * removed groups, and the PATHs given). After every write it checks
 * that the write either succeeded or failed with a clean errno, and
 * that the state read back is valid. Prints one line per file:
 *   "<file> writes <n> accepted <n> refused <n> bad <n>"
 * and a "BAD ..." line for each violation. Exit 1 on any violation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

static uint64_t rng_state;
static const char *sysfs, *groupdir;
static char **paths;
static int nr_paths;
static int nr_bad;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t gen(char *buf, size_t cap)
{
	static const char suffix[] = "kKmMgGtTpPeExyz%-";
	size_t len = 0, i, n;

	switch (rnd() % 14) {
	case 0:
		return 0;
	case 1:
		buf[0] = '\n';
		return 1;
	case 2:
		n = rnd() % 64 + 1;
		for (i = 0; i < n; i++)
			buf[i] = rnd();
		return n;
	case 3:
		return snprintf(buf, cap, "%" PRIu64, rnd() >> (rnd() % 64));
	case 4:
		return snprintf(buf, cap, "%" PRIu64 "\n", rnd() % 700 << 20);
	case 5:
		n = rnd() % 20 + 20;
		for (i = 0; i < n; i++)
			buf[i] = '0' + rnd() % 10;
		return n;
	case 6:
		return snprintf(buf, cap, "-%" PRIu64, rnd() % 100000);
	case 7:
		return snprintf(buf, cap, "%" PRIu64 "%c%s", rnd() % 2000,
				suffix[rnd() % (sizeof(suffix) - 1)],
				rnd() % 2 ? "\n" : "");
	case 8:
		n = 4096 + rnd() % 4096;
		for (i = 0; i < n && i < cap; i++)
			buf[i] = rnd() % 3 ? '0' + rnd() % 10 : rnd();
		return i;
	case 9:
		return snprintf(buf, cap, "%" PRIu64 "m", rnd() % 600);
	case 10:
		return snprintf(buf, cap, "%s", nr_paths ?
				paths[rnd() % nr_paths] : "/");
	case 11: {
		static const char *const outside[] = {
			"/proc", "/tmp", "/etc/passwd", "/no/such/group",
			"/sys/fs/cgroup/../..", "/sys/fs/cgroup/nope", "",
			"relative/path", "/sys/fs/cgroup/", "//", "/dev/null",
		};
		return snprintf(buf, cap, "%s",
				outside[rnd() % (sizeof(outside) / sizeof(*outside))]);
	}
	case 12:
		return snprintf(buf, cap, "%" PRIu64, rnd() % 100000);
	default:
		len = snprintf(buf, cap, "%s%" PRIu64 "%s", rnd() % 2 ? " " : "",
			       rnd() % 100, rnd() % 2 ? "\t" : " ");
		return len;
	}
}

static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static void bad(const char *file, const char *what, const char *in, size_t len)
{
	size_t i;

	nr_bad++;
	printf("BAD %s: %s; input (%zu bytes):", file, what, len);
	for (i = 0; i < len && i < 48; i++)
		printf(" %02x", (unsigned char)in[i]);
	printf("\n");
}

/* A decimal with one newline, in [lo, hi]. */
static int valid_number(const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	return !errno && end != s && !strcmp(end, "\n") && v >= lo && v <= hi;
}

static int count_groups(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroups", sysfs);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

static const char *check_state(const char *file)
{
	char path[512], buf[4096], buf2[4096];
	uint64_t high, low, lw, hw;
	char *p;

	if (strstr(file, "enabled")) {
		if (read_file(file, buf, sizeof(buf)) ||
		    (strcmp(buf, "0\n") && strcmp(buf, "1\n")))
			return "enabled reads neither 0 nor 1";
	} else if (strstr(file, "_pages")) {
		if (read_file(file, buf, sizeof(buf)) ||
		    !valid_number(buf, 1, 1 << 20))
			return "page count out of range";
	} else if (strstr(file, "wmark_distance")) {
		snprintf(path, sizeof(path), "%s/high_wmark_distance", groupdir);
		if (read_file(path, buf, sizeof(buf)) ||
		    !valid_number(buf, 0, UINT64_MAX))
			return "high distance unreadable";
		high = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/low_wmark_distance", groupdir);
		if (read_file(path, buf, sizeof(buf)) ||
		    !valid_number(buf, 0, UINT64_MAX))
			return "low distance unreadable";
		low = strtoull(buf, NULL, 10);
		if (low && high <= low)
			return "low set without a larger high";
		snprintf(path, sizeof(path), "%s/reclaim_wmarks", groupdir);
		if (read_file(path, buf2, sizeof(buf2)) ||
		    sscanf(buf2, "low_wmark %" SCNu64 "\nhigh_wmark %" SCNu64,
			   &lw, &hw) != 2 || hw > lw)
			return "reclaim_wmarks inconsistent";
	} else {
		snprintf(path, sizeof(path), "%s/stat", sysfs);
		if (read_file(path, buf, sizeof(buf)))
			return "stat unreadable";
		p = strstr(buf, "groups ");
		if (!p || atoi(p + 7) != count_groups())
			return "groups count differs from cgroups/";
	}
	return NULL;
}

static void fuzz_file(const char *file, long count)
{
	static char in[8192];
	long accepted = 0, refused = 0, i;
	int bad_before = nr_bad;
	const char *err;
	ssize_t n;
	size_t len;
	int fd;

	for (i = 0; i < count; i++) {
		len = gen(in, sizeof(in));
		fd = open(file, O_WRONLY);
		if (fd < 0) {
			bad(file, "cannot open", in, 0);
			return;
		}
		n = write(fd, in, len);
		if (n >= 0) {
			accepted++;
		} else if (errno == EINVAL || errno == ENOENT ||
			   errno == EEXIST || errno == ENOTDIR ||
			   errno == ENAMETOOLONG || errno == EOPNOTSUPP) {
			refused++;
		} else {
			char what[64];

			snprintf(what, sizeof(what), "unclean errno %s",
				 strerrorname_np(errno));
			bad(file, what, in, len);
		}
		close(fd);
		err = check_state(file);
		if (err)
			bad(file, err, in, len);
	}
	printf("%s writes %ld accepted %ld refused %ld bad %d\n", file, count,
	       accepted, refused, nr_bad - bad_before);
}

int main(int argc, char **argv)
{
	static const char *const global[] = {
		"enabled", "batch_pages", "check_pages", "add", "remove",
	};
	char path[512];
	long count;
	unsigned int i;

	if (argc < 5) {
		fprintf(stderr,
			"usage: fuzz SEED COUNT SYSFS GROUPDIR [-- PATH...]\n");
		return 2;
	}
	rng_state = strtoull(argv[1], NULL, 0) | 1;
	count = atol(argv[2]);
	sysfs = argv[3];
	groupdir = argv[4];
	if (argc > 6) {
		paths = argv + 6;
		nr_paths = argc - 6;
	}

	snprintf(path, sizeof(path), "%s/high_wmark_distance", groupdir);
	fuzz_file(path, count);
	snprintf(path, sizeof(path), "%s/low_wmark_distance", groupdir);
	fuzz_file(path, count);
	for (i = 0; i < sizeof(global) / sizeof(*global); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs, global[i]);
		fuzz_file(path, count);
	}
	return nr_bad != 0;
}
