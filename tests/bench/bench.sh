# make bench, guest side: every scenario side by side, in one boot, on
# the same data. One "BENCH {json}" line per measured run.
#
# Contenders, all in group G (memory.max 128M, marks 24m/12m below it):
#   stock     no background reclaim
#   memhigh   memory.high at the low mark (the upstream way)
#   userloop  a loop polling memory.current every 100 ms and writing
#             memory.reclaim down to the high mark (senpai/Koordinator)
#   bgreclaim memcg_bgreclaim with the same marks
#   unlimited the same workload with no limit (the floor)
# and, not by default (make bench SCEN=read,probe CONTENDERS=stock,
# koordreclaim,koordlet,unlimited), Koordinator's two ways on a stock
# kernel, both with its DefaultMemoryQOS values (ratio 95, scale 20):
#   koordreclaim  the memory.reclaim fallback of koordinator-sh PR #3189:
#             every reconcile (1 s), where memory.current is above
#             memory.max * 95 / 100, memory.reclaim of the excess, at
#             most 32 MiB
#   koordlet  a koordlet-shaped reconciler (tests/cases/koordlet.sh)
#             writing 95/20 into this module's cgroupfs files
# and billed (CONTENDERS=bgreclaim,billedmax,billed): bgreclaim with
# its worker billed (cpu_cgroup) to a cgroup whose cpu.max is 5% of a
# CPU, so that it is throttled; billedmax, the same cgroup without a
# cpu.max, tells the throttling from the worker's own cpu task group;
# and bgsteps and bgwhole (CONTENDERS=bgwhole,bgsteps,unlimited; the
# dying scenario runs each of them too): bgreclaim with the module's
# step_alone parameter 1 and 0, its worker reclaiming in 64-page steps
# even while alone on its CPU, or in one call a turn then.
# The module is loaded for every contender, with enabled=0 except for
# bgreclaim, so that one observer times the stalls of all of them; the
# stall counts come from the kernel's own memcg reclaim tracepoint.
Q=${MBR_QUICK:-0}
if [ "$Q" = 1 ]; then
	READ_MB=256 PASSES=2 WRITE_MB=256 REPS=1 PROBE_S=6 ANON_MB=256
	OVH_REPS=5 OVH_ITERS=8 SCALE="1 100 1000" FAIR_MB=48 TEN_MB=128
	DYING="0 1000"
else
	READ_MB=768 PASSES=3 WRITE_MB=512 REPS=3 PROBE_S=20 ANON_MB=256
	OVH_REPS=9 OVH_ITERS=16 SCALE="1 100 1000 10000" FAIR_MB=96 TEN_MB=256
	DYING="0 5000"
fi
REPS=${MBR_REPS:-$REPS} PROBE_S=${MBR_PROBE_S:-$PROBE_S} ANON_CHUNK_MB=2
# The kernel command line can narrow a run (make bench SCEN=... CONTENDERS=...).
cmdline_list() { sed -n "s/.*mbr\.$1=\([^ ]*\).*/\1/p" /proc/cmdline | tr , ' '; }
SCENARIOS=$(cmdline_list scen)
SCENARIOS=${SCENARIOS:-read write probe anon reaction fairness sweep overhead scale tenants auto}
CONTENDERS=$(cmdline_list contenders)
CONTENDERS=${CONTENDERS:-stock memhigh userloop bgreclaim unlimited}
LIMIT_MB=128 HIGHD=24 LOWD=12 BILL_MAX=5000
HIGH_B=$(((LIMIT_MB - HIGHD) << 20))
LOW_B=$(((LIMIT_MB - LOWD) << 20))
F=/mnt/bench.dat

# One hist trigger for the whole boot, cleared before each run instead of
# added and removed: each addition patches kernel text (a static call),
# which multi-threaded TCG now and then gets wrong (see tests/bench.sh).
trace_reclaims_start() {
	if grep -q '^hist:keys=common_pid.execname' "$MBR_RECLAIM_EV/trigger"; then
		echo "$MBR_HIST:clear" >>"$MBR_RECLAIM_EV/trigger"
	else
		echo "$MBR_HIST" >"$MBR_RECLAIM_EV/trigger"
	fi
}
trace_reclaims_stop() { :; }

quantile() {	# quantile Q FILE: the Q quantile of FILE's numbers, sorted
	awk -v q="$1" -v n="$(wc -l <"$2")" 'NR == int(n * q) + 1 { print; exit }' "$2"
}

json() {	# json k v k v ...: one flat JSON object
	s=
	while [ $# -ge 2 ]; do
		case $2 in
		'' | *[!0-9.-]*) v="\"$2\"" ;;
		*) v=$2 ;;
		esac
		s="$s${s:+,}\"$1\":$v"
		shift 2
	done
	echo "BENCH {\"kernel\":\"$(cat /etc/krel)\",$s}"
}

