# Every function the module hooks is traceable on this kernel, exactly
# once, with no copy gcc made of it (callers of a .isra, .constprop or
# .part copy would bypass the hook); the module attaches to exactly
# those, and nothing stays attached after rmmod. A kernel where gcc did
# copy one is refused at load: shown with a function of this kernel that
# has such a copy, checked as if hooked.
T=/sys/kernel/tracing
HOOKED="try_charge_memcg mem_cgroup_css_online mem_cgroup_css_offline try_to_free_mem_cgroup_pages"
for f in $HOOKED; do
	expect_eq "$f in available_filter_functions exactly once" \
		"$(grep -cx "$f" $T/available_filter_functions)" 1
	expect_eq "no copy of $f (.isra, .constprop, .part) in kallsyms" \
		"$(grep -cE " $f\.(isra|constprop|part)\.[0-9]+\$" /proc/kallsyms)" 0
done
copied=$(grep -v ' __pfx_' /proc/kallsyms | sed -n 's/^[0-9a-f]* [tT] \([a-z_0-9]*\)\.\(isra\|constprop\|part\)\.0$/\1/p' | head -n 1)
if [ -z "$copied" ]; then
	fail "this kernel has a function with a .isra/.constprop/.part copy to refuse"
else
	dmesg -c >/dev/null
	expect_eq "a hooked function with a copy ($copied) refuses the load: EOPNOTSUPP" \
		"$(modload $MBR_KO test_hook_target=$copied)" EOPNOTSUPP
	check "... in one line naming the copy" \
		sh -c "dmesg | grep -q 'refusing to load: gcc made a copy of $copied, $copied\.'"
	check "... and nothing is left" sh -c "! grep -q '^memcg_bgreclaim ' /proc/modules && ! grep -q '^try_charge_memcg' $T/enabled_functions"
fi
check "kallsyms_lookup_name in kallsyms" grep -q ' kallsyms_lookup_name$' /proc/kallsyms

# A hook is an ftrace callback, or a kretprobe: through ftrace on x86
# (KPROBES_ON_FTRACE), a brk instruction on arm64, which has no such
# kprobes and lists them only in debugfs.
K=/sys/kernel/debug/kprobes/list
hooked() {
	grep -qE "^$1\b" $T/enabled_functions || grep -qE " $1\+0x0\b" $K
}
check "module loads" mbr_load
for f in $HOOKED; do
	check "$f hooked while loaded" hooked "$f"
done
check "module unloads" mbr_unload
left=0
for f in $HOOKED; do
	! hooked "$f" || left=$((left + 1))
done
expect_eq "no hook left after rmmod" "$left" 0
