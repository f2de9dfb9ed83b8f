# insmod / rmmod while 4 groups are under heavy load (2 streaming
# readers, 2 with anonymous memory churn), many times: always clean, no
# work after rmmod returns, no hook left attached.
N=${MBR_RMMOD_ITERS:-50}
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
for g in L0 L1 L2 L3; do mkgroup $g 64M; done
run_in L0 stream $F 1000 >/dev/null 2>&1 &
run_in L1 stream $F 1000 >/dev/null 2>&1 &
run_in L2 sh -c 'while :; do anon 40 0 >/dev/null; done' &
run_in L3 sh -c 'while :; do anon 40 0 >/dev/null; done' &
bad=0
hooks=0
workers=0
reclaimed=0
i=0
while [ $i -lt $N ]; do
	mbr_load || bad=$((bad + 1))
	for g in L0 L1 L2 L3; do mbr_watch $g 16m 8m || bad=$((bad + 1)); done
	usleep 300000
	reclaimed=$((reclaimed + $(mbr_stat reclaim_runs)))
	mbr_unload || bad=$((bad + 1))
	hooks=$((hooks + $(grep -c -E '^(try_charge_memcg|mem_cgroup_css_online|mem_cgroup_css_offline|try_to_free_mem_cgroup_pages)\b' $T/enabled_functions)))
	workers=$((workers + $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')))
	i=$((i + 1))
done
for g in L0 L1 L2 L3; do killgroup $g; done
wait
expect_eq "$N insmod/configure/rmmod cycles under load" "$bad" 0
expect_eq "no hook attached after any rmmod" "$hooks" 0
expect_eq "no worker alive after any rmmod" "$workers" 0
check "background reclaim ran during the cycles ($reclaimed turns)" test "$reclaimed" -gt 0
rmgroup L0 L1 L2 L3
