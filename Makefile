# SPDX-License-Identifier: GPL-2.0
# Build, boot and test the slab series on Linux 6.1 and 6.12 under QEMU.
# See README.md.  Every target does its own set-up; BASE=6.12|6.1 picks
# the base (harness/README.md, "Choosing the base").

H := harness

.PHONY: all check check-full build-matrix check-mutants plugin-test badinput layouts bench results datagram-trace shell tree \
	kernel fastpath series series-check distro clean distclean help

all:
	@$(H)/main.sh

check:
	@$(H)/check.sh

check-full:
	@FULL=1 $(H)/check.sh

build-matrix:
	@$(H)/build-matrix.sh

check-mutants:
	@$(H)/check-mutants.sh

plugin-test:
	@$(H)/plugin-test.sh

badinput:
	@$(H)/badinput.sh

layouts:
	@$(H)/layouts.sh

bench:
	@$(H)/bench.sh

results:
	@$(H)/results.sh

datagram-trace:
	@$(H)/datagram-trace.sh

shell:
	@$(H)/one-kernel.sh shell

tree:
	@$(H)/prepare.sh

kernel:
	@$(H)/one-kernel.sh kernel

fastpath:
	@$(H)/one-kernel.sh fastpath

series:
	@$(H)/series.py

series-check:
	@$(H)/series-check.sh

distro:
	@$(H)/distro.sh

clean:
	rm -rf build/out build/src build/initramfs build/modules build/guest build/kselftest \
		build/logs build/results.tsv build/series build/series@* build/series-git \
		build/series-git@* build/series-check build/series-check@* \
		build/bench build/bench@* build/badinput.md \
		build/badinput@*.md build/mutants \
		build/matrix-results.tsv build/plugin-test build/distro build/distro@*

distclean: clean
	rm -rf build

help:
	@echo "make            build the series, boot it, print the report"
	@echo "make check      build, boot and run every test variant"
	@echo "make check-full also the long stress, KCSAN, the bad-input suite and the mutants"
	@echo "make build-matrix  compile mm/ of the series in every config of harness/matrix.conf (MATRIX='<names>')"
	@echo "make check-mutants  break the tree on purpose, one way at a time: make check must fail"
	@echo "make plugin-test  the cost model's plugin driven on the host, every count checked (seconds)"
	@echo "make badinput   misuses of the slab API, upstream SLUB against the series"
	@echo "make layouts    compare both struct page layouts: fastpath code, reserved at MEM (8G)"
	@echo "make bench      our allocator against upstream SLUB (and SLAB on 6.1): build/bench@6.12/report.md (QUICK=1: reduced)"
	@echo "make results    take the last make bench of BASE into docs/results/<base>/ and regenerate every"
	@echo "                published figure from the committed runs (IMPORT=0: regenerate only)"
	@echo "make datagram-trace  one UDP datagram of each bench kernel, instructions by function (KERNELS=, CASE=)"
	@echo "make shell      boot the series to an interactive shell"
	@echo "make kernel     build one profile (PROFILE=series-6.12|series|pristine-6.12|..., default the series of BASE)"
	@echo "make fastpath   disassemble and check the kmem_cache_alloc/free and kmalloc/kfree fastpaths"
	@echo "make tree       lay the series onto build/src/series-6.12 (BASE=6.1: build/src/series)"
	@echo "make series     write the patch series and its cover letter to build/series@6.12 (BASE=6.1: build/series)"
	@echo "make series-check  git am the series patch by patch, checkpatch and build each, boot"
	@echo "make distro     the series as Debian kernel packages (bindeb-pkg) with Debian's own config:"
	@echo "                build/distro@6.12/<flavour>/*.deb (FLAVOUR=amd64|cloud-amd64, LOCALVERSION=-slub-engine)"
	@echo "make clean      remove build outputs (keeps the unpacked base)"
	@echo "variables: BASE=6.12|6.1 (every target, 6.12 by default; make check without it covers both)"
	@echo "           KERNEL_SRC=<tree of BASE> VARIANTS='<names>' JOBS=<n>"
