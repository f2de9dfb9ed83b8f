# The seed's read experiment: stream a file 6x the group's limit through
# it, without and with background reclaim. With the module the reader's
# direct reclaims are at most 5% of the run without it. Where the
# kernel books proactive reclaim apart in memory.stat (pgscan_proactive,
# pgsteal_proactive: 7.x here; not 6.1 or 6.12), the module's reclaim
# must be booked there, not as the tasks' pgscan_direct.
MB=${MBR_STREAM_MB:-768}
PASSES=${MBR_STREAM_PASSES:-3}
F=/mnt/stream.dat
check "test file of ${MB} MiB" make_file $F $MB
# step DESC COMMAND...: check, and fail as the command does.
step() {
	local d=$1
	shift
	if "$@"; then pass "$d"; else fail "$d"; return 1; fi
}
# setup_S [SUFFIX]: load the module, make S at 128M and watch it at
# 24m/12m; low is its wake mark. Stops at the first step that fails.
setup_S() {
	step "module loads${1:-}" mbr_load &&
		step "S at 128M${1:-}" mkgroup S 128M &&
		step "watch S (high 24m, low 12m)${1:-}" mbr_watch S 24m 12m &&
		low=$(wmark S low)
}
setup_S

proactive=$(mstat S pgsteal_proactive)
# statvar TAG KEY BEFORE: TAG_KEY = how much memory.stat's KEY grew.
statvar() {
	v=$(mstat S "$2")
	eval "$1_$2=$((${v:-0} - ${3:-0}))"
}
run() {	# run TAG: one streaming run, counted by the kernel's tracepoint
	drop_caches
	: >/tmp/usage.$1
	sd0=$(mstat S pgscan_direct) sp0=$(mstat S pgscan_proactive) st0=$(mstat S pgsteal_proactive)
	trace_reclaims_start
	run_in S stream $F $PASSES >/tmp/stream.$1 &
	pid=$!
	sample_usage S $pid /tmp/usage.$1
	wait $pid
	eval "traced_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
	statvar "$1" pgscan_direct "$sd0"
	[ -z "$proactive" ] && return 0
	statvar "$1" pgscan_proactive "$sp0"
	statvar "$1" pgsteal_proactive "$st0"
}

wr $MBR_SYSFS/enabled 0 >/dev/null
grew direct_off S direct_reclaims run off
diag "without background reclaim: direct reclaims traced=$traced_off module=$direct_off; $(cat /tmp/stream.off)"
check "the baseline run stalls in direct reclaim" test "$traced_off" -gt 100
diff=$((traced_off - direct_off))
[ $diff -lt 0 ] && diff=$((-diff))
check "module's direct_reclaims matches the kernel's tracepoint ($direct_off vs $traced_off)" \
	test $((diff * 100)) -le $((traced_off + 200))

wr $MBR_SYSFS/enabled 1 >/dev/null
# workers_sched: the workers' schedstat summed: ns on a CPU, ns waiting
# for one, and slices.
workers_sched() {
	local f
	for f in $(grep -l '^memcg_bgrcl' /proc/[0-9]*/comm 2>/dev/null); do
		cat "${f%comm}schedstat" 2>/dev/null
	done | awk '{ r += $1; w += $2; n += $3 } END { print r + 0, w + 0, n + 0 }'
}
# on: the run with background reclaim, the worker's CPU per page, and
# where its time went: on a CPU or waiting for one, yields, and pages the
# group's reclaim scanned per page it freed (memory.stat, v2).
on() {
	local y0 s0 s1 sc0 ss0
	y0=$(mbr_stat worker_yields)
	s0=$(workers_sched) sc0=$(mstat S pgscan) ss0=$(mstat S pgsteal)
	grew cpu S reclaim_cpu_ns grew reclaimed S reclaimed_pages \
		grew direct_on S direct_reclaims run on
	s1=$(workers_sched)
	below=$(frac_le /tmp/usage.on $low)
	diag "with background reclaim: direct reclaims traced=$traced_on module=$direct_on reclaimed_pages=$reclaimed (worker CPU $((cpu / (reclaimed + 1) / 1000)) us a page) usage<=low ${below}% of samples; $(cat /tmp/stream.on)"
	diag "workers: $(echo "$s0 $s1" | awk '{ printf "on a CPU %d ms, waiting %d ms, %d slices", ($4 - $1) / 1e6, ($5 - $2) / 1e6, $6 - $3 }'), $(($(mbr_stat worker_yields) - y0)) yields${sc0:+; memory.stat pgscan +$(($(mstat S pgscan) - sc0)) pgsteal +$(($(mstat S pgsteal) - ss0))}"
	diag "stat: $(tr '\n' ' ' <$(grp_dir S)/stat)"
}
on
# missed: did the last run miss a bound below?
missed() {
	[ $((traced_on * 100)) -gt $((traced_off * 5)) ] || [ "$below" -lt 50 ]
}
# arm64 under TCG (thread=single): now and then the worker falls behind
# for a whole run, its reclaim at about 110 us of CPU a page against 15,
# and a second run of the same load stayed so; why is not known
# (doc/testing.md). Up to two more runs then, each after a new load with
# a new group; the last must pass. amd64, where it has not been seen,
# keeps one run and so still catches a regression of either bound.
tries=1
while [ "$(uname -m)" = aarch64 ] && [ $tries -lt 3 ] && missed; do
	tries=$((tries + 1))
	diag "retry: $traced_on direct reclaims, ${below}% of the samples at or below the low mark; run $tries on arm64 under TCG, after a new load"
	step "S removed (run $tries)" rmgroup S || break
	step "module unloads (run $tries)" mbr_unload || break
	setup_S " (run $tries)" || break
	on
done
check "direct reclaims <= 5% of the baseline ($traced_on vs $traced_off)" \
	test $((traced_on * 100)) -le $((traced_off * 5))
check "background reclaim freed pages ($reclaimed)" test "$reclaimed" -gt 0
check "usage at or below the low mark most of the time (${below}%)" test "$below" -ge 50
if [ -n "$proactive" ]; then
	diag "memory.stat: pgscan_direct $on_pgscan_direct (without: $off_pgscan_direct), pgscan_proactive $on_pgscan_proactive, pgsteal_proactive $on_pgsteal_proactive, module reclaimed $reclaimed"
	check "memory.stat books the module's reclaim as proactive: pgsteal_proactive $on_pgsteal_proactive >= 90% of reclaimed_pages $reclaimed" \
		test $((on_pgsteal_proactive * 10)) -ge $((reclaimed * 9))
	check "... and not as the tasks' direct reclaim: pgscan_direct $on_pgscan_direct <= 5% of the run without ($off_pgscan_direct)" \
		test $((on_pgscan_direct * 100)) -le $((off_pgscan_direct * 5))
	check "... which the run without the module has ($off_pgscan_direct pages)" test "$off_pgscan_direct" -gt 0
else
	diag "memory.stat has no pgscan_proactive here (it books the module's reclaim as pgscan_direct: $on_pgscan_direct pages)"
fi
rmdir $CG/S
check "module unloads" mbr_unload
