# The benchmark's latency probe, as a functional case: a task that maps
# and touches 64 KiB every millisecond shares a limited group with a
# streaming reader. With background reclaim neither of them enters
# direct reclaim, counted by the kernel's own tracepoint. The latency
# percentiles are reported, not asserted (TCG timing is not the bench's).
F=/mnt/stream.dat
S=${MBR_PROBE_S:-10}
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
mkgroup P 128M
check "watch P (high 24m, low 12m)" mbr_watch P 24m 12m
# On arm64 under QEMU's one thread, a probe on another vCPU than the
# reader's made 221 operations in 10 s and the reader stalled 60 times
# (6.12), mostly the emulator's cost (doc/testing.md): there the run as
# the scheduler places it is a diagnostic line, and the asserts are the
# placed run's (one_thread_place). Under thread=multi the unplaced run
# still stalls on arm64 6.12: doc/bench.md's open gap.
floor=100
if one_thread; then
	probe_beside_stream P $F $S
	diag "not placed: probe $(cat /tmp/probe.out); direct reclaims probe=$NP stream=$NS"
	floor=50
fi
one_thread_place || fail "the workers placed on CPU 1"
# shellcheck disable=SC2086
probe_beside_stream P $F $S $ON
diag "probe: $(cat /tmp/probe.out); direct reclaims probe=$NP stream=$NS; stat: $(tr '\n' ' ' <$(grp_dir P)/stat)"
# The probe sleeps 1 ms between operations; placed on arm64, 234-368
# operations a second were measured.
check "the probe ran (${N:-0} operations in ${S} s)" test "${N:-0}" -gt $((S * floor))
expect_eq "the probe never entered direct reclaim" "$NP" 0
expect_eq "the reader never entered direct reclaim" "$NS" 0
n=$(gstat P reclaimed_pages)
check "background reclaim freed pages ($n)" test "$n" -gt 0
rmgroup P
check "module unloads" mbr_unload
