# tsctui: build, test and benchmark.  `make deps` (and `make test-deps` for
# the tests) once on a fresh Debian 12, then `make`, `make check`, `make
# bench`.

# As efibootmgr and most packages do: CFLAGS, CPPFLAGS and LDFLAGS are the
# packager's (make CFLAGS=-O0, dpkg-buildflags), for the Linux program and
# the tests; the project's own flags are appended.  The UEFI objects take
# none of them: a hardening flag such as -fstack-protector-strong would
# break the EFI link.
CC         ?= cc
CFLAGS     ?= -O2 -g
CPPFLAGS   ?=
LDFLAGS    ?=
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      := build

.DELETE_ON_ERROR:

WARN    := -Wall -Wextra -Werror
CSTD    := -std=c11
# Header dependencies, written next to each object.
DEPFLAGS := -MMD -MP
# The Linux program and its copy of common/.
CFLAGS_LINUX := $(CFLAGS) $(CSTD) $(WARN) -pthread
# common/ as the UEFI stage compiles it (gnu-efi's ABI: no red zone, short
# wchar, no stack protector, position independent).  General registers only,
# here and in efi/: code that runs on an AP may rely on neither SSE being
# enabled there nor a 16-byte aligned stack (the PI spec promises neither),
# and without this GCC saves xmm6-15 with movaps in every MS-ABI function.
EFI_NO_SIMD := -mgeneral-regs-only
CFLAGS_EFI := $(CSTD) $(WARN) -O2 -ffreestanding -fshort-wchar -mno-red-zone \
	-fno-stack-protector -fpic -fno-strict-aliasing $(EFI_NO_SIMD)
# The tests, and a second tsctui for the CLI and action suites: sanitizers
# on (tests/run picks that binary for them).
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_TEST := $(CFLAGS) $(CSTD) $(WARN) -pthread $(SAN)

