#!/usr/bin/env bash
# tui/'s rooms (DESIGN.md section 1): the include graph points one way.
#   ui -> view;  ui, cli -> model, action -> source, engine -> format ->
#   util -> common
# The front ends see the system through source/system.h and model/assess.h
# alone, and read it through system_read* alone.
# ui and cli are peers (what they share is tui/app.h); only view/ and ui/
# draw, so only they include curses; source/, model/, view/, format/ and
# engine/ never write a file.  The action core (tui/action/act*.c) calls
# nothing in the action files (the ledger undoes an entry by itself), and
# no file of tui/action/ is over 600 lines.  Each check runs on the tree,
# then on a scratch copy with one wrong line added, and must catch it.
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
plan 22

# The rooms each room may include, itself aside ("common" is ../common/,
# "app" is tui/app.h).
declare -A allowed=(
	[common]=""
	[util]="common"
	[format]="util common"
	[source]="format util common"
	[engine]="util common"
	[model]="source engine format util common"
	[action]="model source format util common"
	[view]="model source engine format util common"
	[ui]="app view action model source engine format util common"
	[cli]="app action model source engine format util common"
	[main]="app cli common"
	[app]=""
)

# The room of a path relative to the repository (tui/source/cpu.c -> source).
# room sets REPLY (no subshell: it runs twice per include).
room() {
	case $1 in
	common/*) REPLY=common ;;
	tui/main.c) REPLY=main ;;
	tui/app.[ch]) REPLY=app ;;
	tui/*/*) REPLY=${1#tui/} REPLY=${REPLY%%/*} ;;
	*) REPLY="?" ;;
	esac
}
room_of() {
	room "$1"
	echo "$REPLY"
}