userloop() {	# the user-space agent: poll every 100 ms, reclaim to the high mark
	while :; do
		read -r cur <$CG/G/memory.current
		[ "$cur" -gt $HIGH_B ] && echo $((cur - HIGH_B)) >$CG/G/memory.reclaim 2>/dev/null
		usleep 100000
	done
}
USERLOOP_PID=

KOORD_RATIO=95 KOORD_SCALE=20
koordreclaim() {	# PR #3189's reconcile: at most 32 MiB a second
	local max wm cur
	read -r max <$CG/G/memory.max
	wm=$((max * KOORD_RATIO / 100))
	while :; do
		read -r cur <$CG/G/memory.current
		if [ "$cur" -gt $wm ]; then
			cur=$((cur - wm))
			[ $cur -gt $((32 << 20)) ] && cur=$((32 << 20))
			echo $cur >$CG/G/memory.reclaim 2>/dev/null
		fi
		sleep 1
	done
}
koordlet() {	# read before write, a bare decimal, once a second
	local f v cur
	while :; do
		for f in ratio:$KOORD_RATIO scale_factor:$KOORD_SCALE; do
			v=${f#*:}
			f=$CG/G/memory.wmark_${f%%:*}
			read -r cur <$f
			[ "$cur" = "$v" ] || printf %s "$v" >$f
		done
		sleep 1
	done
}

setup() {	# setup CONTENDER
	mkgroup G
	wr $MBR_SYSFS/add $CG/G >/dev/null
	wr $MBR_SYSFS/enabled 0 >/dev/null
	case $1 in
	unlimited) ;;
	*) echo ${LIMIT_MB}M >$CG/G/memory.max ;;
	esac
	case $1 in
	memhigh) echo $LOW_B >$CG/G/memory.high ;;
	userloop) userloop & USERLOOP_PID=$! ;;
	koordreclaim) koordreclaim & USERLOOP_PID=$! ;;
	koordlet)
		wr $MBR_SYSFS/cgroupfs_files 1 >/dev/null
		wr $MBR_SYSFS/enabled 1 >/dev/null
		koordlet & USERLOOP_PID=$!
		# its first pass, before the workload starts
		while [ "$(cat $CG/G/memory.wmark_scale_factor)" != $KOORD_SCALE ]; do
			usleep 10000
		done
		;;
	bgreclaim | billed | billedmax | bgsteps | bgwhole)
		step_mode $1
		wr $(grp_dir G)/high_wmark_distance ${HIGHD}m >/dev/null
		wr $(grp_dir G)/low_wmark_distance ${LOWD}m >/dev/null
		case $1 in
		billed*)
			echo +cpu >$CG/cgroup.subtree_control
			mkdir $CG/bill || diag "bench: bill/ was left over"
			[ $1 = billed ] && echo "$BILL_MAX 100000" >$CG/bill/cpu.max
			wr $(grp_dir G)/cpu_cgroup $CG/bill >/dev/null
			;;
		esac
		wr $MBR_SYSFS/enabled 1 >/dev/null
		;;
	esac
}

# The module's step_alone for a contender; its default for the others.
STEP_P=/sys/module/memcg_bgreclaim/parameters/step_alone
step_mode() {
	if [ ! -w $STEP_P ]; then
		case $1 in
		bgsteps | bgwhole) diag "bench: $1 needs $STEP_P" ;;
		esac
		return
	fi
	case $1 in
	bgsteps) echo 1 ;;
	bgwhole) echo 0 ;;
	*) echo "$STEP_DEFAULT" ;;
	esac >$STEP_P
}

teardown() {
	step_mode default
	if [ -n "$USERLOOP_PID" ]; then
		kill $USERLOOP_PID
		wait $USERLOOP_PID 2>/dev/null
		USERLOOP_PID=
	fi
	killgroup G 2>/dev/null
	rmgroup G
	wr $MBR_SYSFS/cgroupfs_files 0 >/dev/null
	# the group's worker left with it; the other contenders run
	# without the cpu controller
	if [ -d $CG/bill ]; then
		rmgroup bill || diag "bench: bill/ still busy after its group went"
		echo -cpu >$CG/cgroup.subtree_control
	fi
}

cpu_ns_of() {	# utime+stime of a pid, in ns (USER_HZ 100)
	[ -n "$1" ] && [ -d /proc/$1 ] || { echo 0; return; }
	awk '{ print ($14 + $15) * 10000000 }' /proc/$1/stat
}

snap() {	# snap PREFIX: counters before/after a run
	eval "${1}_scan=$(mstat G pgscan) ${1}_steal=$(mstat G pgsteal)"
	eval "${1}_dns=$(gstat G direct_reclaim_ns) ${1}_bg=$(gstat G reclaimed_pages)"
	eval "${1}_bgcpu=$(gstat G reclaim_cpu_ns) ${1}_ucpu=$(cpu_ns_of "$USERLOOP_PID")"
	eval "${1}_yld=$(sed -n 's/^worker_yields //p' $MBR_SYSFS/stat 2>/dev/null)"
}

