#!/bin/sh
# The command line's config parser on the host, built with
# AddressSanitizer and UBSan: apply parses the whole file before it
# needs the module, so each case ends either in a config error (exit 4,
# one FILE:LINE line, nothing applied) or, once parsed, in "module not
# loaded" (exit 3). Any sanitizer report fails the case.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/unit
mkdir -p "$out"
cli=$out/memcg-bgreclaim-asan
if ! gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Wextra -Werror -I"$top/include" \
	-o "$cli" "$top/tools/memcg-bgreclaim.c" 2>"$out/cli-asan.log"; then
	echo "not ok - unit: cli: builds with AddressSanitizer and UBSan"
	sed 's/^/#   /' "$out/cli-asan.log" | head -n 20
	exit 0
fi
echo "ok - unit: cli: builds with AddressSanitizer and UBSan"
# The module is not loaded here; make sure the CLI cannot find one.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
conf=$out/cli-test.conf

# case DESC RC PATTERN: apply $conf; exit code RC, stderr one line
# matching PATTERN (grep -E), no sanitizer report.
case_() {
	"$cli" apply "$conf" >"$out/cli.out" 2>"$out/cli.err"
	rc=$?
	if [ "$rc" = "$2" ] && [ "$(wc -l <"$out/cli.err")" = 1 ] &&
		grep -Eq "$3" "$out/cli.err"; then
		echo "ok - unit: cli: $1 (exit $rc: $(cat "$out/cli.err"))"
	else
		echo "not ok - unit: cli: $1 (exit $rc, want $2 and one line matching '$3')"
		sed 's/^/#   /' "$out/cli.err" | head -n 30
	fi
}
nl() { printf '%s\n' "$@" >"$conf"; }

cp "$top/etc/memcg-bgreclaim.conf" "$conf"
case_ "the shipped config parses" 3 'module is not loaded'
nl "enabled 1" "batch_pages 256" "check_pages 32"
case_ "each setting once" 3 'module is not loaded'
nl "enabled 1" "batch_pages 256" "enabled 0"
case_ "a setting given twice is refused with both lines" 4 "cli-test.conf:3: enabled given twice \(the first is at .*cli-test.conf:1\)"
i=0
: >"$conf"
while [ $i -lt 12 ]; do echo "check_pages $((i + 1))" >>"$conf"; i=$((i + 1)); done
case_ "twelve setting lines: refused at the second, no overflow" 4 "cli-test.conf:2: check_pages given twice"
nl "rule /a.slice ratio=90" "rule /b.slice ratio=80" "rule /a.slice ratio=70"
case_ "a rule's path given twice is refused with both lines" 4 "cli-test.conf:3: a second rule for /a.slice \(the first is at .*cli-test.conf:1\)"
: >"$conf"
i=0
while [ $i -lt 33 ]; do echo "rule /s$i.slice ratio=90" >>"$conf"; i=$((i + 1)); done
case_ "33 rules: refused at the 33rd" 4 "cli-test.conf:33: more than 32 rules"
: >"$conf"
i=0
while [ $i -lt 32 ]; do echo "rule /s$i.slice ratio=90 match=*.scope" >>"$conf"; i=$((i + 1)); done
case_ "32 rules parse" 3 'module is not loaded'
nl "enabled 2"
case_ "a bad value" 4 "cli-test.conf:1: bad value '2' for enabled"
nl "cgroupfs_files 0" "cgroupfs_files_x 1"
case_ "cgroupfs_files 0 is a value (the next line is not a setting)" 4 "cli-test.conf:2: unknown setting 'cgroupfs_files_x'"
nl "cgroupfs_files 2"
case_ "cgroupfs_files is 0 or 1" 4 "cli-test.conf:1: bad value '2' for cgroupfs_files"
nl "wmark_boost 0" "batch_pages 256"
case_ "wmark_boost 0 parses" 3 'module is not loaded'
nl "wmark_boost 2"
case_ "wmark_boost is 0 or 1" 4 "cli-test.conf:1: bad value '2' for wmark_boost"
nl "frobnicate 1"
case_ "an unknown setting" 4 "cli-test.conf:1: unknown setting 'frobnicate'"
nl "rule"
case_ "a rule without a path" 4 "cli-test.conf:1: rule without a path"
nl "rule /x ratio=101"
case_ "a bad rule" 4 "cli-test.conf:1: "
"$cli" --help >"$out/cli.out" 2>"$out/cli.err"
if [ $? = 0 ] && grep -q '^usage:' "$out/cli.out" && [ ! -s "$out/cli.err" ]; then
	echo "ok - unit: cli: --help"
else
	echo "not ok - unit: cli: --help"
fi
