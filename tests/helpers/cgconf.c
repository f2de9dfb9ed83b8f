// SPDX-License-Identifier: GPL-2.0
/*
 * cgconf [-v] CGROOT HIGH LOW: configure every cgroup that appears below
 * the cgroup2 mount CGROOT for background reclaim, as soon as it appears:
 * "add" it to memcg_bgreclaim, then write HIGH to its high_wmark_distance
 * and LOW to its low_wmark_distance (high first, as the module requires).
 * It stands for the agent (container runtime, systemd) that would
 * configure a group before anyone uses it, so that programs that create
 * their own cgroups, like the kernel's memcg selftests, run with
 * background reclaim on every group they make.
 *
 * Prints "ready" once the tree is watched, then runs until SIGTERM or
 * SIGINT and prints one summary line:
 *   seen N configured N retried N nomemcg N refused N gone N vanished N
 *   pending N lat_max_us N lat_avg_us N busy_ms N writing_ms N
 * seen: distinct cgroups observed; configured: added with both
 * distances set; retried: of those, configured only on a later attempt;
 * nomemcg: never configured, "add" refused them (-EINVAL: no memory
 * controller of their own) until they were removed or cgconf stopped;
 * refused: never configured, a distance write was refused (-EINVAL:
 * limit at or below the distance) until then; gone: removed before the
 * first attempt could finish (-ENOENT); vanished: an IN_CREATE whose
 * directory was removed before cgconf could look at it (not in seen);
 * pending: of nomemcg and refused, those still there at exit.
 * lat_*: from the moment cgconf read the cgroup's event (or found it)
 * to the last of its three writes; busy_ms: time spent working on
 * events and retries, writing_ms: of that, in the module's files.
 * -v logs every cgroup to stderr.
 *
 * Speed: inotify on every directory of the tree (mkdir in cgroupfs is a
 * VFS mkdir, so the parent's watch sees IN_CREATE), run as SCHED_FIFO
 * when allowed, so that the configuration lands before the creator's
 * next step whenever a CPU is free. Groups refused for now are retried
 * every millisecond: a memory controller may be enabled in the parent,
 * or a limit raised, after the mkdir.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MBR_SYSFS "/sys/kernel/memcg_bgreclaim"
#define NBUCKETS 4096
#define RETRY_MS 1

enum step { STEP_ADD, STEP_HIGH, STEP_LOW, STEP_DONE, STEP_GONE };

struct cg {
	struct cg *next;	/* hash chain */
	struct cg *pnext;	/* pending list */
	unsigned long long ino;	/* the cgroup id */
	char *path;
	enum step step;
	int refused;		/* 1 + the step last refused with -EINVAL */
	int tries;
	long long t_seen;	/* ns */
};

static struct cg *table[NBUCKETS];
static struct cg *pending;
static char **wd_path;		/* inotify wd -> directory path */
static int nr_wd;
static int ifd;
static int add_fd;		/* MBR_SYSFS/add, open for good */
static int verbose;
static const char *high_dist, *low_dist;

static unsigned long n_seen, n_conf, n_retried, n_nomemcg, n_refused,
		     n_gone, n_vanished;
static long long lat_max, lat_sum, busy, writing;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One write(2) of a string; 0 or the errno. */
static int wr(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* A group that will not be configured: count it by its last refusal. */
static void count_refused(struct cg *c)
{
	if (c->refused == 1 + STEP_ADD)
		n_nomemcg++;
	else if (c->refused)
		n_refused++;
	else
		n_gone++;
}

/*
 * Take the group one step further per successful write; stop at the
 * first refusal. Returns 1 when it needs another attempt later.
 */
static int configure(struct cg *c)
{
	char file[128], id[32];
	long long lat, t0 = now_ns();
	int err;

	c->tries++;
	while (c->step < STEP_DONE) {
		switch (c->step) {
		case STEP_ADD:
			/*
			 * By id, not by path: the id names exactly the
			 * directory seen, even if it was removed and a new
			 * cgroup of the same name made in the meantime.
			 */
			snprintf(id, sizeof(id), "%llu", c->ino);
			err = 0;
			if (write(add_fd, id, strlen(id)) < 0)
				err = errno;
			if (err == EEXIST)
				err = 0;
			break;
		case STEP_HIGH:
			snprintf(file, sizeof(file),
				 MBR_SYSFS "/cgroups/%llu/high_wmark_distance",
				 c->ino);
			err = wr(file, high_dist);
			break;
		default:
			snprintf(file, sizeof(file),
				 MBR_SYSFS "/cgroups/%llu/low_wmark_distance",
				 c->ino);
			err = wr(file, low_dist);
			break;
		}
		if (err)
			writing += now_ns() - t0;
		if (err == ENOENT) {
			/* The cgroup was removed (the module forgot it). */
			count_refused(c);
			if (verbose)
				fprintf(stderr, "gone %llu %s step %d tries %d\n",
					c->ino, c->path, c->step, c->tries);
			c->step = STEP_GONE;
			return 0;
		}
		if (err) {
			c->refused = 1 + c->step;
			if (verbose && c->tries == 1)
				fprintf(stderr, "refused %llu %s step %d: %s\n",
					c->ino, c->path, c->step,
					strerror(err));
			return 1;
		}
		c->step++;
	}
	lat = now_ns() - c->t_seen;
	writing += now_ns() - t0;
	n_conf++;
	if (c->tries > 1)
		n_retried++;
	lat_sum += lat;
	if (lat > lat_max)
		lat_max = lat;
	if (verbose)
		fprintf(stderr, "configured %llu %s in %lld us, %d tries\n",
			c->ino, c->path, lat / 1000, c->tries);
	return 0;
}

static void watch_dir(const char *path)
{
	int wd = inotify_add_watch(ifd, path, IN_CREATE | IN_ONLYDIR);

	if (wd < 0)
		return;		/* removed already */
	if (wd >= nr_wd) {
		int n = wd * 2 + 64;

		wd_path = realloc(wd_path, n * sizeof(*wd_path));
		if (!wd_path) {
			perror("realloc");
			exit(1);
		}
		memset(wd_path + nr_wd, 0, (n - nr_wd) * sizeof(*wd_path));
		nr_wd = n;
	}
	free(wd_path[wd]);
	wd_path[wd] = strdup(path);
}

static void scan_dir(const char *path);

/* A directory below the root was seen (event or scan). */
static void found(const char *parent, const char *name, long long t)
{
	char path[PATH_MAX];
	struct stat st;
	struct cg *c;
	unsigned int b;

	snprintf(path, sizeof(path), "%s/%s", parent, name);
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		n_vanished++;	/* removed before we looked */
		return;
	}
	b = st.st_ino % NBUCKETS;
	for (c = table[b]; c; c = c->next)
		if (c->ino == st.st_ino)
			return;	/* by the event and by the scan */
	c = calloc(1, sizeof(*c));
	if (!c) {
		perror("calloc");
		exit(1);
	}
	c->ino = st.st_ino;
	c->path = strdup(path);
	c->t_seen = t;
	c->next = table[b];
	table[b] = c;
	n_seen++;
	/* This group first: its creator is about to use it. */
	if (configure(c)) {
		c->pnext = pending;
		pending = c;
	}
	/*
	 * Then its children: watch, and look for those made before the
	 * watch. kernfs counts a directory's subdirectories in its link
	 * count (2 + subdirs), which spares the readdir of a new, empty
	 * cgroup's 30-odd files.
	 */
	watch_dir(path);
	if (!stat(path, &st) && st.st_nlink > 2)
		scan_dir(path);
}

