# cgroup v1. With the memory controller on a v1 hierarchy (mbr.cgroup=v1,
# 6.1): groups by v1 path and by id, their path file, live limits,
# remove, rmdir. Everywhere: a path where the memory controller is not
# is refused with one errno and one kernel log line naming the path and
# the reason; Debian's 6.12 has no v1 memory controller at all.
case $(uname -r) in
6.1.*) memcg_v1=1 ;;
*) memcg_v1=0 ;;	# Debian's 6.12: CONFIG_MEMCG_V1 is not set
esac

# The module logs at most 10 refusals in 5 s: start a new window, and
# wait for the next one every 10 refusals.
nref=0
sleep 5

# refused DESC FILE ARG ERRNO WHY: writing ARG to FILE (add, remove) fails
# with ERRNO, and the kernel logs one line, "memcg_bgreclaim: FILE ARG: ",
# that contains WHY.
refused() {
	local n got lines
	if [ $nref -ge 10 ]; then
		sleep 5
		nref=0
	fi
	nref=$((nref + 1))
	n=$(dmesg | wc -l)
	got=$(wr "$MBR_SYSFS/$2" "$3")
	expect_eq "$1: $2 is $4" "$got" "$4"
	lines=$(dmesg | tail -n +$((n + 1)) | grep 'memcg_bgreclaim: ')
	expect_eq "$1: $2 logs one line" "$(echo "$lines" | grep -c .)" 1
	case $lines in
	*"memcg_bgreclaim: $2 $3: "*"$5"*) pass "$1: $2 says why ($lines)" ;;
	*) fail "$1: $2 says why (got '$lines', want '$2 $3: ...$5...')" ;;
	esac
}

# v1mount DIR OPTIONS: mount a cgroup v1 hierarchy at DIR.
v1mount() {
	mkdir -p "$1" && mount -t cgroup -o "$2" none "$1"
}

check "module loads" mbr_load

if [ "$memcg_v1" = 0 ]; then
	# The kernel refuses the v1 memory controller itself.
	mkdir -p /tmp/v1mem
	n=$(dmesg | wc -l)
	check "mount -t cgroup -o memory fails" sh -c '! mount -t cgroup -o memory memory /tmp/v1mem 2>/dev/null'
	check "... as an unknown controller" sh -c "dmesg | tail -n +$((n + 1)) | grep -q \"Unknown subsys name 'memory'\""
	grep -q " /tmp/v1mem " /proc/mounts && umount /tmp/v1mem
	rmdir /tmp/v1mem
fi

if [ "$MBR_CGROUP" = v1 ]; then
	other="a cgroup v1 hierarchy without the memory controller, which is on another one"
	einval=EINVAL
elif [ "$memcg_v1" = 1 ]; then
	other="a cgroup v1 hierarchy without the memory controller, which is on cgroup2"
	einval=EINVAL
else
	other="this kernel has no cgroup v1 memory controller"
	einval=EOPNOTSUPP
fi

# A named v1 hierarchy with no controller, and one with the cpu
# controller (it is not enabled on cgroup2 here, so it can move).
if v1mount /tmp/v1name none,name=mbrtest; then
	mkdir /tmp/v1name/G
	refused "named v1 hierarchy" add /tmp/v1name/G "$einval" "$other"
	refused "named v1 hierarchy" remove /tmp/v1name/G "$einval" "$other"
	refused "named v1 hierarchy's root" add /tmp/v1name "$einval" "$other"
	rmdir /tmp/v1name/G
	umount /tmp/v1name
else
	fail "mount a named cgroup v1 hierarchy"
