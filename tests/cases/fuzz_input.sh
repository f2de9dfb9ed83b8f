# Seeded, repeatable fuzzing: >= 10,000 random inputs to every writable
# file; each write succeeds with a valid value or fails with a clean
# errno, and the state read back is always valid.
COUNT=${MBR_FUZZ_COUNT:-10000}
SEED=${MBR_FUZZ_SEED:-20261203}
check "module loads" mbr_load
mkgroup Z 500M
mkgroup Z2 100M
mkgroup Zgone 10M
wr $MBR_SYSFS/add $CG/Z >/dev/null
wr $MBR_SYSFS/add $CG/Zgone >/dev/null
gone=$(cgid Zgone)
rmdir $CG/Zgone	# its id is now the id of a removed group
sleep 1
fuzz $SEED $COUNT $MBR_SYSFS "$(grp_dir Z)" -- \
	$CG/Z2 /Z2 "$(cgid Z2)" "$gone" /Zgone $CG/Zgone >/tmp/fuzz.out
rc=$?
grep '^BAD' /tmp/fuzz.out | head -n 20 | sed 's/^/# /'
while read -r file _ n _ acc _ ref _ nbad; do
	case $file in BAD) continue ;; esac
	name=${file#$MBR_SYSFS/}
	diag "$name: $n writes, $acc accepted, $ref refused"
	check "$name: >= 10000 writes ($n)" test "$n" -ge 10000
	expect_eq "$name: every write clean and state valid" "$nbad" 0
done </tmp/fuzz.out
expect_eq "fuzzer found no violation" "$rc" 0
check "module unloads" mbr_unload
rmdir $CG/Z $CG/Z2
