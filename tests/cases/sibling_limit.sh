# Siblings under a limited parent: a slice at memory.max 128M, two
# children without a limit of their own, configured by a rule on the
# parent, streaming at once. Each child's own usage stays far below the
# parent's limit while the parent sits at it; the headroom that counts
# is the parent's, so the children must wake on it. The parent's
# memory.events "max" (charges that hit its limit) falls by at least
# 95% against the same run with no rule.
MB=${MBR_SIBLING_MB:-256}
check "test file a of ${MB} MiB" make_file /mnt/sib.a "$MB"
check "test file b of ${MB} MiB" make_file /mnt/sib.b "$MB"
check "module loads" mbr_load
mkgroup SP 128M
cgmemchildren SP
mkgroup SP/a
mkgroup SP/b
events() { sed -n 's/^max //p' $CG/SP/memory.events; }

run() {	# run TAG: both children stream their file twice, at once
	drop_caches
	e0=$(events)
	trace_reclaims_start
	run_in SP/a stream /mnt/sib.a 2 >/dev/null &
	pa=$!
	run_in SP/b stream /mnt/sib.b 2 >/dev/null &
	pb=$!
	wait $pa $pb
	eval "traced_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
	eval "max_$1=$(($(events) - e0))"
}

run off
diag "no rule: SP's memory.events max +$max_off, direct reclaims $traced_off"
check "without background reclaim the parent hits its limit ($max_off times)" test "$max_off" -gt 100
expect_eq "rule on SP for its children (high 32m, low 16m)" \
	"$(wr $MBR_SYSFS/rule_add "$CG/SP high=32m low=16m")" OK
# gproc NAME COLUMN: a field of the group's line in /proc/memcg_bgreclaim/groups
# (a group a rule configured has no directory of its own).
gproc() { awk -v id="$(cgid "$1")" -v c="$2" '$1 == id { print $c }' /proc/memcg_bgreclaim/groups; }
i=0
while [ $i -lt 50 ] && [ -z "$(gproc SP/a 1)" -o -z "$(gproc SP/b 1)" ]; do
	usleep 100000
	i=$((i + 1))
done
check "both children configured by it" test -n "$(gproc SP/a 1)" -a -n "$(gproc SP/b 1)"
run on
ra=$(gproc SP/a 7) rb=$(gproc SP/b 7)
diag "$(cat /proc/memcg_bgreclaim/groups)"
diag "rule: SP's memory.events max +$max_on, direct reclaims $traced_on; reclaimed_pages a=$ra b=$rb"
check "the parent's limit events fell by at least 95% ($max_off -> $max_on)" \
	test $((max_on * 100)) -le $((max_off * 5))
check "the children's direct reclaims fell by at least 95% ($traced_off -> $traced_on)" \
	test $((traced_on * 100)) -le $((traced_off * 5))
check "both children were reclaimed in the background ($ra, $rb pages)" \
	test "$ra" -gt 0 -a "$rb" -gt 0
wr $MBR_SYSFS/rule_del "$CG/SP" >/dev/null
rmgroup SP/a SP/b SP
rm -f /mnt/sib.a /mnt/sib.b
check "module unloads" mbr_unload
