# The seed's write experiment: dd a file 4x the group's limit. Dirty
# pages must be written back before they can be reclaimed, so this is
# harder than reading; background reclaim must still lower the writer's
# direct reclaims.
MB=${MBR_WRITE_MB:-512}
F=/mnt/write.dat
check "module loads" mbr_load
mkgroup W 128M
check "watch W (high 24m, low 12m)" mbr_watch W 24m 12m

run() {
	rm -f $F
	drop_caches
	trace_reclaims_start
	start=$(date +%s)
	run_in W dd if=/dev/zero of=$F bs=1M count=$MB 2>/tmp/dd.$1
	sync
	eval "secs_$1=$(($(date +%s) - start))"
	eval "traced_$1=$(trace_reclaims dd)"
	trace_reclaims_stop
}
wr $MBR_SYSFS/enabled 0 >/dev/null
run off
wr $MBR_SYSFS/enabled 1 >/dev/null
grew reclaimed W reclaimed_pages run on
diag "dd ${MB} MiB: direct reclaims without=$traced_off (${secs_off}s) with=$traced_on (${secs_on}s), background reclaimed_pages=$reclaimed"
check "the baseline run stalls in direct reclaim ($traced_off)" test "$traced_off" -gt 0
check "fewer direct reclaims with background reclaim ($traced_on < $traced_off)" \
	test "$traced_on" -lt "$traced_off"
check "background reclaim freed pages ($reclaimed)" test "$reclaimed" -gt 0
rm -f $F
rmdir $CG/W
check "module unloads" mbr_unload
