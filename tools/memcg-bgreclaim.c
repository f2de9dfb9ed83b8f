// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-bgreclaim: the command line of the memcg_bgreclaim module.
 * Rules, per-group settings, status, and the config file, all through
 * /sys/kernel/memcg_bgreclaim and /proc/memcg_bgreclaim/groups.
 * See memcg-bgreclaim(8).
 *
 * Exit codes: 0 done; 1 the kernel refused an operation; 2 usage;
 * 3 the module is not loaded; 4 a bad config file (nothing applied).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rule_spec.h"

#define SYSFS		"/sys/kernel/memcg_bgreclaim"
#define GROUPS_TABLE	"/proc/memcg_bgreclaim/groups"
#define DEFAULT_CONF	"/etc/memcg-bgreclaim.conf"

enum { EX_OK, EX_KERNEL, EX_USAGE, EX_NOMODULE, EX_CONFIG };

static const char *prog = "memcg-bgreclaim";

static void __attribute__((format(printf, 2, 3), noreturn))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static void need_module(void)
{
	if (access(SYSFS "/version", R_OK))
		die(EX_NOMODULE, "the memcg_bgreclaim module is not loaded (modprobe memcg_bgreclaim)");
}

/* Write @data to SYSFS/@file in one write(2); 0 or an errno. */
static int sysfs_write(const char *file, const char *data)
{
	char path[256];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), SYSFS "/%s", file);
	f = fopen(path, "w");
	if (!f)
		return errno;
	setvbuf(f, NULL, _IONBF, 0);
	if (fputs(data, f) == EOF)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

/* Read a whole file into a malloc'd string, or NULL. */
static char *read_file(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The cgroup2 mount point, for paths given in it. */
static const char *cgroup2_mount(void)
{
	static char mnt[512];
	char line[1024], dev[256], dir[512], type[64];
	FILE *f;

	if (mnt[0])
		return mnt;
	strcpy(mnt, "/sys/fs/cgroup");
	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return mnt;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(mnt, sizeof(mnt), "%s", dir);
			break;
		}
	fclose(f);
	return mnt;
}

/*
 * A path as the module shows it: relative to the cgroup2 root, with a
 * leading '/', no trailing '/'. "/sys/fs/cgroup/a/b", "a/b" and "/a/b"
 * all give "/a/b". An id is kept as it is.
 */
static char *norm_path(const char *p)
{
	const char *mnt = cgroup2_mount();
	size_t ml = strlen(mnt);
	char *out;
	size_t n;

	if (!strncmp(p, mnt, ml) && (p[ml] == '/' || !p[ml]))
		p += ml;
	if (p[strspn(p, "0123456789")] == '\0' && *p)
		return strdup(p);
	while (*p == '/')
		p++;
	if (asprintf(&out, "/%s", p) < 0)
		die(EX_KERNEL, "out of memory");
	n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return out;
}

static void check_write(int err, const char *what, const char *arg)
{
	if (!err)
		return;
	switch (err) {
	case ENOENT:
		die(EX_KERNEL, "%s %s: no such cgroup, or not configured", what, arg);
	case EEXIST:
		die(EX_KERNEL, "%s %s: already configured", what, arg);
	case ENOSPC:
		die(EX_KERNEL, "%s %s: too many rules (32)", what, arg);
	case EINVAL:
		die(EX_KERNEL, "%s %s: refused (invalid value, the root cgroup, or no memory controller of its own; see dmesg)",
		    what, arg);
	default:
		die(EX_KERNEL, "%s %s: %s", what, arg, strerror(err));
	}
}

/* Options of rule add and set. */
struct marks_opts {
	const char *ratio, *scale, *high, *low, *match, *depth;
	const char *cpu_budget, *cpu_cgroup;
	bool autotune;		/* --auto */
};

