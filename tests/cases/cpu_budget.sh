# cpu_budget and cpu_cgroup: who pays for background reclaim.
#
# A greedy streaming group under a budget of 10% of one CPU (or half
# its workers' demand, where that is less) gets at most that much worker
# time, within a fifth of it, measured twice: by the module's
# own accounting, and by the scheduler, as the cpu.stat of the cgroup
# its dedicated worker is billed to (cpu_cgroup). That cgroup's cpu.max
# then throttles the worker. A second, well-behaved group beside the
# greedy one keeps its background reclaim: its direct reclaims are
# compared with a run of it alone. Invalid cgroups are refused, each
# with one clear line.
F=/mnt/stream.dat
W=/mnt/small.dat
check "test files" make_file $F ${MBR_STREAM_MB:-768}
check "small test file" make_file $W 256
check "module loads" mbr_load

# now_cs: the time, in hundredths of a second.
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# pct10 NUM_NS DEN_CS: NUM nanoseconds per mille of DEN centiseconds.
pct10() { echo $(($1 / ($2 * 10000))); }

mkgroup G 128M
check "watch G (24m/12m)" mbr_watch G 24m 12m
D=$(grp_dir G)
expect_eq "cpu_budget starts at max" "$(cat $D/cpu_budget)" "max 100000"
expect_eq "cpu_cgroup starts empty" "$(cat $D/cpu_cgroup)" ""
for bad in 10 abc "10000 999" "10000 2000000" "-1" "10000  100000" "1e4"; do
	expect_eq "cpu_budget refuses '$bad'" "$(wr $D/cpu_budget "$bad")" EINVAL
done
expect_eq "cpu_budget 5000 (keeps the period)" "$(wr $D/cpu_budget 5000) $(cat $D/cpu_budget)" "OK 5000 100000"
expect_eq "cpu_budget max 200000" "$(wr $D/cpu_budget 'max 200000') $(cat $D/cpu_budget)" "OK max 200000"
expect_eq "cpu_budget 10000 100000" "$(wr $D/cpu_budget '10000 100000') $(cat $D/cpu_budget)" "OK 10000 100000"
wr $D/cpu_budget max >/dev/null

# stream_run TAG GROUP FILE PASSES: stream in GROUP; sets cs_TAG (wall
# time) and cpu_TAG (the group's reclaim_cpu_ns over the run). The
# greedy group G streams a second file beside, for twice the demand.
stream_run() {
	local c0 t0 p2=
	c0=$(gstat "$2" reclaim_cpu_ns)
	t0=$(now_cs)
	if [ "$2" = G ]; then
		run_in G stream $W $((${4} * 3)) >/dev/null &
		p2=$!
	fi
	run_in "$2" stream "$3" "$4" >/tmp/stream.$1
	[ -z "$p2" ] || wait $p2
	eval "cs_$1=$(($(now_cs) - t0))"
	eval "cpu_$1=$(($(gstat "$2" reclaim_cpu_ns) - c0))"
}

# The greedy group without a budget: what its workers cost.
drop_caches
stream_run free G $F 2
diag "no budget: workers' CPU for G $((cpu_free / 1000000)) ms in $((cs_free * 10)) ms: $(pct10 $cpu_free $cs_free)/1000 of a CPU; $(cat /tmp/stream.free)"
# The budget: 10% of a CPU, or half of what the workers took without
# one where that is less (7.x reclaims a page for less CPU, so the same
# reading costs the workers less there), so that it binds. A budget of
# B per mille is kept within B/5 above it, and used to 3/5 of it.
free=$(pct10 $cpu_free $cs_free)
B=$((free / 2))
[ $B -gt 100 ] && B=100
[ $B -lt 30 ] && B=30	# the floor cpu.max takes at half of it
check "without a budget the workers take at least 6% of a CPU ($free/1000), so a budget of $B/1000 binds" \
	test "$free" -ge 60
BQ=$((B * 100))

# Billed to a leaf cgroup with the cpu controller.
check "the cpu controller is enabled on cgroup2" sh -c "echo +cpu >$CG/cgroup.subtree_control"
mkdir -p $CG/bill
expect_eq "cpu_cgroup refuses a relative path" "$(wr $D/cpu_cgroup bill)" EINVAL
expect_eq "cpu_cgroup refuses a missing directory" "$(wr $D/cpu_cgroup /nonexistent)" ENOENT
mkdir -p /tmp/fake && : >/tmp/fake/cgroup.procs
expect_eq "cpu_cgroup refuses a directory outside a cgroup fs, even with a cgroup.procs" \
	"$(wr $D/cpu_cgroup /tmp/fake)" ENOTDIR