COMMON_SRC := $(wildcard common/*.c)
TUI_SRC    := $(shell find tui -name '*.c' | sort)
TUI_PKGS   := libsystemd efiboot efivar libkmod ncursesw
TUI_CFLAGS := -D_GNU_SOURCE -DNCURSES_WIDECHAR=1 \
	$(shell $(PKG_CONFIG) --cflags $(TUI_PKGS) 2>/dev/null)
TUI_LIBS   := -lm $(shell $(PKG_CONFIG) --libs $(TUI_PKGS) 2>/dev/null)

COMMON_LINUX_OBJ := $(COMMON_SRC:%.c=$(BUILD)/linux/%.o)
COMMON_EFI_OBJ   := $(COMMON_SRC:%.c=$(BUILD)/efi/%.o)
COMMON_TEST_OBJ  := $(COMMON_SRC:%.c=$(BUILD)/test/%.o)
TUI_OBJ          := $(TUI_SRC:%.c=$(BUILD)/linux/%.o)
TUI_TEST_OBJ     := $(TUI_SRC:%.c=$(BUILD)/test/%.o)
# Beside tui/tsctui, so it finds the stage images in the tree the same way.
SAN_TSCTUI       := tui/tsctui-san

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_BIN  := $(BUILD)/tests/fuzz_parsers
# The tests' own objects are made by pattern rules, so make took them for
# intermediates and deleted them after every link, so that each build
# compiled them all again.
.SECONDARY: $(UNIT_SRC:tests/unit/%.c=$(BUILD)/test/unit/%.o) \
	$(BUILD)/test/fuzz/fuzz_parsers.o

# PREFIX is compiled into tui/ (where install finds the stage, the GRUB
# drop-in): a stamp that changes with it makes those objects rebuild, so
# `make && make PREFIX=/usr install` installs a binary that looks in /usr.
# `sudo make deps` touches no build tree: the `make` after it, run as the
# user, owns build/.
PREFIX_STAMP := $(BUILD)/prefix.stamp
ifneq ($(filter-out deps test-deps,$(or $(MAKECMDGOALS),all)),)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(PREFIX_STAMP) 2>/dev/null)" = \
	"$(PREFIX)" ] || echo "$(PREFIX)" >$(PREFIX_STAMP); })
endif
TUI_PATHS := -DTSCTUI_LIBDIR='"$(PREFIX)/lib/tsctui"' \
	-DTSCTUI_DATADIR='"$(PREFIX)/share/tsctui"'


# `make deps`: what building and running tsctui needs (dpkg-dev: `make
# deb`).  `make test-deps`:
# everything the tests and benchmarks need on top, Debian's kernel for the
# guests, 6.1 and 6.12 (tests/e2e/fetch), and the tests' two QEMUs, the
# TSC rig's and Debian's with a TCG race closed (tests/rig/build).
DEBIAN_PACKAGES := build-essential pkg-config gnu-efi libsystemd-dev libefivar-dev \
	libefiboot-dev libkmod-dev libncurses-dev sbsigntool openssl \
	efibootmgr util-linux dpkg-dev
TEST_PACKAGES := libcmocka-dev python3 tmux systemd-journal-remote \
	qemu-system-x86 ovmf mtools dosfstools fdisk grub-efi-amd64-bin \
	grub-common systemd-boot-efi prometheus prometheus-node-exporter man-db \
	python3-yaml e2fsprogs cpio kmod xz-utils strace \
	systemd udev cppcheck clang-format \
	meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev

# The UEFI stage, with gnu-efi.
EFI_INC   := -isystem /usr/include/efi -isystem /usr/include/efi/x86_64
EFI_LDS   := /usr/lib/elf_x86_64_efi.lds
EFI_CRT0  := /usr/lib/crt0-efi-x86_64.o
CFLAGS_EFI_GLUE := -std=gnu11 $(WARN) -O2 -ffreestanding -fshort-wchar \
	-mno-red-zone -fno-stack-protector -fpic -fno-strict-aliasing \
	-maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI $(EFI_NO_SIMD) $(EFI_INC)
EFI_SRC   := $(wildcard efi/*.c)
# name: flavour defines
EFI_FLAVOURS := app driver sim sim-driver
EFI_DEFS_app        :=
EFI_DEFS_driver     := -DTSCTUI_DRIVER
EFI_DEFS_sim        := -DTSCTUI_SIM
EFI_DEFS_sim-driver := -DTSCTUI_SIM -DTSCTUI_DRIVER
EFI_TARGET_app        := efi-app-x86_64 --subsystem=10
EFI_TARGET_driver     := efi-bsdrv-x86_64 --subsystem=11
EFI_TARGET_sim        := efi-app-x86_64 --subsystem=10
EFI_TARGET_sim-driver := efi-bsdrv-x86_64 --subsystem=11
EFI_IMAGES := efi/tsctui.efi efi/tsctui-driver.efi efi/tsctui-sim.efi \
	efi/tsctui-sim-driver.efi
# Test helpers, tests/efi/*.c (below).
EFI_HELPERS := $(BUILD)/tests/efi/shutdown.efi $(BUILD)/tests/efi/images.efi \
	$(BUILD)/tests/efi/secdouble.efi $(BUILD)/tests/efi/mpdouble.efi
EFI_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym \
	-j .rel -j .rela -j .rel.* -j .rela.* -j .reloc

.PHONY: all deps test-deps check check-e2e bench clean common-efi efi install uninstall
all: tui/tsctui common-efi efi
efi: $(EFI_IMAGES) $(EFI_HELPERS)

APT_INSTALL = DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends

deps:
	@command -v apt-get >/dev/null || { echo "deps: apt-get not found;" \
		"install: $(DEBIAN_PACKAGES)" >&2; exit 1; }
	apt-get update -qq
	$(APT_INSTALL) $(DEBIAN_PACKAGES) >/dev/null
	@echo "deps: installed $(DEBIAN_PACKAGES)"

test-deps: deps
	$(APT_INSTALL) $(TEST_PACKAGES) >/dev/null
	@echo "test-deps: installed $(TEST_PACKAGES)"
	tests/e2e/fetch $(BUILD)/e2e/dist
	tests/rig/build $(BUILD)/rig/qemu-system-x86_64 $(BUILD)/rig/qemu-tcg

$(BUILD)/linux/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_LINUX) $(DEPFLAGS) -c $< -o $@

$(BUILD)/efi/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_EFI) $(DEPFLAGS) -c $< -o $@

$(BUILD)/test/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_TEST) $(DEPFLAGS) -c $< -o $@

$(BUILD)/linux/tui/%.o: tui/%.c $(PREFIX_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_LINUX) $(TUI_CFLAGS) $(TUI_PATHS) $(DEPFLAGS) \
		-c $< -o $@

$(BUILD)/test/tui/%.o: tui/%.c $(PREFIX_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_TEST) $(TUI_CFLAGS) $(TUI_PATHS) $(DEPFLAGS) \
		-c $< -o $@

tui/tsctui: $(TUI_OBJ) $(COMMON_LINUX_OBJ)
	$(CC) $(CFLAGS_LINUX) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

$(SAN_TSCTUI): $(TUI_TEST_OBJ) $(COMMON_TEST_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

common-efi: $(BUILD)/efi/common.o
$(BUILD)/efi/common.o: $(COMMON_EFI_OBJ)
	ld -r -o $@ $^

# Each flavour's objects are make targets of their own, built with the
# flavour's defines; then linked with gnu-efi's crt0 and libraries.
define efi_flavour
$(BUILD)/efi/$(1)/%.o: efi/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_EFI_GLUE) $$(EFI_DEFS_$(1)) $$(DEPFLAGS) -c $$< -o $$@

$(BUILD)/efi/$(1)/stage.so: $(EFI_SRC:efi/%.c=$(BUILD)/efi/$(1)/%.o) \
		$(COMMON_EFI_OBJ)
	ld -nostdlib -znocombreloc -T $$(EFI_LDS) -shared -Bsymbolic \
		-L/usr/lib $$(EFI_CRT0) $$^ -lefi -lgnuefi -o $$@
endef
$(foreach f,$(EFI_FLAVOURS),$(eval $(call efi_flavour,$(f))))

efi/tsctui.efi: $(BUILD)/efi/app/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_app) $< $@
efi/tsctui-driver.efi: $(BUILD)/efi/driver/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_driver) $< $@
efi/tsctui-sim.efi: $(BUILD)/efi/sim/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_sim) $< $@
efi/tsctui-sim-driver.efi: $(BUILD)/efi/sim-driver/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_sim-driver) $< $@

# Test helpers (tests/efi/): shutdown powers the VM off (systemd-boot 252
# has no auto-poweroff); images counts refused images still loaded; the
# security double (a boot-service driver) refuses chosen images; the MP
# double (one too) makes MP services block, never signal, or vanish.
EFI_HELPER_SUBSYSTEM = $(if $(filter secdouble mpdouble,$*),efi-bsdrv-x86_64 --subsystem=11,efi-app-x86_64 --subsystem=10)
$(BUILD)/tests/efi/%.efi: tests/efi/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_EFI_GLUE) -c $< -o $(@D)/$*.o
	ld -nostdlib -znocombreloc -T $(EFI_LDS) -shared -Bsymbolic -L/usr/lib \
		$(EFI_CRT0) $(@D)/$*.o -lefi -lgnuefi -o $(@D)/$*.so
	objcopy $(EFI_SECTIONS) --target $(EFI_HELPER_SUBSYSTEM) \
		$(@D)/$*.so $@

# Unit tests link the sanitized common/ and the pieces of tui/ they test.
TUI_TESTABLE := tui/source/stage_report.c tui/source/efivar.c \
	tui/source/cpu.c tui/source/cpu_map.c tui/util/json.c tui/engine/hostcpu.c \
	tui/source/kernlog.c tui/util/fileio.c tui/engine/rate.c \
	tui/source/modules.c tui/model/rtc_plan.c tui/util/path.c \
	tui/engine/engine.c tui/engine/survey.c tui/engine/reftick.c \
	tui/engine/sample.c tui/model/assess.c tui/view/wrap.c \
	tui/engine/clockcost.c tui/model/diagnosis.c tui/model/virt.c \
	tui/model/watchdog_advice.c tui/model/trust.c \
	tui/source/kernel_cmdline.c tui/util/words.c tui/format/grubenv.c \
	tui/util/fsx.c tui/source/powerlog.c tui/source/boot_id.c \
	tui/source/journal.c \
	tui/view/why.c tui/model/setup.c tui/model/setup_check.c \
	tui/cli/deadline.c tui/ui/hint.c tui/action/act_say.c tui/view/draw.c
TUI_TESTABLE_OBJ := $(TUI_TESTABLE:%.c=$(BUILD)/test/%.o)
$(BUILD)/test/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_TEST) -D_GNU_SOURCE $(DEPFLAGS) -c $< -o $@
$(BUILD)/tests/%: $(BUILD)/test/unit/%.o $(COMMON_TEST_OBJ) $(TUI_TESTABLE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) $(LDFLAGS) -o $@ $^ -lcmocka $(TUI_LIBS)
# test_driver links the driver built with -DTSC_TRACE: a test can act at
# the run's decision points through its trace hook (a no-op until set).
DRIVER_TRACE_OBJ := $(BUILD)/test/common/driver-trace.o
$(DRIVER_TRACE_OBJ): common/driver.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_TEST) -DTSC_TRACE $(DEPFLAGS) -c $< -o $@
$(BUILD)/tests/test_driver: $(BUILD)/test/unit/test_driver.o \
		$(filter-out $(BUILD)/test/common/driver.o,$(COMMON_TEST_OBJ)) \
		$(DRIVER_TRACE_OBJ) $(TUI_TESTABLE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) $(LDFLAGS) -o $@ $^ -lcmocka $(TUI_LIBS)

FUZZ_TUI_OBJ := $(BUILD)/test/tui/source/stage_report.o \
	$(BUILD)/test/tui/source/efivar.o $(BUILD)/test/tui/util/fileio.o \
	$(BUILD)/test/tui/util/path.o $(BUILD)/test/tui/source/kernlog.o \
	$(BUILD)/test/tui/util/fsx.o $(BUILD)/test/tui/source/powerlog.o \
	$(BUILD)/test/tui/source/boot_id.o $(BUILD)/test/tui/source/journal.o
$(BUILD)/test/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_TEST) -D_GNU_SOURCE $(DEPFLAGS) -c $< -o $@
$(FUZZ_BIN): $(BUILD)/test/fuzz/fuzz_parsers.o $(COMMON_TEST_OBJ) $(FUZZ_TUI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

-include $(shell find $(BUILD)/linux $(BUILD)/efi $(BUILD)/test -type f \
	-name '*.d' 2>/dev/null)

# What the suites run.  `make check` (the README's test command, as CI runs
# it) builds them on every core the machine has unless the caller chose
# its own -j: a serial build was a minute and a half of the 20-minute test
# budget (docs/DESIGN.md 11).
CHECK_PREREQS := all $(UNIT_BIN) $(FUZZ_BIN) $(SAN_TSCTUI)
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS))$(findstring j,$(firstword \
	-$(MAKEFLAGS))),,-j$(shell nproc))
check:
	@$(MAKE) --no-print-directory $(CHECK_JOBS) $(CHECK_PREREQS)
	@BUILD=$(BUILD) tests/run

# The end-to-end boots alone (make check runs them too): OVMF, GRUB,
# systemd-boot, the stage and Debian's kernel in QEMU, tsctui in the guest.
check-e2e: all
	@BUILD=$(BUILD) tests/run tests/e2e/

# make bench's kernel-log parser timer: the optimised parser, as shipped.
$(BUILD)/bench/kernlog_parse: tests/bench/kernlog_parse.c \
		$(BUILD)/linux/tui/source/kernlog.o
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_LINUX) -D_GNU_SOURCE $(LDFLAGS) -o $@ $^

bench: all $(BUILD)/bench/kernlog_parse
	@BUILD=$(BUILD) tests/bench/run
	@BUILD=$(BUILD) tests/bench/kernlog
	@BUILD=$(BUILD) tests/bench/rig
	@# Issue 25's three precision boots, held out of make check until the
	@# stage meets them (docs/DESIGN.md 11.2); their failures are figures.
	-@BUILD=$(BUILD) tests/bench/precision
	@BUILD=$(BUILD) tests/bench/stage
	@BUILD=$(BUILD) tests/bench/engine
	@BUILD=$(BUILD) tests/bench/textfile
	@BUILD=$(BUILD) tests/bench/text-poke

# Where each tool looks: systemd reads PREFIX/lib/systemd/system for /usr
# and /usr/local; GRUB's generators and drop-ins live in /etc whatever the
# prefix.  The generator is inert until `tsctui install` enables it; the
# metrics timer (tsctui-textfile.timer) until the operator enables it.
SBINDIR   := $(PREFIX)/sbin
LIBDIR    := $(PREFIX)/lib/tsctui
UNITDIR   := $(PREFIX)/lib/systemd/system
# systemd-sleep (252) runs hooks from /usr/lib/systemd/system-sleep only.
SLEEPDIR  := /usr/lib/systemd/system-sleep
MANDIR    := $(PREFIX)/share/man/man8
DATADIR   := $(PREFIX)/share/tsctui

# Everything `make install` puts down, one line each: mode, source,
# destination.  A source ending in .in has @SBINDIR@ and @LIBDIR@
# replaced.  `make uninstall` and `make deb` go by this list; a new file is
# one more line.
INSTALL_LIST := \
	0755:tui/tsctui:$(SBINDIR)/tsctui \
	0644:efi/tsctui.efi:$(LIBDIR)/tsctui.efi \
	0644:efi/tsctui-driver.efi:$(LIBDIR)/tsctui-driver.efi \
	0644:tui/tsctui-boot.service.in:$(UNITDIR)/tsctui-boot.service \
	0755:tui/tsctui-textfile.in:$(LIBDIR)/tsctui-textfile \
	0644:tui/tsctui-textfile.service.in:$(UNITDIR)/tsctui-textfile.service \
	0644:tui/tsctui-textfile.timer:$(UNITDIR)/tsctui-textfile.timer \
	0755:tui/tsctui-sleep.in:$(SLEEPDIR)/tsctui \
	0644:docs/tsctui.8:$(MANDIR)/tsctui.8 \
	0755:grub.d/05_tsctui:/etc/grub.d/05_tsctui \
	0644:grub.d/tsctui-nowatchdog.cfg:$(DATADIR)/grub-nowatchdog.cfg \
	0755:kernel-install.d/95-tsctui.install:/etc/kernel/install.d/95-tsctui.install
INSTALL_SOURCES := $(foreach e,$(INSTALL_LIST),$(word 2,$(subst :, ,$(e))))
INSTALLED := $(foreach e,$(INSTALL_LIST),$(word 3,$(subst :, ,$(e))))
# The directories install makes for tsctui alone, removed when empty.
OWN_DIRS  := $(LIBDIR) $(DATADIR)

# Onto the running system (no DESTDIR), install refuses when the Debian
# package is installed: two copies (dpkg owning /etc/grub.d/05_tsctui,
# /usr/local/sbin/tsctui first on PATH) would each undo the other.  The
# package's preinst refuses the other way round.  Every directory install
# makes is written to $(MADE_DIRS), so that uninstall removes those (when
# empty) and no other.
MADE_DIRS := $(LIBDIR)/made-dirs
install: $(INSTALL_SOURCES)
	@if [ -z "$(DESTDIR)" ] && dpkg-query -W -f='$${Status}' tsctui \
		2>/dev/null | grep -q 'ok installed'; then \
		echo "make install: the tsctui package is installed; remove it first (apt remove tsctui), or keep it and do not install this copy" >&2; \
		exit 1; fi
	@set -e; made=""; for e in $(INSTALL_LIST); do \
		mode=$${e%%:*}; rest=$${e#*:}; src=$${rest%%:*}; \
		dst=$(DESTDIR)$${rest#*:}; \
		echo "install $$src -> $$dst"; \
		d=$$(dirname "$$dst"); \
		while [ ! -d "$$d" ]; do made="$$made $$d"; d=$$(dirname "$$d"); done; \
		install -d "$$(dirname "$$dst")"; \
		case $$src in \
		*.in) sed -e 's|@SBINDIR@|$(SBINDIR)|' \
			-e 's|@LIBDIR@|$(LIBDIR)|' "$$src" >"$$dst"; \
			chmod "$$mode" "$$dst" ;; \
		*) install -m "$$mode" "$$src" "$$dst" ;; \
		esac; \
	done; \
	if [ -n "$$made" ]; then \
		for d in $$made; do echo "$${d#$(DESTDIR)}"; done \
			>>"$(DESTDIR)$(MADE_DIRS)"; fi

# What install put down, and nothing else.  Run `tsctui uninstall` first:
# it takes the stage off the ESP and out of the boot loader, and needs the
# files removed here to do it.
uninstall:
	@made=$$(cat "$(DESTDIR)$(MADE_DIRS)" 2>/dev/null | sort -ru); \
	rm -f $(addprefix $(DESTDIR),$(INSTALLED)) "$(DESTDIR)$(MADE_DIRS)"; \
	for d in $$made; do rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done; \
	rmdir $(addprefix $(DESTDIR),$(OWN_DIRS)) 2>/dev/null || true

# `make deb`: a Debian package of what `make install` puts down, with
# PREFIX=/usr, built with dpkg-deb (dpkg-dev's dpkg-buildflags and
# dpkg-shlibdeps for the flags and the dependencies).  It builds in a copy
# of the tree (build/deb/src), so the tree's own build keeps its PREFIX;
# only tui/tsctui and the two release images are built, no test runs.
# Debian's hardening flags reach the Linux program only (CFLAGS_EFI takes
# none).  The maintainer scripts are tui/deb/: prerm runs `tsctui
# uninstall` before the files go, and refuses the removal if it fails.
DEB_VERSION := $(shell sed -n 's/^\#define TSCTUI_VERSION "\(.*\)"/\1/p' tui/app.h)
DEB_ARCH     = $(shell dpkg --print-architecture)
DEB_DIR     := $(BUILD)/deb
DEB_FILE     = $(BUILD)/tsctui_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_TREE    := Makefile common efi tui grub.d kernel-install.d docs
DEB_SCRIPTS := preinst prerm postinst postrm
.PHONY: deb
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src $(DEB_DIR)/root/DEBIAN $(DEB_DIR)/debian
	tar -c \
		--exclude='efi/*.efi' --exclude=tui/tsctui --exclude=$(SAN_TSCTUI) \
		$(DEB_TREE) | tar -x -C $(DEB_DIR)/src
	$(MAKE) -C $(DEB_DIR)/src BUILD=build PREFIX=/usr \
		CFLAGS="$$(dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$$(dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" \
		DESTDIR=$(abspath $(DEB_DIR)/root) install
	rm -f $(DEB_DIR)/root/usr/lib/tsctui/made-dirs
	gzip -9n $(DEB_DIR)/root/usr/share/man/man8/tsctui.8
	strip --strip-unneeded --remove-section=.comment \
		--remove-section=.note $(DEB_DIR)/root/usr/sbin/tsctui
	install -D -m 0644 tui/deb/copyright \
		$(DEB_DIR)/root/usr/share/doc/tsctui/copyright
	printf 'Source: tsctui\n\nPackage: tsctui\nArchitecture: any\n' \
		>$(DEB_DIR)/debian/control
	cd $(DEB_DIR) && dpkg-shlibdeps -O root/usr/sbin/tsctui \
		| sed -n 's/^shlibs:Depends=//p' >depends
	sed -e 's|@VERSION@|$(DEB_VERSION)|' -e 's|@ARCH@|$(DEB_ARCH)|' \
		-e "s|@DEPENDS@|$$(cat $(DEB_DIR)/depends)|" tui/deb/control.in \
		>$(DEB_DIR)/root/DEBIAN/control
	for f in $(DEB_SCRIPTS); do \
		install -m 0755 tui/deb/$$f $(DEB_DIR)/root/DEBIAN/$$f; done
	printf '%s\n' $(filter /etc/%,$(INSTALLED)) \
		>$(DEB_DIR)/root/DEBIAN/conffiles
	cd $(DEB_DIR)/root && find . -path ./DEBIAN -prune -o -type f \
		-printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEB_DIR)/root $(DEB_FILE)
	@echo "deb: $(DEB_FILE)"

clean:
	rm -rf $(BUILD) tui/tsctui $(SAN_TSCTUI) efi/*.efi
