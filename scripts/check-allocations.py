#!/usr/bin/env python3
"""Checks the hot paths' allocation counts against Benchmarks/Thresholds, from benchmark
executables already built (scripts/bench.sh check-allocations calls it).

    scripts/check-allocations.py BUILD_DIR FILTER

Runs BUILD_DIR/castsim-core-benchmarks and BUILD_DIR/castsim-benchmarks with FILTER (the
hot paths' regular expression) and reads each benchmark's "Malloc (total)" histogram from their own
report (a benchmark executable run on its own measures and prints every metric). Its
p90 must be within Tolerance.allocations (Benchmarks/Support: 25 %) of the threshold in
Benchmarks/Thresholds/TARGET.NAME.p90.json, both ways, as `swift package benchmark
thresholds check` has it: a count that fell that far means the thresholds are to be
updated (scripts/bench.sh update), or it would hide the next regression.

Why not package-benchmark's own check: its plugin builds the benchmarks again without
-enable-testing (our modules and theirs compiled a second time in release, 3 to 4
CPU-minutes) and its BenchmarkTool from source, for figures these executables print in
7 seconds. Allocation counts are exact run to run, so the counting is all there is.

Exits non-zero, saying which, on a count out of bounds, a threshold with no figure, or
a hot path with no threshold.
"""
import json
import os
import re
import subprocess
import sys

TARGETS = ["castsim-core-benchmarks", "castsim-benchmarks"]
TOLERANCE = 0.25
THRESHOLDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "Thresholds")


def p90_allocations(report):
    """{benchmark: p90 of Malloc (total)} from a benchmark executable's own report."""
    figures = {}
    for section in re.split(r"^Debug results for ", report, flags=re.M)[1:]:
        name = section.split(":", 1)[0].strip()
        block = re.search(r"^Malloc \(total\):\n(.*?)^#\[Mean", section, flags=re.M | re.S)
        if not block:
            continue
        rows = [line.split() for line in block.group(1).splitlines()]
        rows = [(float(r[0]), float(r[1])) for r in rows if len(r) >= 2 and re.match(r"^[0-9.]+$", r[0])]
        if rows:
            # The value at the first percentile at or past 0.9 (the histogram's last row is 1.0).
            figures[name] = next(value for value, percentile in rows if percentile >= 0.9)
    return figures


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, hot = sys.argv[1], sys.argv[2]
    problems, checked = [], 0
    for target in TARGETS:
        binary = os.path.join(build, target)
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary}: not built (swift build -c release --build-tests)")
        run = subprocess.run([binary, "--filter", hot], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{target} exited {run.returncode}:\n{run.stdout[-4000:]}{run.stderr[-4000:]}")
        figures = p90_allocations(run.stdout)
        expected = {}
        for file in sorted(os.listdir(THRESHOLDS)):
            if file.startswith(target + ".") and file.endswith(".p90.json"):
                name = file[len(target) + 1:-len(".p90.json")]
                with open(os.path.join(THRESHOLDS, file)) as handle:
                    expected[name] = json.load(handle)["mallocCountTotal"]
        for name in sorted(set(figures) | set(expected)):
            if name not in expected:
                problems.append(f"{target} {name}: no threshold (scripts/bench.sh update writes it)")
            elif name not in figures:
                problems.append(f"{target} {name}: the run printed no allocation count for it")
            else:
                checked += 1
                count, threshold = figures[name], expected[name]
                verdict = "ok"
                if count > threshold * (1 + TOLERANCE):
                    verdict = "MORE than the threshold allows"
                elif count < threshold * (1 - TOLERANCE):
                    verdict = "fewer: update the threshold (scripts/bench.sh update)"
                print(f"{target:26} {name:42} {count:>9.0f} allocations, threshold {threshold:>9} (±{TOLERANCE:.0%}): {verdict}")
                if verdict != "ok":
                    problems.append(f"{target} {name}: {count:.0f} allocations against {threshold}: {verdict}")
    if problems:
        print("\n".join(["", "allocation check failed:"] + problems), file=sys.stderr)
        sys.exit(1)
    print(f"{checked} hot paths within their allocation thresholds")


if __name__ == "__main__":
    main()
