# A rule added while cgroups are being created below its cgroup: a
# cgroup inside its css_online when the rule appears must still be
# configured, by the online probe or by the rule's own rescan. Ten
# rounds of a 150-mkdir storm racing rule_add; afterwards every child
# is configured (the catch-up work may take a moment past the spare
# pool's 64). The fault-injection variant makes each css_online take
# 2 ms longer, so that the rule lands inside one in most rounds.
FI=/memcg_bgreclaim_fi.ko
if [ ! -f $FI ]; then
	fail "fault-injection module in the initramfs"
	return 0
fi
expect_eq "fault variant loads (slow css_online)" "$(modload $FI fail_at=online_slow)" OK
# configured PARENT: how many of PARENT's children a rule configured
configured() {
	awk -v p="/$1/" 'index($NF, p) == 1' /proc/memcg_bgreclaim/groups | wc -l
}
r=1 short=0
while [ $r -le 10 ]; do
	mkgroup RR$r 256M
	cgmemchildren RR$r
	(
		i=1
		while [ $i -le 150 ]; do mkdir $CG/RR$r/c$i; i=$((i + 1)); done
	) &
	m=$!
	usleep $((r * 20000))	# the rule lands at a different point each round
	wr $MBR_SYSFS/rule_add "$CG/RR$r ratio=90" >/dev/null
	wait $m
	n=0 t=0
	while [ $t -lt 50 ]; do
		n=$(configured RR$r)
		[ "$n" = 150 ] && break
		usleep 100000
		t=$((t + 1))
	done
	[ "$n" = 150 ] || { short=$((short + 1)); diag "round $r: $n of 150 children configured"; }
	wr $MBR_SYSFS/rule_del "$CG/RR$r" >/dev/null
	i=1
	while [ $i -le 150 ]; do rmdir $CG/RR$r/c$i; i=$((i + 1)); done
	rmdir $CG/RR$r
	r=$((r + 1))
done
expect_eq "rounds in which a child the rule admits was left unconfigured" "$short" 0
check "module unloads" mbr_unload
