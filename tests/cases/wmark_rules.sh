# The seed patches' watermark semantics: the example, the write order
# rules, root refusal, and bad values that change nothing.
check "module loads" mbr_load
mkgroup A 500M
expect_eq "add by path" "$(wr $MBR_SYSFS/add $CG/A)" OK
D=$(grp_dir A)
H=$D/high_wmark_distance
L=$D/low_wmark_distance
expect_eq "inactive group: both marks at the limit" "$(cat $D/reclaim_wmarks | tr '\n' ' ')" \
	"low_wmark 524288000 high_wmark 524288000 "
expect_eq "low before high is refused" "$(wr $L 40m)" EINVAL
expect_eq "high_wmark_distance=50m" "$(wr $H 50m)" OK
expect_eq "marks still at the limit with only high set" "$(wmark A low)" 524288000
expect_eq "low_wmark_distance=40m" "$(wr $L 40m)" OK
expect_eq "seed example low_wmark" "$(wmark A low)" 482344960
expect_eq "seed example high_wmark" "$(wmark A high)" 471859200
expect_eq "high reads back in bytes" "$(cat $H)" 52428800
expect_eq "low reads back in bytes" "$(cat $L)" 41943040

expect_eq "high == low is refused" "$(wr $H 40m)" EINVAL
expect_eq "high < low is refused" "$(wr $H 30m)" EINVAL
expect_eq "low == high is refused" "$(wr $L 50m)" EINVAL
expect_eq "low > high is refused" "$(wr $L 60m)" EINVAL
expect_eq "high cleared before low is refused" "$(wr $H 0)" EINVAL
for bad in abc -1 1x 99999999999999999999 "
" 500M 600m 1G " 1m" "1m " 0x10 "1m1"; do
	expect_eq "high refuses '$bad'" "$(wr $H "$bad")" EINVAL
	expect_eq "low refuses '$bad'" "$(wr $L "$bad")" EINVAL
done
expect_eq "bad writes changed nothing (high)" "$(cat $H)" 52428800
expect_eq "bad writes changed nothing (low)" "$(cat $L)" 41943040
expect_eq "high accepts a change keeping order" "$(wr $H 60m)" OK
expect_eq "low cleared first" "$(wr $L 0)" OK
expect_eq "marks back at the limit when low is 0" "$(wmark A low)" 524288000
expect_eq "then high cleared" "$(wr $H 0)" OK

expect_eq "root by path is refused" "$(wr $MBR_SYSFS/add $CG)" EINVAL
expect_eq "root by relative path is refused" "$(wr $MBR_SYSFS/add /)" EINVAL
expect_eq "root by id is refused" "$(wr $MBR_SYSFS/add "$(stat -c %i $CG)")" EINVAL
n=$(ls $MBR_SYSFS/cgroups | wc -l)
expect_eq "only A is configured" "$n" 1

expect_eq "remove A" "$(wr $MBR_SYSFS/remove $CG/A)" OK
rmdir $CG/A
check "module unloads" mbr_unload
