# shellcheck shell=bash
# health.sh — the loom health tests' runner (sourced after sim.sh; uses $LOOM, $tmp).
#   health_in [--host NODE] SIM TAG ARGS...   loom health ARGS on simulator SIM
#       (from NODE if given); stdout in $tmp/TAG.out, stderr in $tmp/TAG.err,
#       exit status in $hrc
health_in() {
	local host=()
	if [ "$1" = --host ]; then
		host=(--host "$2")
		shift 2
	fi
	local sim=$1 tag=$2
	shift 2
	hrc=0
	sim_run "$sim" "${host[@]}" "$LOOM" health "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err" || hrc=$?
}
