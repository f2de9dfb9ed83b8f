/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memcg_bgreclaim: background reclaim for memory cgroups.
 * Declarations shared by the module's files.
 */
#ifndef MBR_H
#define MBR_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "budget.h"
#include "compat.h"
#include "fault.h"
#include "rule_spec.h"
#include "wmark.h"

/* Histogram of direct-reclaim stall times, upper bounds in ms. */
#define MBR_NR_LAT_BUCKETS	7
extern const unsigned int mbr_lat_bucket_ms[MBR_NR_LAT_BUCKETS - 1];
extern const char *const mbr_lat_bucket_name[MBR_NR_LAT_BUCKETS];

/* Per-group counters; the global stat file shows their sums. */
struct mbr_stats {
	atomic64_t wakeups;		/* times queued for a worker */
	atomic64_t reclaim_runs;	/* worker turns */
	atomic64_t reclaimed_pages;	/* pages background reclaim freed */
	atomic64_t reclaim_cpu_ns;	/* worker CPU time on this group */
	atomic64_t direct_reclaims;	/* direct reclaim entries, not ours */
	atomic64_t direct_reclaim_ns;	/* time tasks spent inside them */
	atomic64_t direct_latency[MBR_NR_LAT_BUCKETS];
	atomic64_t unreclaimable;	/* back-offs for lack of progress */
	atomic64_t budget_throttled;	/* periods held back by cpu_budget */
	atomic64_t budget_throttled_ns;	/* time held back by cpu_budget */
	atomic64_t auto_cycles;		/* cycles wmark_auto learned from */
	atomic64_t boosts;		/* cycles that raised the boost */
};

/* A group's configuration, replaced as one under RCU. */
struct mbr_conf {
	struct mbr_wmark_conf wm;
	struct mbr_budget budget;	/* cpu_budget */
	struct rcu_head rcu;
};

struct mbr_pool;

/* The settings of a group's configuration, one per file. */
enum mbr_setting {
	MBR_SET_HIGH_DIST,
	MBR_SET_LOW_DIST,
	MBR_SET_RATIO,
	MBR_SET_SCALE,
	MBR_SET_AUTO,
};

/*
 * A configured memory cgroup. It lives in the hash (one kobject
 * reference) from "add" until "remove", the cgroup's offlining, a sweep
 * that finds its cgroup offline, or module exit; a worker holds a second
 * reference during its turn. The group pins its memcg (a css reference
 * taken at "add", dropped when the group is freed), so ->memcg is valid
 * for the group's whole life whatever hook fires or is missed: a missed
 * offline costs a zombie memcg until the sweep reaches it, never a
 * use-after-free.
 */
struct mbr_group {
	struct hlist_node hnode;	/* mbr_groups, under mbr_lock */
	struct list_head fifo;		/* worker FIFO, under mbr_lock */
	struct list_head reap;		/* mbr_reap_list, under mbr_lock */
	struct kobject kobj;		/* cgroups/<id>/ */
	struct mem_cgroup *memcg;	/* pinned */
	u64 id;				/* cgroup id (its inode number) */
	u64 rule_id;			/* the configuring rule's cgroup id,
					 * 0: by hand; under mbr_config_mutex
					 */
	struct mbr_conf __rcu *conf;
	bool queued;			/* on the FIFO; under mbr_lock */
	bool dead;			/* unhashed; set under mbr_lock */
	unsigned long flags;		/* MBR_GROUP_* bits */
	unsigned long backoff_limit;	/* limit (pages) when backing off */
	unsigned long backoff_memsw;	/* and v1's memsw limit then */
	unsigned long backoff_usage;	/* and its usage (pages) then */
	unsigned int backoff_streak;	/* back-offs without a productive
					 * turn between; the worker writes
					 */
	unsigned int nr_failures;	/* worker only */
	struct mbr_bucket bucket;	/* cpu_budget's; worker only */
	u64 throttled_until;		/* ns; no turn before, 0: none */
	u64 auto_headroom;		/* wmark_auto's, bytes (0: the
					 * starting one); the worker learns
					 * it, a reset zeroes it
					 */
	u64 auto_peak;			/* highest usage this cycle, bytes
					 * (0: none open); worker only
					 */
	u64 auto_wake;			/* the cycle's wake mark; worker only */
	u64 boost;			/* wmark_boost's headroom, bytes (0:
					 * none); the worker learns it, a
					 * reset or a back-off zeroes it
					 */
	s64 auto_stalls;		/* direct_reclaims, */
	s64 auto_throttled;		/* budget_throttled and */
	int auto_seq;			/* mbr_enable_seq at the last
					 * cycle's end; worker only
					 */
	bool auto_discarded;		/* a cycle was discarded since;
					 * worker only
					 */
	unsigned int boost_quiet;	/* cycles without a stall in a row
					 * (wmark_boost); worker only
					 */
	unsigned int auto_turns;	/* turns in the cycle; worker only */
	struct mbr_pool *pool;		/* a dedicated worker, or NULL
					 * (the shared ones); under mbr_lock
					 */
	char *cpu_cgroup;		/* where that worker is billed;
					 * under billing.c's mutex
					 */
	struct mbr_stats stats;
	struct rcu_head rcu;
};

