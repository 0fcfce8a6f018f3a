#!/usr/bin/env bash
# Every subcommand tsctui --help lists, and every global option, is in the
# man page; the man page formats without warnings.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
TSCTUI=${TSCTUI:-tui/tsctui}
help=$("$TSCTUI" --help)
cmds=$(printf '%s\n' "$help" | awk '/^Commands/{f=1;next} /^Global/{f=0} f && /^  [a-z]/{print $1}')
[ -n "$cmds" ] || not_ok "tsctui --help lists commands"
for c in $cmds; do
	if grep -q "^\.BR\? \"\?$c\b\|^\.BR $c \|^\.B $c$\|^\.BR ${c//-/\\\\-}" docs/tsctui.8 ||
	   grep -qF ".BR ${c//-/\\-} " docs/tsctui.8 || grep -qF ".B ${c//-/\\-}" docs/tsctui.8; then
		ok "man page documents '$c'"
	else
		not_ok "man page documents '$c'"
	fi
done
for o in --root --kernel-log --simulate --json; do
	if grep -qF "${o//-/\\-}" docs/tsctui.8; then
		ok "man page documents $o"
	else
		not_ok "man page documents $o"
	fi
done
warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l docs/tsctui.8 2>&1 >/dev/null)
check "man page formats without warnings" test -z "$warn"
done_testing
