#!/bin/bash
# Build loom and run every test, the way CI does:
#   1. normal build: unit tests, tool tests, the simulated-fabric tests of
#      PLAIN_FABRIC_TESTS (Makefile.am: no loom code, valgrind, loom-verbs), the Debian
#      packages;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: the fast tests again, every
#      other fabric test (loomd, loom and the SA on ibsim: make check-sanitize), and
#      fuzzing;
#      every sanitizer report, even from a process whose exit status a test ignores,
#      is a failure;
#   3. make distcheck (the tarball builds and its fast tests pass).
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
# Build trees go to $LOOM_BUILD (default: _build in the source tree).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
out=${LOOM_BUILD:-$src/_build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}
pass=0
fail=0
failed=()

step() { printf '\n==== %s\n' "$*"; }

# Count the per-check results automake's TAP driver wrote into .trs files.
tally() { # DIR LABEL
	local trs res name
	while IFS= read -r trs; do
		name=${trs#"$1"/}
		name=${name%.trs}
		while IFS= read -r res; do
			case $res in
			PASS | XFAIL | SKIP) pass=$((pass + 1)) ;;
			*) fail=$((fail + 1)); failed+=("$2 $name ($res)") ;;
			esac
		done < <(sed -n 's/^:test-result: *\([A-Z]*\).*/\1/p' "$trs")
		printf '  %-6s %-44s %4s passed %3s failed\n' "$2" "$name" \
			"$(grep -c '^:test-result: *\(PASS\|XFAIL\|SKIP\)' "$trs")" \
			"$(grep -c '^:test-result: *\(FAIL\|ERROR\|XPASS\)' "$trs")"
	done < <(find "$1" -name '*.trs' | sort)
}

# A step that is not a test suite (configure, make) counts as one check.
check() { # LABEL CMD...
	local label=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed+=("$label")
		return 1
	fi
}

show_failures() { # DIR
	find "$1" -name '*.log' ! -name 'test-suite.log' ! -name 'config.log' | sort | while read -r log; do
		trs=${log%.log}.trs
		[ -f "$trs" ] && grep -q ':test-result: \(FAIL\|ERROR\|XPASS\)' "$trs" || continue
		echo "---- $log (last 40 lines)"
		tail -n 40 "$log"
	done
}

build() { # DIR LABEL CONFIGURE-ARGS...
	local dir=$1 label=$2
	shift 2
	rm -rf "$dir" && mkdir -p "$dir" &&
		check "$label configure" bash -c 'cd "$1" && shift && "$@" >configure.out 2>&1 || { tail -n 30 configure.out; exit 1; }' _ "$dir" "$src/configure" "$@" &&
		check "$label make" make -C "$dir" -j"$jobs" --no-print-directory
}

cd "$src" || exit 2
step "autogen"
check autogen ./autogen.sh || { echo "$pass passed, $fail failed"; exit 1; }

step "build and test (make check)"
if build "$out/normal" normal; then
	# Most fabric tests run once, in the sanitizer build below (Makefile.am:
	# PLAIN_FABRIC_TESTS are the others).
	make -C "$out/normal" -j"$jobs" --no-print-directory check \
		TESTS='$(FAST_TESTS) $(filter $(PLAIN_FABRIC_TESTS),$(FABRIC_TESTS)) $(PACKAGE_TESTS)' \
		>/dev/null 2>&1
	tally "$out/normal" normal
	show_failures "$out/normal"
fi

# Sanitizer reports: each file one failure (a report from a daemon a test stopped
# and whose status it did not look at counts too), printed in full.
sanitizer_reports() { # DIR
	local f
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		fail=$((fail + 1))
		failed+=("asan report ${f##*/}")
		echo "---- sanitizer report $f"
		head -n 60 "$f"
	done
}

step "sanitizers: ASan + UBSan: fast tests, fabric tests (make check-sanitize), fuzzing"
san="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
if build "$out/asan" asan CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined"; then
	# make check-sanitize, and the fuzz targets (built by clang with their own
	# sanitizers, only config.h from this build): listed first, their ten minutes
	# of one core overlap the fabric tests, as they did in the normal build.
	# The rest of the options (suppressions, halt and abort) come from Makefile.am.
	# Reports go to files named after the program and its PID.
	mkdir -p "$out/asan/sanitizer-reports"
	ASAN_OPTIONS=log_path=$out/asan/sanitizer-reports/asan:log_exe_name=1 \
		UBSAN_OPTIONS=log_path=$out/asan/sanitizer-reports/ubsan:log_exe_name=1 \
		make -C "$out/asan" -j"$jobs" --no-print-directory check \
		TESTS='$(FUZZ_TESTS) $(FAST_TESTS) $(filter-out $(PLAIN_FABRIC_TESTS),$(FABRIC_TESTS))' \
		>/dev/null 2>&1
	tally "$out/asan" asan
	show_failures "$out/asan"
	sanitizer_reports "$out/asan/sanitizer-reports"
fi

step "make distcheck (fast tests)"
check distcheck make -C "$out/normal" --no-print-directory distcheck TESTS='$(FAST_TESTS)' \
	>"$out/distcheck.log" 2>&1 || tail -n 40 "$out/distcheck.log"

step "summary"
for f in "${failed[@]}"; do
	echo "FAILED: $f"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
