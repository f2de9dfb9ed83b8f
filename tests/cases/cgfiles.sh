# Alibaba's memory.wmark_* files in cgroupfs (cgroupfs_files): the three
# ways to turn them on and off, where they appear, what they refuse, the
# marks they show, inheritance at creation, precedence over rules and
# under "add", identical writes that change nothing (not even a
# back-off), and switching them off or unloading the module with a
# writer looping and cgroups coming and going.
S=$MBR_SYSFS
P=/proc/memcg_bgreclaim/groups
# gproc NAME COLUMN: a column of the cgroup's line in $P (2 rule,
# 5 low_wmark, 6 high_wmark, 8 reclaim_cpu_ns, 10 unreclaimable,
# 11 origin).
gproc() { awk -v id="$(cgid "$1")" -v c="$2" '$1 == id { print $c }' $P; }
ngroups() { mbr_stat groups; }
rw() { echo "$(cat $CG/$1/memory.wmark_ratio) $(cat $CG/$1/memory.wmark_scale_factor)"; }

mkgroup KP 128M
cgmemchildren KP
FI=/memcg_bgreclaim_fi.ko
if [ -f $FI ]; then
	expect_eq "the files failing to appear do not fail the load" \
		"$(modload $FI "cgroupfs_files=1 fail_at=cgfiles_add fail_nth=1")" OK
	expect_eq "it loads without them, and says so" \
		"$(cat $S/cgroupfs_files) $(dmesg | grep -c 'cannot add the memory.wmark_\* files')" "0 1"
	rmmod memcg_bgreclaim
	# The late path: with the spare pool "empty" (the fault variant),
	# every child inherits from the work item, before any rule.
	expect_eq "the fault variant loads with an empty spare pool" \
		"$(modload $FI "cgroupfs_files=1 fail_at=spares_empty")" OK
	mkgroup KL 128M
	cgmemchildren KL
	printf 90 >$CG/KL/memory.wmark_ratio
	mkdir $CG/KL/a $CG/KL/b $CG/KL/c
	i=0
	while [ "$(mbr_stat cgroupfs_groups_late)" != 3 ] && [ $i -lt 50 ]; do
		usleep 100000
		i=$((i + 1))
	done
	expect_eq "3 children inherited late, none at creation" \
		"$(mbr_stat cgroupfs_groups_online) $(mbr_stat cgroupfs_groups_late)" "0 3"
	expect_eq "with their parent's values" "$(rw KL/a) $(rw KL/b) $(rw KL/c)" "90 50 90 50 90 50"
	rmgroup KL/a KL/b KL/c KL
	rmmod memcg_bgreclaim
else
	fail "fault-injection module in the initramfs"
fi
check "module loads without the files" mbr_load
check "no memory.wmark_ratio by default" test ! -e $CG/KP/memory.wmark_ratio
expect_eq "cgroupfs_files reads 0" "$(cat $S/cgroupfs_files)" 0
printf 'cgroupfs_files 1\n' >/tmp/cgfiles.conf
expect_eq "the config file turns them on (memcg-bgreclaim apply)" \
	"$(memcg-bgreclaim apply /tmp/cgfiles.conf >/dev/null; cat $S/cgroupfs_files)" 1
check "memory.wmark_ratio appears in KP" test -e $CG/KP/memory.wmark_ratio
expect_eq "the sysfs switch turns them off" "$(wr $S/cgroupfs_files 0)" OK
check "memory.wmark_ratio is gone" test ! -e $CG/KP/memory.wmark_ratio
expect_eq "the switch refuses 2" "$(wr $S/cgroupfs_files 2)" EINVAL
mbr_unload
check "module loads with cgroupfs_files=1" mbr_load cgroupfs_files=1
expect_eq "cgroupfs_files reads 1" "$(cat $S/cgroupfs_files)" 1
for f in memory.wmark_ratio memory.wmark_scale_factor memory.wmark_high memory.wmark_low; do
	check "$f in KP" test -e $CG/KP/$f
done
check "none in the root cgroup" test ! -e $CG/memory.wmark_ratio
expect_eq "ratio 0 and scale 50 by default" "$(rw KP)" "0 50"
expect_eq "marks read max while off" \
	"$(cat $CG/KP/memory.wmark_high) $(cat $CG/KP/memory.wmark_low)" "max max"
expect_eq "reading creates no group" "$(ngroups)" 0

# Refusals (an empty write is no write at all for cgroupfs: not here).
for bad in 101 -1 abc 1.5; do
	expect_eq "wmark_ratio refuses '$bad'" "$(wr $CG/KP/memory.wmark_ratio "$bad")" EINVAL
done
for bad in 0 1001 x; do
	expect_eq "wmark_scale_factor refuses '$bad'" "$(wr $CG/KP/memory.wmark_scale_factor "$bad")" EINVAL