deltas() {	# the common metrics of one run, as json pairs
	echo "direct_ns $((b_dns - a_dns)) pgscan $((b_scan - a_scan)) pgsteal $((b_steal - a_steal)) bg_pages $((b_bg - a_bg)) bg_cpu_ns $((b_bgcpu - a_bgcpu + b_ucpu - a_ucpu))"
}

# --- seed read and seed write --------------------------------------
scen_read() {	# scen_read CONTENDER REP
	drop_caches
	snap a
	trace_reclaims_start
	run_in G stream $F $PASSES >/tmp/out
	n=$(trace_reclaims stream)
	trace_reclaims_stop
	snap b
	set -- "$1" "$2" $(cat /tmp/out)
	json scenario read contender $1 rep $2 direct $n $(deltas) \
		mbps $(awk -v b=$4 -v t=$6 'BEGIN { printf "%.1f", b / 1048576 / (t / 1e9) }')
}

scen_write() {
	rm -f /mnt/bench-w.dat
	drop_caches
	snap a
	trace_reclaims_start
	run_in G timeit dd if=/dev/zero of=/mnt/bench-w.dat bs=1M count=$WRITE_MB 2>/tmp/out
	n=$(trace_reclaims dd)
	trace_reclaims_stop
	snap b
	t=$(sed -n 's/^real_ns \([0-9]*\).*/\1/p' /tmp/out)
	json scenario write contender $1 rep $2 direct $n $(deltas) \
		mbps $(awk -v m=$WRITE_MB -v t=$t 'BEGIN { printf "%.1f", m / (t / 1e9) }')
	rm -f /mnt/bench-w.dat
}

# --- latency probe beside a streaming reader ------------------------
# probe_beside SCENARIO CGROUP CONTENDER REP: the probe in CGROUP while
# G's reader streams.
probe_beside() {
	drop_caches
	run_in G stream $F 1000 >/dev/null 2>&1 &
	spid=$!
	sleep 1
	snap a
	trace_reclaims_start
	run_in $2 probe $PROBE_S 1000 64 >/tmp/out
	n=$(($(trace_reclaims probe) + $(trace_reclaims stream)))
	trace_reclaims_stop
	snap b
	killgroup G
	wait $spid	# not the user-space agent, which runs on
	set -- "$1" "$3" "$4" $(cat /tmp/out)
	json scenario $1 contender $2 rep $3 direct $n $(deltas) \
		yields $((${b_yld:-0} - ${a_yld:-0})) ops $5 p50_ns $7 p99_ns $9 p999_ns ${11} max_ns ${13} \
		throttled "$(sed -n 's/^nr_throttled //p' $CG/bill/cpu.stat 2>/dev/null)"
}
scen_probe() { probe_beside probe G "$@"; }

# The same probe in a tenant of its own: what a group's background
# reclaim costs a task outside it (tenant/, a cgroup without a limit).
# With CONTENDERS=stock,bgreclaim,billedmax,billed: whether a throttled
# worker holds up a task it does not reclaim for.
scen_probeout() {
	mkgroup tenant
	probe_beside probeout tenant "$@"
	rmgroup tenant
}

# --- anonymous memory with zram swap --------------------------------
# TLB shootdown interrupts, all CPUs: a reclaimer on another CPU than
# the task flushes the task's TLB with one before it writes a dirty
# page out, the task reclaiming its own pages does not.
tlb_shootdowns() {
	awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
		END { print s + 0 }' /proc/interrupts
}
scen_anon() {
	local tlb
	snap a
	tlb=$(tlb_shootdowns)
	trace_reclaims_start
	run_in G chunks $ANON_MB $ANON_CHUNK_MB >/tmp/out
	n=$(trace_reclaims chunks)
	trace_reclaims_stop
	tlb=$(($(tlb_shootdowns) - tlb))
	snap b
	set -- "$1" "$2" $(cat /tmp/out)
	json scenario anon contender $1 rep $2 direct $n $(deltas) \
		tlb_shootdowns $tlb chunk_mb $ANON_CHUNK_MB \
		chunks $4 p50_ns $6 p99_ns $8 p999_ns ${10} max_ns ${12}
}

run_contenders() {	# run_contenders SCENARIO
	rep=1
	while [ $rep -le $REPS ]; do
		for c in $CONTENDERS; do
			setup $c
			scen_$1 $c $rep
			teardown
		done
		rep=$((rep + 1))
	done
}

part_read() { make_file $F $READ_MB && run_contenders read; }
part_write() { run_contenders write; }
part_probe() { make_file $F $READ_MB && run_contenders probe; }
part_probeout() { make_file $F $READ_MB && run_contenders probeout; }
part_anon() {
	zram_swap_on 1G
	run_contenders anon
	zram_swap_off
}

