# A rule's life. It lasts as long as its cgroup's directory: switching
# the memory controller off above it and on again keeps it, and it
# configures the cgroups made below afterwards; rmdir ends it. A group
# a rule configured and that was removed by hand stays removed until
# the rules are applied again (a rule change), as the ABI says.
check "module loads" mbr_load
mkgroup LP
cgmemchildren LP
mkgroup LP/R 256M
cgmemchildren LP/R
mkgroup LP/R/a
expect_eq "rule on LP/R" "$(wr $MBR_SYSFS/rule_add "$CG/LP/R ratio=90")" OK
inrules() { grep -c "^/LP/R " $MBR_SYSFS/rules; }
configured() { awk -v p="$1" '$NF == p' /proc/memcg_bgreclaim/groups | wc -l; }
expect_eq "LP/R/a configured by it" "$(configured /LP/R/a)" 1

# The controller off above the rule's cgroup, bottom up, then on again.
echo -memory >$CG/LP/R/cgroup.subtree_control
echo -memory >$CG/LP/cgroup.subtree_control
check "LP/R has no memory controller now" test ! -e $CG/LP/R/memory.max
sleep 1	# the offline work and the catch-up have run
expect_eq "the rule outlives its memcg" "$(inrules)" 1
echo +memory >$CG/LP/cgroup.subtree_control
echo +memory >$CG/LP/R/cgroup.subtree_control
mkgroup LP/R/b
expect_eq "with the controller back, a new cgroup below is configured by the rule" \
	"$(configured /LP/R/b)" 1

# A group removed by hand stays removed until a rule change.
expect_eq "remove LP/R/b by hand" "$(wr $MBR_SYSFS/remove $CG/LP/R/b)" OK
sleep 1
expect_eq "it stays removed" "$(configured /LP/R/b)" 0
mkgroup LP/x
expect_eq "a rule change (rule_add elsewhere)" "$(wr $MBR_SYSFS/rule_add "$CG/LP/x ratio=80")" OK
sleep 1	# its catch-up rescan of every rule
expect_eq "re-applies the rules: LP/R/b is configured again" "$(configured /LP/R/b)" 1
wr $MBR_SYSFS/rule_del "$CG/LP/x" >/dev/null

# rmdir ends the rule.
rmdir $CG/LP/R/a $CG/LP/R/b
rmdir $CG/LP/R
sleep 1
expect_eq "rmdir of its cgroup ends the rule" "$(inrules)" 0
rmdir $CG/LP/x $CG/LP
check "module unloads" mbr_unload
