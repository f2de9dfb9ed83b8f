# Auto marks (wmark_auto): the module picks the headroom itself. The
# file's semantics and the ABI's arithmetic at the start; a slow reader
# teaches a headroom smaller than the starting one without stalling;
# stalls (late wakeups) at least double it and quiet cycles shrink it
# again; a ratio bounds it; turning it off hands back to the other
# settings; a rule with auto=1 configures its groups in auto.
F=/mnt/auto.dat
check "test file" make_file $F 384
check "module loads" mbr_load
S=$MBR_SYSFS
M=$((128 << 20))
mkgroup AM 128M
expect_eq "add" "$(wr $S/add $CG/AM)" OK
D=$(grp_dir AM)
headroom() { echo $((M - $(wmark AM low))); }

expect_eq "wmark_auto starts at 0" "$(cat $D/wmark_auto)" 0
for bad in 2 -1 x " 1" 11 01; do
	expect_eq "wmark_auto refuses '$bad'" "$(wr $D/wmark_auto "$bad")" EINVAL
done
expect_eq "wmark_auto=1" "$(wr $D/wmark_auto 1)" OK
expect_eq "it reads back" "$(cat $D/wmark_auto)" 1
expect_eq "auto starts at half its bound (limit / 4): wake 16M below" \
	"$(wmark AM low) $(wmark AM high)" "$((M - (16 << 20))) $((M - (20 << 20)))"
expect_eq "wmark_ratio=95 bounds it" "$(wr $D/wmark_ratio 95)" OK
b=$((M - M * 95 / 100))
expect_eq "wake at limit - (limit - limit * 95 / 100) / 2" "$(wmark AM low)" $((M - b / 2))
expect_eq "wmark_ratio=0: the quarter bound again" "$(wr $D/wmark_ratio 0)" OK

# A slow reader (16 MiB/s): little of the headroom is used per cycle.
drop_caches
trace_reclaims_start
run_in AM stream $F 1 16 >/tmp/auto.slow
n=$(trace_reclaims stream)
trace_reclaims_stop
sleep 1	# the worker closes its last cycle
h1=$(headroom)
c1=$(gstat AM auto_cycles)
diag "slow reader: $c1 cycles, headroom $((h1 >> 10)) KiB, $n direct reclaims, reclaimed_pages $(gstat AM reclaimed_pages); $(cat /tmp/auto.slow)"
check "cycles were measured ($c1)" test "$c1" -ge 5
check "the headroom shrank below the starting 16 MiB ($((h1 >> 10)) KiB)" test "$h1" -lt $((16 << 20))
check "and stays at least 2 MiB" test "$h1" -ge $((2 << 20))
check "the slow reader barely stalls ($n direct reclaims)" test "$n" -le 5

# Stalls: with a late wakeup (the charge hook checking the marks only
# every 32 MiB charged per CPU) a full-speed reader stalls at the
# limit; the cycles then at least double the headroom, and quiet cycles
# with the normal check shrink it again. The module's reclaim
# tracepoint gives the wake mark of every turn, so the headroom of each
# cycle, in order.
echo >$T/trace
echo 1 >$T/events/memcg_bgreclaim/reclaim/enable
wr $S/check_pages 8192 >/dev/null
drop_caches
trace_reclaims_start
run_in AM stream $F 1 >/tmp/auto.fast
n=$(trace_reclaims stream)
trace_reclaims_stop
wr $S/check_pages 32 >/dev/null
check "the late wakeups make the reader stall ($n direct reclaims)" test "$n" -gt 0
grep -o 'low_wmark=[0-9]*' $T/trace | cut -d= -f2 | uniq >/tmp/auto.lows
hmax=$(awk -v m=$M 'BEGIN { h = 0 } { if (m - $1 > h) h = m - $1 } END { print h }' /tmp/auto.lows)
# A fast pass can be one long cycle, which closes only after the reader
# ends (6.12, 2026-12-05: one wake mark in the trace, 4096 KiB after).
sleep 1
hend=$(headroom)
[ "$hend" -gt "$hmax" ] && hmax=$hend
diag "late wakeups: $n stalls, headroom values (KiB):$(awk -v m=$M '{ printf " %d", (m - $1) / 1024 }' /tmp/auto.lows)"
check "they at least doubled it ($((h1 >> 10)) -> $((hmax >> 10)) KiB)" \
	test "$hmax" -ge $((2 * h1 < M / 4 ? 2 * h1 : M / 4))
