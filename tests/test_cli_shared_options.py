"""``--data-dir``, ``--registry`` and ``--db`` on every ``maestro`` command and sub-command, as the README promises:
the whole command tree is walked (so a command added later is checked too), then a few commands are run in this
process on a throwaway data directory to see each option honoured where the command has a use for it, and accepted
without harm where it has none."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import typer

from ui.cli import app, main

SHARED = ("--data-dir", "--registry", "--db")
#: Every command the README lists; the walk must find at least these (it would pass vacuously on an empty tree).
KNOWN = {"ask", "eval", "calibrate", "rerun", "diff", "rate", "export", "registry", "web", "doctor", "prompt",
         "serve-experts", "runs list", "runs show", "handbook show", "handbook rebuild", "users add", "users role",
         "users list", "users remove", "team assign", "team disagreements", "team adjudicate", "team stats",
         "sandbox run", "sandbox check"}
REGISTRY = """\
experts:
  - name: Lens
    aliases: [Magnifier]
    description: No model; the vision tools answer.
    backend: tools
"""


def leaf_commands(command: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every runnable command under ``command`` by its words on the command line (``"runs list"``)."""
    children = getattr(command, "commands", None)
    if children is None:
        return {" ".join(path): command}
    found: dict[str, Any] = {}
    for name, child in children.items():
        found |= leaf_commands(child, (*path, name))
    return found


def test_every_command_accepts_the_shared_options_once() -> None:
    commands = leaf_commands(typer.main.get_command(app))
    assert not KNOWN - set(commands), f"not found in the app: {sorted(KNOWN - set(commands))}"
    for name, command in commands.items():
        declared = [opt for param in command.params for opt in param.opts]
        for option in SHARED:
            assert declared.count(option) == 1, f"maestro {name}: {option} declared {declared.count(option)} times"


def maestro(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``maestro ARGS`` through the console script's entry point: exit code, stdout, stderr."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capfd.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.fixture
def registry_file(tmp_path: Path) -> Path:
    path = tmp_path / "lens.yaml"
    path.write_text(REGISTRY, encoding="utf-8")
    return path


def test_doctor_and_prompt_take_the_data_options_and_honour_registry(
        tmp_path: Path, registry_file: Path, capfd: pytest.CaptureFixture[str]) -> None:
    home, url = str(tmp_path / "home"), f"sqlite:///{tmp_path / 'other.db'}"
    code, out, err = maestro(capfd, "doctor", "--json", "--data-dir", home, "--db", url, "--registry",
                             str(registry_file))
    assert (code, err) == (0, "")
    assert '"name": "Lens"' in out
    code, out, err = maestro(capfd, "prompt", "--data-dir", home, "--db", url, "--registry", str(registry_file))
    assert code == 0, err
    assert "Lens" in out
    code, out, err = maestro(capfd, "registry", "--data-dir", home, "--db", url, "--registry", str(tmp_path / "no"))
    assert code == 2 and err.count("\n") == 1 and "registry file not found" in err


def test_an_empty_data_dir_is_refused_on_every_command(capfd: pytest.CaptureFixture[str]) -> None:
    for command in (["doctor"], ["prompt"], ["sandbox", "check"], ["users", "list"]):
        code, _, err = maestro(capfd, *command, "--data-dir", "")
        assert code == 2 and err == "error: --data-dir is empty: name a folder (use . for this one)\n", command


def test_sandbox_run_accepts_them(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code, _, err = maestro(capfd, "sandbox", "run", str(tmp_path / "missing.py"), "--data-dir", str(tmp_path),
                           "--registry", str(tmp_path / "r.yaml"), "--db", "sqlite:///x.db")
    assert (code, err) == (2, f"error: file not found: {tmp_path / 'missing.py'}\n")


def test_users_take_db_and_use_the_data_dir(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Accounts live in ``<data dir>/users.txt``, not the database: ``--db`` is accepted and leaves them be."""
    home, url = tmp_path / "home", f"sqlite:///{tmp_path / 'other.db'}"
    monkeypatch.setattr("sys.stdin", io.StringIO("a long enough password\n"))
    code, _, err = maestro(capfd, "users", "add", "ann", "--password-stdin", "--role", "reviewer",
                           "--data-dir", str(home), "--db", url, "--registry", "unused.yaml")
    assert code == 0, err
    code, out, err = maestro(capfd, "users", "list", "--db", url, "--data-dir", str(home))
    assert (code, out, err) == (0, "ann\treviewer\n", "")
    assert (home / "users.txt").is_file()


def test_handbook_show_uses_the_db_and_the_registry(tmp_path: Path, registry_file: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    from storage import open_store
    from storage.handbook import HandbookEntry

    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    with open_store(tmp_path / "unused", url) as store, store.transaction() as session:
        session.add(HandbookEntry(expert="Lens", skill="Chart", level2="Bar", alpha=3.0, beta=1.0, runs=2, calls=2,
                                  latency_ms=5.0, tokens=0.0, money=0.0))
    home = str(tmp_path / "home")
    code, out, err = maestro(capfd, "handbook", "show", "--json", "--data-dir", home)
    assert (code, out.strip(), err) == (0, "[]", "")  # the data directory's own database: empty
    code, out, err = maestro(capfd, "handbook", "show", "--json", "--data-dir", home, "--db", url)
    assert code == 0 and '"expert": "Lens"' in out, err
    # An alias means the expert only in the registry that declares it.
    code, out, err = maestro(capfd, "handbook", "show", "--json", "--data-dir", home, "--db", url,
                             "--expert", "Magnifier")
    assert (code, out.strip()) == (0, "[]"), err
    code, out, err = maestro(capfd, "handbook", "show", "--json", "--data-dir", home, "--db", url,
                             "--expert", "Magnifier", "--skill", "ChartQA", "--registry", str(registry_file))
    assert code == 0 and '"expert": "Lens"' in out, err