static void scan_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.')
			found(path, e->d_name, now_ns());
	closedir(d);
}

static void retry_pending(void)
{
	struct cg **pp = &pending, *c;

	while ((c = *pp)) {
		if (configure(c))
			pp = &c->pnext;
		else
			*pp = c->pnext;
	}
}

static void read_events(void)
{
	static union {
		struct inotify_event ev;	/* aligns the buffer */
		char buf[64 * 1024];
	} u;
	char *buf = u.buf, *p;
	long long t = now_ns();
	ssize_t len;

	len = read(ifd, buf, sizeof(u));
	if (len <= 0)
		return;
	for (p = buf; p < buf + len;) {
		struct inotify_event *ev = (struct inotify_event *)p;

		p += sizeof(*ev) + ev->len;
		if (ev->wd < 0 || ev->wd >= nr_wd || !wd_path[ev->wd])
			continue;
		if (ev->mask & IN_IGNORED) {
			/* The watched directory was removed. */
			free(wd_path[ev->wd]);
			wd_path[ev->wd] = NULL;
			continue;
		}
		if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR) && ev->len)
			found(wd_path[ev->wd], ev->name, t);
	}
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 1 };
	unsigned long n_pending = 0;
	struct pollfd pfd[2];
	struct cg *c;
	sigset_t sigs;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: cgconf [-v] CGROOT HIGH LOW\n");
		return 2;
	}
	high_dist = argv[2];
	low_dist = argv[3];
	/* Not fatal: only slower without (an unprivileged run, say). */
	sched_setscheduler(0, SCHED_FIFO, &sp);
	/* A signalfd: a signal between two polls cannot be lost. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[1].fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	pfd[1].events = POLLIN;
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0 || pfd[1].fd < 0) {
		perror("inotify_init1/signalfd");
		return 1;
	}
	/* Each write of "add" is one request, whatever the file offset. */
	add_fd = open(MBR_SYSFS "/add", O_WRONLY | O_CLOEXEC);
	if (add_fd < 0) {
		perror(MBR_SYSFS "/add");
		return 1;
	}
	watch_dir(argv[1]);
	scan_dir(argv[1]);
	printf("ready\n");
	fflush(stdout);

	pfd[0].fd = ifd;
	pfd[0].events = POLLIN;
	for (;;) {
		int r = poll(pfd, 2, pending ? RETRY_MS : -1);
		long long t0 = now_ns();

		if (r > 0 && (pfd[0].revents & POLLIN))
			read_events();
		if (pending)
			retry_pending();
		busy += now_ns() - t0;
		/* After the events: none read before the signal is lost. */
		if (r > 0 && (pfd[1].revents & POLLIN))
			break;
	}
	for (c = pending; c; c = c->pnext) {
		count_refused(c);
		n_pending++;
	}
	printf("seen %lu configured %lu retried %lu nomemcg %lu refused %lu gone %lu vanished %lu pending %lu lat_max_us %lld lat_avg_us %lld busy_ms %lld writing_ms %lld\n",
	       n_seen, n_conf, n_retried, n_nomemcg, n_refused, n_gone,
	       n_vanished, n_pending, lat_max / 1000,
	       n_conf ? lat_sum / (long long)n_conf / 1000 : 0,
	       busy / 1000000, writing / 1000000);
	return 0;
}
