#!/usr/bin/env bash
# common/ is freestanding: the objects built with the UEFI flags may reference
# nothing outside common/ but the four memory functions GCC emits for
# freestanding code (both platforms provide them), and the linker-made GOT
# symbol of position-independent code.  Also: no header beyond the
# freestanding ones, and no file-scope mutable state.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
BUILD=${BUILD_DIR:-build}

obj=$BUILD/efi/common.o
if [ ! -f "$obj" ]; then
	not_ok "UEFI-flavoured common/ object exists ($obj)"
	done_testing
	exit
fi
ok "UEFI-flavoured common/ object exists"

undef=$(nm -u "$obj" | awk '{print $2}' | grep -vxE 'memcpy|memmove|memset|memcmp|_GLOBAL_OFFSET_TABLE_' || true)
if [ -z "$undef" ]; then
	ok "no undefined symbols beyond memcpy/memmove/memset/memcmp"
else
	not_ok "undefined symbols in common/: $(echo $undef)"
fi

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
done_testing
