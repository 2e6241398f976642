# Hot-data tracking and tiering for btrfs: build, boot, test, demo.
#
#   make demo     build everything, boot a guest, show the story
#   make check    quick host checks, no kernel build: heatctl, shellcheck,
#                 the test runner itself, the ioctl ABI (about a minute)
#   make test     every test: host checks, KUnit, in-guest suites
#   make bench    benchmarks (QUICK=1 for a smoke run)
#   make soak     long fault and stress runs (tests/soak) on a KASAN kernel
#   make kernel   kernel tree in build/linux and both guest kernels
#   make export   write build/linux's commits back to patches/ and migrate/
#   make guest SCRIPT=path [KERNEL=lean|debug] [TIMEOUT=s]
#   make deps     install the Debian packages the above need
#
# Everything that is built lives in build/ (git-ignored).

SHELL := /bin/bash
KERNEL ?= lean
TIMEOUT ?= 900
TOP := $(CURDIR)

DEPS := linux-source-6.1 gcc make bc bison flex libelf-dev libssl-dev ccache \
	cpio kmod python3 git qemu-system-x86 qemu-utils btrfs-progs busybox-static \
	nvme-cli fio xfsprogs e2fsprogs dmsetup thin-provisioning-tools gnuplot-nox \
	cppcheck shellcheck python3-ply python3-git jq attr bcache-tools
# What make check needs: no QEMU, no kernel build.
CHECK_DEPS := linux-source-6.1 gcc make git python3 cppcheck shellcheck busybox-static

.PHONY: all deps kernel kernel-tree kernel-lean kernel-debug initramfs guest compat \
	check test soak kernel-kasan demo bench export heatctl clean distclean

all: kernel initramfs

deps:
	@missing=$$(for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install packages" >&2; exit 1; fi; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null || exit 1; \
	fi; \
	echo "  dependencies installed"

kernel-tree:
	@qemu-topology/kernel.sh tree

kernel-lean: kernel-tree
	@qemu-topology/kernel.sh build lean

kernel-debug: kernel-tree
	@qemu-topology/kernel.sh build debug

kernel-kasan: kernel-tree
	@qemu-topology/kernel.sh build kasan

kernel: kernel-lean kernel-debug

heatctl:
	@if [ -f userspace/Makefile ]; then $(MAKE) -s -C userspace WERROR=1; fi

initramfs: heatctl
	@qemu-topology/mkinitramfs.sh

export:
	@qemu-topology/kernel.sh export

guest: kernel-$(KERNEL) initramfs
	@[ -n "$(SCRIPT)" ] || { echo "usage: make guest SCRIPT=path [KERNEL=lean|debug] [TIMEOUT=s]" >&2; exit 2; }
	@qemu-topology/run-guest.sh -k $(KERNEL) -t $(TIMEOUT) $(SCRIPT)

check:
	@$(MAKE) -s deps DEPS="$(CHECK_DEPS)"
	@python3 tests/run --quick $(TESTS)

# Every test runs on the debug kernel; the lean one is for demo and bench.
test: deps
	@$(MAKE) -s kernel-debug initramfs
	@python3 tests/run $(TESTS)

soak: deps
	@$(MAKE) -s kernel-kasan initramfs
	@GUEST_KERNEL=kasan SUITES=tests/soak GUEST_TIMEOUT=7200 python3 tests/run $(TESTS)

# What our series stores on disk, read by the unpatched 6.1 kernel (one
# of make test's host checks, alone).
compat: deps
	@$(MAKE) -s kernel-debug initramfs
	@python3 tests/run host/compat

demo: deps
	@$(MAKE) -s kernel-lean initramfs
	@qemu-topology/run-guest.sh -k lean -t 1800 -n demo demo/demo.sh demo/

bench: deps
	@$(MAKE) -s kernel-lean initramfs
	@QUICK=$(QUICK) benchmarks/run

clean:
	rm -rf build/out-* build/bzImage-* build/initramfs* build/logs build/disks
	@if [ -f userspace/Makefile ]; then $(MAKE) -s -C userspace clean; fi

distclean: clean
	rm -rf build
