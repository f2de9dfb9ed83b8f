# memory.max set below current usage, to 0 and back to max on a watched
# group: marks follow, workers do not spin, reclaim goes on afterwards.
# memory.max 0 below the kernel memory still charged makes the kernel
# invoke the OOM killer from the write; its report has a stack dump.
touch /tmp/mbr_allow_oom_trace
stream_group X
run_in X stream $F 1 >/dev/null	# fill the group with page cache
u=$(cat $CG/X/memory.current)
diag "usage after the read: $u"
check "memory.max below usage is accepted" sh -c "echo 32M >$CG/X/memory.max"
check "usage now under the new limit" test "$(cat $CG/X/memory.current)" -le $((32 << 20))
expect_eq "low mark follows (32M - 12m)" "$(wmark X low)" $(((32 - 12) << 20))
expect_eq "high mark follows (32M - 24m)" "$(wmark X high)" $(((32 - 24) << 20))
check "memory.max 0 is accepted" sh -c "echo 0 >$CG/X/memory.max"
expect_eq "marks clamp at 0 (low)" "$(wmark X low)" 0
expect_eq "marks clamp at 0 (high)" "$(wmark X high)" 0
c1=$(gstat X reclaim_cpu_ns)
sleep 2
c2=$(gstat X reclaim_cpu_ns)
check "no worker spinning on an empty group ($c1 -> $c2 ns)" test $((c2 - c1)) -lt 500000000
check "memory.max back to max" sh -c "echo max >$CG/X/memory.max"
expect_eq "unlimited: inactive, marks equal" "$(wmark X low)" "$(wmark X high)"
echo 128M >$CG/X/memory.max
r1=$(gstat X reclaim_runs)
drop_caches
run_in X stream $F 1 >/dev/null
check "reclaim works again after the edges" test "$(gstat X reclaim_runs)" -gt "$r1"
rmgroup X
check "module unloads" mbr_unload
