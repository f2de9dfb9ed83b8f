# Only a task's own charge is a stall. Writing memory.max below a
# configured group's usage makes the writer reclaim in the kernel; that
# is no task's direct reclaim, and the module must not count it (a count
# would end a back-off and double wmark_auto's headroom). A task that
# charges at the limit still counts, as the kernel's tracepoint does.
F=/mnt/lw.dat
check "test file" make_file $F 160
check "module loads" mbr_load
mkgroup LW 256M
check "watch LW (high 24m, low 12m)" mbr_watch LW 24m 12m
wr $MBR_SYSFS/enabled 0 >/dev/null	# the writes alone reclaim
run_in LW cat $F >/dev/null
u0=$(cgget LW current)
d0=$(gstat LW direct_reclaims)
trace_reclaims_start
for m in 140M 110M 80M 50M 30M; do
	cgset LW max $m
done
writer=$(trace_reclaims '')	# the writer is this script (PID 1, init)
trace_reclaims_stop
u1=$(cgget LW current)
diag "usage $u0 -> $u1 bytes after 5 memory.max writes; the writer's reclaims traced: $writer"
check "the writes reclaimed, in the writer ($writer reclaims, usage $u0 -> $u1)" \
	test "$writer" -gt 0 -a "$u1" -lt "$u0"
expect_eq "the module counted none of them as a stall" "$(($(gstat LW direct_reclaims) - d0))" 0

# A task's own charge at the limit does count.
cgset LW max 64M
d0=$(gstat LW direct_reclaims)
drop_caches
trace_reclaims_start
run_in LW cat $F >/dev/null
traced=$(trace_reclaims cat)
trace_reclaims_stop
d=$(($(gstat LW direct_reclaims) - d0))
diag "a reader at the limit: traced $traced, counted $d"
diff=$((traced - d))
[ $diff -lt 0 ] && diff=$((-diff))
check "a reader's own reclaims at the limit are counted ($d of $traced traced)" \
	test "$traced" -gt 0 -a $((diff * 100)) -le $((traced + 200))
wr $MBR_SYSFS/enabled 1 >/dev/null
rmgroup LW
rm -f $F
check "module unloads" mbr_unload
