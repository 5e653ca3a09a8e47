"""Start-up cost of the code sandbox: wall time per run of a trivial program, sandboxed vs plain ``python -I``.

Run from the repository root: ``python -m benchmarks.bench_sandbox [--n 40]``. Each round runs ``print(1)``
three ways, interleaved so machine noise hits all alike: plain ``python -I -c`` (the floor: one interpreter
start), ``run_python`` with every layer (bubblewrap view and namespaces, seccomp, Landlock, cgroup, limits, audit
hook), and ``run_python`` with ``numpy`` imported (what a typical analysis program pays). Prints p50/p95 in ms and
the overhead of the sandbox over plain Python.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from sandbox import run_python


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def _plain() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", "print(1)"], check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def _sandboxed(code: str) -> float:
    started = time.perf_counter()
    result = run_python(code)
    if not result.ok:
        raise SystemExit(f"the sandbox failed the benchmark program: {result.stderr.strip()[-300:]}")
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="rounds (each runs every variant once)")
    args = parser.parse_args()
    timings: dict[str, list[float]] = {"plain python -I": [], "sandbox": [], "sandbox + numpy": []}
    _sandboxed("print(1)")  # first call compiles the seccomp filter and probes bubblewrap once
    for _ in range(args.n):
        timings["plain python -I"].append(_plain())
        timings["sandbox"].append(_sandboxed("print(1)"))
        timings["sandbox + numpy"].append(_sandboxed("import numpy\nprint(1)"))
    print(f"{'variant':18} {'p50 ms':>8} {'p95 ms':>8}   (n={args.n})")
    for name, values in timings.items():
        print(f"{name:18} {statistics.median(values):8.1f} {percentile(values, 95):8.1f}")
    plain, boxed = timings["plain python -I"], timings["sandbox"]
    print(f"sandbox overhead: p50 {statistics.median(boxed) - statistics.median(plain):+.1f} ms, "
          f"p95 {percentile(boxed, 95) - percentile(plain, 95):+.1f} ms per run")


if __name__ == "__main__":
    main()