# --- reaction: low mark crossed -> first background reclaim ---------
part_reaction() {
	make_file $F $READ_MB
	setup bgreclaim
	echo 16384 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/memcg_bgreclaim/enable
	drop_caches
	run_in G stream $F 1 >/dev/null
	echo 0 >$T/events/memcg_bgreclaim/enable
	# wakeup at t0 for a group; its next reclaim event ends at t1 after ns
	awk '
	/ wakeup: / { split($0, a, "cgroup="); split(a[2], b, " "); ts = $0
		sub(/.* ([0-9]+\.[0-9]+): wakeup:.*/, "", ts)
		match($0, /[0-9]+\.[0-9]+: wakeup/); t = substr($0, RSTART, RLENGTH - 8)
		if (!(b[1] in w)) w[b[1]] = t; next }
	/ reclaim: / { split($0, a, "cgroup="); split(a[2], b, " ")
		if (!(b[1] in w)) next
		match($0, /[0-9]+\.[0-9]+: reclaim/); t = substr($0, RSTART, RLENGTH - 9)
		match($0, / ns=[0-9]+/); ns = substr($0, RSTART + 4, RLENGTH - 4)
		d = (t - ns / 1e9 - w[b[1]]) * 1e6; if (d < 0) d = 0
		print d; delete w[b[1]] }' $T/trace | sort -n >/tmp/react
	n=$(wc -l </tmp/react)
	json scenario reaction contender bgreclaim n $n p50_us "$(quantile 0.5 /tmp/react)" \
		p99_us "$(quantile 0.99 /tmp/react)" max_us "$(tail -n 1 /tmp/react)"
	teardown
}

# --- fairness: 8 groups under equal pressure ------------------------
part_fairness() {
	i=0
	while [ $i -lt 8 ]; do
		make_file /mnt/fair$i $FAIR_MB
		mkgroup F$i 32M
		mbr_watch F$i 8m 4m
		i=$((i + 1))
	done
	wr $MBR_SYSFS/enabled 1 >/dev/null
	drop_caches
	i=0
	while [ $i -lt 8 ]; do run_in F$i stream /mnt/fair$i 2 >/dev/null & i=$((i + 1)); done
	wait
	vals=
	i=0
	while [ $i -lt 8 ]; do vals="$vals $(gstat F$i reclaimed_pages)"; rmgroup F$i; i=$((i + 1)); done
	jain=$(echo $vals | awk '{ for (i = 1; i <= NF; i++) { s += $i; q += $i * $i } printf "%.4f", s * s / (NF * q) }')
	json scenario fairness contender bgreclaim groups 8 jain $jain reclaimed "$(echo $vals | tr ' ' '/')"
	i=0
	while [ $i -lt 8 ]; do rm -f /mnt/fair$i; i=$((i + 1)); done
}

# --- parameter sweep ------------------------------------------------
sweep_point() {	# sweep_point BATCH_PAGES CHECK_PAGES: one pass of the seed read
	setup bgreclaim
	wr $MBR_SYSFS/batch_pages $1 >/dev/null
	wr $MBR_SYSFS/check_pages $2 >/dev/null
	PASSES_SAVE=$PASSES PASSES=1
	scen_read bgreclaim 1 | sed "s/\"scenario\":\"read\"/\"scenario\":\"sweep\",\"batch_pages\":$1,\"check_pages\":$2/"
	PASSES=$PASSES_SAVE
	teardown
}
part_sweep() {
	make_file $F $READ_MB
	for b in 64 256 1024 4096; do sweep_point $b 32; done
	for c in 8 128 512; do sweep_point 256 $c; done
	wr $MBR_SYSFS/batch_pages 256 >/dev/null
	wr $MBR_SYSFS/check_pages 32 >/dev/null
}

# --- hook overhead: page-fault loop, module out / loaded / marks set -
pf() { run_in O pfault $OVH_ITERS 64 | sed -n 's/^ns //p'; }
part_overhead() {
	mbr_unload
	mkgroup O
	rep=1
	while [ $rep -le $OVH_REPS ]; do
		json scenario overhead contender none rep $rep ns $(pf)
		mbr_load
		json scenario overhead contender loaded rep $rep ns $(pf)
		echo 4G >$CG/O/memory.max
		mbr_watch O 24m 12m
		json scenario overhead contender marks rep $rep ns $(pf)
		mbr_unload
		echo max >$CG/O/memory.max
		rep=$((rep + 1))
	done
	rmgroup O
	mbr_load
}