static int parse_opts(int argc, char **argv, struct marks_opts *o, bool rule)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char **dst = NULL;

		if (!strcmp(argv[i], "--auto")) {
			o->autotune = true;
			continue;
		}
		if (!strcmp(argv[i], "--ratio"))
			dst = &o->ratio;
		else if (!strcmp(argv[i], "--scale"))
			dst = &o->scale;
		else if (!strcmp(argv[i], "--high"))
			dst = &o->high;
		else if (!strcmp(argv[i], "--low"))
			dst = &o->low;
		else if (rule && !strcmp(argv[i], "--match"))
			dst = &o->match;
		else if (rule && !strcmp(argv[i], "--depth"))
			dst = &o->depth;
		else if (!strcmp(argv[i], "--cpu-budget"))
			dst = &o->cpu_budget;
		else if (!rule && !strcmp(argv[i], "--cpu-cgroup"))
			dst = &o->cpu_cgroup;
		if (!dst || i + 1 >= argc)
			die(EX_USAGE, "unexpected argument '%s' (see --help)", argv[i]);
		*dst = argv[++i];
	}
	/* set may change only the CPU settings of a configured group. */
	if (!rule && !o->autotune && !o->ratio && !o->scale && !o->high &&
	    !o->low && (o->cpu_budget || o->cpu_cgroup))
		return 0;
	/* Auto, with the ratio as its bound if one is given. */
	if (o->autotune) {
		if (o->scale || o->high || o->low)
			die(EX_USAGE, "--auto takes no --scale, --high or --low (--ratio N bounds it)");
		return 0;
	}
	if (!!o->ratio == !!(o->high || o->low) || (o->scale && !o->ratio) ||
	    (!o->ratio && !(o->high && o->low)))
		die(EX_USAGE, "give --ratio N [--scale N], --high SIZE --low SIZE, or --auto [--ratio N]");
	return 0;
}

/*
 * cpu.max's "QUOTA PERIOD" (or "QUOTA", "max", "max PERIOD") as a rule
 * token: the space becomes '/'. Checked with the module's own parser.
 */
static char *budget_token(const char *v)
{
	struct mbr_budget b;
	char *tok = strdup(v), *sp;

	if (!tok)
		die(EX_KERNEL, "out of memory");
	sp = strchr(tok, ' ');
	if (sp)
		*sp = '/';
	if (mbr_budget_parse(tok, strlen(tok), '/', MBR_BUDGET_PERIOD_DEFAULT, &b))
		die(EX_USAGE, "--cpu-budget '%s': give QUOTA [PERIOD] in microseconds (as cpu.max), or max", v);
	return tok;
}

/* "PATH key=value ..." of a rule, as rule_add takes it. */
static char *rule_line(const char *path, const struct marks_opts *o)
{
	char *line, *budget = o->cpu_budget ? budget_token(o->cpu_budget) : NULL;

	if (asprintf(&line, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n", path,
		     o->autotune ? " auto=1" : "",
		     o->ratio ? " ratio=" : "", o->ratio ?: "",
		     o->scale ? " scale=" : "", o->scale ?: "",
		     o->high ? " high=" : "", o->high ?: "",
		     o->low ? " low=" : "", o->low ?: "",
		     o->match ? " match=" : "", o->match ?: "",
		     o->depth ? " depth=" : "", o->depth ?: "",
		     budget ? " cpu_budget=" : "", budget ?: "") < 0)
		die(EX_KERNEL, "out of memory");
	free(budget);
	return line;
}

/* Check a rule line with the module's own parser; exit on error. */
static void check_rule_line(const char *line, const char *where)
{
	struct mbr_rule_spec spec;
	const char *bad;

	if (mbr_rule_spec_parse(line, strlen(line), &spec, &bad))
		die(where ? EX_CONFIG : EX_USAGE, "%s%sinvalid rule at '%.*s'",
		    where ?: "", where ? ": " : "", (int)strcspn(bad, " \t\n"), bad);
}

static int cmd_rule(int argc, char **argv);
static int cmd_status(int argc, char **argv, bool top);

