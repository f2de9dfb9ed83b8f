# Shell library of the guest test cases (busybox sh).
#
# A case is /tests/<name>.sh. It reports with pass/fail/skip; each call is
# one TAP test point. After every case the harness also asserts that the
# case added no BUG/WARNING/Oops/lockup/RCU-stall line to the kernel log.

MBR_SYSFS=/sys/kernel/memcg_bgreclaim
MBR_KO=/memcg_bgreclaim.ko
# CG: the hierarchy of the memory controller. cgroup2 at /sys/fs/cgroup;
# with mbr.cgroup=v1 on the kernel command line, a cgroup v1 hierarchy
# at /sys/fs/cgroup/memory and cgroup2 without memory beside it
# (tests/vm/init mounts them). CG2: the cgroup2 mount either way.
if grep -q 'mbr\.cgroup=v1' /proc/cmdline; then
	MBR_CGROUP=v1
	CG=/sys/fs/cgroup/memory
	CG2=/sys/fs/cgroup/unified
else
	MBR_CGROUP=v2
	CG=/sys/fs/cgroup
	CG2=$CG
fi

# One line per test point, whatever the description holds.
oneline() { printf '%s' "$*" | tr '\n' '|'; }
pass() { echo "ok - $MBR_CASE: $(oneline "$*")"; }
fail() { echo "not ok - $MBR_CASE: $(oneline "$*")"; }
skip() { echo "ok - $MBR_CASE: $(oneline "$*") # SKIP"; }
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
MBR_BAD_DMESG='BUG:|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|hung task|blocked for more than|rcu_sched self-detected stall|rcu_preempt self-detected stall|RCU stall|rcu: INFO|general protection fault|kernel panic|list_add corruption|list_del corruption|refcount_t:|UBSAN|KASAN|kmemleak|ODEBUG'

mbr_load() { insmod "$MBR_KO" "$@"; }
mbr_unload() { rmmod memcg_bgreclaim; }
mbr_loaded() { grep -q '^memcg_bgreclaim ' /proc/modules; }

# kmemleak (debug kernels only): a scan reports objects unreferenced for
# more than 5 s, and an object is only reported after it stayed unchanged
# over two scans; "clear" forgets the suspects reported so far.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_scan() {
	sleep 6
	echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK"
}
# Start from no suspects: what boot left behind is not a case's leak.
kmemleak_begin() {
	[ -w "$KMEMLEAK" ] || return 0
	kmemleak_scan
	diag "kmemleak: $(grep -c '^unreferenced object' "$KMEMLEAK") suspects from boot, cleared"
	echo clear >"$KMEMLEAK"
}
# One test point: the case left no unreferenced object.
kmemleak_check() {
	[ -w "$KMEMLEAK" ] || return 0
	kmemleak_scan
	n=$(grep -c '^unreferenced object' "$KMEMLEAK")
	if [ "$n" = 0 ]; then
		pass "kmemleak finds no leak"
	else
		fail "kmemleak finds no leak ($n unreferenced objects)"
		head -n 60 "$KMEMLEAK" | sed 's/^/#   /'
	fi
	echo clear >"$KMEMLEAK"
}

run_case() {
	MBR_CASE=$1
	dmesg -c >/dev/null	# the full log also goes to the console port
	diag "case $MBR_CASE"
	case_t0=$(cut -d. -f1 /proc/uptime)
	(. "/tests/$MBR_CASE.sh") 2>&1
	mbr_loaded && mbr_unload 2>/dev/null
	kmemleak_check
	pattern=$MBR_BAD_DMESG
	# A case that provokes the OOM killer gets its report's stack dump
	# (one "Call Trace" per "invoked oom-killer"); nothing else is waived.
	if [ -e /tmp/mbr_allow_oom_trace ] &&
		[ "$(dmesg | grep -c 'Call Trace')" -le "$(dmesg | grep -c 'invoked oom-killer')" ]; then
		pattern=$(echo "$MBR_BAD_DMESG" | sed 's/|Call Trace//')
	fi
	rm -f /tmp/mbr_allow_oom_trace
	diag "case $MBR_CASE took $(($(cut -d. -f1 /proc/uptime) - case_t0)) s"
	bad=$(dmesg | grep -E "$pattern")
	if [ -n "$bad" ]; then
		# The first line in the point's name, for a summary that lists
		# only the names of the failed points ('#' would start a TAP
		# directive, and the host's dash echo expands backslashes).
		fail "kernel log clean ($(echo "$bad" | head -n 1 | sed 's/^\[[^]]*\] *//' | tr -d '#\\' | cut -c1-120))"
		echo "$bad" | head -n 40 | sed 's/^/#   /'
	else
		pass "kernel log clean"
	fi
}