done
expect_eq "wmark_high is read-only (mode 444)" "$(stat -c %a $CG/KP/memory.wmark_high)" 444
expect_eq "a write to it fails" "$(wr $CG/KP/memory.wmark_high 1)" EINVAL
expect_eq "a user without CAP_SYS_ADMIN may not write (even where the file is delegated)" \
	"$(chown 65534 $CG/KP/memory.wmark_ratio; asuser 65534 wr $CG/KP/memory.wmark_ratio 90)" EPERM
expect_eq "a refused write creates no group" "$(ngroups)" 0
expect_eq "ratio 0, the default, creates no group" \
	"$(wr $CG/KP/memory.wmark_ratio 0) $(ngroups)" "OK 0"

# Koordinator's LS values, written as koordlet writes them (no newline).
printf 95 >$CG/KP/memory.wmark_ratio
printf 20 >$CG/KP/memory.wmark_scale_factor
expect_eq "values read back as written" "$(rw KP)" "95 20"
lim=$((128 << 20))
hi=$((lim * 95 / 100))
lo=$((hi - lim * 20 / 10000))
expect_eq "wmark_high = limit * 95 / 100, wmark_low = that - limit * 20 / 10000" \
	"$(cat $CG/KP/memory.wmark_high) $(cat $CG/KP/memory.wmark_low)" "$hi $lo"
expect_eq "one group, of origin cgroupfs, with no directory" \
	"$(ngroups) $(gproc KP 11) $(ls $S/cgroups | wc -l)" "1 cgroupfs 0"
expect_eq "its marks in $P agree" "$(gproc KP 5) $(gproc KP 6)" "$hi $lo"
expect_eq "memcg-bgreclaim status shows it [cgroupfs]" \
	"$(memcg-bgreclaim status | grep -c ' /KP \[cgroupfs\]$')" 1
expect_eq "status --json: rule null, origin cgroupfs" \
	"$(memcg-bgreclaim status --json | grep -o '"path":"/KP","id":[0-9]*,"rule":null,"origin":"cgroupfs"' | wc -l)" 1
cgset KP max 64M
lim=$((64 << 20))
hi=$((lim * 95 / 100))
lo=$((hi - lim * 20 / 10000))
expect_eq "limits changed live: the marks follow" \
	"$(cat $CG/KP/memory.wmark_high) $(cat $CG/KP/memory.wmark_low)" "$hi $lo"

# A new cgroup inherits its parent's values at creation (the spare pool
# was filled when the files were turned on).
mkgroup KP/pod1
expect_eq "a child inherits 95/20 at creation" "$(rw KP/pod1)" "95 20"
expect_eq "as a group of the files', from the online hook" \
	"$(gproc KP/pod1 11) $(mbr_stat cgroupfs_groups_online)" "cgroupfs 1"
# A storm of creations empties the spare pool: the rest inherit a little
# later, from a work item, before any rule could take them.
n0=$(ngroups)
mkgroup KP/st
cgmemchildren KP/st
i=0 names=
while [ $i -lt 150 ]; do names="$names $CG/KP/st/c$i"; i=$((i + 1)); done
# shellcheck disable=SC2086
mkdir $names
sleep 1
expect_eq "150 children created at once: every one inherited" \
	"$(for d in $names; do cat $d/memory.wmark_ratio; done | grep -c '^95$')" 150