/*
 * ->flags: backed off (no worker turn) until the limit changes, usage
 * falls to the stop mark by itself or grows well past where it backed
 * off, a task's direct reclaim in the group makes progress, or the group
 * is reconfigured.
 */
#define MBR_GROUP_UNRECLAIMABLE	0
/* ->flags: cpu_budget changed; the worker starts a fresh bucket. */
#define MBR_GROUP_BUDGET_RESET	1
/* ->flags: wmark_auto was set; the worker starts afresh, forgetting
 * the stalls and the cycle of the configuration before.
 */
#define MBR_GROUP_AUTO_RESET	2
/* ->flags: configured through the cgroupfs files (cgfiles.c). */
#define MBR_GROUP_CGROUPFS	3

/*
 * ->flags: a step of MBR_PACE_CHUNK pages took longer than a tick, so
 * steps bound nothing for this group: its turns go back to one call
 * while its worker has the CPU to itself (pace.c).
 */
#define MBR_GROUP_SLOW_STEPS	4
/*
 * ->flags: the group has a boost of its own (wmark_boost), zero or not:
 * a cycle under its present marks has ended (not one of a hold or of
 * reclaim turned off, with the switch on), or it backed off. Until
 * then it reads the node's (mbr_boost_seed).
 */
#define MBR_GROUP_BOOST_OWN	5

/*
 * Turns that fail (reclaim much less than asked while above the stop
 * mark) before a group is backed off, as kswapd gives up on a node after
 * MAX_RECLAIM_RETRIES failed runs. A failure counts 1, and only a turn
 * that reclaims at least a quarter of its request resets the count.
 */
#define MBR_MAX_FAILURES	4

/*
 * A backed-off group that grows by MBR_BACKOFF_REGROW batches since it
 * backed off gets another chance, the distance doubling with each
 * back-off in a row (at most MBR_BACKOFF_STREAK_MAX times; marks.c).
 */
#define MBR_BACKOFF_REGROW	4
#define MBR_BACKOFF_STREAK_MAX	4

/* Tunables and state (main.c). */
extern bool mbr_enabled;
extern atomic_t mbr_enable_seq;
extern unsigned int mbr_batch_pages;
extern unsigned int mbr_check_pages;
extern bool mbr_wmark_boost;
extern unsigned int mbr_nr_workers;
extern const char mbr_version[];

/* symbols.c (the static calls are declared in compat.h) */
int mbr_symbols_init(const char *extra_required);
unsigned long mbr_kallsyms_lookup(const char *name);
bool mbr_symbol_clone(const char *name, char *buf, size_t len);
bool mbr_symbol_range(const char *name, unsigned long *start,
		      unsigned long *end);

/* btf.c: the pinned prototypes, checked against the kernel's BTF */
int mbr_btf_check(void);

/* table.c: the configured groups, hashed by cgroup id */
extern raw_spinlock_t mbr_lock;
extern atomic_t mbr_nr_groups;
struct mbr_group *mbr_group_lookup_rcu(u64 id);
struct mbr_group *mbr_group_find_memcg_rcu(struct mem_cgroup *memcg);
int mbr_table_add_locked(struct mbr_group *g);
bool mbr_table_unlink_locked(struct mbr_group *g);
void mbr_table_unlink_all_locked(struct list_head *list);
unsigned int mbr_table_visit_rcu(unsigned int *cursor, unsigned int max,
				 bool (*visit)(struct mbr_group *g));
struct mbr_group *mbr_group_next_rcu(struct mbr_group *g);
struct mbr_group *mbr_group_after_rcu(u64 id);
unsigned int mbr_groups_of_rule(u64 rule_id);
void mbr_groups_sum(struct mbr_stats *sum, unsigned int *nr);

