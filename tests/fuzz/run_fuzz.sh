#!/bin/bash
# Build every libFuzzer target with clang from the same sources as loom and run
# each for $FUZZ_SECONDS (default 60) over its seed corpus. TAP: one check for
# the build and one for the run of each target. A crash leaves its input in
# the build dir (fuzz-NAME/crash-*), named in the TAP diagnostics.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
secs=${FUZZ_SECONDS:-60}
. "$srcdir/tests/lib/tap.sh"

# target name -> the loom sources it needs besides its own harness
declare -A sources=(
	[topo]="model/topo*.c model/subnet.c lib/utf8.c lib/array.c lib/diag.c lib/itab.c lib/strpool.c"
	[smp]="mad/smp.c mad/smp_agent.c mad/smp_tables.c"
	[pma]="mad/pma.c"
	[thresh]="fabric/health_thresh.c mad/pma.c lib/diag.c"
	[since]="fabric/health_since.c mad/pma.c model/subnet.c lib/diag.c lib/itab.c lib/strpool.c lib/array.c"
	[config]="config/*.c mad/pma.c lib/utf8.c lib/array.c lib/diag.c"
	[lft_text]="routing/*.c config/names.c model/topo*.c model/subnet.c lib/utf8.c lib/array.c lib/diag.c lib/itab.c lib/strpool.c lib/par.c"
	[guid2lid]="plan/lid.c plan/lid_file.c model/subnet.c lib/utf8.c lib/array.c lib/diag.c lib/itab.c lib/strpool.c"
	[ctl]="loomd/ctl_proto.c lib/json.c"
	[sa]="sa/sa.c sa/sa_req.c sa/sa_src.c sa/sa_rec_*.c mad/rate.c model/subnet.c fabric/prog_cache.c plan/qos.c config/units.c plan/mcast*.c lib/array.c lib/itab.c lib/strpool.c"
	[sa_mirror]="sa/sa_mirror*.c sa/sa.c sa/sa_req.c sa/sa_src.c sa/sa_rec_*.c mad/rate.c model/subnet.c fabric/prog_cache.c plan/qos.c config/units.c plan/mcast*.c lib/array.c lib/itab.c lib/strpool.c"
)
# target name -> libraries it links besides the sanitizers (pkg-config names are not used
# here: clang builds outside configure)
declare -A libs=(
	[config]="-lyaml"
)

if ! command -v clang >/dev/null; then
	tap_check "clang is installed (apt-get install clang libclang-rt-14-dev)" false
	tap_done
	exit
fi

for name in $(printf '%s\n' "${!sources[@]}" | sort); do
	out=$builddir/fuzz-$name
	rm -rf "$out" && mkdir -p "$out/corpus"
	cp "$srcdir"/tests/fuzz/corpus/"$name"/* "$out/corpus/" 2>/dev/null
	# shellcheck disable=SC2086 # the source list is a glob to expand
	srcs=$(cd "$srcdir" && echo ${sources[$name]})
	tap_check "fuzz_$name builds" bash -c "cd '$srcdir' && clang -g -O1 -std=gnu11 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-include '$builddir/config.h' -I. -I/usr/include/infiniband tests/fuzz/fuzz_$name.c $srcs ${libs[$name]:-} \
		-o '$out/fuzz_$name' 2>'$out/build.log'" || { tap_diag "$(cat "$out/build.log")"; continue; }
	(cd "$out" && timeout $((secs + 60)) ./fuzz_"$name" -max_total_time="$secs" \
		-max_len=16384 -timeout=10 -rss_limit_mb=2048 corpus >run.log 2>&1)
	rc=$?
	tap_check "fuzz_$name runs ${secs}s without a crash, leak or timeout" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || tap_diag "$(tail -n 30 "$out/run.log")" "inputs: $(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* 2>/dev/null)"
	tap_diag "$(grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units' "$out/run.log" | tail -n 1)"
done
tap_done
