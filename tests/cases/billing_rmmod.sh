# rmmod against cpu_cgroup writers. A cpu_cgroup write moves the group's
# worker into the cgroup from a work item, and that work function still
# runs the module's code after it has woken the writer; the module's
# text must not go before it returns. The fault-injection variant makes
# the first move linger 1 s past that point: rmmod right after the write
# must wait for it, and the kernel must stay clean once it has run.
# Then rmmod races a writer that keeps moving the worker.
FI=/memcg_bgreclaim_fi.ko
if [ ! -f $FI ]; then
	fail "fault-injection module in the initramfs"
	return 0
fi
mkgroup BR 64M
mkdir -p $CG/brbill
expect_eq "fault variant loads (the first move lingers)" "$(modload $FI fail_at=billing_linger)" OK
wr $MBR_SYSFS/add $CG/BR >/dev/null
D=$(grp_dir BR)
expect_eq "cpu_cgroup write" "$(wr $D/cpu_cgroup $CG/brbill)" OK
t0=$(cut -d' ' -f1 /proc/uptime)
check "rmmod right after it" mbr_unload
t1=$(cut -d' ' -f1 /proc/uptime)
diag "rmmod took $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s"
check "rmmod waited for the move's work function (>= 0.5 s)" \
	sh -c "echo '$t0 $t1' | awk '{ exit !(\$2 - \$1 >= 0.5) }'"
sleep 2	# past the linger: a freed text would oops here

i=0 bad=0
while [ $i -lt 10 ]; do
	mbr_load || bad=$((bad + 1))
	wr $MBR_SYSFS/add $CG/BR >/dev/null
	D=$(grp_dir BR)
	(
		while :; do
			echo $CG/brbill 2>/dev/null >$D/cpu_cgroup || exit 0
			echo 2>/dev/null >$D/cpu_cgroup || exit 0
		done
	) &
	w=$!
	usleep 200000
	mbr_unload || bad=$((bad + 1))
	wait $w
	i=$((i + 1))
done
expect_eq "10 rounds of rmmod against a cpu_cgroup writer" "$bad" 0
check "no worker thread left" sh -c "! cat /proc/[0-9]*/comm 2>/dev/null | grep -q '^memcg_bgrcl/'"
rmdir $CG/brbill
rmgroup BR
