# tsctui: build, test and benchmark.  `make deps` (and `make test-deps` for
# the tests) once on a fresh Debian 12, then `make`, `make check`, `make
# bench`.

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   := build

WARN    := -Wall -Wextra -Werror
CSTD    := -std=c11
# The Linux program and its copy of common/.
CFLAGS_LINUX := $(CSTD) $(WARN) -O2 -g -pthread
# common/ as the UEFI stage compiles it (gnu-efi's ABI: no red zone, short
# wchar, no stack protector, position independent, no SSE in firmware code).
CFLAGS_EFI := $(CSTD) $(WARN) -O2 -ffreestanding -fshort-wchar -mno-red-zone \
	-fno-stack-protector -fpic -fno-strict-aliasing -mno-mmx -mno-sse
# Unit tests: sanitizers on.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS_TEST := $(CSTD) $(WARN) -O1 -g -pthread $(SAN)

COMMON_SRC := $(wildcard common/*.c)
COMMON_HDR := $(wildcard common/*.h)
TUI_SRC    := $(shell find tui -name '*.c' | sort)
TUI_HDR    := $(shell find tui -name '*.h' | sort)
TUI_LIBS   := -lm -lsystemd -lefiboot -lefivar -lkmod -lncursesw

COMMON_LINUX_OBJ := $(COMMON_SRC:%.c=$(BUILD)/linux/%.o)
COMMON_EFI_OBJ   := $(COMMON_SRC:%.c=$(BUILD)/efi/%.o)
COMMON_TEST_OBJ  := $(COMMON_SRC:%.c=$(BUILD)/test/%.o)
TUI_OBJ          := $(TUI_SRC:%.c=$(BUILD)/linux/%.o)

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_BIN  := $(BUILD)/tests/fuzz_parsers

# `make deps`: what building and running tsctui needs.  `make test-deps`:
# everything the tests and benchmarks need on top, Debian's kernel for the
# guests (tests/e2e/fetch) and the TSC rig's QEMU (tests/rig/build).
DEBIAN_PACKAGES := build-essential gnu-efi libsystemd-dev libefivar-dev \
	libefiboot-dev libkmod-dev libncurses-dev sbsigntool openssl \
	efibootmgr util-linux
TEST_PACKAGES := libcmocka-dev python3 tmux systemd-journal-remote \
	qemu-system-x86 ovmf mtools dosfstools fdisk grub-efi-amd64-bin \
	grub-common systemd-boot-efi prometheus man-db e2fsprogs cpio kmod \
	systemd udev \
	meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev \
	dpkg-dev

# The UEFI stage, with gnu-efi.
EFI_INC   := -isystem /usr/include/efi -isystem /usr/include/efi/x86_64
EFI_LDS   := /usr/lib/elf_x86_64_efi.lds
EFI_CRT0  := /usr/lib/crt0-efi-x86_64.o
CFLAGS_EFI_GLUE := -std=gnu11 $(WARN) -O2 -ffreestanding -fshort-wchar \
	-mno-red-zone -fno-stack-protector -fpic -fno-strict-aliasing \
	-maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI $(EFI_INC)
EFI_SRC   := $(wildcard efi/*.c)
EFI_HDR   := $(wildcard efi/*.h)
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
EFI_SECTIONS := -j .text -j .sdata -j .data -j .dynamic -j .dynsym \
	-j .rel -j .rela -j .rel.* -j .rela.* -j .reloc

.PHONY: all deps test-deps check check-e2e bench clean common-efi efi install uninstall
all: tui/tsctui common-efi efi
efi: $(EFI_IMAGES) $(BUILD)/tests/efi/shutdown.efi

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
	tests/rig/build $(BUILD)/rig/qemu-system-x86_64

$(BUILD)/linux/common/%.o: common/%.c $(COMMON_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LINUX) -c $< -o $@

$(BUILD)/efi/common/%.o: common/%.c $(COMMON_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_EFI) -c $< -o $@

$(BUILD)/test/common/%.o: common/%.c $(COMMON_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) -c $< -o $@

$(BUILD)/linux/tui/%.o: tui/%.c $(TUI_HDR) $(COMMON_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LINUX) -D_GNU_SOURCE \
		-DTSCTUI_LIBDIR='"$(PREFIX)/lib/tsctui"' \
		-DTSCTUI_DATADIR='"$(PREFIX)/share/tsctui"' \
		-DNCURSES_WIDECHAR=1 -c $< -o $@

tui/tsctui: $(TUI_OBJ) $(COMMON_LINUX_OBJ)
	$(CC) $(CFLAGS_LINUX) -o $@ $^ $(TUI_LIBS)

common-efi: $(BUILD)/efi/common.o
$(BUILD)/efi/common.o: $(COMMON_EFI_OBJ)
	ld -r -o $@ $^

$(BUILD)/efi/%/stage.so: $(EFI_SRC) $(EFI_HDR) $(COMMON_HDR) $(COMMON_EFI_OBJ)
	@mkdir -p $(@D)
	for f in $(EFI_SRC); do \
		$(CC) $(CFLAGS_EFI_GLUE) $(EFI_DEFS_$*) -c $$f \
			-o $(@D)/$$(basename $$f .c).o || exit 1; \
	done
	ld -nostdlib -znocombreloc -T $(EFI_LDS) -shared -Bsymbolic \
		-L/usr/lib $(EFI_CRT0) $(patsubst efi/%.c,$(@D)/%.o,$(EFI_SRC)) \
		$(COMMON_EFI_OBJ) -lefi -lgnuefi -o $@

efi/tsctui.efi: $(BUILD)/efi/app/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_app) $< $@
efi/tsctui-driver.efi: $(BUILD)/efi/driver/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_driver) $< $@
efi/tsctui-sim.efi: $(BUILD)/efi/sim/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_sim) $< $@
efi/tsctui-sim-driver.efi: $(BUILD)/efi/sim-driver/stage.so
	objcopy $(EFI_SECTIONS) --target $(EFI_TARGET_sim-driver) $< $@

# A test helper: powers the VM off (systemd-boot 252 has no auto-poweroff).
$(BUILD)/tests/efi/shutdown.efi: tests/efi/shutdown.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_EFI_GLUE) -c $< -o $(@D)/shutdown.o
	ld -nostdlib -znocombreloc -T $(EFI_LDS) -shared -Bsymbolic -L/usr/lib \
		$(EFI_CRT0) $(@D)/shutdown.o -lefi -lgnuefi -o $(@D)/shutdown.so
	objcopy $(EFI_SECTIONS) --target efi-app-x86_64 --subsystem=10 \
		$(@D)/shutdown.so $@

# Unit tests link the sanitized common/ and the pieces of tui/ they test.
TUI_TESTABLE := tui/source/stage_report.c tui/util/json.c tui/engine/hostcpu.c tui/source/kernlog.c tui/util/fileio.c tui/engine/rate.c tui/source/modules.c tui/util/path.c tui/engine/engine.c tui/engine/survey.c tui/engine/reftick.c tui/engine/clockcost.c
$(BUILD)/tests/%: tests/unit/%.c $(COMMON_TEST_OBJ) $(TUI_TESTABLE) $(COMMON_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) -D_GNU_SOURCE -o $@ $< $(COMMON_TEST_OBJ) $(TUI_TESTABLE) -lcmocka -lm -lkmod

$(FUZZ_BIN): tests/fuzz/fuzz_parsers.c $(COMMON_TEST_OBJ) tui/source/stage_report.c tui/source/kernlog.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TEST) -D_GNU_SOURCE -o $@ $< $(COMMON_TEST_OBJ) tui/source/stage_report.c tui/source/kernlog.c

check: all $(UNIT_BIN) $(FUZZ_BIN)
	@BUILD=$(BUILD) tests/run

# The end-to-end boots alone (make check runs them too): OVMF, GRUB,
# systemd-boot, the stage and Debian's kernel in QEMU, tsctui in the guest.
check-e2e: all
	@BUILD=$(BUILD) tests/run tests/e2e/

bench: all
	@BUILD=$(BUILD) tests/bench/run
	@BUILD=$(BUILD) tests/bench/rig
	@BUILD=$(BUILD) tests/bench/stage
	@BUILD=$(BUILD) tests/bench/engine

# Where each tool looks: systemd reads PREFIX/lib/systemd/system for /usr
# and /usr/local; GRUB's generators and drop-ins live in /etc whatever the
# prefix.  The generator is inert until `tsctui install` enables it.
SBINDIR   := $(PREFIX)/sbin
LIBDIR    := $(PREFIX)/lib/tsctui
UNITDIR   := $(PREFIX)/lib/systemd/system
# systemd-sleep (252) runs hooks from /usr/lib/systemd/system-sleep only.
SLEEPHOOK := /usr/lib/systemd/system-sleep/tsctui
MANDIR    := $(PREFIX)/share/man/man8
DATADIR   := $(PREFIX)/share/tsctui
INSTALLED := $(SBINDIR)/tsctui $(LIBDIR)/tsctui.efi $(LIBDIR)/tsctui-driver.efi \
	$(UNITDIR)/tsctui-boot.service $(SLEEPHOOK) $(MANDIR)/tsctui.8 \
	/etc/grub.d/05_tsctui $(DATADIR)/grub-nowatchdog.cfg \
	/etc/kernel/install.d/95-tsctui.install

install: tui/tsctui efi/tsctui.efi efi/tsctui-driver.efi
	install -D -m 0755 tui/tsctui $(DESTDIR)$(SBINDIR)/tsctui
	install -D -m 0644 efi/tsctui.efi $(DESTDIR)$(LIBDIR)/tsctui.efi
	install -D -m 0644 efi/tsctui-driver.efi $(DESTDIR)$(LIBDIR)/tsctui-driver.efi
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|' tui/tsctui-boot.service.in \
		>$(DESTDIR)$(UNITDIR)/tsctui-boot.service
	install -d $(DESTDIR)$(dir $(SLEEPHOOK))
	sed 's|@SBINDIR@|$(SBINDIR)|' tui/tsctui-sleep.in \
		>$(DESTDIR)$(SLEEPHOOK)
	chmod 0755 $(DESTDIR)$(SLEEPHOOK)
	install -D -m 0644 docs/tsctui.8 $(DESTDIR)$(MANDIR)/tsctui.8
	install -D -m 0755 grub.d/05_tsctui $(DESTDIR)/etc/grub.d/05_tsctui
	install -D -m 0644 grub.d/tsctui-nowatchdog.cfg $(DESTDIR)$(DATADIR)/grub-nowatchdog.cfg
	install -D -m 0755 kernel-install.d/95-tsctui.install \
		$(DESTDIR)/etc/kernel/install.d/95-tsctui.install

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf $(BUILD) tui/tsctui efi/*.efi
