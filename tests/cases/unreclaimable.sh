# Anonymous memory with no swap cannot be reclaimed: beside a running
# binary, whose file pages are all that background reclaim could take,
# the workers back off within a bounded number of turns and leave the
# binary's pages alone (few file refaults), with bounded CPU; they
# resume once memory is freed.
check "no swap configured" test "$(awk '/SwapTotal/ { print $2 }' /proc/meminfo)" = 0
check "module loads" mbr_load
mkgroup U 64M
check "watch U (high 16m, low 8m)" mbr_watch U 16m 8m
# The binary lives on the ext4 disk, so its pages are reclaimable file
# pages of the group (the initramfs is not).
mkdir -p /mnt/ubin
cp /bin/busybox /mnt/ubin/true
drop_caches
run_in U sh -c 'while :; do /mnt/ubin/true; usleep 20000; done' >/dev/null 2>&1 &
bin=$!
sleep 1
rf0=$(mstat U workingset_refault_file)
run_in U anon 56 6 >/tmp/anon.out &
pid=$!
i=0
while ! grep -q touched /tmp/anon.out && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); done
sleep 1
u1=$(gstat U unreclaimable)
c1=$(gstat U reclaim_cpu_ns)
r1=$(gstat U reclaim_runs)
rf1=$(mstat U workingset_refault_file)
sleep 3
c2=$(gstat U reclaim_cpu_ns)
r2=$(gstat U reclaim_runs)
rf2=$(mstat U workingset_refault_file)
diag "unreclaimable=$u1 reclaim_runs=$r1->$r2 reclaim_cpu_ns=$c1->$c2 workingset_refault_file=$rf0->$rf1->$rf2"
check "workers backed off (unreclaimable=$u1)" test "$u1" -gt 0
check "within a bounded number of turns ($r1 for $u1 back-offs)" test "$r1" -le $((u1 * 8 + 8))
check "no reclaim turn while backed off ($r1 -> $r2)" test "$r2" -eq "$r1"
check "reclaim CPU bounded (${c1} ns in all)" test "$c1" -lt 2000000000
# The turns before the back-off may take the binary's pages, at most
# once for each turn that reclaimed enough to reset the failure count:
# all but the last MBR_MAX_FAILURES (4) failed turns, which take less
# than a quarter of a request each (at most 64 pages of the default
# batch of 256). After it, nothing.
binpages=$((($(stat -c %s /mnt/ubin/true) + 4095) / 4096))
takes=$((r1 > 4 ? r1 - 4 : 1))
most=$((takes * binpages + 4 * 64))
diag "binary $binpages pages, taken $(((rf1 - rf0) * 100 / binpages))% of one copy in $r1 turns"
check "the binary's pages taken at most once a productive turn (refaults $rf0 -> $rf1, at most $takes x $binpages + 4 x 64)" \
	test $((rf1 - rf0)) -le $most
check "and left alone after the back-off (refaults $rf1 -> $rf2)" test $((rf2 - rf1)) -le 16
wait $pid
kill -9 $bin
wait $bin 2>/dev/null
# memory freed: the next pressure is reclaimed again
F=/mnt/stream.dat
make_file $F ${MBR_STREAM_MB:-768}
run_in U stream $F 1 >/dev/null
r3=$(gstat U reclaim_runs)
check "reclaim resumed after the memory was freed ($r2 -> $r3)" test "$r3" -gt "$r2"
check "and freed pages again" test "$(gstat U reclaimed_pages)" -gt 0
killgroup U
rm -rf /mnt/ubin
rmgroup U
check "module unloads" mbr_unload
