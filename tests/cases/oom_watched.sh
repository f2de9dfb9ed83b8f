# OOM inside a watched group (limit far below the workload, no swap):
# the OOM killer acts, the workers do not spin, nothing hangs.
# (The OOM killer's own report carries a stack dump; see lib.sh.)
touch /tmp/mbr_allow_oom_trace
check "module loads" mbr_load
mkgroup O 32M
check "watch O" mbr_watch O 8m 4m
o0=$(sed -n 's/^oom_kill //p' $CG/O/memory.events)
run_in O anon 200 1 >/dev/null 2>&1
o1=$(sed -n 's/^oom_kill //p' $CG/O/memory.events)
check "the OOM killer acted ($o0 -> $o1)" test "$o1" -gt "$o0"
c1=$(gstat O reclaim_cpu_ns)
r1=$(gstat O reclaim_runs)
sleep 2
c2=$(gstat O reclaim_cpu_ns)
r2=$(gstat O reclaim_runs)
diag "reclaim_runs=$r1->$r2 reclaim_cpu_ns=$c1->$c2 unreclaimable=$(gstat O unreclaimable)"
check "workers idle after the OOM kill ($r1 -> $r2 turns)" test $((r2 - r1)) -le 1
check "bounded worker CPU (${c2} ns)" test "$c2" -lt 2000000000
rmgroup O
check "module unloads" mbr_unload
