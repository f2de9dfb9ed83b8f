# 100 configured groups under concurrent load: every one gets background
# reclaim (none starves), and the global stat is the sum of the groups'.
N=${MBR_MANY_GROUPS:-100}
check "module loads" mbr_load
mkdir -p /mnt/many
i=0
while [ $i -lt $N ]; do
	[ -f /mnt/many/$i ] || dd if=/dev/zero of=/mnt/many/$i bs=1M count=12 2>/dev/null
	mkgroup M$i 4M
	mbr_watch M$i 2m 1m || fail "configure M$i"
	i=$((i + 1))
done
drop_caches
expect_eq "$N groups configured" "$(mbr_stat groups)" $N
pids=
i=0
while [ $i -lt $N ]; do
	run_in M$i stream /mnt/many/$i 2 >/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
wait $pids
starved=0
min=
max=0
sum=0
i=0
while [ $i -lt $N ]; do
	r=$(gstat M$i reclaimed_pages)
	[ "$r" -gt 0 ] || starved=$((starved + 1))
	[ -z "$min" ] || [ "$r" -lt "$min" ] && min=$r
	[ "$r" -gt "$max" ] && max=$r
	sum=$((sum + r))
	i=$((i + 1))
done
diag "reclaimed_pages per group: min=$min max=$max sum=$sum"
expect_eq "no group starved" "$starved" 0
expect_eq "global reclaimed_pages is the sum" "$(mbr_stat reclaimed_pages)" "$sum"
i=0
while [ $i -lt $N ]; do rmdir $CG/M$i; i=$((i + 1)); done
sleep 1
expect_eq "all entries gone with their cgroups" "$(ls $MBR_SYSFS/cgroups | wc -l)" 0
check "module unloads" mbr_unload
