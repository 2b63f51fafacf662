# shellcheck shell=bash
# sim.sh — simulated-fabric harness for loom's tests (sourced, bash >= 4.4).
#
# Starts ibsim fabrics, runs tools against them through umad2sim, drives the
# ibsim console, and cleans everything up. Several simulators can run side by
# side in one script (and several scripts side by side on one machine): each
# gets its own temp dir and its own IBSIM_SOCKNAME.
#
#   sim_start NAME TOPOFILE [IBSIM-ARGS...]   start a simulator; wait until it serves
#                                             (SIM_MKEY=1: behind the M_Key proxy)
#   sim_run NAME [--timeout S] [--host NODE] [--out FILE] CMD [ARGS...]
#                                             run CMD against it (cwd = sim dir)
#   sim_console NAME LINE...                  console commands; returns once ibsim ran them
#   sim_opensm NAME [--timeout S] [OPENSM-ARGS...]
#                                             one OpenSM sweep (-o); succeeds on SUBNET UP
#   sim_signal NAME SIG                       send SIG to the commands sim_run runs
#                                             (e.g. a daemon started with sim_run ... &)
#   sim_stop NAME / sim_stop_all              Quit, reap, remove the temp dir
#   sim_trap_exit [CMD]                       EXIT/INT/TERM/HUP trap: sim_stop_all; CMD
#   sim_dir / sim_sock / sim_pid / sim_log NAME   accessors; sim_alive NAME
#   sim_topo_nodes FILE / sim_nodes NAME      "Type<TAB>NodeDesc" of a file / of ibnetdiscover
#   sim_topo_links FILE / sim_links NAME      link ends of a file / iblinkinfo, tab-separated
#   log_wait [-E|-F] [-n N] [-p PID] FILE PATTERN [SECS]
#                                             until FILE has N lines matching (tests/lib/log.sh)
#
# Works under `set -euo pipefail`: functions report failure by status, and say
# why on stderr (prefix "sim.sh:"), which keeps stdout clean for TAP.
# M_Key (IBA 14.2.4; ibsim ignores it): `SIM_MKEY=1 sim_start ...` puts the
# rig's mkeyproxy (tests/rig/README) between ibsim and every client sim_run
# starts on that simulator; SIM_MKEY_BYPASS=1 sim_run ... talks to ibsim
# directly (the negative control); sim_mkey_log NAME is the proxy's log.
# TrapRepress (ibsim drops them): `SIM_REPRESS=1 sim_run ...` carries the ones
# CMD sends to the SM at their port (tests/rig/README); sim_repress_log NAME.
# Tunables (environment, whole seconds): SIM_START_TIMEOUT (15), SIM_CONSOLE_TIMEOUT
# (10), SIM_RUN_TIMEOUT (60); KEEP_SIM_DIR=1 (keep temp dirs), SIM_UMAD2SIM (path
# of libumad2sim.so, if not in the usual place).

if [ -n "${_SIM_SH_LOADED:-}" ]; then
	return 0
fi
_SIM_SH_LOADED=1

# The TAP helpers (tap_check, tap_is, tap_diag, tap_done) live next door;
# one `. sim.sh` gives a fabric test everything it needs.
if ! declare -F tap_check >/dev/null; then
	# shellcheck source=tests/lib/tap.sh
	. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
fi
# log_wait, the bounded wait for a line in a log, too.
# shellcheck source=tests/lib/log.sh
. "$(dirname "${BASH_SOURCE[0]}")/log.sh"

: "${SIM_START_TIMEOUT:=15}" "${SIM_CONSOLE_TIMEOUT:=10}" "${SIM_RUN_TIMEOUT:=60}"

# Per-simulator state, keyed by NAME. -g: global even if sourced from a function.
# SIM_TOPO (absolute topology path) and SIM_OSM_LOG (last OpenSM log) are for callers.
declare -gA SIM_PID=() SIM_DIR=() SIM_SOCK=() SIM_TOPO=() SIM_OSM_LOG=()
declare -gA _SIM_CON=() _SIM_LIFE=() _SIM_WATCH=()
declare -gA _SIM_MKEY=() _SIM_RAW=()   # mkeyproxy's PID; ibsim's own socket name
_sim_seq=0            # numbers socket names and console markers
SIM_CONSOLE_OUT=      # what the last sim_console's commands printed

_sim_err() { printf 'sim.sh: %s\n' "$*" >&2; }

# Indent a file's tail under an error message.
_sim_tail() { # FILE [LINES]
	[ -f "$1" ] || return 0
	printf 'sim.sh: --- last lines of %s:\n' "$1" >&2
	# awk, not sed: ibsim's last line (its prompt) has no newline.
	tail -n "${2:-15}" "$1" | awk '{ print "sim.sh: | " $0 }' >&2
}

