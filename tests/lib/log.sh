# shellcheck shell=bash
# log.sh — the one bounded wait for a line in a file (sourced; sim.sh brings it).
#
#   log_wait [-E|-F] [-n N] [-p PID] FILE PATTERN [SECS]
#
# 0 once FILE has at least N lines (default 1) that match PATTERN: grep's
# basic regular expression, -E an extended one, -F a fixed string. 1 if it
# has not after SECS seconds (default 60: a loaded machine), or, with -p,
# as soon as PID has ended without it (a daemon that died will not write
# it). A FILE that does not exist yet has no lines.
#
# Polls every 0.1 s and counts the polls, not the clock: a machine so busy
# that the polls themselves take long gets more time, never less, so the
# bound only catches a hang. -n is for "one more line than before an
# event": count the lines before it, pass that plus one.

if [ -n "${_LOG_SH_LOADED:-}" ]; then
	return 0
fi
_LOG_SH_LOADED=1

# _log_has KIND N FILE PATTERN: FILE has N lines matching PATTERN.
_log_has() {
	local got
	if [ "$2" -le 1 ]; then
		grep -q "$1" -- "$4" "$3" 2>/dev/null
	else
		got=$(grep -c "$1" -- "$4" "$3" 2>/dev/null)
		[ "${got:-0}" -ge "$2" ]
	fi
}

log_wait() {
	local kind=-G n=1 pid='' i polls
	while [ $# -gt 0 ]; do
		case $1 in
		-E | -F | -G) kind=$1 ;;
		-n) n=$2; shift ;;
		-p) pid=$2; shift ;;
		*) break ;;
		esac
		shift
	done
	if [ $# -lt 2 ] || [ $# -gt 3 ]; then
		echo "log_wait: usage: log_wait [-E|-F] [-n N] [-p PID] FILE PATTERN [SECS]" >&2
		return 2
	fi
	polls=$((${3:-60} * 10))
	for ((i = 0; i < polls; i++)); do
		_log_has "$kind" "$n" "$1" "$2" && return 0
		# PID (a child of this shell, reaped by it) has ended: one last look.
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	_log_has "$kind" "$n" "$1" "$2" || return 1
}