/* group.c: a group as an object, its references and destructor */
extern atomic_t mbr_nr_pinned;
struct mbr_group *mbr_group_alloc(struct mem_cgroup *memcg, u64 id);
void mbr_groups_reserve(void);
struct mbr_group *mbr_group_alloc_atomic(struct mem_cgroup *memcg, u64 id);
struct mbr_group *mbr_group_alloc_rule(struct mem_cgroup *memcg, u64 id,
				       const struct mbr_wmark_conf *wm,
				       const struct mbr_budget *budget,
				       u64 rule_id);
struct mbr_group *mbr_group_get_rcu(struct mbr_group *g);
void mbr_group_release(struct kobject *kobj);
void mbr_groups_spares_exit(void);

/* The last reference frees the group (mbr_group_release()). */
static inline void mbr_group_put(struct mbr_group *g)
{
	kobject_put(&g->kobj);
}

/* Who configured @g: by hand, a rule, or the cgroupfs files. */
static inline const char *mbr_group_origin(const struct mbr_group *g)
{
	if (READ_ONCE(g->rule_id))
		return "rule";
	return test_bit(MBR_GROUP_CGROUPFS, &g->flags) ? "cgroupfs" : "hand";
}

/* lifecycle.c: add, remove, a rule's insert and forget, rmdir, exit */
void mbr_groups_init(struct kobject *parent);
void mbr_groups_exit(void);
void mbr_groups_flush(void);
int mbr_group_add(const char *arg, size_t len);
int mbr_group_remove(const char *arg, size_t len);
void mbr_group_offline(struct mem_cgroup *memcg);
bool mbr_group_insert(struct mbr_group *g);
void mbr_group_forget(struct mbr_group *g, bool files);

/* conf.c: a group's configuration, replaced as one under RCU */
extern struct mutex mbr_config_mutex;
int mbr_group_set(struct mbr_group *g, enum mbr_setting what, u64 val);
int mbr_group_set_budget(struct mbr_group *g, const struct mbr_budget *b);
int mbr_group_set_files(struct mbr_group *g, const struct mbr_wmark_conf *wm);
int mbr_group_set_rule(struct mbr_group *g, const struct mbr_wmark_conf *wm,
		       const struct mbr_budget *budget, u64 rule_id);

/* rules.c: rules that configure cgroups as they are created */
int mbr_rule_add(const char *buf, size_t len);
int mbr_rule_del(const char *buf, size_t len);
int mbr_rules_show(char *buf);
void mbr_rules_exit(void);

/* rule_apply.c: the rules applied, at creation and by rescans */
extern atomic64_t mbr_rule_groups_online;
extern atomic64_t mbr_rule_groups_late;
void mbr_rules_online(struct mem_cgroup *memcg);
void mbr_rules_offline(struct mem_cgroup *memcg);
void mbr_rules_apply_one(struct mem_cgroup *memcg);

/* cgfiles.c: Alibaba's memory.wmark_* files in cgroupfs (opt-in) */
int mbr_cgfiles_set(bool on);
bool mbr_cgfiles_enabled(void);
extern atomic64_t mbr_cgfiles_groups_online;
extern atomic64_t mbr_cgfiles_groups_late;
bool mbr_cgfiles_online(struct mem_cgroup *memcg);
void mbr_cgfiles_exit(void);

/* marks.c: limits, watermarks, and the decision to queue or back off */
unsigned long mbr_memcg_limit(struct mem_cgroup *memcg);
/* A group's headroom under its limits, in pages (mbr_memcg_headroom()). */
struct mbr_headroom {
	unsigned long usage;	/* what the marks compare with */
	unsigned long limit;	/* what the marks are taken on */
	unsigned long memsw;	/* v1: the lowest memsw limit up the tree */
	unsigned long swap;	/* what a turn may swap out before memsw binds */
	/* The memcg whose limit binds (least room), or NULL; kept alive. */
	struct mem_cgroup *binding;
};
void mbr_memcg_headroom(struct mem_cgroup *memcg, struct mbr_headroom *h);
unsigned long mbr_folio_margin(struct mem_cgroup *memcg,
			       const struct mbr_marks *marks);
/* The margin while a group holds huge pages: one, and a reclaim batch. */
#define MBR_FOLIO_MARGIN \
	(IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ? \
	 HPAGE_PMD_NR + SWAP_CLUSTER_MAX : 0)
/* wmark_boost's node-wide boost (autotune.c). */
extern u64 mbr_boost_seed;
void mbr_boost_seed_forget(void);
u64 mbr_group_boost_raw(struct mbr_group *g);
u64 mbr_group_boost(struct mbr_group *g);
u64 mbr_group_boost_headroom(struct mbr_group *g, struct mem_cgroup *memcg);
struct mbr_marks mbr_group_marks(struct mbr_group *g,
				 struct mem_cgroup *memcg);