fi
rmdir /tmp/v1name
# v1_count CTRL: the cgroups of CTRL's v1 hierarchy (/proc/cgroups),
# removed ones included until they are freed.
v1_count() { awk -v c="$1" '$1 == c { print $3 }' /proc/cgroups; }
if v1mount /tmp/v1cpu cpu; then
	mkdir /tmp/v1cpu/G
	refused "v1 cpu hierarchy" add /tmp/v1cpu/G "$einval" "$other"
	rmdir /tmp/v1cpu/G
	# A v1 hierarchy unmounted while a removed child is not yet freed
	# stays alive, unseen, for the rest of the boot, and keeps the cpu
	# controller from cgroup2 (later cases need it there).
	i=0
	while [ "$MBR_CGROUP" != v1 ] && [ "$(v1_count cpu)" != 1 ] && [ $i -lt 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
	umount /tmp/v1cpu
	if [ "$MBR_CGROUP" != v1 ]; then
		i=0
		while [ "$(awk '$1 == "cpu" { print $2 }' /proc/cgroups)" != 0 ] && [ $i -lt 100 ]; do
			usleep 100000
			i=$((i + 1))
		done
		expect_eq "the cpu controller is back on cgroup2 after the unmount" \
			"$(awk '$1 == "cpu" { print $2 }' /proc/cgroups)" 0
	fi
else
	fail "mount the cpu controller on a cgroup v1 hierarchy"
fi
rmdir /tmp/v1cpu

refused "not a cgroup" add /tmp ENOENT "not a cgroup directory"
refused "not a cgroup" remove /proc ENOENT "not a cgroup directory"

if [ "$MBR_CGROUP" != v1 ]; then
	check "module unloads" mbr_unload
	return 0
fi

# The memory controller on cgroup v1.
check "memory controller on cgroup v1 at $CG" test -e "$CG/memory.limit_in_bytes"
mkgroup V 64M
mkgroup V/N 32M
expect_eq "add by v1 path" "$(wr $MBR_SYSFS/add "$CG/V")" OK
expect_eq "add twice is EEXIST" "$(wr $MBR_SYSFS/add "$CG/V")" EEXIST
check "its directory is named by the v1 cgroup's inode" test -d "$MBR_SYSFS/cgroups/$(cgid V)"
expect_eq "path of V (below the v1 root)" "$(cat "$(grp_dir V)/path")" /V
expect_eq "distances" "$(wr "$(grp_dir V)/high_wmark_distance" 8m) $(wr "$(grp_dir V)/low_wmark_distance" 4m)" "OK OK"
expect_eq "low mark under memory.limit_in_bytes" "$(wmark V low)" $(((64 - 4) << 20))
cgset V max 48M
expect_eq "a memory.limit_in_bytes change moves the low mark" "$(wmark V low)" $(((48 - 4) << 20))
expect_eq "... and the high mark" "$(wmark V high)" $(((48 - 8) << 20))
cgset V max max
expect_eq "unlimited (-1): marks at the limit" "$(wmark V low)" "$(wmark V high)"
expect_eq "add by id" "$(wr $MBR_SYSFS/add "$(cgid V/N)")" OK
expect_eq "path of V/N" "$(cat "$(grp_dir V/N)/path")" /V/N
expect_eq "groups counted in stat" "$(mbr_stat groups)" 2
expect_eq "unknown id is ENOENT" "$(wr $MBR_SYSFS/add 987654321)" ENOENT

mkdir -p "$CG2/W"
why="in cgroup2, but the memory controller is on a cgroup v1 hierarchy"
refused "cgroup2 path" add "$CG2/W" EINVAL "$why"
refused "cgroup2 path" remove "$CG2/W" EINVAL "$why"
refused "path relative to the cgroup2 root" add /W EINVAL "$why"
rmdir "$CG2/W"
refused "v1 memory root" add "$CG" EINVAL "the root cgroup"

id=$(cgid V)
expect_eq "remove by v1 path" "$(wr $MBR_SYSFS/remove "$CG/V")" OK
check "V's directory is gone" test ! -e "$MBR_SYSFS/cgroups/$id"
expect_eq "remove again is ENOENT" "$(wr $MBR_SYSFS/remove "$CG/V")" ENOENT
expect_eq "add V again" "$(wr $MBR_SYSFS/add "$CG/V")" OK
expect_eq "remove by id" "$(wr $MBR_SYSFS/remove "$id")" OK

# rmdir of a configured v1 group removes its entry by itself.
id=$(cgid V/N)
check "rmdir of a configured v1 group succeeds" rmdir "$CG/V/N"
sleep 1
check "its directory disappeared by itself" test ! -e "$MBR_SYSFS/cgroups/$id"
expect_eq "no group left" "$(mbr_stat groups)" 0
rmdir "$CG/V"
check "module unloads" mbr_unload