check "and says so in one line" sh -c "dmesg | grep -q 'cpu_cgroup /tmp/fake: not a cgroup directory'"
mkdir -p $CG/deleg
chown 1000 $CG/deleg $CG/deleg/cgroup.procs
expect_eq "cpu_cgroup refuses a delegated cgroup" "$(wr $D/cpu_cgroup $CG/deleg)" EPERM
rmdir $CG/deleg
# A bind mount over cgroup.procs (here another cgroup file, memory.max)
# must not receive the pid.
mkdir -p $CG/bind
mount -o bind $CG/bind/memory.max $CG/bind/cgroup.procs
expect_eq "cpu_cgroup refuses a cgroup.procs that is not the cgroup's own" "$(wr $D/cpu_cgroup $CG/bind)" EXDEV
expect_eq "and wrote nothing there" "$(cat $CG/bind/memory.max)" max
umount $CG/bind/cgroup.procs
rmdir $CG/bind
mkdir -p $CG/inner/leaf
echo +memory >$CG/inner/cgroup.subtree_control
expect_eq "cpu_cgroup refuses a cgroup with controllers for its children (no internal process)" \
	"$(wr $D/cpu_cgroup $CG/inner)" EBUSY
check "and names the rule" sh -c "dmesg | grep -q 'cpu_cgroup $CG/inner: .*no-internal-process rule'"
rmdir $CG/inner/leaf $CG/inner
expect_eq "no worker was left behind by the refusals" "$(grep -l "memcg_bgrcl/g" /proc/[0-9]*/comm 2>/dev/null | wc -l)" 0
expect_eq "cpu_cgroup $CG/bill" "$(wr $D/cpu_cgroup $CG/bill) $(cat $D/cpu_cgroup)" "OK $CG/bill"
wpid=$(cat $CG/bill/cgroup.procs)
expect_eq "the group's own worker is in it" "$(cat /proc/$wpid/comm)" "memcg_bgrcl/g$(cgid G)"
expect_eq "cpu_budget $BQ 100000" "$(wr $D/cpu_budget "$BQ 100000")" OK

# The greedy group under its budget, billed.
drop_caches
u0=$(sed -n 's/^usage_usec //p' $CG/bill/cpu.stat)
t0=$(gstat G budget_throttled)
r0=$(gstat G reclaimed_pages)
stream_run budget G $F 2
billed=$((($(sed -n 's/^usage_usec //p' $CG/bill/cpu.stat) - u0) * 1000))
throttled=$(($(gstat G budget_throttled) - t0))
reclaimed=$(($(gstat G reclaimed_pages) - r0))
diag "budget $BQ 100000: module counts $((cpu_budget / 1000000)) ms, scheduler billed $((billed / 1000000)) ms to bill/ in $((cs_budget * 10)) ms; held back $throttled times; reclaimed $reclaimed pages; $(cat /tmp/stream.budget)"
check "the module's count: at most $((B * 6 / 5))/1000 of a CPU ($(pct10 $cpu_budget $cs_budget)/1000)" \
	test "$(pct10 $cpu_budget $cs_budget)" -le $((B * 6 / 5))
check "the scheduler's count: at most $((B * 6 / 5))/1000 of a CPU ($(pct10 $billed $cs_budget)/1000)" \
	test "$(pct10 $billed $cs_budget)" -le $((B * 6 / 5))
check "the budget was used, not idle: at least $((B * 3 / 5))/1000 of a CPU ($(pct10 $billed $cs_budget)/1000)" \
	test "$(pct10 $billed $cs_budget)" -ge $((B * 3 / 5))
check "the group was held back ($throttled times) and still reclaimed ($reclaimed pages)" \
	test "$throttled" -gt 0 -a "$reclaimed" -gt 0
diff=$((billed - cpu_budget))
[ $diff -lt 0 ] && diff=$((-diff))
check "bill/'s cpu.stat grew by the worker's CPU for G, within 10% ($((billed / 1000000)) vs $((cpu_budget / 1000000)) ms)" \
	test $((diff * 10)) -le "$cpu_budget"
check "budget_throttled_ns counts the time held back" test "$(gstat G budget_throttled_ns)" -gt 0

# cpu.max of the billed cgroup throttles the worker (no budget of ours),
# on kernels before 6.18.
# cpu.max needs CONFIG_CFS_BANDWIDTH (set in every Debian kernel).
wr $D/cpu_budget max >/dev/null
if [ -f $CG/bill/cpu.max ]; then
	# half the budget
	echo "$((BQ / 2)) 100000" >$CG/bill/cpu.max
	n0=$(sed -n 's/^nr_throttled //p' $CG/bill/cpu.stat)
	u0=$(sed -n 's/^usage_usec //p' $CG/bill/cpu.stat)
	drop_caches
	stream_run cpumax G $F 1
	billed=$((($(sed -n 's/^usage_usec //p' $CG/bill/cpu.stat) - u0) * 1000))
	n=$(($(sed -n 's/^nr_throttled //p' $CG/bill/cpu.stat) - n0))
	diag "bill/ cpu.max $((BQ / 2)) 100000: worker billed $((billed / 1000000)) ms in $((cs_cpumax * 10)) ms, throttled $n times"
	check "bill/'s cpu.max throttles bill/ ($n periods)" test "$n" -gt 0
	# From 6.18 on, CFS bandwidth throttles a task on its way back to
	# user space ("sched/fair: Task based throttle"), and a kernel
	# thread never goes there: cpu.max accounts the worker but no
	# longer holds it back, and cpu_budget (above) is what bounds it.
	set -- $(uname -r | tr '.-' '  ')
	if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 18 ]; }; then
		check "$1.$2: cpu.max does not hold back a kernel thread (task-based throttling): $(pct10 $billed $cs_cpumax)/1000 of a CPU" \
			test "$(pct10 $billed $cs_cpumax)" -gt $((B * 7 / 10))
	else
		check "to about $((B / 2))/1000 of a CPU ($(pct10 $billed $cs_cpumax)/1000)" \
			test "$(pct10 $billed $cs_cpumax)" -le $((B * 7 / 10))
	fi
	echo max >$CG/bill/cpu.max