diag "inherited at creation $(mbr_stat cgroupfs_groups_online), later $(mbr_stat cgroupfs_groups_late)"
# shellcheck disable=SC2086
rmdir $names $CG/KP/st
# Their groups go as their memcgs go offline, from a work item: wait.
i=0
while [ "$(ngroups)" != "$n0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect_eq "the 150 children and their parent gone, their groups with them" "$(ngroups)" "$n0"

# "add" makes a files' group the user's, with a directory.
expect_eq "add takes pod1 over" "$(wr $S/add $CG/KP/pod1)" OK
expect_eq "now by hand, with its values" "$(gproc KP/pod1 11) $(rw KP/pod1)" "hand 95 20"
check "and a directory" test -d "$(grp_dir KP/pod1)"
expect_eq "ratio 0 on a group by hand is its setting: it stays" \
	"$(printf 0 >$CG/KP/pod1/memory.wmark_ratio; gproc KP/pod1 11) $(cat $(grp_dir KP/pod1)/wmark_ratio)" "hand 0"
cgmemchildren KP/pod1
expect_eq "a child of a parent at ratio 0 inherits nothing" "$(mkgroup KP/pod1/x; gproc KP/pod1/x 11)" ""
rmgroup KP/pod1/x

# Identical writes change nothing (koordlet rewrites every 60 s), not
# even a back-off: a leaf full of anonymous memory, no swap, beside a
# binary whose charges keep asking for a turn.
mkgroup KS 64M
printf 80 >$CG/KS/memory.wmark_ratio
printf 20 >$CG/KS/memory.wmark_scale_factor
mkdir -p /mnt/cgf
cp /bin/busybox /mnt/cgf/true
drop_caches
run_in KS sh -c 'while :; do /mnt/cgf/true; usleep 20000; done' >/dev/null 2>&1 &
bin=$!
run_in KS anon 56 120 >/tmp/cgf.anon &
anon=$!
i=0
while [ "$(gproc KS 10)" = 0 ] && [ $i -lt 300 ]; do usleep 100000; i=$((i + 1)); done
sleep 1
u0=$(gproc KS 10) c0=$(gproc KS 8)
check "KS backed off (unreclaimable $u0)" test "$u0" -gt 0
i=0
while [ $i -lt 20 ]; do
	printf 80 >$CG/KS/memory.wmark_ratio
	printf 20 >$CG/KS/memory.wmark_scale_factor
	i=$((i + 1))
done
sleep 2
expect_eq "20 identical rewrites: still backed off, no turn (unreclaimable, reclaim CPU)" \
	"$(gproc KS 10) $(gproc KS 8)" "$u0 $c0"
printf 81 >$CG/KS/memory.wmark_ratio
i=0
while [ "$(gproc KS 8)" = "$c0" ] && [ $i -lt 30 ]; do usleep 100000; i=$((i + 1)); done
check "a changed value is a new chance: a turn ran" test "$(gproc KS 8)" != "$c0"
# Every task of KS, not only the shells that started them: the loop
# would otherwise run on through the guest's later cases.
killgroup KS
wait $bin $anon 2>/dev/null
i=0
while [ -n "$(cat $CG/KS/cgroup.procs)" ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
expect_eq "every task of KS is gone" "$(wc -l <$CG/KS/cgroup.procs)" 0

# Precedence: a rule configures the children of KR (a rule's group reads
# 0/50 through the files: its configuration is the rule's); a write
# takes one over, with the files' marks alone; ratio 0 with scale 50
# gives it back to the rule. A reconciler writing the defaults (memory
# QoS off) finds them already there, and writes nothing.
mkgroup KR 128M
cgmemchildren KR
expect_eq "a rule on KR" "$(wr $S/rule_add "$CG/KR ratio=70 auto=1")" OK
mkgroup KR/pod2
expect_eq "the rule configures pod2, which reads 0 50" \
	"$(gproc KR/pod2 2) $(rw KR/pod2)" "$(cgid KR) 0 50"
printf 90 >$CG/KR/pod2/memory.wmark_ratio
expect_eq "a write takes pod2 over from the rule" "$(gproc KR/pod2 2) $(gproc KR/pod2 11)" "0 cgroupfs"
lim=$((128 << 20))
expect_eq "with the files' marks alone (not the rule's auto)" \
	"$(gproc KR/pod2 5) $(gproc KR/pod2 6)" "$((lim * 90 / 100)) $((lim * 90 / 100 - lim * 50 / 10000))"
printf 0 >$CG/KR/pod2/memory.wmark_ratio
i=0
while [ "$(gproc KR/pod2 2)" != "$(cgid KR)" ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
expect_eq "ratio 0 (scale 50): the rule has it again, and it reads 0 50" \
	"$(gproc KR/pod2 2) $(rw KR/pod2)" "$(cgid KR) 0 50"
expect_eq "writing the defaults again leaves the rule's group alone" \
	"$(printf 0 >$CG/KR/pod2/memory.wmark_ratio; printf 50 >$CG/KR/pod2/memory.wmark_scale_factor; gproc KR/pod2 2)" "$(cgid KR)"
wr $S/rule_del "$CG/KR" >/dev/null
rmgroup KR/pod2 KR

# Off and on, and rmmod, with a writer looping and cgroups churning.
(
	i=0
	while :; do
		printf 95 >$CG/KP/memory.wmark_ratio
		printf 0 >$CG/KP/memory.wmark_ratio
		cat $CG/KP/memory.wmark_high >/dev/null
		printf 90 >$CG/KP/c$i/memory.wmark_ratio
		printf 0 >$CG/KP/c$i/memory.wmark_ratio
		i=$(((i + 1) % 50))
	done
) 2>/dev/null &
writer=$!
(
	i=0
	while :; do
		mkdir $CG/KP/c$i && rmdir $CG/KP/c$i
		i=$(((i + 1) % 50))
	done
) 2>/dev/null &
churner=$!
i=0
bad=0
while [ $i -lt 20 ]; do
	wr $S/cgroupfs_files 0 >/dev/null || bad=$((bad + 1))
	[ -e $CG/KP/memory.wmark_ratio ] && bad=$((bad + 1))
	wr $S/cgroupfs_files 1 >/dev/null || bad=$((bad + 1))
	[ -e $CG/KP/memory.wmark_ratio ] || bad=$((bad + 1))
	i=$((i + 1))
done
expect_eq "20 switches off and on under a writer and churn: files gone, then back" "$bad" 0
check "module unloads under the writer and churn" mbr_unload
check "the files are gone" test ! -e $CG/KP/memory.wmark_ratio
check "module loads again with the files" mbr_load cgroupfs_files=1
check "and they are back" test -e $CG/KP/memory.wmark_ratio
kill $writer $churner
wait $writer $churner 2>/dev/null
check "module unloads" mbr_unload
rmdir $CG/KP/c* 2>/dev/null
rmgroup KP/pod1 KS KP
