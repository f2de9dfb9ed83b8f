# The module calls unexported kernel functions only through direct
# static calls. Checked on the live kernel through /proc/kcore, with the
# host's list of the module's trampolines and call sites
# (tests/static_calls.py): each is a direct rel32 branch that lands on
# the start of the resolved function, and on an IBT kernel that start is
# the 4-byte NOP that replaced its ENDBR at boot, so a call through a
# pointer would fault on a CPU that enforces IBT. Which NOP is this
# kernel's own fact (6.18 changed it): the host read it from its headers.
LIST=/etc/static_calls.txt
ENDBR="f3 0f 1e fa"
[ -f $LIST ] || { fail "host list of static calls present"; return 0; }
ibt=$(sed -n 's/^ibt //p' $LIST)
SEAL=$(sed -n 's/^seal //p' $LIST)

check "module loads" mbr_load
text=$(cat /sys/module/memcg_bgreclaim/sections/.text)
sct=$(cat /sys/module/memcg_bgreclaim/sections/.static_call.text)
for target in $(awk '$1 == "tramp" { print $3 }' $LIST); do
	addr=$(kcode sym "$target")
	start=$(kcode bytes "$addr" 4)
	diag "$target at $addr starts with $start"
	if [ "$ibt" = 1 ]; then
		expect_eq "$target is sealed (its ENDBR replaced by a NOP)" "$start" "$SEAL"
	else
		check "$target has no ENDBR (kernel without IBT)" [ "$start" != "$ENDBR" ]
	fi
done
while read -r kind key target off; do
	case $kind in
	tramp) base=$sct want="jmp" ;;
	site) base=$text want="call" ;;
	*) continue ;;
	esac
	got=$(kcode branch "$base" "$off")
	dest=$(kcode sym "$target")
	# A tail call site is patched to a jmp; ours are plain calls.
	[ "$kind" = site ] && [ "${got%% *}" = jmp ] && want=jmp
	expect_eq "$kind of $key (+$off) is a direct $want to $target" "$got" "$want $dest"
done <$LIST

# And the calls really run: a group pushed over its low mark is reclaimed.
mkgroup sc 64M
mbr_watch sc 16m 8m
make_file /mnt/sc.dat 128
run_in sc cat /mnt/sc.dat >/dev/null
n=$(gstat sc reclaimed_pages)
check "background reclaim ran through the static call ($n pages)" [ "${n:-0}" -gt 0 ]
check "module unloads" mbr_unload
rmgroup sc
