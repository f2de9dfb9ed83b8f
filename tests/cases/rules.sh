# Rules: a cgroup, watermarks and a filter, applied to every admitted
# descendant, those that exist and those created later, at creation
# (before a task can be charged to them); the nearest admitting rule
# wins, groups configured by hand are left alone, deleting a rule
# forgets its groups, and the rule of a removed cgroup goes with it.
F=/mnt/stream.dat
check "test file" make_file $F ${MBR_STREAM_MB:-768}
check "module loads" mbr_load
S=$MBR_SYSFS
gs() { sed -n "s/^$1 //p" $S/stat; }
rgroups() { sed -n "s|^$1 .* groups=\([0-9]*\)\$|\1|p" $S/rules; }

# A kubelet-like tree: kubepods.slice/kubepods-burstable.slice/<pod>/<ctr>
K=kubepods.slice
B=$K/kubepods-burstable.slice
mkgroup $K 1G
cgmemchildren $K
mkgroup $B
cgmemchildren $B
mkpod() {	# mkpod NAME: a pod slice with two container scopes
	mkgroup $B/$1 &&
		cgmemchildren $B/$1 &&
		mkgroup $B/$1/cri-containerd-$1-a.scope &&
		mkgroup $B/$1/cri-containerd-$1-b.scope
}
mkpod pod1
expect_eq "no rules at first" "$(cat $S/rules)" ""

for bad in "$CG/$K" "$CG/$K ratio=0" "$CG/$K ratio=101" "$CG/$K ratio=80 high=8m" \
	"$CG/$K high=4m low=8m" "$CG/$K high=8m" "$CG/$K ratio=80 foo=1" \
	"$CG/$K ratio=80 ratio=70" "$CG/$K high=8m low=4m scale=5" \
	"$CG/$K ratio=80 match=a/b" "$CG/$K ratio=80 depth=0" "$CG ratio=80"; do
	expect_eq "rule_add refuses '$bad'" "$(wr $S/rule_add "$bad")" EINVAL
done
expect_eq "rule_add of a missing cgroup" "$(wr $S/rule_add "$CG/nope ratio=80")" ENOENT
expect_eq "refusals made no rule" "$(cat $S/rules)" ""

g0=$(gs groups)
expect_eq "rule on $K: ratio 80, containers only" \
	"$(wr $S/rule_add "$CG/$K ratio=80 match=cri-containerd-*.scope")" OK
expect_eq "the rules file shows it" "$(sed 's/ id=.*//' $S/rules)" "/$K ratio=80 scale=50 match=cri-containerd-*.scope"
expect_eq "existing containers configured at once" "$(rgroups /$K)" 2
expect_eq "and counted in stat" "$(gs groups)" $((g0 + 2))
expect_eq "slices are not (the glob)" "$(ls $S/cgroups | wc -l)" 0

# New pods and restarts: configured by the online hook, before any charge.
on0=$(gs rule_groups_online)
late0=$(gs rule_groups_late)
i=2
while [ $i -le 21 ]; do
	mkpod pod$i
	i=$((i + 1))
done
expect_eq "40 new containers configured at creation" "$(($(gs rule_groups_online) - on0))" 40
expect_eq "none of them late" "$(($(gs rule_groups_late) - late0))" 0
expect_eq "the rule has 42 groups" "$(rgroups /$K)" 42
GT=/proc/memcg_bgreclaim/groups
kid=$(cgid $K)
expect_eq "the groups table starts with its header" "$(head -n 1 $GT | cut -d' ' -f1-3)" "# id rule"
expect_eq "it lists the rule's 42 groups" "$(awk -v r=$kid '$2 == r' $GT | wc -l)" 42
row=$(awk -v p="/$B/pod5/cri-containerd-pod5-a.scope" '$NF == p { print $1, $3, $5, $6 }' $GT)
expect_eq "a new container's row: id, effective limit, ratio marks" "$row" \
	"$(cgid $B/pod5/cri-containerd-pod5-a.scope) 1073741824 858993459 853624750"
rmgroup $B/pod2/cri-containerd-pod2-a.scope
mkgroup $B/pod2/cri-containerd-pod2-a.scope
expect_eq "a restarted container has its group at once, from the online hook" \
	"$(($(gs rule_groups_online) - on0))" 41
# The old group goes when its cgroup is offlined, asynchronously.
n=0
while [ "$(rgroups /$K)" != 42 ] && [ $n -lt 50 ]; do usleep 100000; n=$((n + 1)); done
expect_eq "and the old one is gone" "$(rgroups /$K)" 42

# Nearest rule wins; deleting it hands its groups back.
expect_eq "a nearer rule on $B (high 8m, low 4m)" \
	"$(wr $S/rule_add "$CG/$B high=8m low=4m match=*.scope")" OK
