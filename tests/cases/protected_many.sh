# More protected descendants than a turn used to keep track of (32): 40
# children with memory.low, as Kubernetes' MemoryQoS gives every pod,
# and one unprotected child streaming a file, under a configured group.
# The turn must find the unprotected child (no back-off), take nothing
# from the protected ones (no "low" event), and the reader's direct
# reclaims must fall by at least 95% against the run without background
# reclaim.
F=/mnt/pm.dat
check "test file" make_file $F 512
check "small files" sh -c 'dd if=/dev/zero of=/mnt/pm.small bs=1M count=1 2>/dev/null'
check "module loads" mbr_load
mkgroup PM 160M
cgmemchildren PM
i=1
while [ $i -le 40 ]; do
	mkgroup PM/p$i
	echo 2M >$CG/PM/p$i/memory.low
	i=$((i + 1))
done
mkgroup PM/s
check "watch PM (high 24m, low 12m)" mbr_watch PM 24m 12m
lows() { cat $CG/PM/p*/memory.events | awk '$1 == "low" { s += $2 } END { print s + 0 }'; }

run() {	# run TAG: the protected children hold a page-cache MiB each, then s streams
	drop_caches
	i=1
	while [ $i -le 40 ]; do run_in PM/p$i cat /mnt/pm.small >/dev/null; i=$((i + 1)); done
	trace_reclaims_start
	run_in PM/s stream $F 2 >/dev/null
	eval "traced_$1=$(trace_reclaims stream)"
	trace_reclaims_stop
}
wr $MBR_SYSFS/enabled 0 >/dev/null
run off
wr $MBR_SYSFS/enabled 1 >/dev/null
u0=$(gstat PM unreclaimable) l0=$(lows)
run on
u1=$(gstat PM unreclaimable) l1=$(lows)
diag "direct reclaims $traced_off -> $traced_on; back-offs $u0 -> $u1; protected children's low events $l0 -> $l1; reclaimed_pages $(gstat PM reclaimed_pages)"
check "the reader's direct reclaims fell by at least 95% ($traced_off -> $traced_on)" \
	test "$traced_off" -gt 100 -a $((traced_on * 100)) -le $((traced_off * 5))
expect_eq "no back-off with 40 protected children" "$((u1 - u0))" 0
expect_eq "no low event in a protected child" "$((l1 - l0))" 0
i=1
while [ $i -le 40 ]; do rmdir $CG/PM/p$i; i=$((i + 1)); done
rmgroup PM/s PM
rm -f /mnt/pm.small $F	# the scratch disk is shared by every case
check "module unloads" mbr_unload
