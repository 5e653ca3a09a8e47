"""Untrusted Python runs in a locked-down child: it computes, but cannot reach the network, a shell or our files."""

from __future__ import annotations

import os

import pytest

from skills.sandbox import run_python


def test_plain_code_runs_and_its_output_is_captured() -> None:
    result = run_python("import math\nprint(sum(i * i for i in range(10)), round(math.pi, 3))")
    assert result.ok and result.stdout == "285 3.142\n"


def test_files_inside_its_own_working_directory_are_allowed() -> None:
    result = run_python("open('notes.txt', 'w').write('kept'); print(open('notes.txt').read())")
    assert result.ok and result.stdout.strip() == "kept"


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "importing socket is not allowed"),
        ("import subprocess\nsubprocess.run(['id'])", "is not allowed"),
        ("import os\nos.system('touch /tmp/pwned')", "os.system is not allowed"),
        ("open('/etc/passwd').read()", "access to '/etc/passwd' is not allowed"),
        ("open('/tmp/escape.txt', 'w').write('x')", "is not allowed"),
        ("import ctypes", "importing ctypes is not allowed"),
        ("import os\nos.remove('/tmp')", "outside the working directory"),
    ],
)
def test_escapes_are_refused_with_a_clear_error(code: str, refusal: str) -> None:
    result = run_python(code)
    assert not result.ok
    assert refusal in result.stderr


def test_the_data_directory_is_invisible(data_dir) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "maestro.db").write_bytes(b"secret")
    result = run_python(f"print(open({str(data_dir / 'maestro.db')!r}, 'rb').read())")
    assert not result.ok and "secret" not in result.stdout
    assert "MAESTRO_HOME" not in run_python("import os; print(sorted(os.environ))").stdout
    assert "MAESTRO_HOME" in os.environ  # it was there to leak


def test_runaway_code_is_stopped_by_the_time_and_memory_limits() -> None:
    spin = run_python("while True: pass", timeout_s=5, cpu_s=1)
    assert spin.timed_out and not spin.ok
    hog = run_python("x = bytearray(3 * 1024 ** 3)\nprint('allocated')", memory_mb=256)
    assert not hog.ok and "allocated" not in hog.stdout and "MemoryError" in hog.stderr
    sleeper = run_python("import time\ntime.sleep(30)", timeout_s=1)
    assert sleeper.timed_out and not sleeper.ok


def test_output_is_bounded() -> None:
    result = run_python("print('x' * 100000)", max_output=1000)
    assert result.ok and len(result.stdout) < 1100 and "more characters cut" in result.stdout
