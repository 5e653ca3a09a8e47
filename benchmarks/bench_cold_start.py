"""Cold start: ``maestro ask`` on a sign in a new process and a new data directory, against a bare CLI start.

Each repeat runs ``maestro runs list`` and then ``maestro ask sign.png "What is written on the sign?"``, each in a
fresh process with its own new data directory (nothing cached anywhere), and measures wall time, CPU time (user +
system, less sensitive to a loaded machine than wall time) and peak RSS of the child (``os.wait4``). Prints the
medians and the ratios ask / runs list; the issue's bar is ask ≤ 3× runs list, with a peak ≤ 400 MiB.

    python -m benchmarks.bench_cold_start [--repeat 5] [--repo DIR]

``--repo`` runs another checkout's CLI (for a before/after comparison) with this interpreter.
Exits 1 when the ask's answer is not the sign's text.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Sample:
    wall_s: float
    cpu_s: float
    peak_mib: float
    output: str


def run_once(repo: Path, args: list[str]) -> Sample:
    """Run ``python -m ui.cli ARGS`` in ``repo``; the child's wall time, CPU time and peak RSS."""
    with tempfile.TemporaryDirectory(prefix="maestro-cold-") as data:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ui.cli", *args, "--data-dir", data], cwd=repo,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "PYTHONPATH": str(repo)})
        assert proc.stdout is not None
        output = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {proc.returncode}:\n{output[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=REPO)
    args = parser.parse_args()
    sign = args.repo / "assets" / "examples" / "sign.png"
    bare: list[Sample] = []
    ask: list[Sample] = []
    for _ in range(args.repeat):  # interleaved, so a burst of load on the machine hits both alike
        bare.append(run_once(args.repo, ["runs", "list"]))
        ask.append(run_once(args.repo, ["ask", str(sign), "What is written on the sign?"]))
    if not all("MAIN STREET" in s.output for s in ask):
        print("the ask did not read the sign:\n" + ask[-1].output[-1500:])
        sys.exit(1)

    def med(samples: list[Sample], field: str) -> float:
        return statistics.median(getattr(s, field) for s in samples)

    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs); {args.repeat} repeats, medians")
    print(f"{'command':<12} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, samples in (("runs list", bare), ("ask (sign)", ask)):
        print(f"{name:<12} {med(samples, 'wall_s'):8.2f} {med(samples, 'cpu_s'):8.2f} {med(samples, 'peak_mib'):9.0f}")
    print(f"ratio ask / runs list: wall {med(ask, 'wall_s') / med(bare, 'wall_s'):.2f}x, "
          f"CPU {med(ask, 'cpu_s') / med(bare, 'cpu_s'):.2f}x (bar: 3x); ask peak {max(s.peak_mib for s in ask):.0f} MiB "
          "(bar: 400 MiB)")


if __name__ == "__main__":
    main()
