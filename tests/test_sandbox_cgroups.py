"""The run's cgroup: one run holds at most its memory and CPU in total however many processes it starts, the
cgroups a killed app leaves are swept by the next start (and nothing else is), and a machine without a memory
controller fits processes x address space into the budget and says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import sandbox
from sandbox import cgroups, launch
from sandbox.launch import Budget

REPO = Path(__file__).resolve().parent.parent
found = cgroups.layout()
needs = pytest.mark.skipif(bool(sandbox._missing_prerequisites()), reason="strict sandbox unavailable")
needs_memory = pytest.mark.skipif(not found.has("memory"), reason=f"no memory cgroup: {found.problems}")
needs_cpu = pytest.mark.skipif(not found.has("cpuacct"), reason=f"no cpu accounting cgroup: {found.problems}")

# Four processes each touch 200 MiB: 800 MiB in all, each well under the per-process address-space limit.
MANY_HOLDERS = """
import os, time
for _ in range(3):
    if os.fork() == 0:
        break
block = bytearray(200 * 2**20)
for offset in range(0, len(block), 4096):
    block[offset] = 1
time.sleep(3)
print("held")
"""
MANY_SPINNERS = "import os\nfor _ in range(7):\n    if os.fork() == 0:\n        break\nwhile True:\n    pass\n"


@needs
@needs_memory
@pytest.mark.slow
def test_a_run_holds_at_most_its_memory_in_total_however_many_processes() -> None:
    result = sandbox.run_python(MANY_HOLDERS, memory_mb=256, timeout_s=30, audit_hook=False)
    assert not result.ok and "held" not in result.stdout
    assert result.stopped_by and result.stopped_by.startswith("memory limit")
    assert result.peak_memory_mb is not None and result.peak_memory_mb <= 256


@needs
@needs_cpu
@pytest.mark.slow
def test_the_cpu_budget_counts_every_process_of_the_run() -> None:
    result = sandbox.run_python(MANY_SPINNERS, cpu_s=1, timeout_s=60, audit_hook=False)
    assert result.stopped_by and result.stopped_by.startswith("CPU time limit") and result.timed_out
    # Eight spinners, one second in total: the monitor looks every 0.1 s, at most one core's worth between looks.
    assert result.cpu_s is not None and 1 <= result.cpu_s <= 1.5


def _run_dirs(owner: int) -> list[Path]:
    return [entry for parent in found.parents.values() for entry in parent.glob(f"run-*-{owner}-*")]


@needs
@pytest.mark.skipif(not found.parents, reason="no cgroup controller usable")
def test_what_a_killed_app_left_is_swept_by_the_next_start() -> None:
    app = subprocess.Popen([sys.executable, "-c", "import sandbox\nsandbox.run_python('import time\\n"
                            "time.sleep(120)', timeout_s=120)"], cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while not _run_dirs(app.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _run_dirs(app.pid)
        assert left, "the app never made its run's cgroup"
        time.sleep(0.5)  # the program is inside it now
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait()
    left += list(Path(tempfile.gettempdir()).glob(f"maestro-sandbox-ws-*-{app.pid}-*"))  # its noexec mount point
    # Nothing else removes them (the app died before its own clean-up); another program on the machine that uses
    # the sandbox may sweep them first, which is the behaviour under test as well.
    started = subprocess.run([sys.executable, "-c", "import sandbox\nprint(sandbox.run_python('print(1)').stdout)"],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert started.stdout.strip() == "1", started.stderr
    assert not any(path.exists() for path in left)


@pytest.mark.skipif(not found.parents, reason="no cgroup controller usable")
def test_the_sweep_leaves_live_owners_other_namespaces_and_other_names_alone() -> None:
    gone = subprocess.Popen(["true"])
    gone_started = cgroups._start_time(gone.pid) or 1
    gone.wait()
    namespace, me = cgroups._pid_namespace(), os.getpid()
    names = {"dead": f"run-{namespace}-{gone.pid}-{gone_started}-aa", "mine": f"run-{namespace}-{me}-"
             f"{cgroups._start_time(me)}-bb", "other namespace": f"run-{namespace + 1}-{gone.pid}-1-cc",
             "not ours": "someone-elses"}
    parent = next(iter(found.parents.values()))
    made = {key: parent / name for key, name in names.items()}
    for path in made.values():
        path.mkdir()
    try:
        removed = cgroups.sweep()
        assert str(made["dead"]) in removed and not made["dead"].exists()
        assert all(made[key].exists() for key in ("mine", "other namespace", "not ours"))
    finally:
        for path in made.values():
            if path.exists():
                path.rmdir()


def test_without_a_memory_controller_processes_times_address_space_fit_the_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for memory_mb in (64, 128, 512, 1000, 4096, 100_000):
        fitted = Budget(cpu_s=5, memory_mb=memory_mb, timeout_s=10, max_output=0).fit(False)
        assert fitted.processes * fitted.process_memory_mb <= max(memory_mb, launch.PROCESS_FLOOR_MB)
        assert 1 <= fitted.processes <= launch.MAX_PROCESSES and not fitted.memory_cgroup
    without = cgroups.Layout(found.version, {k: v for k, v in found.parents.items() if k != "memory"},
                             {"memory": "no v1 hierarchy mounted"})
    monkeypatch.setattr(cgroups, "layout", lambda: without)
    monkeypatch.setattr(launch, "layout", lambda: without)
    row = next(row for row in sandbox.machine_report() if row[0] == "memory cgroup")
    assert row[1] is False and "RLIMIT_AS are set to fit memory_mb" in row[2]
    if sandbox._missing_prerequisites():
        return
    result = sandbox.run_python("import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20)",
                                memory_mb=512)
    assert result.ok and result.stdout.strip() == "128"
    assert any("no memory cgroup, so 4 processes x 128 MiB" in p for p in result.protections)