bool mbr_group_charged(struct mbr_group *g, struct mem_cgroup *memcg,
		       unsigned long pending);
void mbr_group_backoff(struct mbr_group *g, const struct mbr_headroom *h);
void mbr_group_progress(struct mbr_group *g);
bool mbr_group_clear_backoff(struct mbr_group *g);

/* protect.c: what the memcgs above a group protect in it */
unsigned long mbr_inherited_protection(struct mem_cgroup *memcg,
				       struct mem_cgroup *binding);

/* autotune.c: wmark_auto's cycles, observed by the worker turns */
void mbr_auto_observe(struct mbr_group *g, const struct mbr_marks *m,
		      unsigned long usage);
void mbr_auto_cycle_end(struct mbr_group *g);
void mbr_auto_cycle_discard(struct mbr_group *g, bool backoff);
void mbr_auto_reset(struct mbr_group *g);

/* stats.c */
void mbr_stats_show(const struct mbr_stats *st, char *buf, int *len);
void mbr_stats_add(struct mbr_stats *sum, const struct mbr_stats *st);
void mbr_stats_account_direct(struct mbr_stats *st, u64 ns);

/* cgroup_arg.c */
struct cgroup_subsys_state *mbr_memcg_css_from_arg(const char *op,
						   const char *arg, size_t len);
int mbr_cgroup_id_from_arg(const char *op, const char *arg, size_t len,
			   u64 *id);

/* group_sysfs.c */
extern struct kobj_type mbr_group_ktype;

/* workers.c: the FIFOs and the threads */
int mbr_workers_init(void);
void mbr_workers_exit(void);
void mbr_queue_group(struct mbr_group *g);
void mbr_drain_queue(void);
bool mbr_current_is_worker(void);
struct mbr_pool *mbr_pool_create(u64 id);
pid_t mbr_pool_pid(struct mbr_pool *p);
struct mbr_pool *mbr_pool_swap(struct mbr_group *g, struct mbr_pool *p);
void mbr_pool_destroy(struct mbr_pool *p);
void mbr_pool_detach(struct mbr_group *g);
void mbr_pool_detach_later(struct mbr_group *g, struct list_head *stop);
void mbr_pools_stop(struct list_head *stop);

/* budget.c: cpu_budget */
bool mbr_budget_admit(struct mbr_group *g, const struct mbr_budget *b);
void mbr_budget_charge(struct mbr_group *g, u64 cpu_ns);
bool mbr_budget_throttled(struct mbr_group *g);

/* billing.c: a dedicated worker billed to a cgroup (cpu_cgroup) */
int mbr_group_set_cpu_cgroup(struct mbr_group *g, const char *buf, size_t len);
ssize_t mbr_group_show_cpu_cgroup(struct mbr_group *g, char *buf);
int mbr_billing_init(void);
void mbr_billing_exit(void);

/* pace.c: sharing a worker's CPU with the tasks it serves */
#define MBR_PACE_RUN_NS		(500 * NSEC_PER_USEC)
#define MBR_PACE_CHUNK		64	/* pages per step while shared */
struct mbr_pace {
	u64 since;			/* local_clock() at the run's start */
	unsigned long nr_switches;	/* the worker's, at the last look */
	u64 call_start;			/* ktime of the reclaim call under way */
	unsigned long call_switches;	/* the worker's, at its start */
};
extern atomic64_t mbr_pace_yields;
void mbr_pace_init(struct mbr_pace *pace);
bool mbr_pace_shared(void);
bool mbr_pace_split(struct mbr_group *g);
void mbr_pace_call_begin(struct mbr_pace *pace);
void mbr_pace_call_end(struct mbr_pace *pace, struct mbr_group *g,
		       unsigned long pages, bool split);
void mbr_pace(struct mbr_pace *pace);

/* reclaim.c: one worker turn on one group */
bool mbr_reclaim_turn(struct mbr_group *g, struct mbr_pace *pace);

/* hooks.c */
int mbr_hooks_init_offline(void);
int mbr_hooks_check_targets(const char *extra);
int mbr_hooks_init_observers(void);
void mbr_hooks_exit_observers(void);
void mbr_hooks_exit(void);
unsigned long mbr_direct_missed(void);
unsigned long mbr_online_missed(void);

/* groups_proc.c */
int mbr_proc_init(void);
void mbr_proc_exit(void);

/* sysfs.c */
int mbr_sysfs_init(void);
void mbr_sysfs_remove_files(void);
void mbr_sysfs_exit(void);

#endif /* MBR_H */
