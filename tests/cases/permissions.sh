# A non-root user can read every readable file and write none (-EACCES);
# no file is world-writable.
check "module loads" mbr_load
mkgroup Q 64M
wr $MBR_SYSFS/add $CG/Q >/dev/null
n=$(find $MBR_SYSFS -perm -o+w | wc -l)
expect_eq "no world-writable file" "$n" 0
n=$(find $MBR_SYSFS -perm -g+w | wc -l)
expect_eq "no group-writable file" "$n" 0
for f in $(find $MBR_SYSFS -type f); do
	name=${f#$MBR_SYSFS/}
	if [ -n "$(find $f -perm -u+r)" ]; then
		check "user can read $name" sh -c "asuser 65534 cat $f >/dev/null"
	fi
	if [ -n "$(find $f -perm -u+w)" ]; then
		before=$(cat $f 2>/dev/null)
		expect_eq "user cannot write $name" "$(asuser 65534 wr $f 1)" EACCES
		expect_eq "$name unchanged" "$(cat $f 2>/dev/null)" "$before"
	fi
done
rmdir $CG/Q
check "module unloads" mbr_unload