# --- scale: hook overhead and memory per group, 1 .. 10,000 groups --
# The groups are shaped as kubelet makes them (a pod slice and its two
# container scopes) and configured as an operator would, by one rule on
# their parent; the page-fault loop runs in a group of its own beside
# them, so that every charge looks up the table they fill.
part_scale() {
	mkgroup O
	echo 4G >$CG/O/memory.max
	mbr_watch O 24m 12m
	mkgroup K
	echo +memory >$CG/K/cgroup.subtree_control
	have=0
	for n in $SCALE; do
		# n - 1 cgroups besides O: pods of a slice and two scopes.
		while [ $have -lt $((n - 1)) ]; do
			p=$CG/K/pod$((have / 3)).slice
			case $((have % 3)) in
			0) mkdir $p && echo +memory >$p/cgroup.subtree_control ;;
			*) mkdir $p/ctr$((have % 3)).scope ;;
			esac
			have=$((have + 1))
		done
		echo 2 >/proc/sys/vm/drop_caches
		s0=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
		[ $n -gt 1 ] && wr $MBR_SYSFS/rule_add "$CG/K ratio=90" >/dev/null
		echo 2 >/proc/sys/vm/drop_caches
		s1=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
		got=$(sed -n 's/^groups //p' $MBR_SYSFS/stat)
		[ "$got" = "$n" ] || diag "scale: $got groups configured, $n expected"
		per=0
		[ $n -gt 1 ] && per=$((((s1 - s0) * 1024) / (n - 1)))
		r=1
		while [ $r -le 3 ]; do
			json scenario scale contender bgreclaim groups $n rep $r ns $(pf) bytes_per_group $per
			r=$((r + 1))
		done
		[ $n -gt 1 ] && wr $MBR_SYSFS/rule_del "$CG/K" >/dev/null
	done
	for p in $CG/K/pod*.slice; do
		[ -d "$p" ] || continue
		rmdir $p/*.scope 2>/dev/null
		rmdir $p
	done
	rmgroup K
	wr $MBR_SYSFS/remove $CG/O >/dev/null
	rmgroup O
}

# --- dying: a turn's cost with dying cgroups below the group --------
# Long-lived hosts carry thousands of dying memcgs (removed, still
# holding charged pages). A turn walks the group's subtree for its
# victim, and the kernel's reclaim then walks it again. Here each dying
# memcg holds one tmpfs page, which no reclaim takes without swap, so
# that all of them stay for the whole run; the group's limit is set to
# what they hold (their pages and the memcgs themselves, charged to the
# parent) plus the bench's 128M, so a streaming reader meets the same
# marks whatever their number. 5000 of them, as many as a 1 GiB guest
# makes on both kernels with room to spare. Per run: the victim walk's
# time and the reclaim's wall time from the reclaim tracepoint (a turn
# without a victim has no event), the worker CPU per turn from the
# group's stat.
dying_make() {	# dying_make FROM TO: dying memcgs d<FROM> .. d<TO - 1> in G
	run_in G/r sh -c 'i=$1
		while [ $i -lt $2 ]; do
			mkdir $0/d$i || exit 1
			if ! { echo $$ >$0/d$i/cgroup.procs && echo x >/tmp/dy/$i; }; then
				echo $$ >$0/r/cgroup.procs
				rm -f /tmp/dy/$i
				rmdir $0/d$i
				exit 1
			fi
			echo $$ >$0/r/cgroup.procs && rmdir $0/d$i || exit 1
			i=$((i + 1))
		done' $CG/G "$1" "$2"
}
part_dying() {
	local have=0 n r d dying lim t0 c modes
	# bgreclaim, or each of bgsteps and bgwhole asked for
	modes=$(echo $CONTENDERS | tr ' ' '\n' | grep -x 'bgsteps\|bgwhole' | tr '\n' ' ')
	modes=${modes:-bgreclaim}
	make_file $F $READ_MB
	mkdir -p /tmp/dy && mount -t tmpfs dy /tmp/dy
	mkgroup G && echo +memory >$CG/G/cgroup.subtree_control && mkgroup G/r
	mbr_watch G ${HIGHD}m ${LOWD}m
	wr $MBR_SYSFS/enabled 1 >/dev/null
	echo 16384 >$T/buffer_size_kb
	for n in $DYING; do
		t0=$(date +%s)
		dying_make $have $n || diag "dying: cannot make $n dying memcgs"
		have=$(ls /tmp/dy | wc -l)
		drop_caches
		dying=$(sed -n 's/^nr_dying_descendants //p' $CG/G/cgroup.stat)
		lim=$(($(cat $CG/G/memory.current) + (LIMIT_MB << 20)))
		echo $lim >$CG/G/memory.max
		diag "dying: $dying dying memcgs in $(($(date +%s) - t0)) s, limit $((lim >> 20))M"
		r=1
		while [ $r -le $REPS ]; do
			for c in $modes; do
				step_mode $c
				drop_caches
				echo >$T/trace
				echo 1 >$T/events/memcg_bgreclaim/reclaim/enable
				snap a
				trace_reclaims_start
				run_in G/r stream $F 1 >/dev/null
				d=$(trace_reclaims stream)
				snap b
				echo 0 >$T/events/memcg_bgreclaim/reclaim/enable
				sed -n 's/.* reclaim: .* walk_ns=\([0-9]*\) ns=\([0-9]*\).*/\1 \2/p' \
					$T/trace >/tmp/dy.turns
				cut -d' ' -f1 /tmp/dy.turns | sort -n >/tmp/dy.walks
				set -- "$(wc -l </tmp/dy.turns)" $(awk '{ w += $1; s += $2 }
					END { printf "%d %d", NR ? w / NR : 0, NR ? s / NR : 0 }' /tmp/dy.turns) \
					"$(quantile 0.99 /tmp/dy.walks)"
				json scenario dying contender $c dying $dying rep $r direct $d $(deltas) \
					turns $1 walk_ns $2 walk_p99_ns "${4:-0}" reclaim_ns $3 \
					cpu_per_turn_ns $(($1 ? (b_bgcpu - a_bgcpu) / $1 : 0))
			done
			r=$((r + 1))
		done
		step_mode default
	done
	wr $MBR_SYSFS/remove $CG/G >/dev/null
	killgroup G
	rmgroup G/r G
	umount /tmp/dy
}

