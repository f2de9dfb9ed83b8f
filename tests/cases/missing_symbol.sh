# A symbol that cannot be resolved refuses the load with -ENOENT and one
# log line naming it, and leaves nothing behind.
T=/sys/kernel/tracing
res=$(modload $MBR_KO test_require_symbol=mbr_no_such_symbol)
expect_eq "insmod fails with ENOENT" "$res" ENOENT
check "module not loaded" sh -c '! grep -q "^memcg_bgreclaim " /proc/modules'
n=$(dmesg | grep -c 'memcg_bgreclaim: cannot resolve mbr_no_such_symbol')
expect_eq "one log line names the symbol" "$n" 1
check "no sysfs root" test ! -e $MBR_SYSFS
n=$(grep -c 'memcg_bgreclaim' $T/enabled_functions)
expect_eq "no ftrace callback left" "$n" 0
n=$(grep -c 'try_to_free_mem_cgroup_pages\|kallsyms_lookup_name' /sys/kernel/debug/kprobes/list)
expect_eq "no kprobe left" "$n" 0
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')
expect_eq "no worker thread left" "$n" 0
expect_eq "a normal load works afterwards" "$(modload $MBR_KO)" OK
check "module unloads" mbr_unload