/* The group directory of PATH, after "add" if it is not configured. */
static char *group_dir(const char *path, bool create)
{
	char *dir, proc_path[4096];
	struct stat st;
	int err;

	snprintf(proc_path, sizeof(proc_path), "%s%s", cgroup2_mount(), path);
	if (path[0] != '/')	/* an id */
		snprintf(proc_path, sizeof(proc_path), "%s", path);
	if (path[0] == '/' && stat(proc_path, &st))
		die(EX_KERNEL, "%s: no such cgroup", path);
	if (create) {
		err = sysfs_write("add", path);
		if (err && err != EEXIST)
			check_write(err, "set", path);
	}
	if (asprintf(&dir, "cgroups/%llu",
		     path[0] == '/' ? (unsigned long long)st.st_ino :
		     strtoull(path, NULL, 10)) < 0)
		die(EX_KERNEL, "out of memory");
	return dir;
}

static int cmd_set(int argc, char **argv)
{
	struct marks_opts o = {};
	char *path, *dir, file[256];

	if (argc < 1)
		die(EX_USAGE, "set PATH (--ratio N [--scale N] | --high SIZE --low SIZE | --auto [--ratio N]) [--cpu-budget 'QUOTA PERIOD'] [--cpu-cgroup DIR]");
	parse_opts(argc - 1, argv + 1, &o, false);
	path = norm_path(argv[0]);
	dir = group_dir(path, true);
#define SETF(name, val) do {						\
		snprintf(file, sizeof(file), "%s/%s", dir, name);	\
		check_write(sysfs_write(file, val), "set", path);	\
	} while (0)
	if (o.cpu_budget) {
		char *tok = budget_token(o.cpu_budget), *sl = strchr(tok, '/');

		if (sl)
			*sl = ' ';	/* the file takes cpu.max's own format */
		SETF("cpu_budget", tok);
		free(tok);
	}
	if (o.cpu_cgroup)	/* "" goes back to the shared workers */
		SETF("cpu_cgroup", o.cpu_cgroup[0] ? o.cpu_cgroup : "\n");
	if (o.autotune) {
		/* Auto first: the ratio is then only its bound. */
		SETF("wmark_auto", "1");
		SETF("wmark_ratio", o.ratio ?: "0");
	} else if (o.ratio) {
		SETF("wmark_scale_factor", o.scale ?: "50");
		SETF("wmark_ratio", o.ratio);
		SETF("wmark_auto", "0");
	} else if (o.high) {	/* (none: only the CPU settings) */
		/* The seeds' order: low cleared first, high set first. */
		SETF("low_wmark_distance", "0");
		SETF("high_wmark_distance", o.high);
		SETF("low_wmark_distance", o.low);
		SETF("wmark_ratio", "0");
		SETF("wmark_auto", "0");
	}
#undef SETF
	return EX_OK;
}

static int cmd_unset(int argc, char **argv)
{
	char *path;

	if (argc != 1)
		die(EX_USAGE, "unset PATH");
	path = norm_path(argv[0]);
	check_write(sysfs_write("remove", path), "unset", path);
	return EX_OK;
}

/* The rules file, one malloc'd line per rule, with its count. */
struct rule_row {
	char *line;		/* "PATH settings", without id= and groups= */
	char *path;
	unsigned long long id;
	unsigned int groups;
};