# Alive = exists and not a zombie. kill -0 is not enough: an ibsim that exited
# stays a zombie until this shell reaps it, and kill -0 succeeds on zombies.
_sim_alive_pid() { # PID
	local stat
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || return 1
	read -r stat <"/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }    # skip "pid (comm) "; comm may hold spaces
	[ "${stat%% *}" != Z ]
}

# Wait up to SECS for PID to be gone; 0 if it went.
_sim_wait_gone() { # PID SECS
	local i n=$(($2 * 20))
	for ((i = 0; i < n; i++)); do
		_sim_alive_pid "$1" || return 0
		sleep 0.05
	done
	! _sim_alive_pid "$1"
}

_sim_known() { # NAME FUNC
	if [ -z "${1:-}" ] || [ -z "${SIM_PID[$1]:-}" ]; then
		_sim_err "$2: no simulator named '${1:-}' (not started, or started in a subshell)"
		return 1
	fi
}

# Find libumad2sim.so once. The Debian package (libumad2sim0, pulled in by
# ibsim-utils) puts it under the multiarch dir; others use lib or lib64.
_sim_find_umad2sim() {
	local ma f
	if [ -n "${SIM_UMAD2SIM:-}" ]; then
		[ -r "$SIM_UMAD2SIM" ] && return 0
		_sim_err "SIM_UMAD2SIM=$SIM_UMAD2SIM: no such file"
		return 1
	fi
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) ||
		ma=$(gcc -print-multiarch 2>/dev/null) || ma=
	for f in ${ma:+"/usr/lib/$ma/umad2sim/libumad2sim.so"} \
		/usr/lib/umad2sim/libumad2sim.so /usr/lib64/umad2sim/libumad2sim.so \
		/usr/local/lib/umad2sim/libumad2sim.so; do
		if [ -r "$f" ]; then
			SIM_UMAD2SIM=$f
			return 0
		fi
	done
	f=$(find /usr/lib /usr/lib64 /usr/local/lib -name libumad2sim.so \
		-print -quit 2>/dev/null) || f=
	if [ -n "$f" ]; then
		SIM_UMAD2SIM=$f
		return 0
	fi
	_sim_err "libumad2sim.so not found: install ibsim-utils" \
		"(Debian: apt-get install ibsim-utils), or set SIM_UMAD2SIM"
	return 1
}

# Close the console and lifeline fds of every simulator in a child about to
# exec something else: a stray reader on another sim's console would eat its
# commands, and a stray lifeline writer would keep a watchdog from firing.
_sim_close_fds() {
	local fd
	for fd in "${_SIM_CON[@]}" "${_SIM_LIFE[@]}"; do
		exec {fd}>&-
	done
}

# ibsim's table sizes (-N nodes, -S switches, -P ports) from the topology's
# header lines ("Switch 36 \"name\"", "Hca 2 ...", "Ca", "Rt"), doubled for
# headroom, never below ibsim's defaults (2048/256/13312). A switch has one
# more port than it says (port 0). Included files are not followed: pass
# -N/-S/-P yourself for those (later options win).
_sim_sizes() { # TOPOFILE -> "N S P"
	awk '$1 == "Switch" { s++; n++; p += $2 + 1; next }
	     $1 == "Hca" || $1 == "Ca" || $1 == "Rt" { n++; p += $2 + 1 }
	     function max(a, b) { return a > b ? a : b }
	     END { print max(2048, 2 * n + 64), max(256, 2 * s + 16),
	                 max(13312, 2 * p + 256) }' "$1"
}

# Install the cleanup trap unless the script has an EXIT trap of its own
# (then it must call sim_stop_all itself, or use sim_trap_exit CMD).
_sim_auto_trap() {
	[ -n "$(trap -p EXIT)" ] || sim_trap_exit :
}

