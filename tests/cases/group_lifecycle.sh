# Groups by path, relative path and id; remove; automatic removal on
# rmdir without pinning the memcg; limits read live.
check "module loads" mbr_load
mkgroup P
echo +memory >$CG/P/cgroup.subtree_control
mkgroup P/C 256M
mkgroup B 64M
mkgroup N
mkgroup N/X	# N does not enable memory for its children
expect_eq "add by absolute path" "$(wr $MBR_SYSFS/add $CG/P/C)" OK
expect_eq "add twice is EEXIST" "$(wr $MBR_SYSFS/add $CG/P/C)" EEXIST
expect_eq "add by id" "$(wr $MBR_SYSFS/add "$(cgid B)")" OK
expect_eq "add by path relative to the cgroup2 root" "$(wr $MBR_SYSFS/add /P)" OK
expect_eq "path of P/C" "$(cat $(grp_dir P/C)/path)" /P/C
expect_eq "path of B" "$(cat $(grp_dir B)/path)" /B
expect_eq "unknown path is ENOENT" "$(wr $MBR_SYSFS/add /no/such/group)" ENOENT
expect_eq "unknown id is ENOENT" "$(wr $MBR_SYSFS/add 987654321)" ENOENT
expect_eq "path outside cgroup2 is refused" "$(wr $MBR_SYSFS/add /proc)" ENOENT
expect_eq "relative path without / is refused" "$(wr $MBR_SYSFS/add P)" EINVAL
expect_eq "empty argument is refused" "$(wr $MBR_SYSFS/add '
')" EINVAL
expect_eq "a group without its own memcg is refused" "$(wr $MBR_SYSFS/add $CG/N/X)" EINVAL
expect_eq "groups counted in stat" "$(mbr_stat groups)" 3
mode() { stat -c %a "$1"; }
expect_eq "add is 0200" "$(mode $MBR_SYSFS/add)" 200
expect_eq "distance files are 0644" "$(mode $(grp_dir B)/high_wmark_distance)" 644
expect_eq "reclaim_wmarks is 0444" "$(mode $(grp_dir B)/reclaim_wmarks)" 444

# Limits are read live; memory.high counts when it is lower.
wr $(grp_dir B)/high_wmark_distance 8m >/dev/null
wr $(grp_dir B)/low_wmark_distance 4m >/dev/null
expect_eq "B low mark under 64M" "$(wmark B low)" $(((64 - 4) << 20))
echo 32M >$CG/B/memory.max
expect_eq "memory.max change moves the low mark" "$(wmark B low)" $(((32 - 4) << 20))
expect_eq "... and the high mark" "$(wmark B high)" $(((32 - 8) << 20))
echo 16M >$CG/B/memory.high
expect_eq "a lower memory.high is the limit" "$(wmark B low)" $(((16 - 4) << 20))
echo 6M >$CG/B/memory.high
expect_eq "limit below high distance: high mark clamps at 0" "$(wmark B high)" 0
expect_eq "limit below high distance: low mark follows" "$(wmark B low)" $(((6 - 4) << 20))
echo 3M >$CG/B/memory.high
expect_eq "limit below both: low mark clamps at 0" "$(wmark B low)" 0
echo max >$CG/B/memory.high
echo max >$CG/B/memory.max
expect_eq "unlimited group: marks at the (unlimited) limit" "$(wmark B low)" "$(wmark B high)"
expect_eq "distances can be changed on an unlimited group" "$(wr $(grp_dir B)/low_wmark_distance 2m)" OK

# remove, by path and by id
id=$(cgid B)
expect_eq "remove by id" "$(wr $MBR_SYSFS/remove $id)" OK
check "B's directory is gone" test ! -e $MBR_SYSFS/cgroups/$id
expect_eq "remove again is ENOENT" "$(wr $MBR_SYSFS/remove $id)" ENOENT
expect_eq "remove by path" "$(wr $MBR_SYSFS/remove $CG/P)" OK

# rmdir of a configured group removes its entry and leaves no dying memcg
id=$(cgid P/C)
check "rmdir of a configured group succeeds" rmdir $CG/P/C
sleep 1
check "its directory disappeared by itself" test ! -e $MBR_SYSFS/cgroups/$id
i=0
while [ "$(sed -n 's/^nr_dying_descendants //p' $CG/P/cgroup.stat)" != 0 ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
expect_eq "P's nr_dying_descendants returns to 0" \
	"$(sed -n 's/^nr_dying_descendants //p' $CG/P/cgroup.stat)" 0
expect_eq "no group left" "$(mbr_stat groups)" 0
rmdir $CG/P $CG/B $CG/N/X $CG/N 2>/dev/null
check "module unloads" mbr_unload