T=/sys/kernel/tracing

# The memory controller's files that differ between cgroup2 and v1, for
# the cases that run on both: cgfile KEY names the file of memory.KEY
# (max, high, current) on this hierarchy, and fails for memory.high on
# v1, which has none.
cgfile() {
	case $MBR_CGROUP:$1 in
	v1:max) echo memory.limit_in_bytes ;;
	v1:current) echo memory.usage_in_bytes ;;
	v1:*) return 1 ;;
	*) echo "memory.$1" ;;
	esac
}

# cgset NAME KEY VALUE: write memory.KEY of a cgroup; "max" is no limit.
cgset() {
	local f v=$3
	f=$(cgfile "$2") || return 1
	[ "$MBR_CGROUP" = v1 ] && [ "$v" = max ] && v=-1
	echo "$v" >"$CG/$1/$f"
}

# cgget NAME KEY: read memory.KEY of a cgroup.
cgget() {
	local f
	f=$(cgfile "$2") || return 1
	cat "$CG/$1/$f"
}

# cgmemchildren NAME: give NAME's children memory controllers of their
# own (cgroup2: its cgroup.subtree_control; every v1 cgroup has one).
cgmemchildren() {
	[ "$MBR_CGROUP" = v1 ] || echo +memory >"$CG/$1/cgroup.subtree_control"
}

# cgdying NAME: removed cgroups not yet freed below NAME. v1 has no
# cgroup.stat: there, those of the whole memory hierarchy (the cgroups
# /proc/cgroups counts that have no directory any more).
cgdying() {
	if [ "$MBR_CGROUP" = v1 ]; then
		echo $(($(awk '$1 == "memory" { print $3 }' /proc/cgroups) -
			$(find "$CG" -type d | wc -l)))
	else
		sed -n 's/^nr_dying_descendants //p' "$CG/$1/cgroup.stat"
	fi
}

# mkgroup NAME [MAX]: a cgroup below the root, memory.max set if given.
mkgroup() {
	mkdir -p "$CG/$1" || return 1
	[ -z "${2:-}" ] || cgset "$1" max "$2"
}

# cgid NAME: the cgroup id (the directory's inode number).
cgid() { stat -c %i "$CG/$1"; }

# run_in NAME CMD...: run a command inside the cgroup.
run_in() {
	local g=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG/$g" "$@"
}

# grp_dir NAME: the module's directory of a configured group.
grp_dir() { echo "$MBR_SYSFS/cgroups/$(cgid "$1")"; }

# mbr_watch NAME HIGH_DIST LOW_DIST: configure a group's watermarks.
mbr_watch() {
	wr "$MBR_SYSFS/add" "$CG/$1" >/dev/null &&
		wr "$(grp_dir "$1")/high_wmark_distance" "$2" >/dev/null &&
		wr "$(grp_dir "$1")/low_wmark_distance" "$3" >/dev/null
}

# gstat NAME KEY: one counter of a configured group.
gstat() { sed -n "s/^$2 //p" "$(grp_dir "$1")/stat"; }

# mbr_stat KEY: one counter of the module's global stat.
mbr_stat() { sed -n "s/^$1 //p" "$MBR_SYSFS/stat"; }

# grew VAR NAME KEY COMMAND...: run COMMAND in this shell (it may set
# variables) and set VAR to how much group NAME's counter KEY grew
# meanwhile. Nested, the outer counter is read first and last. The
# locals are prefixed: COMMAND sees them and may set names of its own.
grew() {
	local grew_v=$1 grew_g=$2 grew_k=$3 grew_c0 grew_c1
	shift 3
	grew_c0=$(gstat "$grew_g" "$grew_k")
	"$@"
	grew_c1=$(gstat "$grew_g" "$grew_k")
	eval "$grew_v=$((grew_c1 - grew_c0))"
}

# mstat NAME KEY: one key of the cgroup's memory.stat.
mstat() { sed -n "s/^$2 //p" "$CG/$1/memory.stat"; }

