#!/usr/bin/env bash
# The Makefile keeps a packager's conventions (efibootmgr's): CFLAGS,
# CPPFLAGS and LDFLAGS reach the Linux program and the tests but never the
# UEFI objects; header changes rebuild what includes them; a new PREFIX
# rebuilds what has it compiled in.  Everything here asks make what it
# would do (-n, -q, -W): nothing is built or touched.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
plan 18

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
# `make install DESTDIR=` puts down every file of the one list, and `make
# uninstall` with the same DESTDIR takes exactly those away: the directory
# is empty again but for the shared directories it made.
dest=$(mktemp -d)
make -s install DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
n=$(find "$dest" -type f | wc -l)
if [ -x "$dest/usr/local/sbin/tsctui" ] &&
	[ -f "$dest/usr/local/lib/systemd/system/tsctui-boot.service" ] &&
	[ -f "$dest/usr/local/lib/tsctui/tsctui.efi" ] &&
	grep -q 'ExecStart=/usr/local/sbin/tsctui boot-ok' \
		"$dest/usr/local/lib/systemd/system/tsctui-boot.service" &&
	[ "$n" -eq "$(($(make -s -n -p install 2>/dev/null |
		sed -n 's/^INSTALLED := //p' | wc -w) + 1))" ] &&
	[ -f "$dest/usr/local/lib/tsctui/made-dirs" ]; then
	ok "make install DESTDIR= puts down every file of INSTALL_LIST ($n)"
else
	not_ok "make install DESTDIR= puts down every file ($n): $(find "$dest" -type f)"
fi
make -s uninstall DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
left=$(find "$dest" -mindepth 1)
if [ -z "$left" ]; then
	ok "make uninstall DESTDIR= removes every file and every directory install made"
else
	not_ok "make uninstall DESTDIR= leaves: $left"
fi
rm -rf "$dest"
# ... and only those: a directory that was there before stays.
dest=$(mktemp -d)
mkdir -p "$dest/etc/grub.d" "$dest/usr/local/share/man/man8"
make -s install DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
make -s uninstall DESTDIR="$dest" PREFIX=/usr/local >/dev/null 2>&1
if [ -d "$dest/etc/grub.d" ] && [ -d "$dest/usr/local/share/man/man8" ] &&
	[ "$(find "$dest" -mindepth 1 | wc -l)" -eq 7 ]; then
	ok "make uninstall keeps the directories that were there before install"
else
	not_ok "make uninstall: $(find "$dest" -mindepth 1)"
fi
rm -rf "$dest"

# make install's side of the package check: onto the running system (no
# DESTDIR) it refuses while the tsctui package is installed, and writes
# nothing.  A dpkg-query ahead on PATH says the package is installed; the
# run is in a mount namespace of its own whose /etc and /usr are overlays
# on a tmpfs, so whatever install would write lands there and the
# machine's own /etc and /usr are never touched.  The same run without
# the package shows the overlay sees install's writes.
scratch=$(mktemp -d)
mkdir -p "$scratch/fake" "$scratch/ns"
cat >"$scratch/fake/dpkg-query" <<'EOF2'
#!/bin/sh
case "$*" in *tsctui*) printf 'install ok installed' ;; *) exit 1 ;; esac
EOF2
chmod +x "$scratch/fake/dpkg-query"
live_install() { # PATH prefix, DESTDIR; prints make's stderr, rc=, and what was written
	unshare -m --propagation private sh -c '
	s=$1 top=$2 pre=$3 dest=$4
	mount -t tmpfs tsctui-test "$s/ns" || exit 90
	for d in etc usr; do
		mkdir -p "$s/ns/up/$d" "$s/ns/wk/$d"
		mount -t overlay overlay -o "lowerdir=/$d,upperdir=$s/ns/up/$d,workdir=$s/ns/wk/$d" "/$d" || exit 91
	done
	PATH="$pre$PATH" make -s -C "$top" install DESTDIR="$dest" >/dev/null 2>"$s/ns/err"
	echo "rc=$?"; cat "$s/ns/err"
	cd "$s/ns/up" && find . -mindepth 2 | sed "s/^/wrote /"' \
		sh "$scratch" "$PWD" "$1" "$2" 2>&1
}
with=$(live_install "$scratch/fake:" "")
if grep -q '^rc=[1-9]' <<<"$with" &&
	grep -q '^make install: the tsctui package is installed; remove it first (apt remove tsctui)' <<<"$with" &&
	! grep -q '^wrote ' <<<"$with"; then
	ok "make install onto this system with the tsctui package installed: refused, named, nothing written"
else
	not_ok "make install beside the package: $with"
fi
without=$(live_install "" "")
if grep -q '^rc=0' <<<"$without" && grep -q '^wrote ./etc/grub.d/05_tsctui' <<<"$without" &&
	grep -q '^wrote ./usr/local/sbin/tsctui' <<<"$without"; then
	ok "... and without the package the same run installs (the overlay sees every write)"
else
	not_ok "make install without the package: $without"
fi
dest=$(mktemp -d)
with=$(live_install "$scratch/fake:" "$dest")
if grep -q '^rc=0' <<<"$with" && [ -x "$dest/usr/local/sbin/tsctui" ] &&
	! grep -q '^wrote ' <<<"$with"; then
	ok "make install DESTDIR= (make deb's way) is not refused when the package is installed"
else
	not_ok "make install DESTDIR= beside the package: $with"
fi
rm -rf "$scratch" "$dest"

# The package archive: `make deps` only what building and running needs,
# `make test-deps` the rest; `make check` and `make bench` never reach it.
deps=$(make -n deps 2>&1)
tdeps=$(make -n test-deps 2>&1)
if grep -q 'apt-get install' <<<"$deps" &&
	grep -qw 'libncurses-dev' <<<"$deps" &&
	! grep -qwE 'qemu-system-x86|ovmf|prometheus|tests/e2e/fetch' <<<"$deps"; then
	ok "make deps installs the build and run packages, not the tests' QEMU, OVMF, Prometheus or kernel"
else
	not_ok "make deps: $deps"
fi
if grep -qw 'qemu-system-x86' <<<"$tdeps" && grep -q 'tests/e2e/fetch' <<<"$tdeps" &&
	grep -qw 'dpkg-dev' <<<"$deps"; then
	ok "make test-deps installs the tests' packages and fetches the guests' kernel"
else
	not_ok "make test-deps: $tdeps"
fi
if ! make -n check bench 2>&1 | grep -qE 'apt-get|tests/e2e/fetch|tests/rig/build'; then
	ok "make check and make bench never reach a package archive"
else
	not_ok "make check or make bench reaches a package archive"
fi
# `sudo make deps` makes no build tree (the user's `make` must own it).
scratch=$(mktemp -d)
make -n deps BUILD="$scratch/b" >/dev/null 2>&1
if [ ! -e "$scratch/b" ]; then
	ok "make deps makes no build directory"
else
	not_ok "make deps makes a build directory"
fi
rm -rf "$scratch"
done_testing
