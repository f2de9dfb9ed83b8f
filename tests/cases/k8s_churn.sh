# A Kubernetes-shaped churn (kubelet with the systemd driver on cgroup
# v2): kubepods.slice/kubepods-burstable.slice/<pod>.slice/<ctr>.scope,
# 200 pods of two containers each created and deleted, every tenth pod
# restarting a container, eight containers streaming a file through a
# tight memory.max; once without a rule, once with one rule on
# kubepods.slice. Every new slice and scope is configured at creation,
# the streamers' direct reclaims are at most 5% of the run without the
# rule, and after deletion no group and no dying memcg is left.
F=/mnt/k8s.dat
check "test file" make_file $F 256
check "module loads" mbr_load
S=$MBR_SYSFS
GT=/proc/memcg_bgreclaim/groups
K=kubepods.slice
B=$K/kubepods-burstable.slice
mkgroup $K
cgmemchildren $K
mkgroup $B
cgmemchildren $B
NPODS=${MBR_K8S_PODS:-200}

churn() {	# churn TAG: one round; direct reclaims of the streamers in $n_TAG
	local i p pids=""
	drop_caches
	trace_reclaims_start
	i=1
	while [ $i -le $NPODS ]; do
		p=$B/kubepods-burstable-pod$i.slice
		mkgroup $p && cgmemchildren $p
		mkgroup $p/cri-containerd-${i}a.scope
		mkgroup $p/cri-containerd-${i}b.scope
		if [ $((i % 25)) = 0 ]; then
			cgset $p/cri-containerd-${i}a.scope max 48M
			run_in $p/cri-containerd-${i}a.scope stream $F 1 >/dev/null &
			pids="$pids $!"
		fi
		if [ $((i % 10)) = 0 ]; then	# a container restart
			rmdir $CG/$p/cri-containerd-${i}b.scope
			mkgroup $p/cri-containerd-${i}b.scope
		fi
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	wait $pids
	eval "n_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
	i=1
	while [ $i -le $NPODS ]; do
		p=$CG/$B/kubepods-burstable-pod$i.slice
		rmdir $p/cri-containerd-${i}a.scope $p/cri-containerd-${i}b.scope $p
		i=$((i + 1))
	done
}

churn off
diag "without a rule: the streamers' direct reclaims $n_off"
check "the churn without a rule stalls ($n_off direct reclaims)" test "$n_off" -gt 100

# Ratio 90 wakes a streamer 4.8M below its 48M limit. Where the page
# cache is made of 2M folios (7.x's ext4: the first round's pages, still
# charged below the slice, show it), that is 2.4 charges, too few for
# eight streamers and two workers; ratio 85 (7.2M) leaves 3.6.
ratio=90
[ "$(mstat $K file_thp)" -gt 0 ] 2>/dev/null && ratio=85
expect_eq "one rule on $K (ratio $ratio)" "$(wr $S/rule_add "$CG/$K ratio=$ratio scale=100")" OK
on0=$(mbr_stat rule_groups_online)
late0=$(mbr_stat rule_groups_late)
t0=$(date +%s)
churn on
created=$((NPODS * 3 + NPODS / 10))
online=$(($(mbr_stat rule_groups_online) - on0))
late=$(($(mbr_stat rule_groups_late) - late0))
diag "with the rule: $created cgroups created, $online configured at creation, $late late; direct reclaims $n_on (without: $n_off); round took $(($(date +%s) - t0)) s"
expect_eq "groups configured at creation = groups created" "$online" $created
expect_eq "none configured late" "$late" 0
check "direct reclaims at most 5% of the run without the rule ($n_on vs $n_off)" \
	test $((n_on * 100)) -le $((n_off * 5))
# Their groups go as their memcgs go offline, from the kernel's work
# item after rmdir returns (18 were left at once on a loaded arm64 6.1).
# The sweep (every 10 s) may take a few whose rmdir it saw first; many
# would be offline hooks missed.
rows0=$(grep -c 'kubepods-burstable-pod' $GT)
i=0
while [ "$(grep -c 'kubepods-burstable-pod' $GT)" != 0 ] && [ $i -lt 100 ]; do
	usleep 100000
	i=$((i + 1))
done
expect_eq "after deletion no pod's group is left ($rows0 at once, none after $((i / 10)) s)" \
	"$(grep -c 'kubepods-burstable-pod' $GT)" 0
swept=$(dmesg | sed -n 's/.* \([0-9]*\) groups of removed cgroups dropped by the sweep.*/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
check "the offline hook removed them, the sweep at most a tenth ($swept of $created)" \
	test $((swept * 10)) -le "$created"
drop_caches
n=0
while [ "$(sed -n 's/^nr_dying_descendants //p' $CG/$K/cgroup.stat)" != 0 ] && [ $n -lt 300 ]; do
	usleep 100000
	n=$((n + 1))
done
expect_eq "and no dying memcg (after $((n / 10)) s)" "$(sed -n 's/^nr_dying_descendants //p' $CG/$K/cgroup.stat)" 0
expect_eq "the module pins only the slice the rule configures" "$(mbr_stat memcgs_pinned)" 1
expect_eq "rule_del" "$(wr $S/rule_del "$CG/$K")" OK
rmgroup $B $K
check "module unloads" mbr_unload