else
	skip "bill/'s cpu.max: this kernel has no CFS bandwidth control (CONFIG_CFS_BANDWIDTH)"
fi

# Isolation: a well-behaved group W alone, then beside the greedy one.
mkgroup W 96M
check "watch W (24m/12m)" mbr_watch W 24m 12m
wr $D/cpu_budget "$BQ 100000" >/dev/null
drop_caches
d0=$(gstat W direct_reclaims)
stream_run alone W $W 1
alone=$(($(gstat W direct_reclaims) - d0))
drop_caches
d0=$(gstat W direct_reclaims)
run_in G stream $F 3 >/dev/null &
gpid=$!
sleep 2
stream_run beside W $W 1
beside=$(($(gstat W direct_reclaims) - d0))
killgroup G
wait $gpid 2>/dev/null
diag "W's direct reclaims: $alone alone ($(cat /tmp/stream.alone)), $beside beside the budgeted greedy G ($(cat /tmp/stream.beside))"
check "W keeps its background reclaim beside the greedy group ($beside vs $alone alone)" \
	test "$beside" -le $((alone + 20))

# Clearing cpu_cgroup stops the worker; the cgroup can go.
expect_eq "cpu_cgroup cleared (a newline)" "$(printf '\n' | wr $D/cpu_cgroup -) $(cat $D/cpu_cgroup)" "OK "
expect_eq "its worker left bill/" "$(cat $CG/bill/cgroup.procs)" ""
check "bill/ can be removed" rmdir $CG/bill
wr $D/cpu_budget max >/dev/null
r0=$(gstat G reclaim_runs)
drop_caches
run_in G stream $W 1 >/dev/null
check "the shared workers serve G again" test "$(gstat G reclaim_runs)" -gt "$r0"

# A rule's cpu_budget: each group it configures gets it (rule groups
# have no directory: the global stat sums their budget_throttled).
M=memcg-bgreclaim
mkgroup RB
cgmemchildren RB
expect_eq "CLI: rule add --cpu-budget '1000 100000'" \
	"$($M rule add /RB --high 24m --low 12m --cpu-budget '1000 100000' >/dev/null 2>&1; echo $?)" 0
expect_eq "rules shows it" "$(sed -n 's/ id=.*//; /^\/RB /p' $MBR_SYSFS/rules)" \
	"/RB high=25165824 low=12582912 cpu_budget=1000/100000"
expect_eq "CLI: a bad budget is a usage error, exit 2" \
	"$($M rule add /RB --ratio 80 --cpu-budget 10 >/dev/null 2>&1; echo $?)" 2
mkgroup RB/c1 128M
t0=$(mbr_stat budget_throttled)
drop_caches
run_in RB/c1 stream $F 1 >/tmp/stream.rb
t1=$(mbr_stat budget_throttled)
diag "rule group under 1 ms per 100 ms: held back $((t1 - t0)) times; $(cat /tmp/stream.rb)"
check "the rule's group is held back by the rule's budget ($((t1 - t0)) periods)" test $((t1 - t0)) -gt 0
printf 'rule /RB high=24m low=12m cpu_budget=1000/100000\n' >/tmp/rb.conf
$M apply /tmp/rb.conf >/tmp/apply.out 2>&1
check "CLI apply: the same rule with its budget is unchanged" grep -q "0 rules added or changed, 0 removed, 1 unchanged" /tmp/apply.out
diag "$(cat /tmp/apply.out)"
expect_eq "CLI: rule del" "$($M rule del /RB >/dev/null 2>&1; echo $?)" 0
rmgroup RB/c1 RB

# A dedicated worker goes with its group: rmdir while billed, and rmmod.
mkdir -p $CG/bill2
check "bill again" wr $D/cpu_cgroup $CG/bill2
diag "G's tasks before rmdir: $(cat $CG/G/cgroup.procs | tr '\n' ' ')"
rmgroup G
usleep 500000
expect_eq "rmdir of the group stopped its worker" "$(cat $CG/bill2/cgroup.procs)" ""
mkgroup G2 128M
check "watch G2" mbr_watch G2 24m 12m
check "bill G2" wr "$(grp_dir G2)/cpu_cgroup" $CG/bill2
run_in G2 stream $F 1 >/dev/null &
gpid=$!
sleep 3
check "module unloads with a billed worker busy" mbr_unload
wait $gpid
expect_eq "rmmod stopped it" "$(cat $CG/bill2/cgroup.procs)" ""
rmgroup G2 W
rmdir $CG/bill2