# --- probetrace: where the probe waits (investigation, not in the
# default set) ---------------------------------------------------------
# The probe scenario once per contender, with the scheduler's own
# tracepoints on the probe: how long it waited while runnable after
# being preempted, and after being woken, and which task had its CPU.
PT=$T/instances/mbr_pt
probetrace_one() {	# probetrace_one CONTENDER
	local pid
	mkdir -p $PT
	echo 16384 >$PT/buffer_size_kb
	echo 'prev_comm == "probe" || next_comm == "probe"' >$PT/events/sched/sched_switch/filter
	echo 'comm == "probe"' >$PT/events/sched/sched_wakeup/filter
	echo 1 >$PT/events/sched/sched_switch/enable
	echo 1 >$PT/events/sched/sched_wakeup/enable
	# The workers' calls into memcg reclaim (their steps): how long the
	# CPU is theirs between two points where they may give it away.
	for e in begin end; do
		echo 'comm ~ "memcg_bgrcl*"' >$PT/events/vmscan/mm_vmscan_memcg_reclaim_$e/filter
		echo 1 >$PT/events/vmscan/mm_vmscan_memcg_reclaim_$e/enable
	done
	drop_caches
	run_in G stream $F 1000 >/dev/null 2>&1 &
	sleep 1
	: >$PT/trace
	echo 1 >$PT/tracing_on
	run_in G probe $PROBE_S 1000 64 >/tmp/out
	echo 0 >$PT/tracing_on
	killgroup G
	wait
	set -- "$1" $(cat /tmp/out)
	steps=$(awk '
	/mm_vmscan_memcg_reclaim_(begin|end):/ {
		t = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); t = $i * 1e6 }
		if (/_begin:/) b[$1] = t
		else if ($1 in b) {
			d = t - b[$1]; delete b[$1]; n++
			h[int(d / 10)]++	# 10 us buckets
			if (d > mx) mx = d
			if (d > 500) o5++
			if (d > 1000) o1++
		}
	}
	END {
		if (!n) { print "0 0 0 0 0 0"; exit }
		for (k = 0; c < n / 2; k++) c += h[k]; p50 = k * 10
		for (; c < n * 0.99; k++) c += h[k]; p99 = k * 10
		printf "%d %d %d %.0f %d %d\n", n, p50, p99, mx, o5, o1
	}' $PT/trace)
	# Preempted (switched out runnable): the wait until it runs again,
	# by the task that took its CPU. Woken: the wait until it runs, by
	# the task it found running (prev_comm of the switch to it).
	awk -v c="$1" -v p999="${7}" -v steps="$steps" '
	function ts(s) { sub(":", "", s); return s * 1e6 }
	/sched_switch:/ {
		t = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = ts($i)
		line = $0
		pc = line; sub(/.*prev_comm=/, "", pc); sub(/ prev_pid=.*/, "", pc)
		st = line; sub(/.*prev_state=/, "", st); sub(/ ==>.*/, "", st)
		nc = line; sub(/.*next_comm=/, "", nc); sub(/ next_pid=.*/, "", nc)
		if (pc == "probe" && st ~ /^R/) { pre = t; by = nc; npre++ }
		if (nc == "probe") {
			if (pre) { w = t - pre; pw[by] += w; ptot += w; if (w > pmax) { pmax = w; pmaxby = by }; pre = 0 }
			if (wk) { w = t - wk; ww[pc] += w; wtot += w; nw++; if (w > wmax) { wmax = w; wmaxby = pc }; if (w > 1000) slow[pc]++; wk = 0 }
		}
	}
	/sched_wakeup:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) wk = ts($i) }
	END {
		s = ""; for (k in pw) s = s sprintf("%s:%.0f ", k, pw[k] / 1000)
		w = ""; for (k in ww) w = w sprintf("%s:%.0f ", k, ww[k] / 1000)
		sl = ""; for (k in slow) sl = sl sprintf("%s:%d ", k, slow[k])
		split(steps, st, " ")
		printf "BENCH {\"scenario\":\"probetrace\",\"contender\":\"%s\",\"worker_steps\":%d,\"step_p50_us\":%d,\"step_p99_us\":%d,\"step_max_us\":%d,\"steps_over_500us\":%d,\"steps_over_1ms\":%d,\"p999_ns\":%s,\"preempted\":%d,\"preempt_wait_ms\":%.1f,\"preempt_max_us\":%.0f,\"preempt_max_by\":\"%s\",\"preempt_ms_by\":\"%s\",\"wakeups\":%d,\"wakeup_wait_ms\":%.1f,\"wakeup_max_us\":%.0f,\"wakeup_max_behind\":\"%s\",\"wakeup_ms_behind\":\"%s\",\"wakeups_over_1ms_behind\":\"%s\"}\n",
			c, st[1], st[2], st[3], st[4], st[5], st[6], p999, npre, ptot / 1000, pmax, pmaxby, s, nw, wtot / 1000, wmax, wmaxby, w, sl
	}' $PT/trace | sed "s/^BENCH {/BENCH {\"kernel\":\"$(cat /etc/krel)\",/"
	echo 0 >$PT/events/sched/sched_switch/enable
	echo 0 >$PT/events/sched/sched_wakeup/enable
	for e in begin end; do
		echo 0 >$PT/events/vmscan/mm_vmscan_memcg_reclaim_$e/enable
		echo 0 >$PT/events/vmscan/mm_vmscan_memcg_reclaim_$e/filter
	done
}
part_probetrace() {
	make_file $F $READ_MB
	for c in stock bgreclaim unlimited; do
		setup $c
		probetrace_one $c
		teardown
	done
	rmdir $PT
}

