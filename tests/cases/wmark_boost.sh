# wmark_boost: configured marks whose headroom is smaller than what the
# group is charged at once (here 256K under the limit, while readahead
# charges 1 MiB at a time on 6.x and 8 MiB on 7.x) let its tasks stall.
# With the boost, a cycle with a stall moves both marks down, and the
# stalls fall; without it, the marks stay exactly where they were set.
# Turning the switch off restores the configured marks at once, a lower
# limit bounds the boost at once. The node keeps the largest boost a
# stall raised (boost_seed): a configuration write, or a new group,
# starts from it for its first fill, and a group that has cycled keeps
# its own (zero included); the switch off forgets it.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
expect_eq "wmark_boost starts off" "$(cat $MBR_SYSFS/wmark_boost)" 0
for bad in 2 -1 x; do
	expect_eq "wmark_boost refuses '$bad'" "$(wr $MBR_SYSFS/wmark_boost "$bad")" EINVAL
done
L=$((96 << 20))
LOW=$((L - (256 << 10)))
HIGH=$((L - (1 << 20)))

# settled NAME: wait until the group's worker turns stop (at most 10 s).
settled() {
	local a b i=0
	b=$(gstat "$1" reclaim_runs)
	while [ $i -lt 20 ]; do
		usleep 500000
		a=$b
		b=$(gstat "$1" reclaim_runs)
		[ "$a" = "$b" ] && return 0
		i=$((i + 1))
	done
	return 1
}

# run TAG [GROUP]: a fresh GROUP (WB), watched at 1m/256k, streams the
# file once; n_TAG its tasks' direct reclaims (the kernel's tracepoint),
# b_TAG its boosts, then, once its turns have stopped, wb_TAG its
# boost_headroom and marks_TAG its marks (low high). pre_TAG: its
# boost_headroom before the read.
run() {
	local G=${2:-WB}
	mkgroup $G 96M
	check "watch $G at 1m/256k ($1)" mbr_watch $G 1m 256k
	eval "pre_$1=$(gstat $G boost_headroom)"
	drop_caches
	trace_reclaims_start
	run_in $G stream $F 1 >/dev/null
	eval "n_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
	check "$G's turns stop after the read ($1)" settled $G
	eval "b_$1=$(gstat $G boosts)"
	eval "wb_$1=$(gstat $G boost_headroom)"
	eval "marks_$1='$(wmark $G low) $(wmark $G high)'"
	diag "$G ($1): $(grep -v '^le_' "$(grp_dir $G)/stat" | tr '\n' ' ')"
}

expect_eq "wmark_boost=0" "$(wr $MBR_SYSFS/wmark_boost 0)" OK
run off WC
diag "without the boost: $n_off direct reclaims, $b_off boosts"
check "the read stalls under a 256K headroom ($n_off direct reclaims)" test "$n_off" -gt 20
expect_eq "no boost" "$b_off $wb_off" "0 0"
expect_eq "no node boost" "$(mbr_stat boost_seed)" 0
expect_eq "the marks stay where they were set" "$marks_off" "$LOW $HIGH"

expect_eq "wmark_boost=1" "$(wr $MBR_SYSFS/wmark_boost 1)" OK
run on
diag "with the boost: $n_on direct reclaims (off: $n_off), $b_on boosts, headroom $wb_on, marks $marks_on"
check "the group was boosted ($b_on times)" test "$b_on" -gt 0
# At most a third of the run without (doc/design.md, Boost): on 6.12,
# where a read is a handful of cycles, only since long cycles teach.
num=1 den=3
check "direct reclaims at most $num/$den of the run without ($n_on vs $n_off)" \
	test $((n_on * den)) -le $((n_off * num))
