# A turn asks for at most the way down to the stop mark, so a huge
# batch_pages never overshoots: with 1 GiB turns, the group's usage
# never falls far below its stop mark (uncapped, one turn would empty
# the group). The kernel's reclaim itself overshoots a small request
# by a few MiB: measured 103M on 6.12 and 93M on 6.1 for a 104M mark.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
check "batch_pages 262144 (1 GiB)" wr $MBR_SYSFS/batch_pages 262144
mkgroup RC 128M
check "watch RC (high 24m, low 12m)" mbr_watch RC 24m 12m
stop=$(wmark RC high)
drop_caches
: >/tmp/usage.rc
run_in RC stream $F 1 >/dev/null &
pid=$!
sample_usage RC $pid /tmp/usage.rc
wait $pid
# The lowest usage once the group first reached its stop mark.
min=$(awk -v s=$stop '$1 >= s { up = 1 } up && (m == "" || $1 < m) { m = $1 } END { print m + 0 }' /tmp/usage.rc)
diag "stop mark $((stop >> 20))M, lowest usage after reaching it $((min >> 20))M, reclaimed_pages $(gstat RC reclaimed_pages)"
check "background reclaim ran" test "$(gstat RC reclaimed_pages)" -gt 0
check "usage never fell more than 16M below the stop mark ($((min >> 20))M)" test "$min" -ge $((stop - (16 << 20)))
rmgroup RC
check "module unloads" mbr_unload
