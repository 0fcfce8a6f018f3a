#!/usr/bin/env bash
# Static checks on every C source of ours: cppcheck (warnings, style,
# portability, and dead code: a function nothing calls), and clang-format
# against the repository's .clang-format.  Both tools come from
# `make test-deps`.  variableScope is not asked for: declarations at the
# top of a block are this code's style (the kernel's and systemd-boot's).
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
plan 7

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
	not_ok "cppcheck finds a function nothing calls (no cppcheck)"
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

# Every file a comment names exists: in this repository (a path from the
# top, from the commenting file's folder, from tui/, docs/ or tests/, or a
# bare name anywhere), or it is one of the few named elsewhere on purpose:
# the kernel's sources, htop's and systemd's, the shared design documents.
# The C sources' comments, and the '#' comments of the test suites and
# their libraries (a renamed suite was still named in crash.t).
ELSEWHERE='^(arch/.*|kernel/.*|tsc_sync\.c|tsc\.c|Action\.c|efi-string-table\.h|(ARCHITECTURE|DOMAIN|REFERENCE|STYLE)\.md)$'
missing_named_files() {
	(
		cd "$1" || exit
		{
			find common tui efi tests/unit -name '*.[ch]'
			find tests .ci -name '*.t' -o -name '*.py' -o -name run 2>/dev/null
		} | sort |
			while read -r f; do
				case $f in
				*.c | *.h) pat='^[[:space:]]*(/\*|\*|//)|/\*' ;;
				*) pat='^[[:space:]]*#' ;;
				esac
				grep -nE "$pat" "$f" |
					grep -oE '^[0-9]+:|[A-Za-z0-9_][A-Za-z0-9_./-]*\.(c|h|t|py|md)\b' |
					while read -r tok; do
						case $tok in *:) line=${tok%:}; continue ;; esac
						name=${tok#./}
						[[ $name =~ $ELSEWHERE ]] && continue
						if [[ $name == */* ]]; then
							[ -e "$name" ] || [ -e "$(dirname "$f")/$name" ] ||
								[ -e "tui/$name" ] || [ -e "docs/$name" ] ||
								[ -e "tests/$name" ] ||
								echo "$f:$line: $name"
						elif [ -z "$(find . -path ./build -prune -o \
							-name "$name" -print -quit)" ]; then
							echo "$f:$line: $name"
						fi
					done
			done
	)
}
out=$(missing_named_files .)
if [ -z "$out" ]; then
	ok "every file a comment names exists"
else
	not_ok "comments name files that do not exist:"
	sed 's/^/#   /' <<<"$out"
fi
# The check can fail: a scratch tree whose comment names a removed file.
tmp=$(mktemp -d)
mkdir -p "$tmp/tui/source" "$tmp/common" "$tmp/efi" "$tmp/tests/unit"
printf '/* Read by cpumap.c, see source/gone.h. */\nint x;\n' >"$tmp/tui/source/x.c"
printf '#!/bin/sh\n# as tests/actions/gone.t does\n' >"$tmp/tests/unit/x.t"
if [ "$(missing_named_files "$tmp" | wc -l)" -eq 3 ]; then
	ok "the check finds a comment naming files that are gone"
else
	not_ok "the check finds a comment naming files that are gone"
fi
rm -rf "$tmp"
done_testing
