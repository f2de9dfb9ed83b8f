// SPDX-License-Identifier: GPL-2.0
/*
 * kcode: read the live kernel's code through /proc/kcore, so that a test
 * can check what the CPU will execute, independently of the module.
 *
 *   kcode bytes ADDR N        the N bytes at ADDR, as hex ("66 0f 1f 00")
 *   kcode branch BASE OFF     the instruction at BASE+OFF: "call DEST" or
 *                             "jmp DEST" for a direct rel32 call or jump
 *                             (e8/e9), else "other XX"
 *   kcode sym NAME            NAME's address from /proc/kallsyms
 *
 * Addresses are hex (0x optional); OFF may be hex or decimal. Exit 0 on
 * success, 1 if the address is not in kcore, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int kcore_read(uint64_t addr, void *buf, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open("/proc/kcore", O_RDONLY);
	int i, ret = -1;

	if (fd < 0) {
		perror("/proc/kcore");
		return -1;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * eh.e_phentsize) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) ==
		    (ssize_t)len)
			ret = 0;
		break;
	}
out:
	close(fd);
	return ret;
}

static uint64_t kallsyms(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	uint64_t addr, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	unsigned char b[64];
	uint64_t addr;
	int32_t rel;
	int i, n;

	if (argc == 3 && !strcmp(argv[1], "sym")) {
		addr = kallsyms(argv[2]);
		if (!addr)
			return 1;
		printf("0x%" PRIx64 "\n", addr);
		return 0;
	}
	if (argc != 4)
		goto usage;
	addr = strtoull(argv[2], NULL, 16);
	if (!strcmp(argv[1], "bytes")) {
		n = atoi(argv[3]);
		if (n <= 0 || n > (int)sizeof(b))
			goto usage;
		if (kcore_read(addr, b, n))
			return 1;
		for (i = 0; i < n; i++)
			printf("%s%02x", i ? " " : "", b[i]);
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "branch")) {
		addr += strtoull(argv[3], NULL, 0);
		if (kcore_read(addr, b, 5))
			return 1;
		if (b[0] != 0xe8 && b[0] != 0xe9) {
			printf("other %02x\n", b[0]);
			return 0;
		}
		memcpy(&rel, b + 1, 4);
		printf("%s 0x%" PRIx64 "\n", b[0] == 0xe8 ? "call" : "jmp",
		       addr + 5 + (int64_t)rel);
		return 0;
	}
usage:
	fprintf(stderr, "usage: kcode bytes ADDR N | branch BASE OFF | sym NAME\n");
	return 2;
}
