# Load and unload 50 times in a row (MBR_LOAD_CYCLES): every load brings
# the sysfs root and the workers, every unload takes them and all hooks
# away again.
T=/sys/kernel/tracing
N=${MBR_LOAD_CYCLES:-50}
bad=0
for i in $(seq 1 $N); do
	mbr_load || { bad=$((bad + 1)); continue; }
	[ -d $MBR_SYSFS ] || bad=$((bad + 1))
	[ "$(cat $MBR_SYSFS/nr_workers)" -gt 0 ] || bad=$((bad + 1))
	mbr_unload || bad=$((bad + 1))
	[ -e $MBR_SYSFS ] && bad=$((bad + 1))
done
expect_eq "$N load/unload cycles without error" "$bad" 0
check "sysfs root gone after the last unload" test ! -e $MBR_SYSFS
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c "^memcg_bgrcl/")
expect_eq "no worker thread left" "$n" 0
n=$(grep -c 'memcg_bgreclaim' $T/enabled_functions)
expect_eq "no ftrace callback of ours left" "$n" 0
n=$(grep -c '\[memcg_bgreclaim\]' /proc/kallsyms)
expect_eq "no symbol of ours left" "$n" 0