# Every quoted include under tui/ of the tree at $1, as "file<TAB>target"
# (the target's path normalised in the shell: one grep for the tree, no
# process per include; a realpath per include made this suite 96 s of
# make check).
includes() {
	local line f inc part target
	local -a parts out
	(cd "$1" && grep -rHoE '^#[[:space:]]*include[[:space:]]+"[^"]+"' \
		--include='*.[ch]' tui | sort) | while IFS= read -r line; do
		f=${line%%:*}
		inc=${line#*\"}
		inc=${inc%\"}
		IFS=/ read -ra parts <<<"${f%/*}/$inc"
		out=()
		for part in "${parts[@]}"; do
			case $part in
			. | "") ;;
			..) [ ${#out[@]} -gt 0 ] && unset 'out[-1]' ;;
			*) out+=("$part") ;;
			esac
		done
		printf -v target '%s/' "${out[@]}"
		printf '%s\t%s\t%s\n' "$f" "${target%/}" "$inc"
	done
}

# Every include that leaves its room for one it may not use, as
# "file: room -> room (line)".
wrong_includes() {
	local f target inc from to
	includes "$1" | while IFS=$'\t' read -r f target inc; do
		room "$f"
		from=$REPLY
		room "$target"
		to=$REPLY
		[ "$to" = "$from" ] && continue
		if [ -z "${allowed[$from]+x}" ] ||
			[[ " ${allowed[$from]} " != *" $to "* ]]; then
			echo "$f: $from -> $to ($inc)"
		fi
	done
}

# The front ends (cli/, ui/) see the system through one read and one
# decision: from source/ they include only system.h, from model/ only
# assess.h (DESIGN.md section 1).
front_end_includes() {
	local f target inc
	includes "$1" | while IFS=$'\t' read -r f target inc; do
		case $f in tui/cli/* | tui/ui/*) ;; *) continue ;; esac
		case $target in
		tui/source/system.h | tui/model/assess.h) ;;
		tui/source/* | tui/model/*) echo "$f: $inc" ;;
		esac
	done
}

# The front ends read the system through system.c's entries alone
# (system_read, system_read_parts, system_read_klog, and
# system_read_powerlog beside a log read on its own): a call from cli/ or
# ui/ to any other reader a source/ header declares (a name with "_read"
# in it) is a second reader path (check once read the clocksource and
# the modules itself).  report.c maps this boot's report with
# cpu_map_read: the report is read from a file it is handed (DESIGN.md
# 1.1), not from the snapshot.
front_end_reads() {
	local names
	names=$(grep -hoE '\b[a-z_0-9]+_read[a-z_0-9]*[[:space:]]*\(' \
		"$1"/tui/source/*.h | sed 's/[[:space:](]//g' | sort -u |
		grep -vE '^system_read(_parts|_klog|_powerlog)?$' | paste -sd'|')
	grep -nE "(^|[^A-Za-z_0-9])($names)[[:space:]]*\(" \
		"$1"/tui/cli/*.c "$1"/tui/ui/*.c |
		grep -vE '/tui/cli/report\.c:[0-9]+:[[:space:]]*cpu_map_read\(' ||
		true
}

# Files outside view/ and ui/ that include curses.
curses_outside() {
	grep -rlE '^#[[:space:]]*include[[:space:]]+<n?curses' "$1/tui" \
		--include='*.[ch]' | grep -vE '/tui/(view|ui)/' || true
}

# Calls that write, in the rooms that only read or compute.
writes_in_readers() {
	grep -rnE '\b(fsx_write_atomic|fsx_copy_atomic|fsx_remove|fsx_append|fsx_mkdir|fsx_rmdir|fsx_symlink|fsx_open_lock|rename|unlink|rmdir|mkdir|symlink|truncate)[[:space:]]*\(|fopen\([^)]*"[wa]|O_(WRONLY|RDWR|CREAT)' \
		"$1/tui/source" "$1/tui/model" "$1/tui/view" "$1/tui/format" \
		"$1/tui/engine" --include='*.[ch]' || true
}

# The action core: act.c and act_*.c (DESIGN.md section 8).  It may
# include act.h, act_core.h and act_say.h of its room, never an action's header, and
# may call no function an action file defines: an action calls the core,
# never the other way (the ledger's undo once ran kernel-arg's grubby
# undo, and act.c -> kernel_arg.c -> install.c -> act.c was a cycle).
core_calls_actions() {
	local top=$1 f names
	names=$(for f in "$top"/tui/action/*.c; do
		case ${f##*/} in act.c | act_*.c) continue ;; esac
		grep -hoE '^[a-z][a-z_ ]*[ *]+[a-z_0-9]+\(' "$f" |
			grep -vE '^static\b' | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/'
	done | sort -u | paste -sd'|')
	for f in "$top"/tui/action/act.c "$top"/tui/action/act_*.c; do
		grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^/"]+"' \
			"$f" | grep -vE '"act(_core|_say)?\.h"' |
			sed "s|^|${f#"$top"/}:|"
		[ -n "$names" ] &&
			grep -nE "(^|[^A-Za-z_0-9])($names)[[:space:]]*\(" "$f" |
			sed "s|^|${f#"$top"/}:|"
	done
	true
}

