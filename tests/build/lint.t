#!/usr/bin/env bash
# Static checks on every C source of ours: cppcheck (warnings, style,
# portability, and dead code: a function nothing calls), and clang-format
# against the repository's .clang-format.  Both tools come from
# `make test-deps`.  variableScope is not asked for: declarations at the
# top of a block are this code's style (the kernel's and systemd-boot's).
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

SOURCES=$(git ls-files 'common/*.[ch]' 'tui/*.[ch]' 'efi/*.[ch]' \
	'tests/unit/*.[ch]' 'tests/fuzz/*.c' 'tests/efi/*.c' 'tests/bench/*.c')

cppcheck_run() {
	# efi_main is called by gnu-efi's crt0, which cppcheck does not see.
	cppcheck --quiet --error-exitcode=1 --std=c11 -D__x86_64__ \
		--enable=warning,style,performance,portability,unusedFunction \
		--suppress=missingIncludeSystem --suppress=variableScope \
		--suppress=unusedFunction:efi/main.c \
		--template='{file}:{line}: {severity} ({id}) {message}' \
		-I common "$@" 2>&1
}

if ! command -v cppcheck >/dev/null; then
	not_ok "cppcheck is installed (make test-deps)"
else
	out=$(cppcheck_run common tui efi)
	if [ -z "$out" ]; then
		ok "cppcheck: no finding in common/, tui/, efi/"
	else
		not_ok "cppcheck findings:"
		sed 's/^/#   /' <<<"$out"
	fi
	# The check can fail: a function nothing calls is found.
	tmp=$(mktemp -d)
	printf 'static int used(void) { return 1; }\nint unused(void) { return used(); }\n' >"$tmp/dead.c"
	if cppcheck_run "$tmp" | grep -q unusedFunction; then
		ok "cppcheck finds a function nothing calls"
	else
		not_ok "cppcheck finds a function nothing calls"
	fi
	rm -rf "$tmp"
fi

if ! command -v clang-format >/dev/null; then
	not_ok "clang-format is installed (make test-deps)"
else
	# shellcheck disable=SC2086
	drift=$(clang-format --dry-run $SOURCES 2>&1 | grep -c 'warning:' || true)
	if [ "$drift" -eq 0 ]; then
		ok "clang-format: every source matches .clang-format"
	else
		not_ok "clang-format: $drift lines drift from .clang-format (clang-format -i fixes them)"
		# shellcheck disable=SC2086
		clang-format --dry-run $SOURCES 2>&1 | grep 'warning:' | head -10 | sed 's/^/#   /'
	fi
fi
done_testing
