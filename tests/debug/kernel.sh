#!/bin/sh
# Build (once, cached) the debug kernel of make check-debug from Debian's
# linux-source-6.12: x86_64_defconfig + kvm_guest.config, the stock
# Debian 6.12 config's memcg/ftrace/kprobes options, and debug.config
# (KASAN, lockdep, atomic-sleep checks, debugobjects, kmemleak). Prints
# the build directory (a tree that external modules build against).
#
# usage: kernel.sh STOCK_KREL (the Debian 6.12 release whose config is copied)
set -eu
stock=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
base=$top/build/debug-kernel
src=$base/linux-source-6.12
tarball=/usr/src/linux-source-6.12.tar.xz
log=$base/build.log
mkdir -p "$base"

# The kernel's build dependencies, installed only when missing.
sh "$top/tests/setup.sh" linux-source-6.12 flex bison bc libelf-dev libssl-dev cpio >&2
[ -f "/boot/config-$stock" ] || { echo "kernel.sh: no /boot/config-$stock" >&2; exit 1; }

# The cache key: the sources, the stock config and the recipe.
key=$( (stat -c '%s %Y' "$tarball"; cat "/boot/config-$stock" "$here/debug.config" "$0") |
	sha256sum | cut -c1-16)
if [ -f "$base/key" ] && [ "$(cat "$base/key")" = "$key" ] &&
	[ -f "$src/arch/x86/boot/bzImage" ] && [ -f "$src/Module.symvers" ]; then
	echo "$src"
	exit 0
fi

rm -f "$base/key"
# A changed recipe reconfigures and rebuilds the same tree incrementally.
if [ ! -f "$src/Makefile" ]; then
	echo "kernel.sh: unpacking $tarball" >&2
	tar -C "$base" -xf "$tarball"
fi

# The stock options the module and the tests depend on, built in.
grep -E '^CONFIG_(MEMCG|CGROUP|CGROUPS|FTRACE|DYNAMIC_FTRACE|FUNCTION_|KPROBE|KRETPROBE|TRACING|TRACEPOINTS|EVENT_TRACING|FPROBE|LRU_GEN|SWAP|ZSWAP|ZSMALLOC|TRANSPARENT_HUGEPAGE|KALLSYMS|X86_KERNEL_IBT|PSI|SMP|NR_CPUS|HOTPLUG_CPU|NUMA|PREEMPT|HZ|FAIR_GROUP_SCHED|CFS_BANDWIDTH)[A-Z0-9_]*=y' \
	"/boot/config-$stock" >"$base/stock.config"
# And the stock tracers (hist triggers, synthetic events...), but those of
# the subsystems this build leaves out.
sed -n '/^CONFIG_FTRACE=y/,/^# end of Tracers/p' "/boot/config-$stock" |
	grep '=y' | grep -v -e MMIOTRACE -e BPF >>"$base/stock.config"

echo "kernel.sh: configuring (log: $log)" >&2
(cd "$src" &&
	make x86_64_defconfig &&
	scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config \
		"$base/stock.config" "$here/debug.config" &&
	make olddefconfig) >"$log" 2>&1

# Refuse a config that lost an option the run depends on.
for o in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_OBJECTS DEBUG_KMEMLEAK \
	MEMCG DYNAMIC_FTRACE FUNCTION_TRACER KPROBES KRETPROBES KALLSYMS \
	ZRAM BLK_DEV_LOOP EXT4_FS VIRTIO_BLK VIRTIO_PCI TRACEPOINTS SWAP \
	HOTPLUG_CPU MODULE_UNLOAD SERIAL_8250_CONSOLE CGROUPS HIST_TRIGGERS; do
	grep -qx "CONFIG_$o=y" "$src/.config" ||
		{ echo "kernel.sh: CONFIG_$o is not =y in the debug config" >&2; exit 1; }
done

echo "kernel.sh: building (log: $log)" >&2
(cd "$src" && make -j"$(($(nproc) + 1))" all) >>"$log" 2>&1 ||
	{ tail -n 40 "$log" >&2; exit 1; }
echo "$key" >"$base/key"
echo "$src"
