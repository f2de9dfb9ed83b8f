# A worker's pacing (module/pace.c): while another task waits for the
# worker's CPU, the worker reclaims in small steps and, after 0.5 ms on
# the CPU, yields between them; with a CPU of its own it does not.
# The group gets a worker of its own (cpu_cgroup), so that one thread
# does all its reclaim, and placement is forced with CPU affinity:
# first that worker, the streaming reader and the latency probe share
# CPU 0; then the worker has CPU 1 to itself (but for the kworkers and
# ksoftirqd that run there now and then). In both phases neither task
# may enter direct reclaim: the yields must not let the worker fall
# behind the reader it shares the CPU with. The probe's percentiles are
# reported, not asserted (TCG timing is not the bench's).
F=/mnt/stream.dat
S=${MBR_PROBE_S:-8}
NCPU=$(grep -c '^processor' /proc/cpuinfo)
if [ "$NCPU" -lt 2 ]; then
	echo "ok - $MBR_CASE: worker pacing # SKIP needs 2 CPUs, this guest has $NCPU"
	exit 0
fi
yields() { sed -n 's/^worker_yields //p' "$MBR_SYSFS/stat"; }
# phase NAME WORKER_CPU: the reader and the probe on CPU 0, the group's
# worker on WORKER_CPU; sets Y (worker yields), NP and NS (direct
# reclaims of the probe and the reader).
phase() {
	taskset -p "$2" "$wpid" >/dev/null || return 1
	drop_caches
	y0=$(yields)
	run_in P taskset 1 stream $F 1000 >/dev/null 2>&1 &
	spid=$!
	sleep 1
	trace_reclaims_start
	run_in P taskset 1 probe $S 1000 64 >/tmp/probe.out
	NP=$(trace_reclaims probe)
	NS=$(trace_reclaims stream)
	trace_reclaims_stop
	killgroup P
	wait $spid
	Y=$(($(yields) - y0))
	diag "$1: probe $(cat /tmp/probe.out); direct reclaims probe=$NP stream=$NS; worker yields $Y"
}
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
check "worker_yields in stat" test -n "$(yields)"
mkgroup P 128M
check "watch P (high 24m, low 12m)" mbr_watch P 24m 12m
mkdir -p $CG/pacew
expect_eq "P gets a worker of its own (cpu_cgroup)" "$(wr "$(grp_dir P)/cpu_cgroup" $CG/pacew)" OK
wpid=$(cat $CG/pacew/cgroup.procs)
expect_eq "its worker" "$(cat /proc/$wpid/comm 2>/dev/null)" "memcg_bgrcl/g$(cgid P)"
n0=$(gstat P reclaimed_pages)
check "shared phase ran" phase "worker on the readers' CPU" 1
ys=$Y
check "the worker yielded to the tasks sharing its CPU ($ys)" test "$ys" -gt 0
expect_eq "shared: the probe never entered direct reclaim" "$NP" 0
expect_eq "shared: the reader never entered direct reclaim" "$NS" 0
n1=$(gstat P reclaimed_pages)
check "shared: background reclaim freed pages ($((n1 - n0)))" test $((n1 - n0)) -gt 0
check "alone phase ran" phase "worker on a CPU of its own" 2
ya=$Y
check "the worker on a CPU of its own yielded a third as often or less ($ya vs $ys shared)" \
	test $((ya * 3)) -lt "$ys"
expect_eq "alone: the probe never entered direct reclaim" "$NP" 0
expect_eq "alone: the reader never entered direct reclaim" "$NS" 0
rmgroup P
check "module unloads" mbr_unload
check "pacew/ can be removed" rmdir $CG/pacew
