#!/usr/bin/env bash
# common/ is freestanding: the objects built with the UEFI flags may reference
# nothing outside common/ but the four memory functions GCC emits for
# freestanding code (both platforms provide them), and the linker-made GOT
# symbol of position-independent code.  Also: no header beyond the
# freestanding ones, and no file-scope mutable state.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
BUILD=${BUILD_DIR:-build}
# Every stage flavour the Makefile builds: each must have been checked.
FLAVOURS=$(sed -n 's/^EFI_FLAVOURS := //p' Makefile)
# shellcheck disable=SC2086
set -- $FLAVOURS
plan $((7 + $#))

obj=$BUILD/efi/common.o
if [ ! -f "$obj" ]; then
	not_ok "UEFI-flavoured common/ object exists ($obj)"
	exit 1
fi
ok "UEFI-flavoured common/ object exists"

undef=$(nm -u "$obj" | awk '{print $2}' | grep -vxE 'memcpy|memmove|memset|memcmp|_GLOBAL_OFFSET_TABLE_' || true)
if [ -z "$undef" ]; then
	ok "no undefined symbols beyond memcpy/memmove/memset/memcmp"
else
	not_ok "undefined symbols in common/: $(echo $undef)"
fi

# The linked stages: a symbol left undefined in a PE image is a call to
# nowhere at boot (a 128-bit division once asked for libgcc's __divmodti4).
for f in $FLAVOURS; do
	so=$BUILD/efi/$f/stage.so
	if [ ! -f "$so" ]; then
		not_ok "$so: built (make builds every flavour)"
		continue
	fi
	u=$(nm -u "$so" | awk '{print $2}' | tr '\n' ' ')
	if [ -z "$u" ]; then
		ok "$so: every symbol resolved"
	else
		not_ok "$so: undefined symbols: $u"
	fi
done

# The check itself must be able to fail: an object calling libc is caught.
tmp=$(mktemp -d)
printf '#include <stddef.h>\nint strlen(const char*);\nint f(void){return strlen("x");}\n' >"$tmp/bad.c"
cc -ffreestanding -c "$tmp/bad.c" -o "$tmp/bad.o" 2>/dev/null
ld -r -o "$tmp/all.o" "$obj" "$tmp/bad.o"
if nm -u "$tmp/all.o" | awk '{print $2}' | grep -qx strlen; then
	ok "the symbol check catches a libc call (strlen)"
else
	not_ok "the symbol check catches a libc call (strlen)"
fi
rm -rf "$tmp"

bad_inc=$(grep -hE '^#include <' common/*.[ch] | grep -vE '<(stdint|stddef|stdbool|stdatomic)\.h>' || true)
if [ -z "$bad_inc" ]; then
	ok "common/ includes only freestanding headers"
else
	not_ok "common/ includes hosted headers: $bad_inc"
fi

# Mutable globals: objects in .data or .bss.  Constant tables live in
# .rodata, or in .data.rel.ro when they hold pointers (read-only once
# relocated), and are fine.
state=$(objdump -t "$obj" | awk '$3 == "O" && ($4 == ".data" || $4 == ".bss" || $4 ~ /^\.(data|bss)\.[^r]/) {print $NF}' || true)
if [ -z "$state" ]; then
	ok "common/ keeps no global mutable state"
else
	not_ok "common/ has global mutable state: $(echo $state)"
fi
# The stage's code runs on APs, where neither SSE being enabled nor a
# 16-byte aligned stack is promised: no SIMD register anywhere in our
# objects (the gnu-efi library linked in is not ours and runs on the BSP).
simd="" objs=0
for o in "$obj" "$BUILD"/efi/*/*.o; do
	[ -f "$o" ] || continue
	objs=$((objs + 1))
	n=$(objdump -d "$o" | grep -cE '%[xyz]mm[0-9]' || true)
	[ "$n" -gt 0 ] && simd="$simd $o($n)"
done
# common.o and at least one object of each flavour's own.
if [ "$objs" -le "$#" ]; then
	not_ok "no SIMD register in the stage's objects: only $objs objects found"
elif [ -z "$simd" ]; then
	ok "no SIMD register in the stage's $objs objects"
else
	not_ok "SIMD registers in:$simd"
fi
# ...and that check can fail: an MS-ABI function calling a SysV one saves
# xmm6-15 unless built with general registers only.
tmp=$(mktemp -d)
printf 'void g(void);
__attribute__((ms_abi)) void f(void){g();}
' >"$tmp/abi.c"
cc -O2 -c "$tmp/abi.c" -o "$tmp/abi.o"
if objdump -d "$tmp/abi.o" | grep -qE '%xmm[0-9]'; then
	ok "the SIMD check catches an MS-ABI function's xmm saves"
else
	not_ok "the SIMD check catches an MS-ABI function's xmm saves"
fi
rm -rf "$tmp"
done_testing
