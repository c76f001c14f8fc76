# SPDX-License-Identifier: GPL-2.0
#
# neuronprof: one entry point for building and testing.
#
#   make [all]      modules, library and tools
#   make modules    neuronprof.ko, neuronprof_sim.ko, neuronprof_neuron.ko and the
#                   test module neuronprof_fake_neuron.ko for KVER (out of tree)
#   make lib        libneuronprof (lib/)
#   make tools      the neuronprof command-line tool (tools/)
#   make deps       install the Debian packages everything needs
#   make kunit      KUnit suites in a UML kernel (scripts/kunit.sh)
#   make vm-test    kselftests in a QEMU VM on the Debian kernel
#                   (scripts/vm-selftests.sh)
#   make check      every test layer; last line "N passed, N failed"
#   make demo       the stack end to end on the simulator in a VM: record
#                   SESSION and MODEL captures with the system profile,
#                   summarize, export to Perfetto/JSON/SQLite and an HTML
#                   report (report.html) in ./demo-output
#                   (scripts/demo.sh; DEMO_SHORT=1 for a short run)
#   make bench      every benchmark (bench/, the tool's export benchmark),
#                   each ending with its ratio to a baseline, then one
#                   table of every goal, met or not, and the CPU it ran on
#   make install    modules into $(DESTDIR)/lib/modules/$(KVER)/extra (+ depmod),
#                   library, headers, pkg-config file, tool, man pages and
#                   the hook command neuronprof-neuron-hook with its patch
#                   series (the vendor fixes and the hook), the Python package neuronprof and its command
#                   neuronprof-analyze (python/, PYTHONDIR) under
#                   $(DESTDIR)$(PREFIX) (default /usr/local); on a
#                   Neuron instance: make install KVER=$(uname -r)
#                   (Documentation/install.rst)
#   make uninstall  remove what install recorded in its manifest
#                   ($(DESTDIR)$(PREFIX)/share/neuronprof/install_manifest.txt)
#   make install-check  install and uninstall in a temporary root, DKMS build
#   make dkms-install / dkms-remove   register the modules with DKMS for KVER
#   make deb        Debian packages (debhelper, dh_dkms) in build/packages/deb
#   make rpm        RPM packages (rpm/neuronprof.spec) in build/packages/rpm
#   make package-check  build both and check them (tests/packages/run.sh)
#   make clean
#
# KVER defaults to the newest installed Debian 6.1 amd64 headers, never to
# the running kernel: modules are built for the distribution kernel that the
# VM boots (and that real Neuron hosts run).
#
# This file is only read by make invoked on the command line; kbuild reads
# the Kbuild file next to it.

KVER ?= $(shell bash $(CURDIR)/scripts/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build

# Symbols the kernel's .config lacks for an out-of-tree build.
KBUILD_OPTS := CONFIG_DRM_NEURONPROF=m CONFIG_DRM_NEURONPROF_SIM=m \
	       CONFIG_DRM_NEURONPROF_NEURON=m CONFIG_DRM_NEURONPROF_FAKE_NEURON=m CONFIG_DRM_NEURONPROF_TRN_EMU=m W=1

.PHONY: all modules lib tools deps kunit vm-test check clean

all: modules lib tools

deps:
	bash scripts/deps.sh

modules: deps
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "modules: kernel build tree '$(KDIR)' not found (KVER='$(KVER)'; install linux-headers-amd64 or set KDIR)" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_OPTS) modules

lib: deps
	@if [ -f lib/Makefile ]; then $(MAKE) -C lib; else echo "lib: not present"; fi

tools: deps lib
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools; else echo "tools: not present"; fi

kunit: deps
	bash scripts/kunit.sh

vm-test: deps
	bash scripts/vm-selftests.sh

check: deps
	bash scripts/check.sh

.PHONY: demo bench

demo:
	MAKE="$(MAKE)" bash scripts/demo.sh

bench: deps lib
	$(MAKE) -C bench run

PREFIX ?= /usr/local

.PHONY: install uninstall install-check dkms-install dkms-remove deb rpm package-check

install: modules lib tools
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" KVER="$(KVER)" MAKE="$(MAKE)" \
		PYTHONDIR="$(PYTHONDIR)" bash scripts/install.sh install

uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" bash scripts/install.sh uninstall

install-check: deps
	MAKE="$(MAKE)" bash tests/install/run.sh

dkms-install:
	KVER="$(KVER)" bash scripts/dkms.sh install

dkms-remove:
	bash scripts/dkms.sh remove

deb: deps
	bash scripts/package.sh deb

rpm: deps
	bash scripts/package.sh rpm

package-check: deps
	MAKE="$(MAKE)" bash tests/packages/run.sh

clean:
	@if [ -n "$(KVER)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_OPTS) clean; \
	fi
	@for d in lib tools compat python selftests; do \
		if [ -f $$d/Makefile ]; then $(MAKE) -C $$d clean || exit 1; fi; \
	done
	rm -rf build/packages
