# Ratio watermarks (wmark_ratio, wmark_scale_factor; Alibaba Cloud
# Linux's semantics): the marks follow the effective limit, read live,
# with the ABI's exact arithmetic and rounding; a ratio overrides the
# distances while set; and a streaming reader under a ratio does not
# stall.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
mkgroup RM 100M
expect_eq "add" "$(wr $MBR_SYSFS/add $CG/RM)" OK
D=$(grp_dir RM)
M=$((100 << 20))
expect_eq "wmark_ratio starts at 0 (off)" "$(cat $D/wmark_ratio)" 0
expect_eq "wmark_scale_factor starts at 50" "$(cat $D/wmark_scale_factor)" 50
expect_eq "ratio 0: marks at the limit" "$(wmark RM low) $(wmark RM high)" "$M $M"
for bad in 101 -1 abc 1.5 " 80" 4294967296; do
	expect_eq "wmark_ratio refuses '$bad'" "$(wr $D/wmark_ratio "$bad")" EINVAL
done
for bad in 0 1001 -5 x; do
	expect_eq "wmark_scale_factor refuses '$bad'" "$(wr $D/wmark_scale_factor "$bad")" EINVAL
done
expect_eq "refused writes changed nothing" "$(cat $D/wmark_ratio) $(cat $D/wmark_scale_factor)" "0 50"
expect_eq "wmark_ratio=80" "$(wr $D/wmark_ratio 80)" OK
expect_eq "start mark = limit * 80 / 100" "$(wmark RM low)" $((M * 80 / 100))
expect_eq "stop mark = start - limit * 50 / 10000" "$(wmark RM high)" $((M * 80 / 100 - M * 50 / 10000))
expect_eq "wmark_scale_factor=1000" "$(wr $D/wmark_scale_factor 1000)" OK
expect_eq "stop mark = start - 10% of the limit" "$(wmark RM high)" $((M * 70 / 100))
expect_eq "distances 24m/12m set beside the ratio" \
	"$(wr $D/high_wmark_distance 24m) $(wr $D/low_wmark_distance 12m)" "OK OK"
expect_eq "the ratio still decides the marks" "$(wmark RM low)" $((M * 80 / 100))
expect_eq "wmark_ratio=0 hands back to the distances" "$(wr $D/wmark_ratio 0)" OK
expect_eq "distance marks" "$(wmark RM low) $(wmark RM high)" "$(((100 - 12) << 20)) $(((100 - 24) << 20))"
expect_eq "clear the distances" "$(wr $D/low_wmark_distance 0) $(wr $D/high_wmark_distance 0)" "OK OK"

# Rounding: a limit that is no round number (100 MiB + 3 pages).
cgset RM max $((M + 12288))
L=$(cgget RM max)
expect_eq "wmark_ratio=33, wmark_scale_factor=7" "$(wr $D/wmark_ratio 33) $(wr $D/wmark_scale_factor 7)" "OK OK"
expect_eq "start mark rounds down (limit $L)" "$(wmark RM low)" $((L * 33 / 100))
expect_eq "stop mark rounds the gap down" "$(wmark RM high)" $((L * 33 / 100 - L * 7 / 10000))
expect_eq "ratio 100: start at the limit" "$(wr $D/wmark_ratio 100) $(wmark RM low)" "OK $L"

# Live limits: memory.high, and a parent's limit (effective limit).
cgset RM max 100M
wr $D/wmark_ratio 80 >/dev/null
wr $D/wmark_scale_factor 50 >/dev/null
if cgset RM high 60M; then
	expect_eq "a memory.high below memory.max moves the marks at once" "$(wmark RM low)" $((60 * M / 100 * 80 / 100))
	cgset RM high max
fi
cgmemchildren RM
mkgroup RM/C
expect_eq "an unlimited child" "$(wr $MBR_SYSFS/add $CG/RM/C) $(wr "$(grp_dir RM/C)/wmark_ratio" 90)" "OK OK"
expect_eq "its marks follow its parent's limit" "$(wmark RM/C low)" $((M * 90 / 100))
cgset RM max 80M
expect_eq "and move when the parent's limit does" "$(wmark RM/C low)" $((80 * M / 100 * 90 / 100))
rmgroup RM/C
[ "$MBR_CGROUP" = v1 ] || echo -memory >$CG/RM/cgroup.subtree_control
cgset RM max 100M

# A streaming reader in the group: background reclaim between the
# marks, no stall (placed as one_thread_place says: on arm64, reader and
# sampler free to move gave 30-73% of the samples within 2M).
wr $D/wmark_ratio 75 >/dev/null
wr $D/wmark_scale_factor 200 >/dev/null
low=$(wmark RM low)
one_thread_place || fail "the workers placed on CPU 1"
drop_caches
: >/tmp/usage.rm
trace_reclaims_start
# shellcheck disable=SC2086
run_in RM $ON stream $F 1 >/tmp/stream.rm &
pid=$!
# shellcheck disable=SC2086
sample_usage RM $pid /tmp/usage.rm $ON
wait $pid
n=$(trace_reclaims stream)
trace_reclaims_stop
# A charge comes a folio at a time: where the page cache is made of
# huge pages (7.x's ext4), one charge takes the group from below the
# start mark to 2M above it before any hook sees it, and the next one
# can land while the turn runs. Near is then 2M plus one such folio.
near=2
[ "$(sed -n 's/^file_thp //p' "$CG/RM/memory.stat")" -gt 0 ] 2>/dev/null && near=4
below=$(frac_le /tmp/usage.rm $((low + (near << 20))))
diag "ratio 75, scale 200: reclaimed_pages $(gstat RM reclaimed_pages), direct reclaims $n, usage <= start + ${near}M ${below}% of samples; $(cat /tmp/stream.rm)"
check "the reader ran" test -s /tmp/stream.rm
check "the group is reclaimed in the background" test "$(gstat RM reclaimed_pages)" -gt 0
check "the reader barely stalls ($n direct reclaims)" test "$n" -le 50
check "usage stays within ${near}M of the start mark (${below}% of samples)" test "$below" -ge 80
rmgroup RM
check "module unloads" mbr_unload
