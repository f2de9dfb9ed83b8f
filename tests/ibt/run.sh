#!/bin/sh
# Boot a stock Debian kernel in Bochs on a CPU that enforces CET IBT
# (model tigerlake) and, in that one boot, load and exercise the module
# under test, unload it, and finally run the negative control (an
# indirect call to a sealed function, which must die with "Missing
# ENDBR"). Prints TAP lines on stdout ("ok - ibt: ..." / "not ok - ibt:
# ...", diagnostics as "# ..."); exit status 1 if any failed.
#
# usage: run.sh KREL MODULE_KO
# env:   IBT_OUT (build/ibt-KREL), IBT_TIMEOUT (seconds for the boot, 480),
#        IBT_IPS (Bochs instructions per emulated second, 80000000),
#        MBR_KROOT (the root the kernel is installed in: its release's
#        chroot, where the negative control is built too; / by default)
# The guest console is $IBT_OUT/console.log, the guest's own TAP lines
# $IBT_OUT/results.log, Bochs' log $IBT_OUT/bochs.log.
set -u
krel=$1 ko=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${IBT_OUT:-$top/build/ibt-$krel}
kroot=${MBR_KROOT:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
console=$out/console.log
results=$out/results.log
start=$(date +%s)
failed=0

pass() { echo "ok - ibt: $*"; }
fail() { echo "not ok - ibt: $*"; failed=1; }

# --- what the test needs on the host ----------------------------------
bios=/usr/share/bochs/BIOS-bochs-latest
vgabios=/usr/share/bochs/VGABIOS-lgpl-latest
[ -e "$vgabios" ] || vgabios=/usr/share/vgabios/vgabios.bin
isolinux=/usr/lib/ISOLINUX/isolinux.bin
ldlinux=/usr/lib/syslinux/modules/bios/ldlinux.c32
kernel=$kroot/boot/vmlinuz-$krel
[ -e "$kernel" ] || kernel=$kroot/usr/lib/modules/$krel/vmlinuz
kdir=$kroot/lib/modules/$krel/build
missing=
for t in bochs xorriso cpio gzip xz make timeout; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
for f in "$bios" "$vgabios" "$isolinux" "$ldlinux" /bin/busybox "$kernel" \
	"$kdir/Makefile" "$kroot/lib/modules/$krel/modules.dep" "$ko"; do
	[ -e "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	fail "emulator, ISO tools, kernel and module present (missing:$missing; apt-get install bochs bochsbios vgabios isolinux syslinux-common xorriso busybox-static linux-image-$krel-unsigned linux-headers-$krel)"
	exit 1
fi

# --- the negative control, built against the test kernel ---------------
# Built in a copy (the source tree stays clean), again only when its
# source or the kernel's build tree changed.
negdir=$out/negctl-$krel
neg=$negdir/ibt_negctl.ko
mkdir -p "$negdir"
if [ ! -s "$neg" ] || [ "$neg" -ot "$here/negctl/ibt_negctl.c" ] ||
	[ "$neg" -ot "$here/negctl/Kbuild" ] || [ "$neg" -ot "$kdir/Makefile" ]; then
	rm -f "$neg"
	cp "$here/negctl/ibt_negctl.c" "$here/negctl/Kbuild" "$negdir/"
	if [ -n "$kroot" ]; then
		# Another release's kernel: built in its chroot, with its gcc.
		inner=/tmp/ibt-negctl-$krel
		rm -rf "$kroot$inner"
		cp -r "$negdir" "$kroot$inner"
		sh "$top/tests/chroot.sh" run "$(basename "$kroot")" \
			make -C "/lib/modules/$krel/build" M="$inner" modules >"$negdir/build.log" 2>&1
		cp "$kroot$inner/ibt_negctl.ko" "$neg" 2>/dev/null
		rm -rf "$kroot$inner"
	else
		make -C "$kdir" M="$negdir" modules >"$negdir/build.log" 2>&1
	fi
fi
if [ ! -s "$neg" ]; then
	fail "negative control module builds (see $negdir/build.log)"
	tail -n 20 "$negdir/build.log" | sed 's/^/#   /'
	exit 1
fi

# --- the boot CD: isolinux, the kernel, the initramfs -------------------
# The pieces that do not depend on the module are refreshed only when
# their source changes; the initramfs and the ISO image are per run.
iso=$out/iso
mkdir -p "$iso/isolinux"
for f in "$isolinux" "$ldlinux"; do
	# -boot-info-table patches isolinux.bin in the tree: copy it afresh.
	cp "$f" "$iso/isolinux/"
done
[ "$iso/vmlinuz" -nt "$kernel" ] || cp "$kernel" "$iso/vmlinuz"
cat >"$iso/isolinux/isolinux.cfg" <<CFG
DEFAULT ibt
PROMPT 0
TIMEOUT 0
LABEL ibt
  KERNEL /vmlinuz
  APPEND initrd=/initrd.gz console=ttyS0,115200 tsc=reliable loglevel=7 panic=-1
CFG
if ! sh "$here/mkinitramfs.sh" "$krel" "$ko" "$neg" "$out" "$iso/initrd.gz" ||
	! xorriso -as mkisofs -quiet -o "$out/ibt.iso" -R -J \
		-b isolinux/isolinux.bin -c isolinux/boot.cat -no-emul-boot \
		-boot-load-size 4 -boot-info-table "$iso" 2>"$out/xorriso.log"; then
	fail "boot CD builds (see $out/xorriso.log)"
	exit 1
fi

# --- one boot ------------------------------------------------------------
# Debian's Bochs has no "nogui" display; rfb with timeout=0 does not wait
# for a VNC client. Its debugger is built in: -rc feeds it "c"
# (continue), and a closed stdin ends it if it ever stops again. Its
# ALSA sound mixer thread aborts (a fortify buffer overflow) on a host
# without a sound card: the dummy driver avoids it.
cat >"$out/bochsrc" <<RC
megs: 512
cpu: model=tigerlake, count=1, ips=${IBT_IPS:-80000000}, reset_on_triple_fault=0
clock: sync=none, time0=local
romimage: file=$bios
vgaromimage: file=$vgabios
display_library: rfb, options="timeout=0"
sound: driver=dummy
pci: enabled=1, chipset=i440fx
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path="$out/ibt.iso", status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev="$console"
com2: enabled=1, mode=file, dev="$results"
log: $out/bochs.log
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
RC
echo c >"$out/bochs.cmds"
rm -f "$console" "$results"
: >"$console"
: >"$results"
timeout -k 10 "${IBT_TIMEOUT:-480}" bochs -q -f "$out/bochsrc" -rc "$out/bochs.cmds" \
	</dev/null >"$out/bochs.out" 2>&1 &
bochs=$!
# Stop Bochs once the guest is done (in case it does not end on the
# poweroff), or as soon as the kernel panics (panic=-1 would reboot it
# into a loop).
stopped=
while kill -0 $bochs 2>/dev/null; do
	if grep -q '^IBT-END' "$results" 2>/dev/null; then
		stopped="the guest finished"
	elif grep -q 'Kernel panic' "$console" 2>/dev/null; then
		stopped="the kernel panicked"
	fi
	if [ -n "$stopped" ]; then
		sleep 5	# the poweroff, or the rest of the panic report
		kill $bochs 2>/dev/null && echo "# ibt: Bochs stopped: $stopped"
		break
	fi
	sleep 2
done
wait $bochs
rc=$?
echo "# ibt: Bochs ended (rc=$rc) after $(($(date +%s) - start)) s"
[ "$rc" != 124 ] || echo "# ibt: Bochs timed out (IBT_TIMEOUT=${IBT_TIMEOUT:-480})"

# --- the verdict -----------------------------------------------------------
log=$out/kernel.log
tr -d '\r' <"$console" >"$log"

if grep -q 'CET detected: Indirect Branch Tracking enabled' "$log" &&
	! grep -q 'IBT selftest: Failed' "$log"; then
	pass "kernel enforces IBT (\"CET detected: Indirect Branch Tracking enabled\", Spectre v2 $(grep -m1 'Spectre V2 : Mitigation' "$log" | sed 's/.*Spectre V2 : //'))"
else
	fail "kernel enforces IBT (no \"CET detected: Indirect Branch Tracking enabled\" in the kernel log)"
fi

# The guest's own test points (module load, reclaim counters, rmmod),
# each one reported even if the guest never got to it.
guest=$(tr -d '\r' <"$results")
echo "$guest" | grep -v -e '^IBT-BEGIN' -e '^IBT-END'
echo "$guest" | grep -q '^not ok' && failed=1
for t in "memcg_bgreclaim loads" "group configured" \
	"workers reclaimed from the group" "rmmod memcg_bgreclaim"; do
	echo "$guest" | grep -q "^\(not \)\?ok - ibt: $t" ||
		fail "$t (the guest never reported it)"
done

# Split the log at the guest's phase marks: boot, module, negctl.
if grep -q 'IBT-PHASE negctl' "$log"; then
	before=$(sed '/IBT-PHASE negctl/q' "$log")
	after=$(sed -n '/IBT-PHASE negctl/,$p' "$log")
else
	before=$(cat "$log")
	after=
fi
module=$(echo "$before" | sed -n '/IBT-PHASE module/,$p')

# no_match TEXT REGEX LINES DESC: a pass if no line of TEXT matches REGEX
# and the guest reached the module phase (else nothing was tested); a
# fail shows the first LINES matches. Sets hits.
no_match() {
	hits=$(echo "$1" | grep -E "$2")
	if [ -z "$hits" ] && [ -n "$module" ]; then
		pass "$4"
	else
		fail "$4$([ -n "$hits" ] || echo ' (the guest never reached the module phase)')"
		echo "$hits" | head -n "$3" | sed 's/^/#   /'
	fi
}

# No #CP anywhere before the negative control, boot included.
cp='Missing ENDBR|control protection|#CP'
no_match "$before" "$cp" 20 \
	"no #CP (Missing ENDBR, control protection) from boot to the negative control"

# No splat while the module was loaded, exercised and unloaded. The boot
# is not held to this: on Bochs' tigerlake model the stock kernel warns
# about the emulated CPUID (topology_common.c, fpu/xstate.c), which is
# no concern of the module's.
bad='BUG:|kernel BUG|WARNING:|Oops|Call Trace|soft lockup|hard LOCKUP|hung task|blocked for more than|self-detected stall|RCU stall|rcu: INFO|general protection fault|Kernel panic|list_add corruption|list_del corruption|refcount_t:|UBSAN'
no_match "$module" "$bad" 40 \
	"no splat (BUG, WARNING, Oops, Call Trace...) from the module's load to its unload"
echo "$before" | sed '/IBT-PHASE module/q' | grep -o 'WARNING: .* at [^ ]*' |
	sed 's/^/# ibt: during the boot, not judged: /'

# The negative control must have died of the missing ENDBR.
if echo "$after" | grep -q 'Missing ENDBR: kallsyms_lookup_name' &&
	echo "$after" | grep -q 'kernel BUG at arch/x86/kernel/cet.c'; then
	pass "negative control: an indirect call to sealed kallsyms_lookup_name dies with \"Missing ENDBR\" (#CP)"
else
	fail "negative control: an indirect call to sealed kallsyms_lookup_name dies with \"Missing ENDBR\" (#CP)"
	echo "$after" | grep -E 'ibt_negctl|ENDBR|BUG' | head -n 10 | sed 's/^/#   /'
fi

if grep -q '^IBT-END' "$results"; then
	pass "guest ran to the end (the kernel survived the negative control's oops)"
else
	fail "guest ran to the end (Bochs rc=$rc; see $console)"
fi

echo "# ibt: wall time $(($(date +%s) - start)) s"
if [ "$failed" != 0 ]; then
	# The negative control's oops is expected: show what came before it.
	echo "# ibt: console tail before the negative control ($console):"
	echo "$before" | tail -n 40 | sed 's/^/#   /'
	exit 1
fi