# --- tenants: one greedy group beside three steady ones -------------
# Four groups of 96M with marks 24m/12m, on the shared workers. T2-T4
# each read a file of their own at a steady 16 MiB/s; T1, the greedy
# one, streams a large file with two unthrottled readers. Modes: the
# steady ones alone, beside the greedy one, and beside it under
# cpu_budget "10000 100000" (10% of a CPU). Isolation is whether the
# steady tenants keep their throughput and their background reclaim
# (no direct reclaims), and what the greedy one's reclaim costs.
TEN_RATE=16
ten_sum() {	# ten_sum KEY: a counter summed over T2-T4
	echo $(($(gstat T2 $1) + $(gstat T3 $1) + $(gstat T4 $1)))
}
tenants_run() {	# tenants_run MODE REP
	local i t0 cs d0 c0 g0 gd0 gp
	for i in 1 2 3 4; do
		mkgroup T$i 96M
		mbr_watch T$i 24m 12m
	done
	[ "$1" = budget ] && wr $(grp_dir T1)/cpu_budget "10000 100000" >/dev/null
	drop_caches
	d0=$(ten_sum direct_reclaims) c0=$(ten_sum reclaim_cpu_ns)
	g0=$(gstat T1 reclaim_cpu_ns) gd0=$(gstat T1 direct_reclaims)
	t0=$(awk '{ printf "%d\n", $1 * 100 }' /proc/uptime)
	if [ "$1" != alone ]; then
		run_in T1 stream $F 1000 >/dev/null 2>&1 &
		run_in T1 stream $F 1000 >/dev/null 2>&1 &
		sleep 1
	fi
	for i in 2 3 4; do
		run_in T$i stream /mnt/tenant$i.dat 1 $TEN_RATE >/tmp/ten$i &
	done
	for i in 2 3 4; do
		while [ ! -s /tmp/ten$i ]; do usleep 100000; done
	done
	cs=$(($(awk '{ printf "%d\n", $1 * 100 }' /proc/uptime) - t0))
	gp=$(awk -v c=$(($(gstat T1 reclaim_cpu_ns) - g0)) -v t=$cs \
		'BEGIN { printf "%.1f", c / (t * 1e5) }')
	mbps=$(cat /tmp/ten2 /tmp/ten3 /tmp/ten4 |
		awk '{ b += $2; t += $4 } END { printf "%.1f", b / 1048576 / (t / NR / 1e9) / NR }')
	json scenario tenants contender $1 rep $2 \
		steady_direct $(($(ten_sum direct_reclaims) - d0)) \
		steady_bg_cpu_ns $(($(ten_sum reclaim_cpu_ns) - c0)) steady_mbps $mbps \
		greedy_direct $(($(gstat T1 direct_reclaims) - gd0)) \
		greedy_bg_cpu_ns $(($(gstat T1 reclaim_cpu_ns) - g0)) greedy_cpu_pct $gp \
		wall_cs $cs
	killgroup T1 2>/dev/null
	wait
	rm -f /tmp/ten2 /tmp/ten3 /tmp/ten4
	rmgroup T1 T2 T3 T4
}
part_tenants() {
	local i rep=1
	make_file $F $READ_MB
	for i in 2 3 4; do make_file /mnt/tenant$i.dat $TEN_MB; done
	wr $MBR_SYSFS/enabled 1 >/dev/null
	while [ $rep -le $REPS ]; do
		for mode in alone greedy budget; do
			tenants_run $mode $rep
		done
		rep=$((rep + 1))
	done
}

