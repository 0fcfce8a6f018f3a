#!/usr/bin/env bash
# The Makefile keeps a packager's conventions (efibootmgr's): CFLAGS,
# CPPFLAGS and LDFLAGS reach the Linux program and the tests but never the
# UEFI objects; header changes rebuild what includes them; a new PREFIX
# rebuilds what has it compiled in.  Everything here asks make what it
# would do (-n, -q, -W): nothing is built or touched.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

plan=$(make -n -B tui/tsctui efi/tsctui.efi "CFLAGS=-O0 -DPACKAGER_CFLAGS" \
	CPPFLAGS=-DPACKAGER_CPPFLAGS LDFLAGS=-Wl,-z,now 2>&1 |
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
tui_cc=$(grep -E -- '-c tui/main\.c' <<<"$plan")
link=$(grep -E -- '-o tui/tsctui ' <<<"$plan")
efi_cc=$(grep -E -- '-c (efi/mp\.c|common/driver\.c) -o build/efi/' <<<"$plan")
if grep -q -- '-O0 -DPACKAGER_CFLAGS' <<<"$tui_cc" &&
	grep -q -- '-DPACKAGER_CPPFLAGS' <<<"$tui_cc"; then
	ok "CFLAGS and CPPFLAGS reach the Linux program's objects"
else
	not_ok "CFLAGS and CPPFLAGS reach the Linux program's objects: $tui_cc"
fi
if grep -q -- '-Wl,-z,now' <<<"$link"; then
	ok "LDFLAGS reach the link"
else
	not_ok "LDFLAGS reach the link: $link"
fi
if [ -n "$efi_cc" ] && ! grep -q -- 'PACKAGER' <<<"$efi_cc"; then
	ok "the UEFI objects take none of the packager's flags"
else
	not_ok "the UEFI objects take none of the packager's flags: $efi_cc"
fi
if grep -q -- '-Wall -Wextra -Werror' <<<"$tui_cc"; then
	ok "the project's warnings are appended to the packager's CFLAGS"
else
	not_ok "the project's warnings are appended: $tui_cc"
fi

# A header change makes the unit test that includes it (through the engine)
# out of date, and an unrelated one not.
make -s all >/dev/null 2>&1
make -s build/tests/test_engine >/dev/null 2>&1
if ! make -q -W tui/engine/engine.h build/tests/test_engine 2>/dev/null; then
	ok "touching tui/engine/engine.h makes test_engine out of date"
else
	not_ok "touching tui/engine/engine.h makes test_engine out of date"
fi
if make -q -W tui/engine/engine.h efi/tsctui.efi 2>/dev/null; then
	ok "...and leaves the stage, which does not include it, up to date"
else
	not_ok "...and leaves the stage, which does not include it, up to date"
fi
if ! make -q -W common/mailbox.h efi/tsctui.efi 2>/dev/null; then
	ok "a common/ header change rebuilds the stage"
else
	not_ok "a common/ header change rebuilds the stage"
fi

# PREFIX is compiled into tui/: another one must rebuild it.  Asking make
# rewrites the PREFIX stamp; it is put back as it was, time included.
stamp=build/prefix.stamp
saved=$(mktemp)
cp -p "$stamp" "$saved"
other=$(make -n tui/tsctui PREFIX=/opt/tsctui-test 2>&1)
cp -p "$saved" "$stamp"
rm -f "$saved"
if grep -q 'TSCTUI_LIBDIR=.*"/opt/tsctui-test/lib/tsctui"' <<<"$other"; then
	ok "a new PREFIX rebuilds the objects that have it compiled in"
else
	not_ok "a new PREFIX rebuilds the objects that have it compiled in"
fi
done_testing
