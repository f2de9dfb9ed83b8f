# Anonymous memory with no swap cannot be reclaimed: the workers back off
# (bounded CPU, unreclaimable counted) and resume once memory is freed.
check "no swap configured" test "$(awk '/SwapTotal/ { print $2 }' /proc/meminfo)" = 0
check "module loads" mbr_load
mkgroup U 64M
check "watch U (high 16m, low 8m)" mbr_watch U 16m 8m
run_in U anon 60 6 >/tmp/anon.out &
pid=$!
i=0
while ! grep -q touched /tmp/anon.out && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); done
sleep 1
u1=$(gstat U unreclaimable)
c1=$(gstat U reclaim_cpu_ns)
r1=$(gstat U reclaim_runs)
sleep 3
c2=$(gstat U reclaim_cpu_ns)
r2=$(gstat U reclaim_runs)
diag "unreclaimable=$u1 reclaim_runs=$r1->$r2 reclaim_cpu_ns=$c1->$c2"
check "workers backed off (unreclaimable=$u1)" test "$u1" -gt 0
check "no reclaim turn while backed off ($r1 -> $r2)" test "$r2" -eq "$r1"
check "reclaim CPU bounded (${c1} ns in all)" test "$c1" -lt 2000000000
wait $pid
# memory freed: the next pressure is reclaimed again
F=/mnt/stream.dat
make_file $F ${MBR_STREAM_MB:-768}
run_in U stream $F 1 >/dev/null
r3=$(gstat U reclaim_runs)
check "reclaim resumed after the memory was freed ($r2 -> $r3)" test "$r3" -gt "$r2"
check "and freed pages again" test "$(gstat U reclaimed_pages)" -gt 0
rmdir $CG/U
check "module unloads" mbr_unload
