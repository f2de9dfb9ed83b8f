# Every function the module hooks is traceable on this kernel, the module
# attaches to exactly those, and nothing stays attached after rmmod.
T=/sys/kernel/tracing
HOOKED="try_charge_memcg mem_cgroup_css_online mem_cgroup_css_offline try_to_free_mem_cgroup_pages"
for f in $HOOKED; do
	check "$f in available_filter_functions" \
		grep -qx "$f" $T/available_filter_functions
done
check "kallsyms_lookup_name in kallsyms" grep -q ' kallsyms_lookup_name$' /proc/kallsyms

check "module loads" mbr_load
for f in $HOOKED; do
	check "$f hooked while loaded" grep -q "^$f\b" $T/enabled_functions
done
check "module unloads" mbr_unload
left=$(grep -c -E "^($(echo $HOOKED | tr ' ' '|'))\b" $T/enabled_functions)
expect_eq "no hook left after rmmod" "$left" 0
