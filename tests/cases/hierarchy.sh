# Watermarks on a parent only, the workload in its child: the charge
# check walks up to the parent, and the parent is kept under its mark.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
mkgroup P 128M
cgmemchildren P
mkgroup P/C
check "watch P only (high 24m, low 12m)" mbr_watch P 24m 12m
low=$(wmark P low)
drop_caches
: >/tmp/usage.P
trace_reclaims_start
run_in P/C stream $F 1 >/dev/null &
pid=$!
sample_usage P $pid /tmp/usage.P
wait $pid
traced=$(trace_reclaims stream)
trace_reclaims_stop
below=$(frac_le /tmp/usage.P $low)
diag "P: reclaimed_pages=$(gstat P reclaimed_pages) direct reclaims=$traced usage<=low ${below}%"
check "P's background reclaim ran" test "$(gstat P reclaimed_pages)" -gt 0
check "P kept at or below its low mark most of the time (${below}%)" test "$below" -ge 50
check "the child's reader barely stalls ($traced direct reclaims)" test "$traced" -le 50
rmdir $CG/P/C $CG/P
check "module unloads" mbr_unload
