"""``maestro rate`` and ``maestro users`` as real subprocesses on a real data directory: ratings land in the same
table the web UI writes (one live rating per annotator; rating again replaces it), bulk JSONL files are all or
nothing with the bad line named, undo takes back the last rating, two CLI-rated runs export as two SFT rows, and
accounts are stored as Argon2id hashes that verify."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from storage import open_store
from tests.test_cli import REPO
from ui.accounts import Accounts

pytestmark = pytest.mark.slow

EXAMPLES = REPO / "assets" / "examples"


def maestro(*args: str, home: Path, stdin: str | None = None, rater: str = "shell-user") \
        -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAESTRO_HOME": str(home), "MAESTRO_RATER": rater, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300, input=stdin)


def test_rate_one_run_then_again_replaces_it(runs: tuple[Path, list[str]]) -> None:
    home, (sign, shapes) = runs
    out = maestro("rate", sign, "--verdict", "incorrect", "--correction", "MAIN ST", "--rater", "ann", home=home)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"saved incorrect for run {sign} by ann"
    out = maestro("rate", sign[:8], "--verdict", "correct", "--rater", "ann", "--json", home=home)
    payload = json.loads(out.stdout)
    assert (payload["run_id"], payload["verdict"], payload["replaced"]) == (sign, "correct", True)
    out = maestro("rate", shapes, "--verdict", "correct", "--step", "0", home=home)
    assert out.stdout.strip() == f"saved correct for step 0 of run {shapes} by shell-user", out.stderr
    with open_store(home) as store:
        assert [(r.rater, r.verdict, r.corrected_answer) for r in store.ratings_for(sign)] == [
            ("ann", "correct", None)]
        assert [v.corrected_answer for v in store.rating_history(sign)] == ["MAIN ST"]
        assert [(r.rater, r.step_index) for r in store.ratings_for(shapes)] == [("shell-user", 0)]
    for bad, message in ((["--verdict", "great"], "verdict must be one of"),
                         (["--verdict", "correct", "--step", "9"], "has no step 9"),
                         ([], "--verdict is required")):
        out = maestro("rate", sign, *bad, home=home)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1
    out = maestro("rate", "feedbeef" * 4, "--verdict", "correct", home=home)
    assert out.returncode == 2 and "no run 'feedbeef" in out.stderr


def test_bulk_file_is_all_or_nothing_and_undo(runs: tuple[Path, list[str]], tmp_path: Path) -> None:
    home, (sign, shapes) = runs
    lines = [{"run_id": sign, "verdict": "correct", "rater": "bulk"},
             {"run_id": shapes, "verdict": "incorrect", "correction": "5", "rater": "bulk"},
             {"run_id": shapes, "verdict": "sideways", "rater": "bulk"}]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    out = maestro("rate", "--from", str(bad), home=home)
    assert out.returncode == 2 and f"{bad} line 3: verdict must be one of" in out.stderr
    with open_store(home) as store:
        assert store.count_ratings("bulk") == 0, "nothing is written when one line is bad"
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps(x) for x in lines[:2]) + "\n\n", encoding="utf-8")
    out = maestro("rate", "--from", str(good), home=home)
    assert out.returncode == 0 and out.stdout.strip() == "saved 2 ratings (0 replaced earlier ones)", out.stderr
    out = maestro("rate", "--undo", "--rater", "bulk", home=home)
    assert out.stdout.strip() == f"undid bulk's incorrect rating of run {shapes}; the run is unrated by them again"
    with open_store(home) as store:
        assert [(r.run_id, r.verdict) for r in store.recent_ratings(rater="bulk")] == [(sign, "correct")]
    typo = tmp_path / "typo.jsonl"
    typo.write_text(json.dumps({"run_id": sign, "verdcit": "correct"}) + "\n", encoding="utf-8")
    out = maestro("rate", "--from", str(typo), home=home)
    assert out.returncode == 2 and "unknown key(s) verdcit" in out.stderr


def test_two_runs_rated_from_the_cli_export_as_two_sft_rows(runs: tuple[Path, list[str]], tmp_path: Path) -> None:
    home, (sign, shapes) = runs
    for run_id in (sign, shapes):
        assert maestro("rate", run_id, "--verdict", "correct", "--rater", "exporter", home=home).returncode == 0
    out = maestro("export", "--out", str(tmp_path / "export"), "--format", "sft", home=home)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "export" / "sft.jsonl").read_text().splitlines()]
    assert sorted(r["run_id"] for r in rows) == sorted([sign, shapes])


def test_users_add_list_remove_with_hashed_passwords(tmp_path: Path) -> None:
    out = maestro("users", "add", "alice", "--password-stdin", home=tmp_path, stdin="correct horse\n")
    assert out.returncode == 0 and out.stdout.startswith("added alice"), out.stderr
    users = tmp_path / "users.txt"
    text = users.read_text()
    assert "correct horse" not in text and "alice:annotator:$argon2id$" in text
    assert stat.S_IMODE(users.stat().st_mode) == 0o600
    maestro("users", "add", "bob", "--password-stdin", home=tmp_path, stdin="battery staple\n")
    assert maestro("users", "list", home=tmp_path).stdout.split() == ["alice", "annotator", "bob", "annotator"]
    out = maestro("users", "role", "bob", "admin", home=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "bob: annotator -> admin", out.stderr
    assert maestro("users", "role", "bob", "boss", home=tmp_path).stderr.startswith("error: role must be one of")
    assert maestro("users", "role", "nobody", "admin", home=tmp_path).returncode == 2
    out = maestro("users", "add", "carol", "--role", "reviewer", "--password-stdin", home=tmp_path,
                  stdin="carol password\n")
    assert out.returncode == 0 and "added carol (reviewer)" in out.stdout, out.stderr
    assert "bob:admin:$argon2id$" in users.read_text()
    accounts = Accounts.of(tmp_path)
    assert accounts.verify("alice", "correct horse") and not accounts.verify("alice", "battery staple")
    assert not accounts.verify("mallory", "correct horse")
    out = maestro("users", "add", "eve", "--password-stdin", home=tmp_path, stdin="short\n")
    assert out.returncode == 2 and "at least 8 characters" in out.stderr
    out = maestro("users", "add", "bad name!", "--password-stdin", home=tmp_path, stdin="long enough\n")
    assert out.returncode == 2 and "user names are" in out.stderr
    assert maestro("users", "remove", "bob", home=tmp_path).stdout.strip() == "removed bob"
    assert maestro("users", "list", home=tmp_path).stdout.split() == ["alice", "annotator", "carol", "reviewer"]