# sim_trap_exit [CMD]: on exit (and on INT/TERM/HUP, turned into an exit so
# the EXIT trap runs) stop every simulator, then run CMD.
sim_trap_exit() {
	# shellcheck disable=SC2064 # expand CMD now, on purpose
	trap "sim_stop_all; ${1:-:}" EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# sim_start NAME TOPOFILE [IBSIM-ARGS...]
sim_start() {
	if [ $# -lt 2 ]; then
		_sim_err "usage: sim_start NAME TOPOFILE [ibsim args...]"
		return 2
	fi
	local name=$1 topo=$2
	shift 2
	if ! [[ $name =~ ^[A-Za-z0-9_]+$ ]]; then
		_sim_err "sim_start: bad name '$name' (letters, digits, _)"
		return 2
	fi
	if [ -n "${SIM_PID[$name]:-}" ]; then
		_sim_err "sim_start: simulator '$name' is already running"
		return 1
	fi
	if ! [ -f "$topo" ] || ! [ -r "$topo" ]; then
		_sim_err "sim_start $name: cannot read topology '$topo'"
		return 1
	fi
	if ! command -v ibsim >/dev/null; then
		_sim_err "ibsim not found: install ibsim-utils"
		return 1
	fi
	_sim_find_umad2sim || return 1
	_sim_auto_trap

	local dir sock sizes n s p pid lfd cfd mkproxy='' ibsock
	if [ "${SIM_MKEY:-0}" = 1 ]; then
		mkproxy=${SIM_MKEY_PROXY:-${builddir:-.}/tests/rig/mkeyproxy}
		if ! [ -x "$mkproxy" ]; then
			_sim_err "sim_start $name: SIM_MKEY=1 but no mkeyproxy at '$mkproxy'" \
				"(make check builds it, or set SIM_MKEY_PROXY)"
			return 1
		fi
		mkproxy=$(readlink -f -- "$mkproxy")
	fi
	topo=$(readlink -f -- "$topo")
	dir=$(mktemp -d "${TMPDIR:-/tmp}/loomsim.$name.XXXXXX") || {
		_sim_err "sim_start $name: mktemp -d failed"
		return 1
	}
	# Unique across scripts (PID), simulators in one script (counter) and
	# leftovers of earlier runs with a recycled PID (the temp dir's suffix).
	_sim_seq=$((_sim_seq + 1))
	sock="loomsim-$name-$$-$_sim_seq-${dir##*.}"
	# Behind the proxy, ibsim serves another name and the proxy takes sock.
	ibsock=$sock${mkproxy:+.sim}
	sizes=$(_sim_sizes "$topo")
	read -r n s p <<<"$sizes"
	mkfifo "$dir/console" "$dir/lifeline"
	: >"$dir/ibsim.log"    # exists before the child below gets to open it
	# An empty config keeps a local /etc/opensm/opensm.conf out of the tests.
	: >"$dir/opensm.conf"

	# ibsim reads console commands from stdin. Open the FIFO read-write: then
	# ibsim itself holds a writer, so it never sees EOF (on EOF it spins at
	# 100% CPU forever), and neither side blocks in open().
	(
		_sim_close_fds
		cd "$dir" || exit 1
		IBSIM_SOCKNAME=$ibsock exec ibsim -s -N "$n" -S "$s" -P "$p" "$@" "$topo"
	) <>"$dir/console" >"$dir/ibsim.log" 2>&1 &
	pid=$!
	# Our end of the console; read-write, so writing never blocks or raises
	# SIGPIPE even if ibsim is gone (we notice that by its PID instead).
	exec {cfd}<>"$dir/console"
	# The lifeline: this shell holds its only writer. If the script dies
	# without running its traps (SIGKILL), the watchdog reads EOF and ends
	# ibsim, which would otherwise wait on its console forever.
	exec {lfd}<>"$dir/lifeline"
	(
		set +e    # the caller's -e must not cut the cleanup short
		_sim_close_fds
		exec {cfd}>&- {lfd}>&- </dev/null >/dev/null 2>&1
		read -r _ <"$dir/lifeline"
		kill -TERM "$pid" 2>/dev/null    # mkeyproxy follows ibsim
		_sim_wait_gone "$pid" 2 || kill -KILL "$pid" 2>/dev/null
		[ "${KEEP_SIM_DIR:-0}" = 1 ] || rm -rf "$dir"
	) &
	SIM_PID[$name]=$pid SIM_DIR[$name]=$dir SIM_SOCK[$name]=$sock
	# shellcheck disable=SC2034 # SIM_TOPO is for callers
	SIM_TOPO[$name]=$topo _SIM_CON[$name]=$cfd _SIM_LIFE[$name]=$lfd
	_SIM_WATCH[$name]=$! _SIM_RAW[$name]=$ibsock

	# "ready" is printed once the file is parsed but before the socket is
	# bound; the console echo after it proves the main loop is serving.
	local i
	for ((i = 0; i < SIM_START_TIMEOUT * 20; i++)); do
		grep -q 'Network simulator ready\.' "$dir/ibsim.log" && break
		_sim_alive_pid "$pid" || break
		sleep 0.05
	done
	if ! grep -q 'Network simulator ready\.' "$dir/ibsim.log"; then
		if _sim_alive_pid "$pid"; then
			_sim_err "sim_start $name: ibsim not ready after ${SIM_START_TIMEOUT}s ($topo)"
		else
			_sim_err "sim_start $name: ibsim exited while reading $topo"
		fi
		_sim_tail "$dir/ibsim.log"
		_sim_start_failed "$name"
		return 1
	fi
	if ! sim_console "$name"; then
		_sim_err "sim_start $name: ibsim does not answer its console"
		_sim_start_failed "$name"
		return 1
	fi
	[ -z "$mkproxy" ] || _sim_start_mkey "$name" "$mkproxy"
}

# Start mkeyproxy in front of NAME's ibsim; it ends when ibsim does.
_sim_start_mkey() { # NAME PROXY
	local name=$1 dir=${SIM_DIR[$1]} i
	(
		_sim_close_fds
		cd "$dir" || exit 1
		exec "$2" --sim "${_SIM_RAW[$name]}" --listen "${SIM_SOCK[$name]}" \
			--sim-pid "${SIM_PID[$name]}"
	) </dev/null >"$dir/mkey.log" 2>&1 &
	_SIM_MKEY[$name]=$!
	for ((i = 0; i < SIM_START_TIMEOUT * 20; i++)); do
		grep -q '^mkeyproxy: ready' "$dir/mkey.log" 2>/dev/null && return 0
		_sim_alive_pid "${_SIM_MKEY[$name]}" || break
		sleep 0.05
	done
	_sim_err "sim_start $name: mkeyproxy did not start"
	_sim_tail "$dir/mkey.log"
	_sim_start_failed "$name"
	return 1
}

# sim_mkey_log NAME: the M_Key proxy's log (what it let through, hid, dropped).
# sim_repress_log NAME: the TrapRepress relay's log (SIM_REPRESS=1: what was relayed, delivered).
sim_repress_log() { _sim_known "${1:-}" sim_repress_log && printf '%s\n' "${SIM_DIR[$1]}/repress/log"; }
sim_mkey_log() { _sim_known "${1:-}" sim_mkey_log && printf '%s\n' "${SIM_DIR[$1]}/mkey.log"; }

# Undo a failed sim_start (sim_stop's own complaints would repeat ours).
_sim_start_failed() { # NAME
	[ "${KEEP_SIM_DIR:-0}" != 1 ] || _sim_err "sim_start $1: kept ${SIM_DIR[$1]}"
	sim_stop "$1" 2>/dev/null || true
}

# sim_console NAME [LINE...]: send console lines (Unlink "Switch1"[3], ReLink,
# Link, Error, Dump, Attached, X N, ...), then a "# marker" comment, which
# ibsim echoes once it has run everything before it. Returns when the marker
# shows up in the log, so the change has happened. Fails if ibsim printed one
# of its error messages (unknown node or port, not linked, ...). The text the
# commands printed is left in SIM_CONSOLE_OUT. Use sim_stop, not "Quit".
sim_console() {
	_sim_known "${1:-}" sim_console || return 125
	local name=$1 line
	shift
	for line in "$@"; do
		# ibsim reads at most 127 bytes a line; longer ones would split.
		if [[ $line == *$'\n'* ]] || [ ${#line} -gt 120 ]; then
			_sim_err "sim_console $name: one line of at most 120 characters: '$line'"
			return 2
		fi
		if [[ $line =~ ^[[:space:]]*Quit ]]; then
			_sim_err "sim_console $name: use sim_stop to quit"
			return 2
		fi
	done
	local log=${SIM_DIR[$name]}/ibsim.log pid=${SIM_PID[$name]} off chunk i
	_sim_seq=$((_sim_seq + 1))
	# BASHPID: markers from subshells (which copy _sim_seq) stay distinct.
	local marker="# sim.sh-sync-$BASHPID-$_sim_seq."
	off=$(stat -c %s "$log")
	# One write, so lines from concurrent callers do not interleave.
	printf '%s\n' "$@" "$marker" >&"${_SIM_CON[$name]}"
	for ((i = 0; i < SIM_CONSOLE_TIMEOUT * 50; i++)); do
		chunk=$(tail -c +"$((off + 1))" "$log")
		[[ $chunk == *"$marker"* ]] && break
		if ! _sim_alive_pid "$pid"; then
			_sim_err "sim_console $name: ibsim (pid $pid) is not running"
			_sim_tail "$log"
			return 125
		fi
		sleep 0.02
	done
	if [[ $chunk != *"$marker"* ]]; then
		_sim_err "sim_console $name: no answer within ${SIM_CONSOLE_TIMEOUT}s to: $*"
		_sim_tail "$log"
		return 1
	fi
	chunk=${chunk%%"$marker"*}
	SIM_CONSOLE_OUT=${chunk//"sim> "/}
	# ibsim's complaints (sim_cmd.c); "ibwarn:" lines are its stderr, not ours.
	if grep -v '^ibwarn:' <<<"$SIM_CONSOLE_OUT" | grep -Eq \
		"^# (nodeid|no |can't|port [0-9]+ at nodeid|bad |unlink:|set error|set_guid|error rate|change baselid)|unknown - skipped|^bad |Usage:|^wait: bad"; then
		_sim_err "sim_console $name: ibsim refused: $*"
		printf '%s' "$SIM_CONSOLE_OUT" | awk '{ print "sim.sh: | " $0 }' >&2
		return 1
	fi
}

# Drop ibsim clients whose process is gone. A client killed before it could
# detach (a timed-out tool) keeps its slot, and ibsim has only 10.
_sim_reap_clients() { # NAME
	local line x=() re='Client ([0-9]+): pid ([0-9]+) '
	sim_console "$1" Attached 2>/dev/null || return 0
	while IFS= read -r line; do
		if [[ $line =~ $re ]] && ! _sim_alive_pid "${BASH_REMATCH[2]}"; then
			x+=("X ${BASH_REMATCH[1]}")
		fi
	done <<<"$SIM_CONSOLE_OUT"
	[ ${#x[@]} -eq 0 ] || sim_console "$1" "${x[@]}" 2>/dev/null || true
}

# SIM_REPRESS=1 (likewise): CMD also gets librepress.so behind the tail, which
# carries a TrapRepress that CMD sends (ibsim drops them all) to the SM at the
# port it is for, through sockets in the sim's dir (repress/; its log there:
# sim_repress_log NAME). Both ends need it (tests/rig/README).
# SIM_RMPP=1 (in the environment, or `SIM_RMPP=1 sim_run ...`): CMD runs
# with the RMPP shim preloaded in front of umad2sim, which gives libibumad
# agents registered with rmpp_version 1 kernel-style RMPP, and its helper
# librmpp_tail.so behind umad2sim (see tests/rig/README). They are in
# $SIM_RMPP_DIR, else $builddir/tests/rig (`make check` builds them). Without
# SIM_RMPP, CMD gets libagent_guard.so and the tail when they are built (they
# drop MADs no agent takes, on which umad2sim crashes). Prints the LD_PRELOAD
# value for CMD; fails (sim_run then returns 125) without the shim's files.
_sim_preload() {
	local p=$SIM_UMAD2SIM d
	if [ "${SIM_RMPP:-0}" = 1 ]; then
		d=${SIM_RMPP_DIR:-${builddir:-.}/tests/rig}
		if ! [ -r "$d/librmpp_shim.so" ] || ! [ -r "$d/librmpp_tail.so" ]; then
			_sim_err "SIM_RMPP=1: no librmpp_shim.so and librmpp_tail.so in '$d'" \
				"(make check builds them, or set SIM_RMPP_DIR)"
			return 1
		fi
		d=$(readlink -f -- "$d")
		p=$d/librmpp_shim.so:$p:$d/librmpp_tail.so
	else
		# Without the shim, the guard (when built) keeps umad2sim from
		# crashing on a MAD no agent takes (tests/rig/agent_guard.c).
		d=${SIM_RMPP_DIR:-${builddir:-.}/tests/rig}
		if [ -r "$d/libagent_guard.so" ] && [ -r "$d/librmpp_tail.so" ]; then
			d=$(readlink -f -- "$d")
			p=$d/libagent_guard.so:$p:$d/librmpp_tail.so
		fi
	fi
	# SIM_REPRESS=1: the TrapRepress relay, behind umad2sim and the tail.
	if [ "${SIM_REPRESS:-0}" = 1 ]; then
		d=${SIM_RMPP_DIR:-${builddir:-.}/tests/rig}
		if ! [ -r "$d/librepress.so" ] || [[ $p != *librmpp_tail.so ]]; then
			_sim_err "SIM_REPRESS=1: no librepress.so and librmpp_tail.so in '$d'" \
				"(make check builds them, or set SIM_RMPP_DIR)"
			return 1
		fi
		p=$p:$(readlink -f -- "$d")/librepress.so
	fi
	# SIM_PRELOAD_FRONT: libraries in front of all that (a rig shim that must see
	# the client's MADs first, tests/rig/capmask_shim.c).
	printf '%s\n' "${SIM_PRELOAD_FRONT:+$SIM_PRELOAD_FRONT:}$p${LD_PRELOAD:+:$LD_PRELOAD}"
}

# The child side of sim_run: becomes `timeout ... env LD_PRELOAD=... CMD`.
_sim_exec() { # NAME SECS HOST OUT CMD...
	local name=$1 t=$2 host=$3 out=$4 dir=${SIM_DIR[$1]} preload
	shift 4
	preload=$(_sim_preload) || exit 125
	_sim_close_fds
	if [ -n "$out" ]; then
		exec >"$out" 2>&1 || exit 125
	fi
	cd "$dir" || exit 125
	export IBSIM_SOCKNAME=${SIM_SOCK[$name]} OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir
	[ "${SIM_MKEY_BYPASS:-0}" != 1 ] || IBSIM_SOCKNAME=${_SIM_RAW[$name]}
	[ -z "$host" ] || export SIM_HOST=$host
	if [ "${SIM_REPRESS:-0}" = 1 ]; then
		mkdir -p "$dir/repress" || exit 125
		export SIM_REPRESS_DIR=$dir/repress
	fi
	# An ASan build refuses to run with another library preloaded first.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	exec timeout -k 5 "$t" env LD_PRELOAD="$preload" "$@"
}

# sim_run NAME [--timeout SECS] [--host NODEID] [--out FILE] CMD [ARGS...]
# Runs CMD (a program, not a shell function) attached to simulator NAME:
# LD_PRELOAD=libumad2sim.so, IBSIM_SOCKNAME, OSM_CACHE_DIR and OSM_TMP_DIR
# (OpenSM's dump files) set to the sim's dir, SIM_HOST=NODEID if given (the
# node to attach at; default: the first in the file). CMD's working directory
# is the sim's dir because umad2sim makes ./sys-PID there (left behind if CMD
# is killed), so give CMD absolute paths. Bounded by --timeout (default
# SIM_RUN_TIMEOUT): TERM, then KILL 5 s later. --out sends CMD's stdout and
# stderr to FILE (sim_run's own complaints still go to stderr). Returns CMD's
# status; 124 on timeout; 125 if the simulator is not running or died meanwhile.
sim_run() {
	_sim_known "${1:-}" sim_run || return 125
	local name=$1 t=$SIM_RUN_TIMEOUT host='' out=''
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) t=$2; shift 2 ;;
		--host) host=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	if [ $# -eq 0 ]; then
		_sim_err "usage: sim_run NAME [--timeout S] [--host NODE] [--out FILE] CMD [ARGS...]"
		return 2
	fi
	local dir=${SIM_DIR[$name]} pid=${SIM_PID[$name]} p rc=0 t0=$SECONDS
	if ! _sim_alive_pid "$pid"; then
		_sim_err "sim_run $name: simulator (pid $pid) is not running; not running: $*"
		_sim_tail "$dir/ibsim.log"
		return 125
	fi
	# In the background and waited for, so that a signal to this script runs
	# its trap at once, and so that the run.PID file below can tell sim_stop
	# (even from a trap in another shell) what is still running. Stdin is
	# passed on, unless it is a terminal (timeout puts CMD in a process group
	# of its own, which would stop on reading it) or closed.
	if [ -t 0 ] || ! { : <&0; } 2>/dev/null; then
		_sim_exec "$name" "$t" "$host" "$out" "$@" </dev/null &
	else
		_sim_exec "$name" "$t" "$host" "$out" "$@" <&0 &
	fi
	p=$!
	: >"$dir/run.$p"
	# A client of a dead ibsim waits for answers until its timeout: the
	# monitor ends it as soon as the simulator is gone.
	local mon
	(
		set +e
		_sim_close_fds
		exec </dev/null >/dev/null 2>&1
		while _sim_alive_pid "$pid" && _sim_alive_pid "$p"; do
			sleep 0.2
		done
		_sim_alive_pid "$p" && kill -TERM "$p"
	) &
	mon=$!
	# Quiet: bash's own "Killed" line for a CMD that someone (a test's
	# kill -KILL of an SM) ended; the status below says it.
	wait "$p" 2>/dev/null || rc=$?
	kill -TERM "$mon" 2>/dev/null || true
	wait "$mon" 2>/dev/null || true
	rm -f "$dir/run.$p"
	if ! _sim_alive_pid "$pid"; then
		_sim_err "sim_run $name: simulator (pid $pid) died; '$*' ended with status $rc"
		_sim_tail "$dir/ibsim.log"
		return 125
	fi
	# timeout's statuses: 124 timed out, 137 had to KILL, or someone did:
	# a test killing its SM on purpose, long before the timeout, is no error.
	if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ $((SECONDS - t0)) -ge "$t" ]; }; then
		_sim_err "sim_run $name: '$*' timed out after ${t}s (status $rc)"
	fi
	[ "$rc" -lt 124 ] || _sim_reap_clients "$name"
	return "$rc"
}

# sim_opensm NAME [--timeout SECS] [OPENSM-ARGS...]: one OpenSM sweep
# (opensm -o) on NAME; succeeds only if OpenSM exits 0 and logged SUBNET UP.
# Each run gets its own log (path in SIM_OSM_LOG[NAME], in this shell); -d2
# flushes it after each line so a killed OpenSM still leaves a full log;
# --dump_files_dir keeps opensm-subnet.lst out of /var/log.
sim_opensm() {
	_sim_known "${1:-}" sim_opensm || return 125
	local name=$1 t=$SIM_RUN_TIMEOUT dir log rc=0
	shift
	if [ "${1:-}" = --timeout ]; then
		t=$2
		shift 2
	fi
	dir=${SIM_DIR[$name]}
	log=$(mktemp --suffix=.log "$dir/opensm.XXXXXX") || return 1
	# shellcheck disable=SC2034 # for callers
	SIM_OSM_LOG[$name]=$log
	sim_run "$name" --timeout "$t" --out "${log%.log}.out" opensm -o -d2 \
		-F "$dir/opensm.conf" -f "$log" --dump_files_dir "$dir" "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		_sim_err "sim_opensm $name: opensm exited with status $rc"
	elif ! grep -q 'SUBNET UP' "$log"; then
		_sim_err "sim_opensm $name: OpenSM did not reach SUBNET UP"
		rc=1
	fi
	if [ "$rc" -ne 0 ]; then
		_sim_tail "${log%.log}.out" 8
		_sim_tail "$log"
	fi
	return "$rc"
}

# sim_stop NAME: end commands still running against NAME (say, a background
# sim_opensm), Quit ibsim (TERM, then KILL, if it does not go), reap it, close
# its fds, remove its dir (kept and printed with KEEP_SIM_DIR=1). Only PIDs
# this library started are signalled. Status 1 if ibsim had died already or
# had to be killed.
# The commands sim_run started run under timeout(1) (run.PID files name the
# timeout processes): the signal goes to timeout's child, the command itself.
# timeout would pass one TERM, INT or HUP on, but dies of the second.
sim_signal() { # NAME SIG
	_sim_known "${1:-}" sim_signal || return 125
	local f kid n=0
	for f in "${SIM_DIR[$1]}"/run.*; do
		[ -e "$f" ] || continue
		for kid in $(pgrep -P "${f##*/run.}"); do
			kill -"$2" "$kid" 2>/dev/null && n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || { _sim_err "sim_signal $1: nothing running"; return 1; }
}

sim_stop() {
	_sim_known "${1:-}" sim_stop || return 1
	local name=$1 rc=0 f p comm
	local pid=${SIM_PID[$name]} dir=${SIM_DIR[$name]}
	local cfd=${_SIM_CON[$name]} lfd=${_SIM_LIFE[$name]} wd=${_SIM_WATCH[$name]}

	for f in "$dir"/run.*; do
		[ -e "$f" ] || continue
		p=${f##*.}
		comm=$(cat "/proc/$p/comm" 2>/dev/null) || comm=
		# Only the `timeout` we started (a stale file may name a recycled PID);
		# it passes TERM on to CMD and sends KILL 5 s later.
		if [ "$comm" = timeout ] && _sim_alive_pid "$p"; then
			kill -TERM "$p" 2>/dev/null || true
			_sim_wait_gone "$p" 7 || kill -KILL -- "-$p" 2>/dev/null || true
		fi
		rm -f "$f"
	done

	if _sim_alive_pid "$pid"; then
		printf 'Quit\n' >&"$cfd" || true
		if ! _sim_wait_gone "$pid" 5; then
			_sim_err "sim_stop $name: ibsim (pid $pid) ignored Quit; killing it"
			rc=1
			kill -TERM "$pid" 2>/dev/null || true
			_sim_wait_gone "$pid" 2 || kill -KILL "$pid" 2>/dev/null || true
			_sim_wait_gone "$pid" 2 || true
		fi
	else
		_sim_err "sim_stop $name: ibsim (pid $pid) had already exited"
		_sim_tail "$dir/ibsim.log" 5
		rc=1
	fi
	wait "$pid" 2>/dev/null || true    # reap, if it is our child
	p=${_SIM_MKEY[$name]:-}
	if [ -n "$p" ]; then    # it ends with ibsim; make sure
		_sim_wait_gone "$p" 2 || kill -TERM "$p" 2>/dev/null || true
		_sim_wait_gone "$p" 2 || kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	fi

	# The watchdog first: closing the lifeline would set it off.
	if [ -n "$wd" ]; then
		kill -TERM "$wd" 2>/dev/null || true
		wait "$wd" 2>/dev/null || true
	fi
	exec {cfd}>&- {lfd}>&-
	if [ "${KEEP_SIM_DIR:-0}" = 1 ]; then
		_sim_err "sim_stop $name: kept $dir"
	else
		rm -rf "$dir"
	fi
	unset "SIM_PID[$name]" "SIM_DIR[$name]" "SIM_SOCK[$name]" "SIM_TOPO[$name]" \
		"SIM_OSM_LOG[$name]" "_SIM_CON[$name]" "_SIM_LIFE[$name]" "_SIM_WATCH[$name]" \
		"_SIM_MKEY[$name]" "_SIM_RAW[$name]"
	return "$rc"
}

# sim_stop_all: stop every simulator this shell started.
sim_stop_all() {
	local name rc=0
	for name in "${!SIM_PID[@]}"; do
		sim_stop "$name" || rc=1
	done
	return "$rc"
}

# Accessors. Paths and names only; nothing is started.
sim_dir() { _sim_known "${1:-}" sim_dir && printf '%s\n' "${SIM_DIR[$1]}"; }
sim_sock() { _sim_known "${1:-}" sim_sock && printf '%s\n' "${SIM_SOCK[$1]}"; }
sim_pid() { _sim_known "${1:-}" sim_pid && printf '%s\n' "${SIM_PID[$1]}"; }
sim_log() { _sim_known "${1:-}" sim_log && printf '%s\n' "${SIM_DIR[$1]}/ibsim.log"; }
sim_alive() { _sim_known "${1:-}" sim_alive && _sim_alive_pid "${SIM_PID[$1]}"; }

# sim_topo_nodes FILE: "Type<TAB>NodeDesc" per node of an ibsim topology,
# sorted; Hca is written Ca, as ibnetdiscover does (ibsim makes the quoted
# node id the NodeDescription). Included files are not followed.
sim_topo_nodes() { # FILE
	sed -nE 's/^(Switch|Hca|Ca|Rt)[[:space:]]+[0-9]+[[:space:]]+"([^"]*)".*/\1\t\2/p' "$1" |
		sed 's/^Hca\t/Ca\t/' | LC_ALL=C sort
}

# sim_topo_links FILE: "NodeDesc<TAB>port<TAB>RemoteDesc<TAB>remoteport" per
# connected port line of an ibsim topology (so each link twice, once from
# each end), in file order; compare with sim_links' fields 1, 2, 5, 6.
sim_topo_links() { # FILE
	awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {
		node = match($0, /"[^"]*"/) ? substr($0, RSTART + 1, RLENGTH - 2) : ""
		next
	}
	node != "" && match($0, /^[ \t]*\[[0-9]+\]/) {
		rest = substr($0, RSTART + RLENGTH)
		lp = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", lp)
		if (!match(rest, /"[^"]*"/)) next
		r = substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, RSTART + RLENGTH)
		rp = match(rest, /^\[[0-9]+\]/) ? substr(rest, 2, RLENGTH - 2) : "1"
		print node "\t" lp "\t" r "\t" rp
	}' "$1"
}

# sim_nodes NAME: the same, as ibnetdiscover sees the fabric.
sim_nodes() { # NAME
	local out rc=0
	out=$(sim_run "$1" ibnetdiscover 2>/dev/null) || rc=$?
	[ "$rc" -eq 0 ] || { _sim_err "sim_nodes $1: ibnetdiscover failed ($rc)"; return "$rc"; }
	sed -nE 's/^(Switch|Ca|Rt)[[:space:]]+[0-9]+[[:space:]]+"[^"]*"[[:space:]]+# "([^"]*)".*/\1\t\2/p' \
		<<<"$out" | LC_ALL=C sort
}

# sim_links NAME: one line per port iblinkinfo reports, tab-separated:
#   NODEDESC PORT STATE PHYSSTATE REMOTEDESC REMOTEPORT
# e.g. "Switch1 3 Active LinkUp Switch2 3"; an unlinked port has "-" for the
# remote: "Switch1 4 Down Polling - -". Each link shows from both ends.
sim_links() { # NAME
	local out rc=0
	out=$(sim_run "$1" iblinkinfo -l 2>/dev/null) || rc=$?
	[ "$rc" -eq 0 ] || { _sim_err "sim_links $1: iblinkinfo failed ($rc)"; return "$rc"; }
	sed -nE \
		-e 's/^0x[0-9a-f]+ +" *([^"]*)" +[0-9]+ +([0-9]+)\[[^]]*\] +==\(.* ([A-Za-z]+)\/ *([A-Za-z]+)\)==> +0x[0-9a-f]+ +[0-9]+ +([0-9]+)\[[^]]*\] +"([^"]*)".*$/\1\t\2\t\3\t\4\t\6\t\5/p' \
		-e 's/^0x[0-9a-f]+ +" *([^"]*)" +[0-9]+ +([0-9]+)\[[^]]*\] +==\(.* ([A-Za-z]+)\/ *([A-Za-z]+)\)==> +\[[^]]*\] +"".*$/\1\t\2\t\3\t\4\t-\t-/p' \
		<<<"$out"
}
