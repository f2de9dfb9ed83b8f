# enabled=0 stops background reclaim at once (hooks stay attached);
# enabled=1 resumes it.
stream_group E
run_in E stream $F 20 >/dev/null &
pid=$!
i=0
while [ "$(gstat E reclaim_runs)" -lt 5 ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
check "reclaim runs while enabled" test "$(gstat E reclaim_runs)" -ge 5
wr $MBR_SYSFS/enabled 0 >/dev/null
usleep 300000	# a turn in flight may finish
r0=$(gstat E reclaim_runs)
d0=$(gstat E direct_reclaims)
sleep 2
r1=$(gstat E reclaim_runs)
d1=$(gstat E direct_reclaims)
expect_eq "no reclaim run while disabled" "$r1" "$r0"
check "the reader stalls in direct reclaim instead ($((d1 - d0)))" test $((d1 - d0)) -gt 0
check "hooks stay attached while disabled" grep -q '^try_charge_memcg' $T/enabled_functions
wr $MBR_SYSFS/enabled 1 >/dev/null
sleep 2
r2=$(gstat E reclaim_runs)
check "reclaim resumes when re-enabled ($r1 -> $r2)" test "$r2" -gt "$r1"
killgroup E
wait $pid 2>/dev/null
rmgroup E
check "module unloads" mbr_unload