# A slow reader (4 MiB/s) with the normal check: quiet cycles.
echo >$T/trace
ST=$D/stat
cycles() { sed -n 's/^auto_cycles //p' $ST; }
c2=$(cycles)
h2=$(headroom)
run_in AM stream $F 1 4 >/dev/null &
pid=$!
i=0
while [ "$(cycles)" -lt $((c2 + 8)) ] && [ $i -lt 2000 ]; do
	usleep 10000
	i=$((i + 1))
done
echo 0 >$T/events/memcg_bgreclaim/reclaim/enable
killgroup AM
wait $pid
sleep 1	# the worker closes its last cycle
h3=$(headroom)
diag "then $(($(cycles) - c2)) quiet cycles: $((h2 >> 10)) -> $((h3 >> 10)) KiB"
check "quiet cycles shrank it again ($((h2 >> 10)) -> $((h3 >> 10)) KiB)" test "$h3" -lt "$h2"
set -- $(cat $D/reclaim_wmarks)	# one read: low_wmark L high_wmark H
h=$((M - $2))
check "the marks keep the gap: stop = wake - max(headroom / 4, 1 MiB)" \
	test "$4" -eq $((M - h - (h / 4 > (1 << 20) ? h / 4 : 1 << 20)))

# Off: the other settings decide again (none here: inactive).
expect_eq "wmark_auto=0" "$(wr $D/wmark_auto 0)" OK
expect_eq "nothing else set: marks at the limit" "$(wmark AM low) $(wmark AM high)" "$M $M"
expect_eq "distances set" "$(wr $D/high_wmark_distance 24m) $(wr $D/low_wmark_distance 12m)" "OK OK"
expect_eq "auto on again starts afresh, over the distances" \
	"$(wr $D/wmark_auto 1) $(headroom)" "OK $((16 << 20))"
expect_eq "auto off: the distances decide" "$(wr $D/wmark_auto 0) $(headroom)" "OK $((12 << 20))"
killgroup AM
rmgroup AM

# A rule with auto=1, bounded by a ratio.
mkgroup AR 256M
cgmemchildren AR
for bad in "$CG/AR auto=0" "$CG/AR auto=1 scale=5" "$CG/AR auto=1 high=8m low=4m"; do
	expect_eq "rule_add refuses '$bad'" "$(wr $S/rule_add "$bad")" EINVAL
done
expect_eq "rule auto=1 ratio=90" "$(wr $S/rule_add "$CG/AR auto=1 ratio=90")" OK
expect_eq "the rules file shows it" "$(sed 's/ id=.*//' $S/rules)" "/AR auto=1 ratio=90"
mkgroup AR/c
L=$((256 << 20))
expect_eq "a new child is configured, bounded by the ratio: wake at limit - (limit - limit * 90 / 100) / 2" \
	"$(awk -v id=$(cgid AR/c) '$1 == id { print $5 }' /proc/memcg_bgreclaim/groups)" $((L - (L - L * 90 / 100) / 2))
expect_eq "adopted by hand" "$(wr $S/add $CG/AR/c)" OK
C=$(grp_dir AR/c)
expect_eq "it is in auto, with the rule's ratio" "$(cat $C/wmark_auto) $(cat $C/wmark_ratio)" "1 90"
expect_eq "rule_del" "$(wr $S/rule_del "$CG/AR")" OK
rmgroup AR/c AR
rm -f $F	# the scratch disk is shared with the cases after this one
check "module unloads" mbr_unload
