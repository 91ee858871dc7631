#!/usr/bin/env bash
# bench/fuzz.sh: runs every fuzz target of the module, coverage-guided,
# for a while each, and prints its executions and new inputs. `go test`
# alone runs only the seed corpora (what CI does); this is the search.
#
# The fuzzer minimizes each input that finds new coverage before it goes
# on, for up to -fuzzminimizetime each (60 s by default). On inputs of tens
# of kilobytes that was all it did (0 execs/s after the seeds), so the
# minimization is capped here and the seeds of the file parsers are small.
#
# usage: bench/fuzz.sh [TIME [PATTERN]]   (default 20s a target, all)
# Exit status 1 when a target fails; its input is under the package's
# testdata/fuzz/ (commit it as a regression seed once fixed).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-20s}
pattern=${2:-.}
status=0
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for fn in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		[[ $fn =~ $pattern ]] || continue
		out=$(go test "$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$time" -fuzzminimizetime 5s 2>&1) || {
			status=1
			echo "FAIL $pkg $fn"
			echo "$out" | grep -v '^fuzz: elapsed' | head -20
			continue
		}
		last=$(echo "$out" | grep '^fuzz: elapsed' | tail -1 | sed 's/^fuzz: elapsed: [0-9a-z]*, //')
		printf '%-45s %-22s %s\n' "${pkg#github.com/citune/citune/}" "$fn" "$last"
	done
done
exit $status
