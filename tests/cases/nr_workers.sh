# The pool has int_sqrt(num_online_cpus()) + 1 workers, all named
# memcg_bgrcl/<n>, all gone after rmmod.
ncpu=$(nproc)
r=0
while [ $(((r + 1) * (r + 1))) -le "$ncpu" ]; do r=$((r + 1)); done
want=$((r + 1))
check "module loads" mbr_load
expect_eq "nr_workers for $ncpu CPUs" "$(cat $MBR_SYSFS/nr_workers)" "$want"
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/[0-9]*$')
expect_eq "memcg_bgrcl/* threads for $ncpu CPUs" "$n" "$want"
check "module unloads" mbr_unload
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')
expect_eq "no worker left after rmmod" "$n" 0
