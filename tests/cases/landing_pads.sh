# arm64: the module calls unexported functions through pointers (no
# static call patching), which a kernel enforcing BTI allows only onto a
# landing pad (bti c, bti jc, paciasp, pacibsp). Where BTI is enforced
# the module checks each function's first instruction at load and
# refuses with one line otherwise. No Debian arm64 kernel enforces BTI,
# so the fault-injection build forces that check on the n-th function
# resolved: each is then either a landing pad (the load succeeds) or
# refused by name, with the same instruction that /proc/kcore shows.
FI=/memcg_bgreclaim_fi.ko
if [ ! -f $FI ]; then
	fail "fault-injection module in the initramfs"
	return 0
fi
# In the order symbols.c resolves them.
TARGETS="kallsyms_lookup_name try_to_free_mem_cgroup_pages css_tryget_online_from_dir
task_sched_runtime memcg_page_state mem_cgroup_flush_stats cgroup_add_dfl_cftypes
cgroup_add_legacy_cftypes cgroup_rm_cftypes"
PADS="d503245f d50324df d503233f d503237f"
grep -qw bti /proc/cpuinfo && diag "the CPU has FEAT_BTI"
check "module loads (this kernel does not enforce BTI, or every target is a landing pad)" mbr_load
check "module unloads" mbr_unload
n=0 refused=0
for f in $TARGETS; do
	n=$((n + 1))
	# kcode bytes: little-endian bytes; the instruction word, as printed.
	word=$(kcode bytes "$(kcode sym "$f")" 4 | awk '{ print $4 $3 $2 $1 }')
	dmesg -c >/dev/null
	res=$(modload $FI "fail_at=bti_enforced fail_nth=$n")
	if echo " $PADS " | grep -q " $word "; then
		expect_eq "$f begins with a landing pad ($word): the forced check passes" "$res" OK
		mbr_unload
		continue
	fi
	refused=$((refused + 1))
	expect_eq "$f begins with $word, no landing pad: the forced check refuses the load" "$res" EOPNOTSUPP
	msg="refusing to load: this kernel enforces BTI and $f does not begin with a landing pad (bti c or paciasp; found $word), so the module cannot call it"
	expect_eq "... in one line naming $f and the instruction /proc/kcore shows" \
		"$(dmesg | grep -cF "$msg")" 1
	check "... and nothing is left" sh -c "! grep -q '^memcg_bgreclaim' /proc/modules && ! grep -q 'try_to_free_mem_cgroup_pages\|mem_cgroup_css_online' /sys/kernel/debug/kprobes/list"
done
diag "$refused of $n functions would be refused on a kernel enforcing BTI"
