# Background reclaim never takes memory that memory.low or memory.min
# protect: not the group's own, not a descendant's. Without the rule the
# kernel's reclaim of the group would, once its unprotected memory is
# gone, retry with memory.low ignored and raise the children's "low"
# events (and reclaim the target's own protected memory on 6.12).
check "module loads" mbr_load
F=/mnt/prot.dat
check "test file" make_file $F 192

# events NAME KEY: a key of the cgroup's memory.events.
events() { sed -n "s/^$2 //p" "$CG/$1/memory.events"; }
mib() { echo $(($(cat "$CG/$1/memory.current") >> 20)); }

# 1. The group's own memory.low: marks would take it down to 16M, its
# protection stops background reclaim at 40M.
mkgroup OWN 64M
echo 40M >$CG/OWN/memory.low
check "watch OWN (stop 16M, start 56M)" mbr_watch OWN 48m 8m
drop_caches
run_in OWN dd if=$F of=/dev/null bs=1M count=62 2>/dev/null
sleep 2
u=$(mib OWN)
diag "OWN: memory.current ${u}M, reclaimed_pages $(gstat OWN reclaimed_pages), unreclaimable $(gstat OWN unreclaimable)"
check "OWN was reclaimed in the background" test "$(gstat OWN reclaimed_pages)" -gt 0
check "but not below its memory.low of 40M (${u}M)" test "$u" -ge 39
echo 1 >$CG/OWN/cgroup.kill 2>/dev/null
rmgroup OWN

# 2. Children: B with memory.low, M with memory.min, C unprotected. The
# parent's marks would take it down to 32M; only C may be reclaimed.
mkgroup A 160M
echo +memory >$CG/A/cgroup.subtree_control
mkgroup A/B
mkgroup A/M
mkgroup A/C
echo 48M >$CG/A/B/memory.low
echo 48M >$CG/A/M/memory.min
check "watch A (stop 32M, start 152M)" mbr_watch A 128m 8m
drop_caches
run_in A/B dd if=$F of=/dev/null bs=1M count=44 2>/dev/null
run_in A/M dd if=$F of=/dev/null bs=1M skip=44 count=44 2>/dev/null
lb=$(events A/B low)
lm=$(events A/M low)
# Each read may charge more than its own range: readahead runs on into
# the next one (7.x's large folios read further ahead). What B and M
# hold now is what their protection must keep.
b0=$(mib A/B)
m0=$(mib A/M)
diag "before C's read: B ${b0}M, M ${m0}M"
echo >/sys/kernel/tracing/trace
echo 1 >/sys/kernel/tracing/events/memcg_bgreclaim/enable
run_in A/C dd if=$F of=/dev/null bs=1M skip=88 count=100 2>/dev/null
sleep 2
echo 0 >/sys/kernel/tracing/events/memcg_bgreclaim/enable
grep -oE '(wakeup|reclaim): .*' /sys/kernel/tracing/trace | tail -n 8 | sed 's/^/# /'
diag "A $(mib A)M: B $(mib A/B)M (low events $lb -> $(events A/B low)), M $(mib A/M)M, C $(mib A/C)M; A reclaimed_pages $(gstat A reclaimed_pages) unreclaimable $(gstat A unreclaimable)"
check "A was reclaimed in the background" test "$(gstat A reclaimed_pages)" -gt 0
check "C, unprotected, gave it up ($(mib A/C)M left)" test "$(mib A/C)" -le 40
check "B kept its memory.low-protected cache (${b0}M -> $(mib A/B)M)" test "$(mib A/B)" -ge $((b0 - 1))
check "M kept its memory.min-protected cache (${m0}M -> $(mib A/M)M)" test "$(mib A/M)" -ge $((m0 - 1))
expect_eq "B's memory.events low did not move" "$(events A/B low)" "$lb"
expect_eq "M's memory.events low did not move" "$(events A/M low)" "$lm"
rmgroup A/B A/M A/C A
check "module unloads" mbr_unload
