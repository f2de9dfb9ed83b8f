# SPDX-License-Identifier: GPL-2.0
# memcg_bgreclaim: user targets. The objects are listed in Kbuild.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PWD := $(shell pwd)
MBR_VERSION := $(shell cat VERSION)

.PHONY: all modules clean install dkms-install check check-debug unit vm-check style demo bench

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) MBR_VERSION=$(MBR_VERSION) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null || true
	rm -rf build/unit

install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install
	depmod -a $(KVER)

# Install the sources for DKMS and build/install for KVER.
dkms-install:
	sh tests/dkms.sh install $(KVER)

# Host unit tests, then the VM suite on every test kernel.
check:
	sh tests/check.sh

# The kernel's own memcg selftests (test_memcontrol, test_kmem) of each
# generic kernel, with the module loaded and every cgroup configured.
.PHONY: check-selftests
check-selftests:
	MBR_SELFTEST_RUN=1 MBR_CASES=memcg_selftests sh tests/check.sh

# Every case on every flavour (generic, cloud, rt) of 6.1 and 6.12.
.PHONY: check-matrix
check-matrix:
	MBR_MATRIX=1 sh tests/check.sh

# The VM suite on a KASAN + lockdep + kmemleak build of linux-source-6.12.
check-debug:
	MBR_DEBUG=1 sh tests/check.sh

# The module on a CPU that enforces CET IBT (Bochs), with a negative control.
.PHONY: check-ibt
check-ibt:
	sh tests/ibt/check.sh

# The command line, statically linked (it runs in the test guests too).
.PHONY: tools
tools: build/memcg-bgreclaim

build/memcg-bgreclaim: tools/memcg-bgreclaim.c include/rule_spec.h include/wmark.h
	mkdir -p build
	$(CC) -static -O2 -Wall -Wextra -Werror -Iinclude -o $@ tools/memcg-bgreclaim.c

# The Debian package, memcg-bgreclaim-dkms (dh-dkms), in build/deb.
.PHONY: deb
deb:
	sh tests/deb.sh build

unit:
	sh tests/unit.sh

style:
	sh tests/style.sh

# The seed's experiments in a VM, without and with the module.
demo:
	sh tests/demo.sh

# Benchmarks against the stock kernel and the user-space alternatives.
# FLAVOURS="amd64 rt-amd64" benches those kernel flavours (default amd64);
# SERIES=6.12 only that kernel series; REPS=N and PROBE_S=S override the
# repetitions and the probe's seconds.
bench:
	QUICK=$(QUICK) SCEN=$(SCEN) CONTENDERS=$(CONTENDERS) FLAVOURS="$(FLAVOURS)" SERIES=$(SERIES) REPS=$(REPS) PROBE_S=$(PROBE_S) sh tests/bench.sh
