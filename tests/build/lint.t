#!/usr/bin/env bash
# Static checks on every C source of ours: cppcheck (warnings, style,
# portability, and dead code: a function nothing calls), and clang-format
# against the repository's .clang-format.  Both tools come from
# `make test-deps`.  variableScope is not asked for: declarations at the
# top of a block are this code's style (the kernel's and systemd-boot's).
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
plan 5

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

# clang-format_check FILE...: what clang-format says of the files against the
# .clang-format above them; fails on drift (-Werror makes it an error) and on
# a .clang-format it cannot read (an error, with or without -Werror).
clang-format_check() {
	local out rc
	out=$(clang-format --dry-run -Werror "$@" 2>&1)
	rc=$?
	printf '%s' "$out"
	[ "$rc" -eq 0 ] && [ -z "$out" ]
}

if ! command -v clang-format >/dev/null; then
	not_ok "clang-format is installed (make test-deps)"
else
	# shellcheck disable=SC2086
	if out=$(clang-format_check $SOURCES); then
		ok "clang-format: every source matches .clang-format"
	else
		not_ok "clang-format: $(grep -c 'error:\|warning:' <<<"$out") findings against .clang-format (clang-format -i fixes drift)"
		head -10 <<<"$out" | sed 's/^/#   /'
	fi
	# The check can fail: on drift, and on a .clang-format it cannot read.
	tmp=$(mktemp -d)
	cp .clang-format "$tmp/"
	printf 'int  f(void){return 1;}\n' >"$tmp/drift.c"
	if ! clang-format_check "$tmp/drift.c" >/dev/null; then
		ok "the clang-format check finds a file that drifts"
	else
		not_ok "the clang-format check finds a file that drifts"
	fi
	cp common/report.h "$tmp/clean.h"
	printf 'BasedOnStyle: [\n' >"$tmp/.clang-format"
	if ! clang-format_check "$tmp/clean.h" >/dev/null; then
		ok "the clang-format check fails on a .clang-format it cannot read"
	else
		not_ok "the clang-format check fails on a .clang-format it cannot read"
	fi
	rm -rf "$tmp"
fi
done_testing
