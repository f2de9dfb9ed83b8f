# Four writers reconfigure the same groups concurrently (distances,
# memory.max, memory.high, add/remove) under load, while a reader checks
# that every reclaim_wmarks read is a consistent pair.
SECS=${MBR_STORM_SECS:-60}
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
# A memory.max write below usage reclaims, then OOM-kills when reclaim
# makes no progress (memory_max_write()): with 7.3's 2 MiB folios under
# read, an 8M limit did once. The storm is about the marks, not that.
touch /tmp/mbr_allow_oom_trace
for g in S0 S1 S2 S3; do mkgroup $g 64M; mbr_watch $g 16m 8m; done
for g in S0 S1; do run_in $g stream $F 1000 >/dev/null 2>&1 & done
end=$(($(date +%s) + SECS))
writer_dist() {
	while [ $(date +%s) -lt $end ]; do
		for g in S0 S1 S2 S3; do
			d=$MBR_SYSFS/cgroups/$(cgid $g)
			h=$((RANDOM % 40 + 2))
			l=$((RANDOM % h + 1))
			wr $d/low_wmark_distance 0 >/dev/null 2>&1
			wr $d/high_wmark_distance ${h}m >/dev/null 2>&1
			wr $d/low_wmark_distance ${l}m >/dev/null 2>&1
		done
	done
}
writer_max() {
	while [ $(date +%s) -lt $end ]; do
		for g in S0 S1 S2 S3; do echo $((RANDOM % 96 + 8))M >$CG/$g/memory.max; done
	done
}
writer_high() {
	while [ $(date +%s) -lt $end ]; do
		for g in S0 S1 S2 S3; do
			echo $((RANDOM % 96 + 8))M >$CG/$g/memory.high
			echo max >$CG/$g/memory.high
		done
	done
}
writer_addrm() {
	while [ $(date +%s) -lt $end ]; do
		for g in S2 S3; do
			wr $MBR_SYSFS/remove $CG/$g >/dev/null
			wr $MBR_SYSFS/add $CG/$g >/dev/null
		done
	done
}
reader() {
	reads=0 bad=0
	while [ $(date +%s) -lt $end ]; do
		for g in S0 S1 S2 S3; do
			m=$(cat $MBR_SYSFS/cgroups/$(cgid $g)/reclaim_wmarks 2>/dev/null) || continue
			set -- $m
			[ $# = 4 ] && [ "$1" = low_wmark ] && [ "$3" = high_wmark ] &&
				[ "$2" -ge "$4" ] || { bad=$((bad + 1)); echo "# bad read: $m"; }
			reads=$((reads + 1))
		done
	done
	echo "$reads $bad" >/tmp/storm.reader
}
writer_dist & writer_max & writer_high & writer_addrm & reader &
wait_until() { while [ $(date +%s) -lt $end ]; do sleep 1; done; }
wait_until
sleep 2
for g in S0 S1; do killgroup $g; done
wait
set -- $(cat /tmp/storm.reader)
diag "reclaim_wmarks reads: $1, inconsistent: $2; stat: $(tr '\n' ' ' <$MBR_SYSFS/stat)"
check "the reader read marks ($1)" test "$1" -gt 10
expect_eq "every read was a consistent pair" "$2" 0
check "module unloads" mbr_unload
rmgroup S0 S1 S2 S3
