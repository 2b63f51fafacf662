# shellcheck shell=bash
# TAP output for shell tests (sourced). Every check prints "ok N - desc" or
# "not ok N - desc" and returns non-zero when it failed (so that
# `tap_is ... || tap_diag ...` explains a failure); tap_done prints the plan
# and returns non-zero if any check failed. The plan comes last so a test
# need not count ahead.
_tap_n=0
_tap_failed=0

# tap_check DESC CMD...: run CMD; its success is the check.
tap_check() {
	local desc=$1
	shift
	_tap_n=$((_tap_n + 1))
	if "$@"; then
		echo "ok $_tap_n - $desc"
	else
		echo "not ok $_tap_n - $desc"
		_tap_failed=$((_tap_failed + 1))
		return 1
	fi
}

# tap_is DESC GOT WANT: string equality, with both shown on failure.
tap_is() {
	_tap_n=$((_tap_n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $_tap_n - $1"
	else
		echo "not ok $_tap_n - $1"
		printf '#   got:  %s\n#   want: %s\n' "$2" "$3"
		_tap_failed=$((_tap_failed + 1))
		return 1
	fi
}

tap_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

tap_done() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}
