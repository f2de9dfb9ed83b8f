# Shell library of the guest test cases (busybox sh).
#
# A case is /tests/<name>.sh. It reports with pass/fail/skip; each call is
# one TAP test point. After every case the harness also asserts that the
# case added no BUG/WARNING/Oops/lockup/RCU-stall line to the kernel log.

MBR_SYSFS=/sys/kernel/memcg_bgreclaim
MBR_KO=/memcg_bgreclaim.ko
CG=/sys/fs/cgroup

pass() { echo "ok - $MBR_CASE: $*"; }
fail() { echo "not ok - $MBR_CASE: $*"; }
skip() { echo "ok - $MBR_CASE: $* # SKIP"; }
diag() { echo "# $*"; }

# check DESC COMMAND...: one test point from a command's exit status.
check() {
	desc=$1
	shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# expect_eq DESC GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (got '$2', want '$3')"; fi
}

# The kernel log lines that fail every case, whatever it tested.
MBR_BAD_DMESG='BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|hung task|blocked for more than|rcu_sched self-detected stall|rcu_preempt self-detected stall|RCU stall|rcu: INFO|general protection fault|kernel panic|list_add corruption|list_del corruption|refcount_t:|UBSAN|KASAN|kmemleak'

mbr_load() { insmod "$MBR_KO" "$@"; }
mbr_unload() { rmmod memcg_bgreclaim; }
mbr_loaded() { grep -q '^memcg_bgreclaim ' /proc/modules; }

run_case() {
	MBR_CASE=$1
	dmesg -c >/dev/null	# the full log also goes to the console port
	diag "case $MBR_CASE"
	(. "/tests/$MBR_CASE.sh") 2>&1
	mbr_loaded && mbr_unload 2>/dev/null
	bad=$(dmesg | grep -E "$MBR_BAD_DMESG")
	if [ -n "$bad" ]; then
		fail "kernel log clean"
		echo "$bad" | head -n 40 | sed 's/^/#   /'
	else
		pass "kernel log clean"
	fi
}