# wmark NAME low|high: a watermark in bytes.
wmark() { sed -n "s/^$2_wmark //p" "$(grp_dir "$1")/reclaim_wmarks"; }

# Count direct reclaims per task with a histogram trigger on the
# kernel's own memcg reclaim tracepoint, independent of the module.
MBR_HIST='hist:keys=common_pid.execname:vals=hitcount'
MBR_RECLAIM_EV=$T/events/vmscan/mm_vmscan_memcg_reclaim_begin
trace_reclaims_start() { echo "$MBR_HIST" >"$MBR_RECLAIM_EV/trigger"; }
trace_reclaims_stop() { echo "!$MBR_HIST" >"$MBR_RECLAIM_EV/trigger"; }
# trace_reclaims COMM: events by tasks named COMM so far.
trace_reclaims() {
	grep "$1 *\[" "$MBR_RECLAIM_EV/hist" |
		sed 's/.*hitcount: *\([0-9]*\).*/\1/' |
		awk '{ s += $1 } END { print s + 0 }'
}

drop_caches() { sync && echo 3 >/proc/sys/vm/drop_caches; }

# selftests_root PROG...: a root for the kernel's memcg selftests (from
# /selftests) on the ext4 disk at $MBR_ST_ROOT, as on a machine whose
# root is a real file system: their page cache files (O_TMPFILE in the
# cwd, /) need one, and test_kmem_basic counts the negative dentries of
# lookups in / (the initramfs's ramfs keeps none). proc, sysfs and the
# cgroup2 hierarchy are mounted inside; test_memcg_sock connects to
# "localhost": loopback up, and a hosts file for the static getaddrinfo.
# selftests_root_done unmounts them.
MBR_ST_ROOT=/mnt/selftests
selftests_root() {
	local p r=$MBR_ST_ROOT
	umount $r/sys/fs/cgroup $r/sys $r/proc 2>/dev/null
	rm -rf $r
	mkdir -p $r/bin $r/etc $r/proc $r/sys
	for p; do cp "/selftests/$p" $r/bin/; done
	mount -t proc proc $r/proc
	mount -t sysfs sysfs $r/sys
	mount -t cgroup2 cgroup2 $r/sys/fs/cgroup
	ip link set lo up
	printf '127.0.0.1 localhost\n::1 localhost\n' >$r/etc/hosts
}
selftests_root_done() {
	umount $MBR_ST_ROOT/sys/fs/cgroup $MBR_ST_ROOT/sys $MBR_ST_ROOT/proc
}

# cgconf_start OUT LOG ARG...: configure every new cgroup below the
# cgroup2 root (the cgconf helper, with ARG..., the marks) in the
# background, its output to OUT and LOG, and wait up to 5 s for it to
# say it is watching. Sets CGCONF_PID; fails if it never said so.
cgconf_start() {
	local out=$1 log=$2 i=0
	shift 2
	cgconf -v /sys/fs/cgroup "$@" >"$out" 2>"$log" &
	CGCONF_PID=$!
	while ! grep -qs ready "$out" && [ $i -lt 100 ]; do
		usleep 50000
		i=$((i + 1))
	done
	grep -qs ready "$out"
}

# cleanup_cgroups: remove every cgroup below the cgroup2 root, killing
# what runs in them (what a killed or failed selftest left behind).
cleanup_cgroups() {
	local d n=0
	for d in $(find /sys/fs/cgroup -mindepth 1 -type d | sort -r); do
		echo 1 >"$d/cgroup.kill" 2>/dev/null
		rmdir "$d" 2>/dev/null || { usleep 200000; rmdir "$d"; }
		n=$((n + 1))
	done
	[ $n = 0 ] || diag "removed $n cgroups left behind"
}

# zram_swap_on SIZE: swap of SIZE on /dev/zram0, for cases whose
# anonymous memory must be reclaimable; whatever an earlier case left on
# the device goes first. zram_swap_off: no swap again (unreclaimable
# needs a guest without any).
zram_swap_on() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	echo "$1" >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0
}
zram_swap_off() { swapoff /dev/zram0 && echo 1 >/sys/block/zram0/reset; }

# mbr_workers: the PIDs of the module's shared worker threads.
mbr_workers() {
	local p
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		memcg_bgrcl/[0-9]*) echo "${p#/proc/}" ;;
		esac
	done
}

# mbr_workers_on MASK: the shared workers' CPU affinity (taskset's mask).
mbr_workers_on() {
	local w
	for w in $(mbr_workers); do taskset -p "$1" "$w" >/dev/null || return 1; done
}

