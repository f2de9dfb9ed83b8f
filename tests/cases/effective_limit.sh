# A configured group's marks follow the limit it really runs under: the
# lowest memory.max or memory.high of itself and its ancestors. A child
# without a limit of its own under a limited parent is active.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
mkgroup EP 96M
echo +memory >$CG/EP/cgroup.subtree_control
mkgroup EP/K
check "watch the unlimited child (high 24m, low 12m)" mbr_watch EP/K 24m 12m
expect_eq "its low mark is the parent's limit - 12m" "$(wmark EP/K low)" $(((96 - 12) << 20))
expect_eq "its high mark is the parent's limit - 24m" "$(wmark EP/K high)" $(((96 - 24) << 20))
echo 80M >$CG/EP/memory.high
expect_eq "a memory.high change up the tree moves them at once" "$(wmark EP/K low)" $(((80 - 12) << 20))
echo max >$CG/EP/memory.high
drop_caches
trace_reclaims_start
run_in EP/K stream $F 1 >/dev/null
n=$(trace_reclaims stream)
trace_reclaims_stop
diag "child: reclaimed_pages $(gstat EP/K reclaimed_pages), reader's direct reclaims $n"
check "the child is reclaimed in the background" test "$(gstat EP/K reclaimed_pages)" -gt 0
check "and its reader barely stalls ($n direct reclaims)" test "$n" -le 50
rmgroup EP/K EP
check "module unloads" mbr_unload