# --- auto marks against fixed ones ---------------------------------
# Three workloads in group G (128M): a full-speed stream, anonymous
# memory with zram swap, and bursts (48 MiB of anonymous memory at full
# speed each second, held half a second, freed) beside an 8 MiB/s reader
# that keeps the group's cache at the marks. Contenders: wmark_auto, and
# fixed marks sN (wake N MiB below the limit, stop max(N/4, 1) MiB lower:
# auto's own gap, so that only the wake distance differs). The mean
# headroom (limit - memory.current, sampled every 50 ms, over the second
# half of the samples taken once the group is half full: the steady
# state) is the memory background reclaim leaves unused.
AUTO_CONT=${MBR_AUTO_CONT:-auto s1 s2 s4 s8 s16 s32}
AUTO_BURST_S=10
auto_setup() {	# auto_setup CONTENDER
	local n g
	mkgroup G
	echo ${LIMIT_MB}M >$CG/G/memory.max
	wr $MBR_SYSFS/add $CG/G >/dev/null
	case $1 in
	auto) wr $(grp_dir G)/wmark_auto 1 >/dev/null ;;
	s*)
		n=${1#s}
		g=$((n / 4 > 1 ? n / 4 : 1))
		wr $(grp_dir G)/high_wmark_distance $((n + g))m >/dev/null
		wr $(grp_dir G)/low_wmark_distance ${n}m >/dev/null
		;;
	esac
}
auto_sampler() {	# auto_sampler OUT: memory.current every 50 ms, until killed
	while :; do
		cat $CG/G/memory.current >>"$1"
		usleep 50000
	done
}
auto_run() {	# auto_run WORKLOAD CONTENDER REP
	local spid n comm mean low
	auto_setup $2
	drop_caches
	: >/tmp/auto.cur
	case $1 in
	bursty)
		run_in G dd if=/mnt/auto-fill.dat of=/dev/null bs=1M 2>/dev/null
		run_in G stream $F 1000 8 >/dev/null 2>&1 &
		spid=$!
		;;
	esac
	snap a
	trace_reclaims_start
	auto_sampler /tmp/auto.cur &
	smp=$!
	case $1 in
	stream) run_in G stream $F 1 >/tmp/out; comm=stream ;;
	anon) run_in G chunks $ANON_MB 2 >/tmp/out; comm=chunks ;;
	bursty) run_in G bursts $AUTO_BURST_S 48 >/tmp/out; comm="bursts stream" ;;
	esac
	kill $smp
	wait $smp 2>/dev/null
	n=0
	for c in $comm; do n=$((n + $(trace_reclaims $c))); done
	snap b
	mean=$(awk -v l=$((LIMIT_MB << 20)) '$1 >= l / 2 { on = 1 }
		on { v[k++] = l - $1 } END {
			for (i = int(k / 2); i < k; i++) { s += v[i]; m++ }
			printf "%d", m ? s / m : 0 }' /tmp/auto.cur)
	low=$(wmark G low)
	set -- "$1" "$2" "$3" $(cat /tmp/out)
	# (stream prints no percentiles: its p99 stays empty)
	json scenario auto workload $1 contender $2 rep $3 direct $n $(deltas) \
		headroom_mean $mean headroom_end $(((LIMIT_MB << 20) - ${low:-0})) \
		cycles $(gstat G auto_cycles) p99_ns "${9:-}"
	killgroup G
	[ -n "${spid:-}" ] && wait $spid 2>/dev/null
	spid=
	rmgroup G
}
part_auto() {
	local rep=1 w c
	make_file $F $READ_MB
	make_file /mnt/auto-fill.dat 160
	echo 1G >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null
	wr $MBR_SYSFS/enabled 1 >/dev/null
	while [ $rep -le $REPS ]; do
		for w in stream anon bursty; do
			[ $w = anon ] && swapon /dev/zram0
			for c in $AUTO_CONT; do
				auto_run $w $c $rep
			done
			[ $w = anon ] && swapoff /dev/zram0
		done
		rep=$((rep + 1))
	done
	echo 1 >/sys/block/zram0/reset
	rm -f /mnt/auto-fill.dat
}

diag "bench: scenarios $SCENARIOS; contenders $CONTENDERS"
mbr_load
STEP_DEFAULT=$(cat $STEP_P 2>/dev/null || echo N)
for scen in $SCENARIOS; do
	t0=$(date +%s)
	part_$scen
	diag "bench: $scen took $(($(date +%s) - t0)) s"
done
mbr_unload
pass "bench ran"