# one_thread: true on an arm64 guest run by QEMU's thread=single, which
# runs the vCPUs in turns on one host thread (run.sh passes
# mbr.one_thread=1 then). There a map and unmap beside a busy vCPU is 7
# to 90 times slower than beside an idle one (doc/testing.md, "arm64 on
# one TCG thread"). one_thread_place: sets ON, the prefix that runs a
# case's tasks where its timing asserts mean what they say: there the
# shared workers go to CPU 1 and ON is "taskset 1", the group's tasks on
# CPU 0; elsewhere (amd64, thread=multi, hardware) ON is empty.
one_thread() { [ "$(uname -m)" = aarch64 ] && grep -qw 'mbr\.one_thread=1' /proc/cmdline; }
one_thread_place() {
	ON=
	one_thread || return 0
	mbr_workers_on 2 || return 1
	ON="taskset 1"
}

# probe_beside_stream NAME FILE SECONDS [PREFIX...]: the benchmark's
# latency probe (64 KiB mapped and touched every 1 ms for SECONDS)
# beside a streaming reader of FILE, both in group NAME and each run
# under PREFIX (taskset 1, say). The probe's output goes to
# /tmp/probe.out; sets N (its operations), NP and NS (the direct
# reclaims of the probe and the reader, by the kernel's tracepoint).
# STREAM_FLAGS, if set, are the reader's options (-r: no readahead).
probe_beside_stream() {
	local g=$1 f=$2 s=$3 spid
	shift 3
	drop_caches
	run_in "$g" "$@" stream ${STREAM_FLAGS:-} "$f" 1000 >/dev/null 2>&1 &
	spid=$!
	sleep 1
	trace_reclaims_start
	run_in "$g" "$@" probe "$s" 1000 64 >/tmp/probe.out
	NP=$(trace_reclaims probe)
	NS=$(trace_reclaims stream)
	trace_reclaims_stop
	killgroup "$g"
	wait $spid
	N=$(sed -n 's/^n \([0-9]*\).*/\1/p' /tmp/probe.out)
}

# make_file PATH MiB: a file of MiB on the scratch ext4 disk, not cached.
make_file() {
	[ -f "$1" ] && [ "$(stat -c %s "$1")" = $(($2 << 20)) ] && return 0
	dd if=/dev/zero of="$1" bs=1M count="$2" 2>/dev/null && drop_caches
}

# stream_group NAME: the start of a case that streams the test file
# through a watched group: F the file (MBR_STREAM_MB, 768 MiB), the
# module loaded, NAME of 128M watched at 24m/12m, the caches dropped.
stream_group() {
	F=/mnt/stream.dat
	check "test file" make_file "$F" "${MBR_STREAM_MB:-768}"
	check "module loads" mbr_load
	mkgroup "$1" 128M
	check "watch $1" mbr_watch "$1" 24m 12m
	drop_caches
}

# sample_usage NAME PID OUT [PREFIX...]: record memory.current every 20
# ms while PID runs (the helper sample: no fork per sample), run under
# PREFIX (taskset 1, say).
sample_usage() {
	local g=$1 pid=$2 out=$3
	shift 3
	"$@" sample "$CG/$g/$(cgfile current)" "$pid" "$out" 20
}

# frac_le FILE LIMIT: percentage of the samples in FILE at or below LIMIT.
frac_le() {
	awk -v l="$2" '{ n++; if ($1 <= l) k++ } END { print n ? int(100 * k / n) : 0 }' "$1"
}

# rmgroup NAME...: rmdir, waiting up to 5 s for killed tasks to leave.
rmgroup() {
	local g n
	for g in "$@"; do
		n=0
		while ! rmdir "$CG/$g" 2>/dev/null; do
			[ $n -ge 50 ] && { rmdir "$CG/$g"; return 1; }
			usleep 100000
			n=$((n + 1))
		done
	done
}

# killgroup NAME: kill every task of a cgroup (cgroup.kill, 5.14+; v1
# has none: each task its cgroup.procs lists).
killgroup() {
	if [ "$MBR_CGROUP" = v1 ]; then
		# shellcheck disable=SC2046
		kill -9 $(cat "$CG/$1/cgroup.procs") 2>/dev/null
		return 0
	fi
	echo 1 >"$CG/$1/cgroup.kill"
}
