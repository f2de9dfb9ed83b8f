# CPU hotplug while workers reclaim (run in a 4-CPU guest): offline and
# online CPUs 1-3 repeatedly under a watched streaming load.
if [ "$(nproc)" -lt 4 ]; then
	fail "needs a guest with 4 CPUs (has $(nproc))"
	return 0
fi
F=/mnt/stream.dat
check "test file" make_file $F 384
check "module loads" mbr_load
mkgroup H 64M
check "watch H" mbr_watch H 16m 8m
drop_caches
run_in H stream $F 100 >/dev/null 2>&1 &
bad=0
i=0
while [ $i -lt ${MBR_HOTPLUG_ROUNDS:-10} ]; do
	for c in 1 2 3; do echo 0 >/sys/devices/system/cpu/cpu$c/online || bad=$((bad + 1)); done
	usleep 200000
	for c in 1 2 3; do echo 1 >/sys/devices/system/cpu/cpu$c/online || bad=$((bad + 1)); done
	usleep 200000
	i=$((i + 1))
done
r1=$(gstat H reclaim_runs)
sleep 1
r2=$(gstat H reclaim_runs)
expect_eq "every offline/online succeeded" "$bad" 0
check "reclaim goes on after hotplug ($r1 -> $r2)" test "$r2" -gt "$r1"
killgroup H
wait
rmgroup H
check "module unloads" mbr_unload