# Files of tui/action/ over 600 lines (one concern a file: act.c was
# 1,347 lines of six).
long_action_files() {
	local f n
	for f in "$1"/tui/action/*.[ch]; do
		n=$(wc -l <"$f")
		[ "$n" -le 600 ] || echo "${f#"$1"/}: $n lines"
	done
}

# Every file must be in a room this test knows.
unknown_rooms() {
	(cd "$1" && find tui -name '*.[ch]' | sort) | while read -r f; do
		[ -n "${allowed[$(room_of "$f")]+x}" ] || echo "$f"
	done
}

out=$(unknown_rooms .)
if [ -z "$out" ]; then
	ok "every C file of tui/ is in a known room"
else
	not_ok "files in no known room: $(echo $out)"
fi
out=$(wrong_includes .)
if [ -z "$out" ]; then
	ok "every include points down the rooms"
else
	not_ok "includes that point the wrong way:"
	sed 's/^/#   /' <<<"$out"
fi
out=$(front_end_includes .)
if [ -z "$out" ]; then
	ok "cli/ and ui/ include only system.h from source/, assess.h from model/"
else
	not_ok "front-end includes past system.h or assess.h:"
	sed 's/^/#   /' <<<"$out"
fi
out=$(front_end_reads .)
if [ -z "$out" ]; then
	ok "cli/ and ui/ call no reader but system_read*"
else
	not_ok "front-end calls to a reader past system.c:"
	sed 's/^/#   /' <<<"$out"
fi
out=$(curses_outside .)
if [ -z "$out" ]; then
	ok "only view/ and ui/ include curses"
else
	not_ok "curses included outside view/ and ui/: $(echo $out)"
fi
out=$(writes_in_readers .)
if [ -z "$out" ]; then
	ok "source/, model/, view/, format/ and engine/ write nothing"
else
	not_ok "writes in rooms that only read:"
	sed 's/^/#   /' <<<"$out"
fi

out=$(core_calls_actions .)
if [ -z "$out" ]; then
	ok "the action core (act*.c) calls and includes nothing of the actions"
else
	not_ok "the action core reaches into the actions:"
	sed 's/^/#   /' <<<"$out"
fi
out=$(long_action_files .)
if [ -z "$out" ]; then
	ok "no file of tui/action/ is over 600 lines"
else
	not_ok "files of tui/action/ over 600 lines: $(echo $out)"
fi

# The checks can fail: a scratch copy of tui/ with one wrong line each.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r tui "$tmp/tui"
mkdir -p "$tmp/common"
try() { # name file line check-function
	local name=$1 file=$2 line=$3 fn=$4 saved
	saved=$(cat "$tmp/$file")
	printf '%s\n%s\n' "$line" "$saved" >"$tmp/$file"
	if [ -n "$($fn "$tmp")" ]; then
		ok "the check catches $name"
	else
		not_ok "the check catches $name"
	fi
	printf '%s\n' "$saved" >"$tmp/$file"
}
try "source/ including action/" tui/source/system.c \
	'#include "../action/act.h"' wrong_includes
try "model/ including ui/ (the dashboard's room)" tui/model/diagnosis.c \
	'#include "../ui/x.h"' wrong_includes
try "ui/ including cli/" tui/ui/dashboard.c '#include "../cli/cli.h"' \
	wrong_includes
try "cli/ including view/" tui/cli/status.c '#include "../view/view.h"' \
	wrong_includes
try "util/ including source/" tui/util/json.c \
	'#include "../source/system.h"' wrong_includes
try "cli/ including a reader past system.h" tui/cli/status.c \
	'#include "../source/history.h"' front_end_includes
try "ui/ including a decision past assess.h" tui/ui/dashboard.c \
	'#include "../model/setup.h"' front_end_includes
try "cli/ calling a reader past system.c" tui/cli/check.c \
	'static void x(struct sys_modules *m) { modules_read("/", m); }' \
	front_end_reads
try "curses in cli/" tui/cli/status.c '#include <curses.h>' curses_outside
try "a write in source/" tui/source/system.c \
	'static void w(void) { fsx_write_atomic("x", "", 0, 0644); }' \
	writes_in_readers
try "the ledger's undo calling an action" tui/action/act_undo.c \
	'static int x(struct act *a) { return kernel_arg_set(a, "", ""); }' \
	core_calls_actions
try "the core including an action's header" tui/action/act_lock.c \
	'#include "actions.h"' core_calls_actions
saved=$(cat "$tmp/tui/action/act.c")
{ printf '%s\n' "$saved"; printf '/* */\n%.0s' $(seq 600); } \
	>"$tmp/tui/action/act.c"
if [ -n "$(long_action_files "$tmp")" ]; then
	ok "the check catches a 600-line file grown in tui/action/"
else
	not_ok "the check catches a 600-line file grown in tui/action/"
fi
printf '%s\n' "$saved" >"$tmp/tui/action/act.c"
mkdir -p "$tmp/tui/gadgets"
echo 'int x;' >"$tmp/tui/gadgets/x.c"
if [ -n "$(unknown_rooms "$tmp")" ]; then
	ok "the check catches a file in a new, unlisted room"
else
	not_ok "the check catches a file in a new, unlisted room"
fi
done_testing
