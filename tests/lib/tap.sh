# TAP helpers for the shell test suites (sourced).
_tap_n=0
_tap_failed=0

ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() {
	_tap_n=$((_tap_n + 1)) _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
diag() { echo "# $*"; }
# check NAME COMMAND...: passes when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
done_testing() { echo "1..$_tap_n"; [ "$_tap_failed" -eq 0 ]; }
