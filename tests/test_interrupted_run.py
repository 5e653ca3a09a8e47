"""A process killed mid-run leaves the run `interrupted` with its finished steps, seen by the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from storage import open_store

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent("""
    import sys
    from PIL import Image
    from agents.config import Settings
    from agents.policies.base import ScriptedPolicy
    from agents.runtime import Maestro

    policy = ScriptedPolicy([
        "<think>first a quick call</think><search>Tools@@Echo: repeat hello</search>",
        "<think>now a slow one</think><search>Tools@@Sleepy: 120</search>",
        "<think>never reached</think><answer>x</answer>",
    ])
    maestro = Maestro.open(Settings.resolve(data_dir=sys.argv[1], registry_path=sys.argv[2]), policy=policy)
    maestro.ask(Image.new("RGB", (32, 32), "white"), "what happens if I die?")
""")


@pytest.mark.slow
def test_killing_a_run_mid_way_leaves_it_interrupted_with_its_finished_steps(tmp_path: Path) -> None:
    data_dir = tmp_path / "home"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir), str(FIXTURES / "registry_echo.yaml")],
                             env=env, cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (data_dir / "maestro.db").exists():
                runs = open_store(data_dir).list_runs(limit=5)
                if runs and (record := open_store(data_dir).get_run(runs[0].id)) and len(record.steps) >= 1:
                    break
            assert child.poll() is None, "the child exited before it could be killed"
            time.sleep(0.2)
        else:
            pytest.fail("the first step never reached the database")
        assert open_store(data_dir).get_run(runs[0].id).status == "running"  # alive: not marked
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()

    store = open_store(data_dir)  # "the next start"
    record = store.get_run(runs[0].id)
    assert record.status == "interrupted"
    assert [(s.kind, s.skill, s.observation) for s in record.steps] == [("search", "Echo", "32x32 repeat hello")]
    assert record.question == "what happens if I die?"
