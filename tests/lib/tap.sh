# TAP helpers for the shell test suites (sourced).  A suite whose count is
# known says it first (`plan N`), so a condition that skips assertions
# shows as a plan mismatch; done_testing prints the plan only for a suite
# that gave none.
_tap_n=0
_tap_failed=0
_tap_plan=

plan() { _tap_plan=$1; echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() {
	_tap_n=$((_tap_n + 1)) _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
}
diag() { echo "# $*"; }
# check NAME COMMAND...: passes when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
done_testing() {
	[ -n "$_tap_plan" ] || echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ] && [ "${_tap_plan:-$_tap_n}" -eq "$_tap_n" ]
}