expect_eq "it takes the containers below it" "$(rgroups /$B) $(rgroups /$K)" "42 0"
mkgroup $B/pod1/cri-containerd-pod1-c.scope
expect_eq "and new ones" "$(rgroups /$B)" 43
expect_eq "rule_del of $B" "$(wr $S/rule_del "$CG/$B")" OK
expect_eq "the farther rule takes them back" "$(rgroups /$K)" 43
expect_eq "rule_del of a missing rule" "$(wr $S/rule_del "$CG/$B")" ENOENT

# By hand beats rules.
C=$B/pod3/cri-containerd-pod3-a.scope
expect_eq "add of a rule's group adopts it" "$(wr $S/add $CG/$C)" OK
expect_eq "its directory shows the rule's ratio" "$(cat "$(grp_dir $C)/wmark_ratio")" 80
expect_eq "it no longer counts as the rule's" "$(rgroups /$K)" 42
expect_eq "add again is EEXIST" "$(wr $S/add $CG/$C)" EEXIST
expect_eq "settings by hand" "$(wr "$(grp_dir $C)/wmark_ratio" 90)" OK
expect_eq "a replaced rule (ratio 70) leaves it alone" \
	"$(wr $S/rule_add "$CG/$K ratio=70 match=cri-containerd-*.scope")" OK
expect_eq "its ratio is still 90" "$(cat "$(grp_dir $C)/wmark_ratio")" 90
expect_eq "the replaced rule keeps its groups" "$(rgroups /$K)" 42

# A streaming container, configured by the rule only.
P=$B/pod4/cri-containerd-pod4-a.scope
cgset $P max 128M
expect_eq "ratio 75, scale 200 for the stream" \
	"$(wr $S/rule_add "$CG/$K ratio=75 scale=200 match=cri-containerd-*.scope")" OK
r0=$(gs reclaimed_pages)
drop_caches
trace_reclaims_start
run_in $P stream $F 1 >/tmp/stream.rules
n=$(trace_reclaims stream)
trace_reclaims_stop
r=$(($(gs reclaimed_pages) - r0))
diag "container under the rule: reclaimed_pages $r, direct reclaims $n; $(cat /tmp/stream.rules)"
check "the reader ran" test -s /tmp/stream.rules
check "the rule's group is reclaimed in the background ($r pages)" test "$r" -gt 0
check "its reader barely stalls ($n direct reclaims)" test "$n" -le 50
pr=$(awk -v p="/$P" '$NF == p { print $7 }' $GT)
check "its row in the table shows the reclaimed pages ($pr)" test "${pr:-0}" -gt 0

# Depth: a rule for children only.
mkgroup D 256M
cgmemchildren D
mkgroup D/c
cgmemchildren D/c
mkgroup D/c/g
expect_eq "depth=1 rule" "$(wr $S/rule_add "$CG/D ratio=90 depth=1")" OK
expect_eq "the child only" "$(rgroups /D)" 1
mkgroup D/c2
expect_eq "a new child too" "$(rgroups /D)" 2

# Deleting a rule forgets its groups, not those set by hand.
g1=$(gs groups)
expect_eq "rule_del of $K" "$(wr $S/rule_del "$CG/$K")" OK
expect_eq "its 42 groups are forgotten" "$(gs groups)" $((g1 - 42))
check "the group set by hand stays" test -d "$(grp_dir $C)"
mkgroup $B/pod1/cri-containerd-pod1-d.scope
expect_eq "new containers are not configured any more" "$(gs groups)" $((g1 - 42))

# The rule of a removed cgroup goes with it.
rmgroup D/c/g D/c D/c2 D
n=0
while grep -q "^/D " $S/rules && [ $n -lt 50 ]; do usleep 100000; n=$((n + 1)); done
expect_eq "the rule of a removed cgroup is dropped" "$(grep -c "^/D " $S/rules)" 0

for p in $(ls $CG/$B); do
	[ -d "$CG/$B/$p" ] || continue
	for c in "$CG/$B/$p"/*.scope; do [ -d "$c" ] && rmdir "$c"; done
	rmdir "$CG/$B/$p"
done
rmgroup $B

# rmmod while a rule configures containers being created and removed.
expect_eq "a rule for the churn" "$(wr $S/rule_add "$CG/$K ratio=80")" OK
( i=0; while [ ! -e /tmp/churn.stop ]; do
	mkdir $CG/$K/c$i 2>/dev/null; rmdir $CG/$K/c$((i - 1)) 2>/dev/null; i=$((i + 1))
done; rmdir $CG/$K/c* 2>/dev/null ) &
cpid=$!
usleep 500000
check "module unloads during the churn" mbr_unload
touch /tmp/churn.stop
wait $cpid
rm -f /tmp/churn.stop
rmdir $CG/$K/c* 2>/dev/null
check "the churn left no cgroup behind" test "$(sed -n 's/^nr_descendants //p' $CG/$K/cgroup.stat)" -eq 0
rmgroup $K
