#!/bin/sh
# Kernel coding style: checkpatch.pl from Debian's linux-source tarball
# over every C source and header; a file with any ERROR fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cp_dir=$top/build/checkpatch
tarball=$(ls /usr/src/linux-source-6.12.tar.xz /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1)
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	if [ -z "$tarball" ]; then
		echo "not ok - style: linux-source tarball with checkpatch.pl installed"
		exit 0
	fi
	rm -rf "$cp_dir"
	mkdir -p "$cp_dir"
	tar -xf "$tarball" -C "$cp_dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cd "$top" || exit 1
for f in $(ls module/*.c sysfs/*.c include/*.h tests/helpers/*.c tests/unit/*.c tools/*.c); do
	out=$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --quiet --show-types -f "$f" 2>&1)
	errors=$(echo "$out" | grep -c '^ERROR:')
	if [ "$errors" = 0 ]; then
		echo "ok - style: $f has no checkpatch errors"
	else
		echo "not ok - style: $f has $errors checkpatch errors"
		echo "$out" | grep -A3 '^ERROR:' | head -n 20 | sed 's/^/#   /'
	fi
done
# One-way data flow between the module's files, version facts in
# compat.h only, files of at most 500 lines.
python3 "$top/tests/layout.py" "$top"