static int read_rules(struct rule_row **rows)
{
	char *buf = read_file(SYSFS "/rules"), *line, *save = NULL, *p;
	int n = 0;

	*rows = NULL;
	if (!buf)
		die(EX_NOMODULE, "cannot read " SYSFS "/rules");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rule_row r = {};

		p = strstr(line, " id=");
		if (!p)
			continue;
		sscanf(p, " id=%llu groups=%u", &r.id, &r.groups);
		*p = '\0';
		r.line = strdup(line);
		r.path = strndup(line, strcspn(line, " "));
		*rows = realloc(*rows, (n + 1) * sizeof(**rows));
		(*rows)[n++] = r;
	}
	free(buf);
	return n;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static int cmd_rule(int argc, char **argv)
{
	struct rule_row *rows;
	struct marks_opts o = {};
	bool json;
	char *line;
	int i, n;

	if (argc < 1)
		die(EX_USAGE, "rule add|del|list (see --help)");
	if (!strcmp(argv[0], "add")) {
		if (argc < 2)
			die(EX_USAGE, "rule add PATH (--ratio N [--scale N] | --high SIZE --low SIZE | --auto [--ratio N]) [--match GLOB] [--depth N] [--cpu-budget 'QUOTA [PERIOD]']");
		parse_opts(argc - 2, argv + 2, &o, true);
		line = rule_line(norm_path(argv[1]), &o);
		check_rule_line(line, NULL);
		check_write(sysfs_write("rule_add", line), "rule add", argv[1]);
		return EX_OK;
	}
	if (!strcmp(argv[0], "del")) {
		if (argc != 2)
			die(EX_USAGE, "rule del PATH");
		check_write(sysfs_write("rule_del", norm_path(argv[1])),
			    "rule del", argv[1]);
		return EX_OK;
	}
	if (!strcmp(argv[0], "list")) {
		json = argc > 1 && !strcmp(argv[1], "--json");
		if (argc > 1 + json)
			die(EX_USAGE, "rule list [--json]");
		n = read_rules(&rows);
		if (json)
			putchar('[');
		for (i = 0; i < n; i++) {
			if (!json) {
				printf("%s groups=%u\n", rows[i].line, rows[i].groups);
				continue;
			}
			printf("%s{\"path\":", i ? "," : "");
			json_str(rows[i].path);
			printf(",\"rule\":");
			json_str(rows[i].line + strlen(rows[i].path) + 1);
			printf(",\"id\":%llu,\"groups\":%u}", rows[i].id, rows[i].groups);
		}
		if (json)
			puts("]");
		return EX_OK;
	}
	die(EX_USAGE, "rule %s: unknown (add, del or list)", argv[0]);
	return EX_USAGE;
}

/* One row of /proc/memcg_bgreclaim/groups. */
struct group_row {
	unsigned long long id, rule, limit, usage, low, high;
	long long reclaimed, cpu_ns, direct, unreclaimable;
	long long d_reclaimed;	/* top: since the previous refresh */
	char origin[16];	/* hand, rule or cgroupfs */
	char *path;
};

static int read_groups(struct group_row **rows)
{
	char *buf = read_file(GROUPS_TABLE), *line, *save = NULL;
	int n = 0, off;

	*rows = NULL;
	if (!buf)
		die(EX_NOMODULE, "cannot read " GROUPS_TABLE);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct group_row r = {};

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llu %llu %llu %llu %llu %llu %lld %lld %lld %lld %15s %n",
			   &r.id, &r.rule, &r.limit, &r.usage, &r.low, &r.high,
			   &r.reclaimed, &r.cpu_ns, &r.direct, &r.unreclaimable,
			   r.origin, &off) != 11)
			continue;
		r.path = strdup(line + off);
		*rows = realloc(*rows, (n + 1) * sizeof(**rows));
		(*rows)[n++] = r;
	}
	free(buf);
	return n;
}

static const char *rule_path(struct rule_row *rules, int nr, unsigned long long id)
{
	int i;

	if (!id)
		return NULL;
	for (i = 0; i < nr; i++)
		if (rules[i].id == id)
			return rules[i].path;
	return "?";
}

