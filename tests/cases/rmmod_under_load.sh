# rmmod while workers reclaim: clean, the load goes on, nothing stays.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
mkgroup R1 96M
mkgroup R2 96M
mbr_watch R1 16m 8m
mbr_watch R2 16m 8m
drop_caches
run_in R1 stream $F 2 >/tmp/r1.out &
p1=$!
run_in R2 stream $F 2 >/tmp/r2.out &
p2=$!
i=0
while [ "$(gstat R1 reclaim_runs)" -lt 20 ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
check "workers are reclaiming" test "$(gstat R1 reclaim_runs)" -ge 20
check "rmmod under load succeeds" mbr_unload
check "sysfs gone" test ! -e $MBR_SYSFS
n=$(grep -c -E '^(try_charge_memcg|mem_cgroup_css_offline|try_to_free_mem_cgroup_pages)\b' $T/enabled_functions)
expect_eq "no hook left" "$n" 0
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')
expect_eq "no worker left" "$n" 0
wait $p1
s1=$?
wait $p2
s2=$?
check "the readers finished normally" test "$s1$s2" = 00
check "rmdir of the formerly watched groups" rmdir $CG/R1 $CG/R2
check "module loads again" mbr_load
check "with no leftover group" test "$(ls $MBR_SYSFS/cgroups | wc -l)" = 0
check "module unloads" mbr_unload
