# cgroup v1's memory+swap limit (mbr.cgroup=v1 guest only). Once a
# group's swapped-out pages fill memory.memsw.limit_in_bytes, its
# charges fail there, with memory.limit_in_bytes still far, and the
# kernel reclaims without swap. So the module takes memsw's headroom
# for the marks and reclaims without swap while it binds.
#
# MS: 48 MiB of anon under a 32 MiB limit (16 MiB or more swapped
# out), then limits of 64 MiB and memsw 72 MiB: a file read then meets
# memsw's limit with memory usage near 56 MiB, under the 60 MiB wake
# mark of a memory-only view. Direct reclaims of the reader, by the
# kernel's tracepoint, without and with background reclaim.
MB=${MBR_STREAM_MB:-768}
F=/mnt/stream.dat
check "test file of ${MB} MiB" make_file $F $MB
check "zram swap" zram_swap_on 256M
check "module loads" mbr_load
mkgroup MS 32M
if ! [ -w "$CG/MS/memory.memsw.limit_in_bytes" ]; then
	fail "memsw accounting (no memory.memsw.limit_in_bytes)"
	rmgroup MS
	mbr_unload
	zram_swap_off
	return 0
fi
pass "memsw accounting"
run_in MS anon 48 600 >/tmp/memsw.anon &
anon=$!
i=0
while ! grep -q touched /tmp/memsw.anon && [ $i -lt 300 ]; do usleep 100000; i=$((i + 1)); done
check "48 MiB of anon touched under 32 MiB" grep -q touched /tmp/memsw.anon
swapped=$(($(mstat MS swap) >> 20))
check "swapped out more than memsw's 8 MiB above the limit (${swapped} MiB)" test "$swapped" -gt 8
check "memory limit 64M" cgset MS max 64M
check "memsw limit 72M" sh -c "echo 72M >$CG/MS/memory.memsw.limit_in_bytes"
check "watch MS (high 8m, low 4m)" mbr_watch MS 8m 4m

# run TAG: one read of the file, counted by the kernel's tracepoint.
run() {
	drop_caches
	sw0=$(mstat MS swap)
	trace_reclaims_start
	run_in MS stream $F 1 >/tmp/memsw.$1
	eval "traced_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
	eval "swap_$1=$((($(mstat MS swap) - sw0) >> 10))"
	eval "fail_$1=$(cat $CG/MS/memory.memsw.failcnt)"
	echo 0 >$CG/MS/memory.memsw.failcnt
}
echo 0 >$CG/MS/memory.memsw.failcnt
wr $MBR_SYSFS/enabled 0 >/dev/null
run off
diag "without background reclaim: direct reclaims $traced_off, memsw failcnt $fail_off, swap +${swap_off} KiB; $(cat /tmp/memsw.off)"
check "the baseline run stalls on memsw ($traced_off, memsw failcnt $fail_off)" \
	test "$traced_off" -gt 100 -a "$fail_off" -gt 100
wr $MBR_SYSFS/enabled 1 >/dev/null
grew reclaimed MS reclaimed_pages run on
diag "with background reclaim: direct reclaims $traced_on, memsw failcnt $fail_on, swap +${swap_on} KiB, reclaimed_pages $reclaimed; $(cat /tmp/memsw.on)"
diag "stat: $(tr '\n' ' ' <"$(grp_dir MS)/stat")"
check "direct reclaims <= 5% of the baseline ($traced_on vs $traced_off)" \
	test $((traced_on * 100)) -le $((traced_off * 5))
check "background reclaim freed pages ($reclaimed)" test "$reclaimed" -gt 0
# Swapping out frees nothing against memsw: the turns take file pages.
check "and swapped nothing out (+${swap_on} KiB)" test "$swap_on" -le 1024
check "not backed off" test "$(gstat MS unreclaimable)" = 0
kill $anon
wait $anon 2>/dev/null
killgroup MS
rmgroup MS

# A back-off under memsw ends when the memsw limit changes, as one under
# the memory limit ends when that changes. MB: anon only, 40 MiB under
# 24M (16 MiB or more swapped out), then limit 40M and 11 MiB more
# resident (memory's room near 6 MiB), then memsw 2 MiB above its
# usage: memsw binds, the usage the marks see is near 38M, over the 36M
# wake mark (marks 8m/4m), and nothing can be reclaimed without swap,
# so the group backs off. memsw + 10 MiB: memory binds again, near 35M,
# between the marks; a few MiB more take it over the wake mark, where a
# turn may swap again.
# anon_in NAME MiB: a task holding MiB of anon in NAME, once touched.
n_anon=0
anon_in() {
	n_anon=$((n_anon + 1))
	: >/tmp/memsw.b$n_anon
	run_in "$1" anon "$2" 600 >/tmp/memsw.b$n_anon &
	j=0
	while ! grep -q touched /tmp/memsw.b$n_anon && [ $j -lt 300 ]; do usleep 100000; j=$((j + 1)); done
	grep -q touched /tmp/memsw.b$n_anon
}
mkgroup MB 24M
anon_in MB 40
check "40 MiB of anon under 24M" test $? = 0
cgset MB max 40M
anon_in MB 11
check "11 MiB more, under 40M" test $? = 0
sw=$(cat $CG/MB/memory.memsw.usage_in_bytes)
check "memsw 2 MiB above its usage" sh -c "echo $((sw + (2 << 20))) >$CG/MB/memory.memsw.limit_in_bytes"
check "watch MB (high 8m, low 4m)" mbr_watch MB 8m 4m
anon_in MB 1 >/dev/null
i=0
while [ "$(gstat MB unreclaimable)" = 0 ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
r0=$(gstat MB reclaim_runs)
diag "memory $(($(cgget MB current) >> 20)) MiB, memsw $(($(cat $CG/MB/memory.memsw.usage_in_bytes) >> 20)) of $(($(cat $CG/MB/memory.memsw.limit_in_bytes) >> 20)) MiB; reclaim_runs $r0"
check "backed off under memsw ($(gstat MB unreclaimable) back-offs, $r0 turns)" test "$(gstat MB unreclaimable)" -gt 0
check "memsw + 10 MiB" sh -c "echo $((sw + (12 << 20))) >$CG/MB/memory.memsw.limit_in_bytes"
# Over the wake mark, 4 MiB below the limit, but not to the limit
# itself, where a task's own successful reclaim would end the back-off.
more=$((((40 << 20) - $(cgget MB current)) / 1048576 - 2))
[ "$more" -ge 1 ] || more=1
anon_in MB $more >/dev/null
sleep 1
r1=$(gstat MB reclaim_runs)
diag "memory $(($(cgget MB current) >> 20)) MiB, memsw $(($(cat $CG/MB/memory.memsw.usage_in_bytes) >> 20)) of $(($(cat $CG/MB/memory.memsw.limit_in_bytes) >> 20)) MiB; reclaim_runs $r1, reclaimed_pages $(gstat MB reclaimed_pages)"
check "background reclaim resumed after the memsw change ($r0 -> $r1 turns)" test "$r1" -gt "$r0"
killgroup MB
rmgroup MB
check "module unloads" mbr_unload
zram_swap_off