static const char *human(unsigned long long b, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = b;
	int u = 0;

	if (b >= (1ULL << 62))
		return "max";
	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

static int by_activity(const void *a, const void *b)
{
	const struct group_row *x = a, *y = b;

	if (x->d_reclaimed != y->d_reclaimed)
		return x->d_reclaimed < y->d_reclaimed ? 1 : -1;
	return x->reclaimed < y->reclaimed ? 1 : x->reclaimed > y->reclaimed ? -1 : 0;
}

static void print_groups(struct group_row *g, int n, struct rule_row *rules,
			 int nr, bool json, bool top)
{
	char b[5][16];
	int i;

	if (json) {
		putchar('[');
		for (i = 0; i < n; i++) {
			const char *rp = rule_path(rules, nr, g[i].rule);

			printf("%s{\"path\":", i ? "," : "");
			json_str(g[i].path);
			printf(",\"id\":%llu,\"rule\":", g[i].id);
			if (rp)
				json_str(rp);
			else
				printf("null");
			printf(",\"origin\":");
			json_str(g[i].origin);
			printf(",\"limit\":%llu,\"usage\":%llu,\"low_wmark\":%llu,\"high_wmark\":%llu,\"reclaimed_pages\":%lld,\"direct_reclaims\":%lld,\"reclaim_cpu_ns\":%lld,\"unreclaimable\":%lld}",
			       g[i].limit, g[i].usage, g[i].low, g[i].high,
			       g[i].reclaimed, g[i].direct, g[i].cpu_ns,
			       g[i].unreclaimable);
		}
		puts("]");
		return;
	}
	printf("%-8s %-8s %-8s %-8s %12s %8s %9s %s%s%s\n", "LIMIT", "USAGE",
	       "WAKE", "STOP", "RECLAIMED", "DIRECT", "CPU_MS", top ? "PAGES/S " : "",
	       "PATH", " [RULE]");
	for (i = 0; i < n; i++) {
		/* [the rule's path], or [cgroupfs]; nothing when by hand */
		const char *rp = rule_path(rules, nr, g[i].rule) ?:
			(strcmp(g[i].origin, "cgroupfs") ? NULL : "cgroupfs");

		printf("%-8s %-8s %-8s %-8s %12lld %8lld %9lld ",
		       human(g[i].limit, b[0], 16), human(g[i].usage, b[1], 16),
		       human(g[i].low, b[2], 16), human(g[i].high, b[3], 16),
		       g[i].reclaimed, g[i].direct, g[i].cpu_ns / 1000000);
		if (top)
			printf("%8lld ", g[i].d_reclaimed);
		printf("%s%s%s%s\n", g[i].path, rp ? " [" : "", rp ?: "", rp ? "]" : "");
	}
}

static int cmd_status(int argc, char **argv, bool top)
{
	struct group_row *g, *prev = NULL;
	struct rule_row *rules;
	int n, nr, np = 0, i, j, rounds = -1;
	double interval = 1;
	bool json = false;

	for (i = 0; i < argc; i++) {
		if (!top && !strcmp(argv[i], "--json"))
			json = true;
		else if (top && !strcmp(argv[i], "--interval") && i + 1 < argc)
			interval = atof(argv[++i]);
		else if (top && !strcmp(argv[i], "--count") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else
			die(EX_USAGE, "%s", top ? "top [--interval SECONDS] [--count N]" :
			    "status [--json]");
	}
	if (top && interval <= 0)
		die(EX_USAGE, "top: --interval must be positive");
	for (;;) {
		nr = read_rules(&rules);
		n = read_groups(&g);
		if (top) {
			for (i = 0; i < n; i++)
				for (j = 0; j < np; j++)
					if (prev[j].id == g[i].id)
						g[i].d_reclaimed = (g[i].reclaimed - prev[j].reclaimed) / interval;
			qsort(g, n, sizeof(*g), by_activity);
			if (isatty(1))
				printf("\033[H\033[2J");
		}
		print_groups(g, n, rules, nr, json, top);
		if (!top || !--rounds)
			return EX_OK;
		fflush(stdout);
		free(prev);
		prev = g;
		np = n;
		{
			struct timespec ts = { (time_t)interval,
				(long)((interval - (time_t)interval) * 1e9) };

			nanosleep(&ts, NULL);
		}
	}
}

/* The settings of the config file, besides rules: switches first. */
static const char *const conf_globals[] = {
	"enabled", "cgroupfs_files", "wmark_boost", "batch_pages", "check_pages"
};
#define NR_CONF_SWITCHES	3	/* 0 or 1; the others 1 to 1 << 20 */
#define NR_CONF_GLOBALS	(sizeof(conf_globals) / sizeof(conf_globals[0]))
#define MAX_CONF_RULES	32	/* the module's own limit */

/*
 * The config file: one change per line, all checked before any is made;
 * a setting or a rule's path given twice is an error, not a silent win.
 */
struct conf {
	char *rules[MAX_CONF_RULES];	/* rule_add lines, paths normalised */
	int rule_line[MAX_CONF_RULES];
	int nr_rules;
	char *globals[NR_CONF_GLOBALS];	/* by conf_globals' index, or NULL */
	int global_line[NR_CONF_GLOBALS];
};

static void parse_conf(const char *file, struct conf *c)
{
	char *buf = read_file(file), *line, *next, where[600], *key, *rest;
	int lineno = 0;
	size_t i;

	if (!buf)
		die(EX_CONFIG, "%s: %s", file, strerror(errno ?: ENOENT));
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		*strchrnul(line, '#') = '\0';
		line += strspn(line, " \t");
		if (!*line)
			continue;
		key = line;
		rest = line + strcspn(line, " \t");
		if (*rest)
			*rest++ = '\0';
		rest += strspn(rest, " \t");
		for (i = strlen(rest); i && (rest[i - 1] == ' ' || rest[i - 1] == '\t'); i--)
			rest[i - 1] = '\0';
		if (!strcmp(key, "rule")) {
			char *path, *norm, *out;
			size_t pl = strcspn(rest, " \t");

			if (!pl)
				die(EX_CONFIG, "%s: rule without a path", where);
			path = strndup(rest, pl);
			if (!path)
				die(EX_KERNEL, "out of memory");
			norm = norm_path(path);
			if (asprintf(&out, "%s%s", norm, rest + pl) < 0)
				die(EX_KERNEL, "out of memory");
			free(norm);
			check_rule_line(out, where);
			for (i = 0; i < (size_t)c->nr_rules; i++)
				if (!strncmp(c->rules[i], out, strcspn(out, " ")) &&
				    c->rules[i][strcspn(out, " ")] == ' ')
					die(EX_CONFIG, "%s: a second rule for %s (the first is at %s:%d)",
					    where, path, file, c->rule_line[i]);
			if (c->nr_rules == MAX_CONF_RULES)
				die(EX_CONFIG, "%s: more than %d rules", where, MAX_CONF_RULES);
			free(path);
			c->rule_line[c->nr_rules] = lineno;
			c->rules[c->nr_rules++] = out;
			continue;
		}
		for (i = 0; i < NR_CONF_GLOBALS; i++)
			if (!strcmp(key, conf_globals[i]))
				break;
		if (i == NR_CONF_GLOBALS)
			die(EX_CONFIG, "%s: unknown setting '%s'", where, key);
		if (c->globals[i])
			die(EX_CONFIG, "%s: %s given twice (the first is at %s:%d)",
			    where, key, file, c->global_line[i]);
		if (!*rest || rest[strspn(rest, "0123456789")] ||
		    (i < NR_CONF_SWITCHES && strcmp(rest, "0") && strcmp(rest, "1")) ||
		    (i >= NR_CONF_SWITCHES &&
		     (atol(rest) < 1 || atol(rest) > 1 << 20)))
			die(EX_CONFIG, "%s: bad value '%s' for %s", where, rest, key);
		c->globals[i] = strdup(rest);
		c->global_line[i] = lineno;
		if (!c->globals[i])
			die(EX_KERNEL, "out of memory");
	}
	free(buf);
}

/*
 * The settings of a rule line, as the rules file shows them (sizes in
 * bytes, scale explicit), so that an unchanged rule compares equal.
 */
static char *canon_rule(const char *line)
{
	struct mbr_rule_spec s;
	const char *bad;
	size_t n;
	char *out;

	mbr_rule_spec_parse(line, strlen(line), &s, &bad);
	n = mbr_rule_spec_format(NULL, 0, &s) + 1;
	out = malloc(n);
	if (!out)
		die(EX_KERNEL, "out of memory");
	mbr_rule_spec_format(out, n, &s);
	return out;
}

static int cmd_apply(int argc, char **argv)
{
	const char *file = argc > 0 ? argv[0] : DEFAULT_CONF;
	struct conf c = {};
	struct rule_row *cur;
	int n, i, j, added = 0, removed = 0, kept = 0;
	char path[256], *val;

	if (argc > 1)
		die(EX_USAGE, "apply [FILE]");
	parse_conf(file, &c);	/* exits on any error: nothing applied */
	need_module();

	for (i = 0; i < (int)NR_CONF_GLOBALS; i++) {
		if (!c.globals[i])
			continue;
		snprintf(path, sizeof(path), SYSFS "/%s", conf_globals[i]);
		val = read_file(path);
		if (val && atol(val) == atol(c.globals[i])) {
			free(val);
			continue;
		}
		free(val);
		check_write(sysfs_write(conf_globals[i], c.globals[i]),
			    "apply", conf_globals[i]);
	}
	n = read_rules(&cur);
	for (j = 0; j < n; j++) {
		bool wanted = false;

		for (i = 0; i < c.nr_rules; i++)
			if (!strncmp(c.rules[i], cur[j].path, strlen(cur[j].path)) &&
			    c.rules[i][strlen(cur[j].path)] == ' ')
				wanted = true;
		if (!wanted) {
			check_write(sysfs_write("rule_del", cur[j].path), "apply: rule del",
				    cur[j].path);
			removed++;
		}
	}
	for (i = 0; i < c.nr_rules; i++) {
		char *want = canon_rule(c.rules[i]);
		bool same = false;

		for (j = 0; j < n; j++)
			same |= !strcmp(cur[j].line, want);
		free(want);
		if (same) {
			kept++;
			continue;
		}
		check_write(sysfs_write("rule_add", c.rules[i]), "apply: rule add",
			    c.rules[i]);
		added++;
	}
	printf("%s: %d rules added or changed, %d removed, %d unchanged\n", file,
	       added, removed, kept);
	return EX_OK;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s COMMAND ...\n"
		"  rule add PATH (--ratio N [--scale N] | --high SIZE --low SIZE |\n"
		"                 --auto [--ratio N])\n"
		"           [--match GLOB] [--depth N] [--cpu-budget 'QUOTA [PERIOD]']\n"
		"  rule del PATH\n"
		"  rule list [--json]\n"
		"  set PATH [--ratio N [--scale N] | --high SIZE --low SIZE |\n"
		"            --auto [--ratio N]]\n"
		"           [--cpu-budget 'QUOTA [PERIOD]'|max] [--cpu-cgroup DIR|'']\n"
		"  unset PATH\n"
		"  status [--json]\n"
		"  top [--interval SECONDS] [--count N]\n"
		"  apply [FILE]            (default " DEFAULT_CONF ")\n"
		"PATH: a path in the cgroup2 mount, or relative to its root.\n"
		"Exit: 0 done, 1 refused by the kernel, 2 usage, 3 module not loaded,\n"
		"4 bad config file (nothing applied). See memcg-bgreclaim(8).\n",
		prog);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die(EX_USAGE, "no command (see --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EX_OK;
	}
	if (!strcmp(argv[1], "apply"))
		return cmd_apply(argc - 2, argv + 2);
	need_module();
	if (!strcmp(argv[1], "rule"))
		return cmd_rule(argc - 2, argv + 2);
	if (!strcmp(argv[1], "set"))
		return cmd_set(argc - 2, argv + 2);
	if (!strcmp(argv[1], "unset"))
		return cmd_unset(argc - 2, argv + 2);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 2, argv + 2, false);
	if (!strcmp(argv[1], "top"))
		return cmd_status(argc - 2, argv + 2, true);
	die(EX_USAGE, "unknown command '%s' (see --help)", argv[1]);
	return EX_USAGE;
}
