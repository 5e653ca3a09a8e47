"""The `maestro` command, run as a real subprocess: ask, runs list/show, eval (on SQLite and on PostgreSQL through
``MAESTRO_DB``), and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

REPO = Path(__file__).resolve().parent.parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def maestro(*args: str, home: Path, check: bool = True, db: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAESTRO_HOME": str(home), "COLUMNS": "200"}
    env.pop("MAESTRO_DB", None)
    if db:
        env["MAESTRO_DB"] = db
    result = subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def sign(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("img") / "sign.png"
    image = Image.new("RGB", (520, 220), (245, 245, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((8, 8, 512, 212), outline=(200, 30, 30), width=10)
    draw.text((45, 75), "NO PARKING", fill=(15, 15, 15), font=ImageFont.truetype(FONT, 60))
    image.save(path)
    return path


@pytest.mark.slow
def test_ask_answers_a_sign_offline_and_the_run_is_stored(sign: Path, tmp_path: Path) -> None:
    out = maestro("ask", str(sign), "What is written on the sign?", "--json", home=tmp_path)
    payload = json.loads(out.stdout)
    assert payload["status"] == "done" and payload["answer"] == "NO PARKING"
    search = payload["steps"][0]
    assert (search["kind"], search["model"], search["skill"], search["level2"]) == \
        ("search", "Tools", "OCR", "Text Recognition")
    assert {"index", "observation", "latency_ms", "tool_ms", "expert_ms", "query"} <= set(search)
    assert "NO PARKING" in search["observation"]
    assert payload["steps"][-1]["kind"] == "answer"
    assert (tmp_path / "maestro.db").exists()

    shown = maestro("runs", "show", payload["run_id"], home=tmp_path).stdout
    assert "Tools@@OCR" in shown and "NO PARKING" in shown and "ocr.read_text" in shown
    listed = maestro("runs", "list", "--json", home=tmp_path).stdout
    assert json.loads(listed)[0]["id"] == payload["run_id"]


@pytest.mark.slow
def test_the_readable_trace_shows_the_pair_the_tool_and_the_answer(sign: Path, tmp_path: Path) -> None:
    out = maestro("ask", str(sign), "What is written on the sign?", "--max-turns", "2", home=tmp_path).stdout
    assert "Tools@@OCR" in out and "tool ocr.read_text" in out and "Answer: NO PARKING" in out


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda d: ["ask", str(d / "missing.png"), "What?"], "error: image not found"),
        (lambda d: ["ask", str(d / "notes.txt"), "What?"], "error: not an image"),
        (lambda d: ["ask", str(d / "blank.png"), "   "], "error: empty question"),
        (lambda d: ["ask", str(d / "blank.png"), "What?", "--registry", str(d / "bad.yaml")], "bad.yaml: experts"),
        (lambda d: ["runs", "show", "does-not-exist"], "error: no run 'does-not-exist'"),
        (lambda d: ["eval", str(d / "none.jsonl"), "--out", str(d / "out")], "dataset file not found"),
        (lambda d: ["runs", "list", "--data-dir", str(d / "notes.txt")], "is a file, not a directory"),
        (lambda d: ["runs", "list", "--data-dir", str(d / "corrupt")], "file is not a database"),
        (lambda d: ["web", "--port", "99999", "--data-dir", str(d / "web")], "--port"),
        (lambda d: ["web", "--port", "http", "--data-dir", str(d / "web")], "--port"),
        (lambda d: ["ask", "--no-such-flag"], "No such option"),
    ],
)
@pytest.mark.slow
def test_errors_are_one_clear_line_and_a_nonzero_exit(tmp_path: Path, make_args, message: str) -> None:
    (tmp_path / "notes.txt").write_text("not an image")
    Image.new("RGB", (8, 8)).save(tmp_path / "blank.png")
    (tmp_path / "bad.yaml").write_text("experts:\n  - name: X\n    backend: quantum\n")
    (tmp_path / "corrupt").mkdir()
    (tmp_path / "corrupt" / "maestro.db").write_bytes(b"this is not SQLite" * 300)
    result = maestro(*make_args(tmp_path), home=tmp_path / "home", check=False)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_eval_stores_every_item_and_writes_results_and_summary(sign: Path, tmp_path: Path, blindtest_dir: Path,
                                                               db_url: str | None) -> None:
    shutil.copy(sign, tmp_path / "sign.png")
    items = [{"id": "sign", "image": "sign.png", "question": "What is written on the sign?",
              "answer": "NO PARKING", "category": "ocr"}]
    blind = [json.loads(line) for line in (blindtest_dir / "items.jsonl").read_text().splitlines()]
    for item in blind[:: len(blind) // 3][:3]:
        item["image"] = str(blindtest_dir / item["image"])
        items.append(item)
    dataset = tmp_path / "set.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in items))

    maestro("eval", str(dataset), "--out", str(tmp_path / "out"), "--concurrency", "2", home=tmp_path / "home",
            db=db_url)
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [i["id"] for i in items]
    assert rows[0]["correct"] is True and rows[0]["answer"] == "NO PARKING"
    assert all(r["run_id"] for r in rows)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["items"] == 4 and summary["per_category"]["ocr"] == {
        "n": 1, "answered": 1, "correct": 1, "coverage": 1.0, "precision": 1.0, "accuracy": 1.0}
    assert all(r["status"] in ("done", "abstained") for r in rows)
    assert all((r["answer"] is None) == (r["status"] != "done") for r in rows)
    assert all(r["reason"] for r in rows if r["status"] != "done")
    assert summary["latency_ms"]["p50"] > 0
    listed = json.loads(maestro("runs", "list", "--json", "--limit", "10", home=tmp_path / "home", db=db_url).stdout)
    assert sorted(r["id"] for r in listed) == sorted(r["run_id"] for r in rows)
    assert (tmp_path / "home" / "maestro.db").exists() == (db_url is None)  # PostgreSQL: nothing in SQLite


def app_py(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAESTRO_HOME": str(home)}
    env.pop("MAESTRO_DB", None)
    return subprocess.run([sys.executable, "app.py", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
def test_app_py_start_up_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "corrupt").mkdir()
    (tmp_path / "corrupt" / "maestro.db").write_bytes(b"\x00garbage" * 500)
    with socket.socket() as taken:  # a port something else already listens on
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = str(taken.getsockname()[1])
        cases = {"is a file, not a directory": app_py(home=tmp_path / "a-file"),
                 "file is not a database": app_py(home=tmp_path / "corrupt"),
                 "less than or equal to 65535": app_py("--port", "70000", home=tmp_path / "h1"),
                 busy: app_py("--port", busy, home=tmp_path / "h2")}
    for message, result in cases.items():
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2, result.stderr
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr, result.stderr


@pytest.mark.slow
def test_stored_text_cannot_drive_the_terminal(tmp_path: Path) -> None:
    """A question or answer holding escape sequences (clear screen, a forged hyperlink, a bidi override, a carriage
    return that overwrites the line) is printed with those characters made visible, never sent raw."""
    from agents.config import Settings
    from storage import Step, open_store

    store = open_store(Settings.resolve(data_dir=tmp_path).data_dir)
    image = tmp_path / "x.png"
    Image.new("RGB", (8, 8)).save(image)
    image_id = store.images.put_bytes(image.read_bytes()).id
    hostile = "ok\x1b[2J\x1b]8;;http://evil/\x07link\x1b]8;;\x07\rFAKE \u202eevil"
    run_id = store.create_run(question=hostile, image_id=image_id, policy="keyword", registry_hash="h", config={})
    store.add_step(run_id, Step(index=0, kind="search", model="Tools", skill="OCR", query=hostile,
                                observation=hostile, latency_ms=1.0))
    store.add_step(run_id, Step(index=1, kind="answer", answer=hostile, latency_ms=1.0))
    store.finish_run(run_id, status="done", answer=hostile, latency_ms=2.0)
    for args in (("runs", "list"), ("runs", "show", run_id)):
        out = maestro(*args, home=tmp_path).stdout
        assert not any(c in out for c in "\x1b\x07\r\u202e"), repr(out[:300])
    shown = maestro("runs", "show", run_id, home=tmp_path).stdout
    assert "\\x1b[2J" in shown and "\\u202e" in shown and "\\x0d" in shown
