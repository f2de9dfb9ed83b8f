# Every injected load-time failure (allocation, thread creation, hook,
# kprobe, sysfs) fails insmod with a clean errno and leaves nothing
# behind; injected failures during add and distance writes change
# nothing. Uses the fault-injection build of the module.
FI=/memcg_bgreclaim_fi.ko
if [ ! -f $FI ]; then
	fail "fault-injection module in the initramfs"
	return 0
fi
leftovers() {	# what a failed load must not leave
	n=0
	[ -e $MBR_SYSFS ] && n=$((n + 1))
	[ -e /proc/memcg_bgreclaim ] && n=$((n + 1))
	grep -q '^memcg_bgreclaim' /proc/modules && n=$((n + 1))
	n=$((n + $(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')))
	n=$((n + $(grep -c -E '^(try_charge_memcg|mem_cgroup_css_online|mem_cgroup_css_offline|try_to_free_mem_cgroup_pages)\b' $T/enabled_functions)))
	n=$((n + $(grep -c -E 'try_to_free_mem_cgroup_pages|mem_cgroup_css_online' /sys/kernel/debug/kprobes/list)))
	echo $n
}
slab0=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
for p in workers_alloc kthread:1 kthread:2 kretprobe:1 kretprobe:2 \
	ftrace_filter:1 ftrace_filter:2 ftrace_register:1 ftrace_register:2 \
	billing_wq proc sysfs_root sysfs_cgroups sysfs_files; do
	point=${p%%:*}
	nth=1
	[ "$point" != "$p" ] && nth=${p#*:}
	res=$(modload $FI "fail_at=$point fail_nth=$nth")
	case $res in
	ENOMEM | EBUSY | EINVAL) pass "load failing at $point#$nth: clean errno $res" ;;
	*) fail "load failing at $point#$nth: clean errno (got $res)" ;;
	esac
	expect_eq "load failing at $point#$nth leaves nothing" "$(leftovers)" 0
done
# A kernel whose prototypes differ from the module's, as its own BTF
# tells: one line names the function and the difference.
for p in btf_nargs btf_type; do
	dmesg -c >/dev/null
	expect_eq "load with a prototype differing at $p: EINVAL" "$(modload $FI "fail_at=$p")" EINVAL
	expect_eq "... leaves nothing" "$(leftovers)" 0
	n=$(dmesg | grep -c 'memcg_bgreclaim: refusing to load: ')
	expect_eq "... and says why in one line: $(dmesg | grep -m1 'refusing to load' | sed 's/.*refusing/refusing/')" "$n" 1
done
msg="argument 1 of try_charge_memcg is 'struct mem_cgroup *' on this kernel, the module expects 'struct folio *'"
expect_eq "the refusal names try_charge_memcg's first argument and both types" "$(dmesg | grep -cF "$msg")" 1
# A kernel whose kallsyms has no data symbols (no CONFIG_KALLSYMS_ALL, as
# Debian's 6.1 arm64): the BTF comes from /sys/kernel/btf/vmlinux, and
# without that file either the load is refused in one line.
expect_eq "load with no __start_BTF in kallsyms: OK, the BTF read from /sys/kernel/btf/vmlinux" \
	"$(modload $FI fail_at=btf_kallsyms)" OK
mbr_unload
: >/tmp/no-btf
mount --bind /tmp/no-btf /sys/kernel/btf/vmlinux
dmesg -c >/dev/null
expect_eq "... and with that file empty too: ENOENT" "$(modload $FI fail_at=btf_kallsyms)" ENOENT
umount /sys/kernel/btf/vmlinux
expect_eq "... leaves nothing" "$(leftovers)" 0
expect_eq "... and says why in one line" \
	"$(dmesg | grep -c 'refusing to load: this kernel has no BTF .*/sys/kernel/btf/vmlinux')" 1

# 30 failed loads in a row must not grow the kernel's memory by more
# than noise (a leak of a kobject or a thread per load would show).
i=0
while [ $i -lt 30 ]; do modload $FI "fail_at=sysfs_files" >/dev/null; i=$((i + 1)); done
slab1=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
diag "Slab before ${slab0} kB, after 45 failed loads ${slab1} kB"
check "no slab growth from failed loads ($slab0 -> $slab1 kB)" test $((slab1 - slab0)) -lt 2048

# Failures inside add and distance writes.
mkgroup F 64M
expect_eq "fault variant loads" "$(modload $FI fail_at=group_alloc)" OK
expect_eq "add with a failing allocation is ENOMEM" "$(wr $MBR_SYSFS/add $CG/F)" ENOMEM
expect_eq "... and configures nothing" "$(ls $MBR_SYSFS/cgroups | wc -l)" 0
expect_eq "the next add works" "$(wr $MBR_SYSFS/add $CG/F)" OK
check "module unloads" mbr_unload
expect_eq "fault variant loads" "$(modload $FI fail_at=group_kobject)" OK
expect_eq "add with a failing kobject_add is ENOMEM" "$(wr $MBR_SYSFS/add $CG/F)" ENOMEM
expect_eq "... and configures nothing" "$(mbr_stat groups)" 0
expect_eq "the next add works" "$(wr $MBR_SYSFS/add $CG/F)" OK
check "module unloads" mbr_unload
# Every setter goes through one replace of the configuration (conf.c).
expect_eq "fault variant loads" "$(modload $FI fail_at=conf_alloc)" OK
wr $MBR_SYSFS/add $CG/F >/dev/null
expect_eq "cpu_budget write with a failing allocation is ENOMEM" \
	"$(wr $(grp_dir F)/cpu_budget 5000)" ENOMEM
expect_eq "... and changes nothing" "$(cat $(grp_dir F)/cpu_budget)" "max 100000"
check "module unloads" mbr_unload
expect_eq "fault variant loads" "$(modload $FI fail_at=conf_alloc)" OK
wr $MBR_SYSFS/add $CG/F >/dev/null
expect_eq "distance write with a failing allocation is ENOMEM" \
	"$(wr $(grp_dir F)/high_wmark_distance 8m)" ENOMEM
expect_eq "... and changes nothing" "$(cat $(grp_dir F)/high_wmark_distance)" 0
expect_eq "the next write works" "$(wr $(grp_dir F)/high_wmark_distance 8m)" OK
check "module unloads" mbr_unload
rmdir $CG/F