# What the boost adds to the headroom, from the wake mark: both marks
# moved by it, and boost_headroom is the configured 256K and that.
set -- $marks_on
d=$((LOW - $1))
check "the wake mark moved down ($d bytes)" test "$d" -gt 0
expect_eq "the stop mark moved with it" "$2" $((HIGH - d))
expect_eq "boost_headroom is the headroom in force" "$wb_on" $(((256 << 10) + d))
check "at most a quarter of the limit" test "$wb_on" -le $((L / 4))
seed=$(mbr_stat boost_seed)
SEEDMAX=$((16 << 20))
check "boost_seed is the largest boost a stall raised, at most 16M ($seed, in force $wb_on)" \
	test "$seed" -ge $((wb_on < SEEDMAX ? wb_on : SEEDMAX)) -a "$seed" -le $SEEDMAX
# WC's cycles, with the switch off, made its boost its own: zero. The
# node's, raised since, is not WC's.
got="$(gstat WC boost_headroom) $(wmark WC low) $(wmark WC high)"
check "a group that cycled before the node's boost ($seed) keeps its own, 0 ($got)" \
	test "$seed" -gt 0 -a "$got" = "0 $LOW $HIGH"
rmdir $CG/WC

# A new group starts from the node's boost, for its first fill (the
# watch's writes set its marks: a configuration write does the same).
run seeded WB2
diag "a new group: boost_headroom $pre_seeded before its read, $n_seeded direct reclaims (off: $n_off, WB's first read: $n_on)"
expect_eq "a new group's boost_headroom before its read is boost_seed's" \
	"$pre_seeded" $((seed < L / 4 ? seed : L / 4))
check "its read: direct reclaims at most $num/$den of the run without ($n_seeded vs $n_off)" \
	test $((n_seeded * den)) -le $((n_off * num))
# A write that changes the marks of a group with a boost of its own
# (WB2's read set it) ends that boost: the group reads the node's.
seed=$(mbr_stat boost_seed)
expect_eq "a configuration write on WB2" "$(wr "$(grp_dir WB2)/low_wmark_distance" 512k)" OK
expect_eq "puts WB2 on boost_seed ($seed)" "$(gstat WB2 boost_headroom)" \
	$((seed > (512 << 10) ? (seed < L / 4 ? seed : L / 4) : 0))
rmdir $CG/WB2

expect_eq "wmark_boost=0 again" "$(wr $MBR_SYSFS/wmark_boost 0)" OK
expect_eq "the configured marks hold at once" "$(wmark WB low) $(wmark WB high)" "$LOW $HIGH"
expect_eq "and boost_seed is forgotten" "$(mbr_stat boost_seed)" 0
wr $MBR_SYSFS/wmark_boost 1 >/dev/null
expect_eq "and the boost again when it is on" "$(wmark WB low) $(wmark WB high)" "$((LOW - d)) $((HIGH - d))"
# The bound of a quarter of the limit is taken when the marks are read:
# a lower limit bounds the boost at once, and the boost is whole again
# when the limit comes back (no turn ran meanwhile: nothing charged).
L2=$((2 << 20))
check "the boost is more than a quarter of a ${L2}-byte limit ($wb_on)" \
	test "$wb_on" -gt $((L2 / 4))
w0=$(gstat WB wakeups)
check "memory.max lowered to $L2" cgset WB max $L2
d2=$((L2 / 4 - (256 << 10)))
expect_eq "boost_headroom under the lower limit is a quarter of it" \
	"$(gstat WB boost_headroom)" $((L2 / 4))
expect_eq "the marks under it" "$(wmark WB low) $(wmark WB high)" \
	"$((L2 - L2 / 4)) $((L2 - (1 << 20) - d2))"
check "memory.max back at $L" cgset WB max $L
expect_eq "boost_headroom is whole again" "$(gstat WB boost_headroom)" "$wb_on"
expect_eq "the group was not queued meanwhile" "$(gstat WB wakeups)" "$w0"
D=$(grp_dir WB)
expect_eq "boost_seed is still 0" "$(mbr_stat boost_seed)" 0
expect_eq "a configuration write" "$(wr $D/low_wmark_distance 512k)" OK
expect_eq "ends WB's boost (boost_seed, forgotten, is 0)" \
	"$(wmark WB low) $(wmark WB high)" "$((L - (512 << 10))) $HIGH"
rmdir $CG/WB
check "module unloads" mbr_unload
