# The pool has int_sqrt(num_online_cpus()) + 1 workers, all named
# memcg_bgrcl/<n>, all SCHED_BATCH at nice 0, all gone after rmmod.
ncpu=$(nproc)
r=0
while [ $(((r + 1) * (r + 1))) -le "$ncpu" ]; do r=$((r + 1)); done
want=$((r + 1))
check "module loads" mbr_load
expect_eq "nr_workers for $ncpu CPUs" "$(cat $MBR_SYSFS/nr_workers)" "$want"
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/[0-9]*$')
expect_eq "memcg_bgrcl/* threads for $ncpu CPUs" "$n" "$want"
# /proc/<pid>/stat: field 19 is the nice value, 41 the policy (3: batch)
pol=$(for p in /proc/[0-9]*; do
	case $(cat "$p/comm" 2>/dev/null) in
	memcg_bgrcl/*) awk '{ print "policy " $41 " nice " $19 }' "$p/stat" ;;
	esac
done | sort -u)
expect_eq "every worker runs SCHED_BATCH at nice 0" "$pol" "policy 3 nice 0"
check "module unloads" mbr_unload
n=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^memcg_bgrcl/')
expect_eq "no worker left after rmmod" "$n" 0
