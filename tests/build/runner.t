#!/usr/bin/env bash
# tests/run, the runner behind `make check`, on scratch trees of fake
# suites: it must fail on each way a suite can report success without
# having checked anything (a whole-suite skip, "Bail out!" with exit 0, a
# skipped test, a .t without its exec bit, a plan that does not match, no
# plan, two plans), honour its list of suites that may skip only outside
# CI, and run the host suites two at a time and every other suite alone,
# after them.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib/tap.sh"
plan 19

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# tree DIR: the runner, two parallel suites that only pass if they run at
# the same time (each waits for the other's mark), and a serial suite that
# only passes if it runs after both have ended (so alone).
tree() {
	local d=$1
	mkdir -p "$d/tests/x"
	awk '/^# @parallel-begin/ { print; print "PARALLEL=(tests/x/pa.t tests/x/pb.t)"; skip = 1; next }
		/^# @parallel-end/ { skip = 0 }
		!skip' "$TOP/tests/run" >"$d/tests/run"
	chmod +x "$d/tests/run"
	for me in a b; do
		other=$([ $me = a ] && echo b || echo a)
		cat >"$d/tests/x/p$me.t" <<-EOF
			#!/bin/sh
			echo 1..1
			touch "$d/run.$me"
			i=0
			while [ ! -e "$d/run.$other" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
			[ -e "$d/run.$other" ] && echo "ok 1 - ran beside p$other" || echo "not ok 1 - ran alone"
			touch "$d/done.$me"
		EOF
	done
	cat >"$d/tests/x/serial.t" <<-EOF
		#!/bin/sh
		echo 1..1
		if [ -e "$d/done.a" ] && [ -e "$d/done.b" ]; then
			echo "ok 1 - after the parallel suites, alone"
		else
			echo "not ok 1 - beside another suite"
		fi
	EOF
	chmod +x "$d"/tests/x/*.t
}

# may_skip DIR SUITE REASON: puts SUITE on the tree's allow-list.
may_skip() {
	sed -i "/^declare -A MAY_SKIP=(/a [$2]=\"$3\"" "$1/tests/run"
}

n=0
# runner [ENV...]: runs the tree's runner (on the suites matching $only,
# when set); its output in $out, its status in $rc.
only=
runner() {
	out=$(env -u CI "$@" BUILD="$d/build" "$d/tests/run" $only 2>&1)
	rc=$?
}

# bad NAME BODY: a tree with one more suite printing BODY (shell); the
# runner must fail and name the suite.
bad() {
	local name=$1 body=$2
	n=$((n + 1))
	d=$scratch/$n
	tree "$d"
	printf '#!/bin/sh\n%s\n' "$body" >"$d/tests/x/bad.t"
	chmod +x "$d/tests/x/bad.t"
	runner
	if [ "$rc" -ne 0 ] && grep -q "^failed suites: bad.t" <<<"$out"; then
		ok "fails on $name"
	else
		not_ok "fails on $name"
		diag "rc $rc: $out"
	fi
}

n=$((n + 1)) d=$scratch/$n
tree "$d"
runner
check "passes good suites (exit 0, 3 passed, 0 failed, 0 skipped)" \
	test "$rc" -eq 0 -a "$(tail -1 <<<"$out")" = "3 passed, 0 failed, 0 skipped"
check "the parallel suites ran at the same time, the serial one after them, alone" \
	grep -qE '^serial.t +1 passed +0 failed +0 skipped +[0-9]+s$' <<<"$out"
check "each suite's line gives its seconds, and the run its total" \
	eval 'grep -qE "^pa.t +1 passed +0 failed +0 skipped +[0-9]+s$" <<<"$out" &&
		grep -qE "^total [0-9]+s$" <<<"$out"'
[ "$rc" -eq 0 ] || diag "$out"

bad "a whole-suite skip" 'echo "1..0 # SKIP no widget here"'
bad "Bail out! with exit 0" 'echo 1..2; echo "ok 1 - a"; echo "Bail out! no rig"; exit 0'
bad "Bail out! on stderr before any plan" 'echo "Bail out! no kernel" >&2; exit 0'
bad "a skipped test" 'echo 1..2; echo "ok 1 - a"; echo "ok 2 - b # SKIP no tool"'
bad "a skipped test, lowercase" 'echo 1..2; echo "ok 1 - a"; echo "ok 2 # skip no tool"'
bad "a skipped failure" 'echo 1..1; echo "not ok 1 - a # SKIP later"'
bad "a failed test" 'echo 1..2; echo "ok 1 - a"; echo "not ok 2 - b"'
bad "fewer tests than the plan" 'echo 1..3; echo "ok 1 - a"; echo "ok 2 - b"'
bad "no plan" 'echo "ok 1 - a"'
bad "two plans" 'echo 1..1; echo "ok 1 - a"; echo 1..1; echo "ok 2 - b"'
bad "a non-zero exit after passes" 'echo 1..1; echo "ok 1 - a"; exit 3'

n=$((n + 1)) d=$scratch/$n
tree "$d"
printf '#!/bin/sh\necho 1..1\necho "ok 1 - a"\n' >"$d/tests/x/noexec.t"
chmod -x "$d/tests/x/noexec.t"
runner
if [ "$rc" -ne 0 ] && grep -q "noexec.t.*not executable" <<<"$out"; then
	ok "fails on a .t without its exec bit"
else
	not_ok "fails on a .t without its exec bit"
	diag "rc $rc: $out"
fi
mkdir -p "$d/tests/x/deeper"
mv "$d/tests/x/noexec.t" "$d/tests/x/deeper/"
runner
check "... also one a directory deeper" \
	eval '[ "$rc" -ne 0 ] && grep -q "tests/x/deeper/noexec.t is not executable" <<<"$out"'

# The allow-list: a listed suite may skip when CI is unset, never in CI.
n=$((n + 1)) d=$scratch/$n
tree "$d"
printf '#!/bin/sh\necho 1..2\necho "ok 1 - a"\necho "ok 2 - b # SKIP no tool"\n' \
	>"$d/tests/x/listed.t"
printf '#!/bin/sh\necho "1..0 # SKIP no device"\n' >"$d/tests/x/whole.t"
chmod +x "$d"/tests/x/*.t
may_skip "$d" tests/x/listed.t "needs the tool"
may_skip "$d" tests/x/whole.t "needs the device"
runner
check "a listed suite may skip outside CI, and its line gives the reason" \
	eval '[ "$rc" -eq 0 ] && grep -q "^listed.t .*may skip: needs the tool" <<<"$out" &&
		grep -q "^whole.t .*may skip: needs the device" <<<"$out" &&
		[ "$(tail -1 <<<"$out")" = "4 passed, 0 failed, 2 skipped" ]'
runner CI=true
check "in CI the same skips fail" \
	eval '[ "$rc" -ne 0 ] && grep -q "^failed suites: listed.t whole.t" <<<"$out"'
only=x/p
runner CI=true
check "an argument keeps only the matching suites" \
	eval '[ "$rc" -eq 0 ] && [ "$(grep -c " passed " <<<"$out")" -eq 2 ] &&
		[ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 0 skipped" ]'

done_testing
