# The sysfs root appears with the module and its files have the right
# modes and values; enabled takes 0/1 and refuses anything else.
check "no sysfs root before load" test ! -e $MBR_SYSFS
check "module loads" mbr_load
check "sysfs root is a directory" test -d $MBR_SYSFS
mode() { stat -c %a "$1"; }
expect_eq "version is 0444" "$(mode $MBR_SYSFS/version)" 444
expect_eq "nr_workers is 0444" "$(mode $MBR_SYSFS/nr_workers)" 444
expect_eq "enabled is 0644" "$(mode $MBR_SYSFS/enabled)" 644
expect_eq "version matches modinfo" "$(cat $MBR_SYSFS/version)" \
	"$(cat /sys/module/memcg_bgreclaim/version)"
n=$(find $MBR_SYSFS -perm -o+w | wc -l)
expect_eq "no world-writable file" "$n" 0
expect_eq "enabled defaults to 1" "$(cat $MBR_SYSFS/enabled)" 1
expect_eq "enabled accepts 0" "$(wr $MBR_SYSFS/enabled 0)" OK
expect_eq "enabled reads 0" "$(cat $MBR_SYSFS/enabled)" 0
expect_eq "enabled accepts 1 with newline" "$(wr $MBR_SYSFS/enabled '1
')" OK
expect_eq "enabled reads 1" "$(cat $MBR_SYSFS/enabled)" 1
for bad in 2 -1 abc 10 " 1" "1 " "
" "0x1" "11" "1

"; do
	expect_eq "enabled refuses '$bad'" "$(wr $MBR_SYSFS/enabled "$bad")" EINVAL
done
expect_eq "enabled unchanged by bad input" "$(cat $MBR_SYSFS/enabled)" 1
# A zero-length write never reaches a sysfs store; it must change nothing.
wr $MBR_SYSFS/enabled "" >/dev/null
expect_eq "enabled unchanged by an empty write" "$(cat $MBR_SYSFS/enabled)" 1
check "version is read-only" sh -c "! wr $MBR_SYSFS/version 1 >/dev/null"
check "module unloads" mbr_unload
check "sysfs root gone after unload" test ! -e $MBR_SYSFS
