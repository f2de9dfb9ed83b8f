# Lifetimes: a group pins its memcg from add until it is forgotten, the
# offline hook stays attached until every group is unlinked at rmmod,
# ftrace cannot be switched off under the module, and concurrent add and
# remove of one cgroup never collide on its sysfs name.
dying() { sed -n 's/^nr_dying_descendants //p' $CG/cgroup.stat; }
# settle: wait until removed cgroups are freed (RCU, work items).
settle() {
	local i=0
	while [ "$(dying)" -gt "$1" ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
}
d0=$(dying)

# 1. rmdir of configured groups while rmmod runs, 100 rounds.
N=${MBR_LIFETIME_ROUNDS:-100}
bad=0
i=0
while [ $i -lt $N ]; do
	mbr_load || bad=$((bad + 1))
	for g in 1 2 3 4; do
		mkgroup LT$g 32M
		mbr_watch LT$g 8m 4m || bad=$((bad + 1))
	done
	(rmdir $CG/LT1 $CG/LT2 $CG/LT3 $CG/LT4) &
	mbr_unload || bad=$((bad + 1))
	wait
	for g in 1 2 3 4; do [ -d $CG/LT$g ] && rmdir $CG/LT$g; done
	i=$((i + 1))
done
expect_eq "$N rounds of rmdir racing rmmod without error" "$bad" 0
settle "$d0"
expect_eq "no removed cgroup stays pinned ($(dying) dying, $d0 before)" "$(dying)" "$d0"

# 2. The group's memcg reference goes with the group: on rmdir (the
# offline hook), and on remove.
mbr_load
mkgroup Z 32M
mbr_watch Z 8m 4m
id=$(cgid Z)
rmdir $CG/Z
i=0
while [ -e $MBR_SYSFS/cgroups/$id ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
check "rmdir forgets the group" test ! -e $MBR_SYSFS/cgroups/$id
settle "$d0"
expect_eq "and its memcg is freed while the module stays loaded" "$(dying)" "$d0"

# 3. ftrace cannot be switched off under the module, and the module
# does not load with ftrace off. From 7.x on (7.2 and 7.3 here) the
# sysctl no longer disables ftrace at all: it refuses 0 with EOPNOTSUPP,
# with or without the module, and ftrace stays on.
FE=/proc/sys/kernel/ftrace_enabled
res=$(wr $FE 0)
check "sysctl ftrace_enabled=0 refused while loaded ($res)" \
	test "$res" = EBUSY -o "$res" = EOPNOTSUPP
expect_eq "ftrace stays enabled" "$(cat $FE)" 1
mbr_unload
if [ "$res" = EOPNOTSUPP ]; then
	expect_eq "without the module too, ftrace_enabled=0 is EOPNOTSUPP" "$(wr $FE 0)" EOPNOTSUPP
	expect_eq "and ftrace stays enabled" "$(cat $FE)" 1
	expect_eq "the module loads" "$(modload $MBR_KO)" OK
else
	dmesg -c >/dev/null
	check "ftrace_enabled=0 accepted without the module" wr $FE 0
	expect_eq "the load refuses with ftrace disabled" "$(modload $MBR_KO)" EBUSY
	n=$(dmesg | grep -c 'memcg_bgreclaim: cannot hook mem_cgroup_css_offline: ftrace is disabled')
	expect_eq "one log line says why" "$n" 1
	wr $FE 1 >/dev/null
	expect_eq "and loads again once ftrace is enabled" "$(modload $MBR_KO)" OK
fi

# 4. Two writers add and remove the same cgroup.
mkgroup AR 32M
S=${MBR_ADD_REMOVE_S:-30}
end=$(($(date +%s) + S))
for w in 1 2; do
	(
		a=0 r=0
		while [ "$(date +%s)" -lt $end ]; do
			[ "$(wr $MBR_SYSFS/add $CG/AR)" = OK ] && a=$((a + 1))
			[ "$(wr $MBR_SYSFS/remove $CG/AR)" = OK ] && r=$((r + 1))
		done
		echo "$a $r" >/tmp/ar.$w
	) &
done
wait
set -- $(cat /tmp/ar.1) $(cat /tmp/ar.2)
diag "writer 1: $1 adds, $2 removes; writer 2: $3 adds, $4 removes in ${S} s"
check "both writers succeeded many times" test "$1" -gt 10 -a "$3" -gt 10 -a "$2" -gt 10 -a "$4" -gt 10
wr $MBR_SYSFS/remove $CG/AR >/dev/null
rmgroup AR
check "module unloads" mbr_unload
