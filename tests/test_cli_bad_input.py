"""A long list of bad inputs to every ``maestro`` command: each gets exit code 2, exactly one line on stderr (the
error, control characters made visible) and never a traceback. Missing files, directories, empty files, binary
garbage as an image, registry, dataset or ratings file, huge and tiny dimensions, deeply nested YAML and JSON
(which raised RecursionError), wrong types, unknown options, empty questions and control characters.

The commands run in this process through ``ui.cli.main`` (the console script's entry point, with its exit
codes), so 80 cases take seconds; ``tests/test_cli.py`` runs the real subprocess for a few of the same errors."""

from __future__ import annotations

import io
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from ui.cli import main

DEEP = 100_000
GARBAGE = bytes(range(256)) * 40 + b"\x00\xff\xfe" * 1000


def png_header(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` x ``height`` pixels but holds almost no data."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """Every bad (and the few good) files the cases point at, in one folder."""
    good = png(64, 48)
    made: dict[str, bytes | str] = {
        "empty.png": b"", "garbage.png": GARBAGE, "notes.txt": "just some text\n", "good.png": good,
        "truncated.png": good[: len(good) // 2], "huge.png": png_header(13000, 13000),
        "wide.png": png_header(2_000_000, 2), "one.png": png(1, 1), "eight.png": png(8, 8),
        "line.png": png(30000, 10), "sliver.png": png(4000, 60),
        "empty.yaml": "", "garbage.yaml": GARBAGE, "deep_list.yaml": "[" * DEEP + "]" * DEEP,
        "deep_map.yaml": "experts: " + "{a: " * DEEP + "1" + "}" * DEEP,
        "deep_block.yaml": "".join(f"{'  ' * i}k{i}:\n" for i in range(3000)) + "  " * 3000 + "v\n",
        "list.yaml": "- just\n- a list\n", "wrong_types.yaml": "experts: 5\n",
        "bad_backend.yaml": "experts:\n  - name: X\n    backend: quantum\n",
        "tabs.yaml": "experts:\n\t- name: X\n", "anchors.yaml": "a: &a [1]\nb: *nope\n",
        "empty.jsonl": "", "garbage.jsonl": GARBAGE, "deep.jsonl": "[" * DEEP + "]" * DEEP + "\n",
        "deep_object.jsonl": '{"id": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}\n",
        "deep_value.jsonl": '{"id": "x", "image": "good.png", "question": "q?", "answer": '
                            + "[" * 900 + "]" * 900 + "}\n",
        "list_line.jsonl": "[1, 2, 3]\n",
        "one.jsonl": '{"id": "a", "image": "good.png", "question": "What is it?", "answer": "x"}\n', "missing_keys.jsonl": '{"id": "a"}\n',
        "wrong_types.jsonl": '{"run_id": 5, "verdict": ["correct"], "step": "x"}\n',
        "unknown_key.jsonl": '{"run_id": "abc", "verdict": "correct", "hack": 1}\n',
        "nul.jsonl": '{"id": "a\\u0000", "image": "\\u0000", "question": "", "answer": 1}\n',
        "corrupt/maestro.db": b"this is not SQLite" * 300, "badusers/users.txt": b"\xff\xfe" + GARBAGE,
    }
    for name, content in made.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    os.mkfifo(tmp_path / "fifo")  # reading it would block forever
    (tmp_path / "folder").mkdir()
    (tmp_path / "afile").write_text("x")
    return tmp_path


Case = tuple[str, Callable[[Path], list[str]], str]
R = "--registry"
#: ``maestro registry --registry FILE``: (case, file, what the line says).
REGISTRY_FILES = [
    ("registry missing", "nope.yaml", "registry file not found"),
    ("registry is a folder", "folder", "registry file not found"),
    ("registry empty", "empty.yaml", "empty.yaml"),
    ("registry garbage", "garbage.yaml", "garbage.yaml: not a text file"),
    ("registry deep list", "deep_list.yaml", "nested too deeply"),
    ("registry deep map", "deep_map.yaml", "nested too deeply"),
    ("registry deep block", "deep_block.yaml", "deep_block.yaml"),
    ("registry a list", "list.yaml", "top level must be a mapping"),
    ("registry wrong types", "wrong_types.yaml", "wrong_types.yaml: experts"),
    ("registry bad backend", "bad_backend.yaml", "bad_backend.yaml: experts"),
    ("registry tabs", "tabs.yaml", "not valid YAML"),
    ("registry bad alias", "anchors.yaml", "not valid YAML"),
]


def registry_case(label: str, name: str, message: str) -> Case:
    return label, lambda d: ["registry", R, str(d / name)], message


CASES: list[Case] = [
    # ask: images
    ("missing image", lambda d: ["ask", str(d / "missing.png"), "What?"], "image not found"),
    ("image is a folder", lambda d: ["ask", str(d / "folder"), "What?"], "image not found"),
    ("empty image file", lambda d: ["ask", str(d / "empty.png"), "What?"], "empty file"),
    ("garbage image", lambda d: ["ask", str(d / "garbage.png"), "What?"], "not an image"),
    ("text as image", lambda d: ["ask", str(d / "notes.txt"), "What?"], "not an image"),
    ("truncated png", lambda d: ["ask", str(d / "truncated.png"), "What?"], "broken image"),
    ("huge dimensions", lambda d: ["ask", str(d / "huge.png"), "What?"], "image too large"),
    ("huge and thin", lambda d: ["ask", str(d / "wide.png"), "What?"], "image too"),
    ("1x1 image", lambda d: ["ask", str(d / "one.png"), "What?"], "image too small: 1x1"),
    ("8x8 image", lambda d: ["ask", str(d / "eight.png"), "What?"], "image too small: 8x8"),
    ("30000x10 image", lambda d: ["ask", str(d / "line.png"), "What?"], "image too small: 30000x10"),
    ("sliver image", lambda d: ["ask", str(d / "sliver.png"), "What?"], "image too elongated"),
    ("control chars in path", lambda d: ["ask", str(d / "x\x1b[2J\x07.png"), "What?"], "\\x1b[2J"),
    # ask: questions and options
    ("empty question", lambda d: ["ask", str(d / "good.png"), ""], "empty question"),
    ("blank question", lambda d: ["ask", str(d / "good.png"), "  \t "], "empty question"),
    ("control-only question", lambda d: ["ask", str(d / "good.png"), "\x1b\x07\x08\r"], "empty question"),
    ("undecodable question", lambda d: ["ask", str(d / "good.png"), "What \udcff?"], "undecodable bytes"),
    ("undecodable image path", lambda d: ["ask", str(d / "\udcff.png"), "What?"], "image not found"),
    ("image is a FIFO", lambda d: ["ask", str(d / "fifo"), "What?"], "fifo"),
    ("image is /dev/zero", lambda d: ["ask", "/dev/zero", "What?"], "/dev/zero"),
    ("ask with /dev/zero registry", lambda d: ["ask", str(d / "good.png"), "What?", R, "/dev/zero"], "/dev/zero"),
    ("max-turns huge", lambda d: ["ask", str(d / "good.png"), "What?", "--max-turns", "9" * 30], "--max-turns"),
    ("sc nan", lambda d: ["ask", str(d / "good.png"), "What?", "--sc", "nan"], "--sc"),
    ("long question", lambda d: ["ask", str(d / "good.png"), "why " * 1500], "question too long"),
    ("max-turns 0", lambda d: ["ask", str(d / "good.png"), "What?", "--max-turns", "0"], "--max-turns"),
    ("max-turns word", lambda d: ["ask", str(d / "good.png"), "What?", "--max-turns", "many"], "--max-turns"),
    ("sc 0", lambda d: ["ask", str(d / "good.png"), "What?", "--sc", "0"], "--sc"),
    ("unknown option", lambda d: ["ask", "--no-such-flag"], "No such option"),
    ("missing question", lambda d: ["ask", str(d / "good.png")], "Missing argument"),
    ("unknown command", lambda d: ["frobnicate"], "No such command"),
    # registries
    *(registry_case(*row) for row in REGISTRY_FILES),
    ("ask with deep registry", lambda d: ["ask", str(d / "good.png"), "What?", R, str(d / "deep_list.yaml")],
     "nested too deeply"),
    ("prompt with garbage registry", lambda d: ["prompt", R, str(d / "garbage.yaml")], "garbage.yaml"),
    ("doctor with deep registry", lambda d: ["doctor", R, str(d / "deep_map.yaml")], "nested too deeply"),
    # data directories and databases
    ("data dir is a file", lambda d: ["runs", "list", "--data-dir", str(d / "afile")], "is a file"),
    ("corrupt database", lambda d: ["runs", "list", "--data-dir", str(d / "corrupt")], "file is not a database"),
    ("data dir read-only", lambda d: ["runs", "list", "--data-dir", "/proc/maestro"], "cannot create data directory"),
    ("sqlite db in a folder", lambda d: ["runs", "list", "--db", f"sqlite:///{d / 'folder'}"], "unable to open"),
    ("postgres refused", lambda d: ["runs", "list", "--db", "postgresql://u:secret@127.0.0.1:1/x"], "u:***@"),
    ("sandbox run a FIFO", lambda d: ["sandbox", "run", str(d / "fifo")], "file not found"),
    ("empty data dir", lambda d: ["runs", "list", "--data-dir", ""], "--data-dir is empty"),
    ("empty data dir with =", lambda d: ["runs", "list", "--data-dir="], "--data-dir is empty"),
    ("eval empty out", lambda d: ["eval", str(d / "one.jsonl"), "--out", " "], "--out is empty"),
    ("db not a url", lambda d: ["runs", "list", "--db", "not a url"], "malformed URL"),
    ("db unknown dialect", lambda d: ["runs", "list", "--db", "nosuchdb://x/y"], "nosuchdb"),
    # eval datasets
    ("dataset missing", lambda d: ["eval", str(d / "none.jsonl"), "--out", str(d / "o")], "dataset file not found"),
    ("dataset is a folder", lambda d: ["eval", str(d / "folder"), "--out", str(d / "o")], "dataset file not found"),
    ("dataset is a FIFO", lambda d: ["eval", str(d / "fifo"), "--out", str(d / "o")], "dataset file not found"),
    ("eval out read-only", lambda d: ["eval", str(d / "one.jsonl"), "--out", "/proc/maestro-out"], "/proc/maestro-out"),
    ("dataset empty", lambda d: ["eval", str(d / "empty.jsonl"), "--out", str(d / "o")], "empty.jsonl: no items"),
    ("dataset garbage", lambda d: ["eval", str(d / "garbage.jsonl"), "--out", str(d / "o")],
     "garbage.jsonl: not a text file"),
    ("dataset deep list", lambda d: ["eval", str(d / "deep.jsonl"), "--out", str(d / "o")], "nested too deeply"),
    ("dataset deep object", lambda d: ["eval", str(d / "deep_object.jsonl"), "--out", str(d / "o")],
     "nested too deeply"),
    ("dataset deep value", lambda d: ["eval", str(d / "deep_value.jsonl"), "--out", str(d / "o")],
     "answer must be str or int or float, not list"),
    ("dataset line a list", lambda d: ["eval", str(d / "list_line.jsonl"), "--out", str(d / "o")],
     "each line needs id"),
    ("dataset missing keys", lambda d: ["eval", str(d / "missing_keys.jsonl"), "--out", str(d / "o")],
     "each line needs id"),
    ("dataset nul bytes", lambda d: ["eval", str(d / "nul.jsonl"), "--out", str(d / "o")], "nul.jsonl:1"),
    ("eval out is a file", lambda d: ["eval", str(d / "one.jsonl"), "--out", str(d / "afile")], "afile"),
    ("eval concurrency 0", lambda d: ["eval", str(d / "x.jsonl"), "--out", str(d / "o"), "--concurrency", "0"],
     "--concurrency"),
    ("eval limit -1", lambda d: ["eval", str(d / "x.jsonl"), "--out", str(d / "o"), "--limit", "-1"], "--limit"),
    ("eval no --out", lambda d: ["eval", str(d / "x.jsonl")], "--out"),
    # ratings
    ("rate --from missing", lambda d: ["rate", "--from", str(d / "none.jsonl")], "ratings file not found"),
    ("rate --from folder", lambda d: ["rate", "--from", str(d / "folder")], "ratings file not found"),
    ("rate --from FIFO", lambda d: ["rate", "--from", str(d / "fifo")], "ratings file not found"),
    ("rate --from /dev/zero", lambda d: ["rate", "--from", "/dev/zero"], "ratings file not found"),
    ("rate --from empty", lambda d: ["rate", "--from", str(d / "empty.jsonl")], "holds no ratings"),
    ("rate --from garbage", lambda d: ["rate", "--from", str(d / "garbage.jsonl")], "garbage.jsonl: not a text"),
    ("rate --from deep", lambda d: ["rate", "--from", str(d / "deep.jsonl")], "nested too deeply"),
    ("rate --from deep object", lambda d: ["rate", "--from", str(d / "deep_object.jsonl")], "nested too deeply"),
    ("rate --from wrong types", lambda d: ["rate", "--from", str(d / "wrong_types.jsonl")], "line 1"),
    ("rate --from unknown key", lambda d: ["rate", "--from", str(d / "unknown_key.jsonl")], "unknown key(s) hack"),
    ("rate nothing", lambda d: ["rate"], "give a RUN_ID"),
    ("rate no such run", lambda d: ["rate", "feedbeef", "--verdict", "correct"], "feedbeef"),
    ("rate no verdict", lambda d: ["rate", "feedbeef"], "--verdict is required"),
    ("rate step -1", lambda d: ["rate", "feedbeef", "--verdict", "correct", "--step", "-1"], "--step"),
    # runs, rerun, diff, export
    ("runs show unknown", lambda d: ["runs", "show", "does-not-exist"], "no run 'does-not-exist'"),
    ("runs show control chars", lambda d: ["runs", "show", "\x1b]8;;http://evil/\x07"], "\\x1b"),
    ("runs list limit 0", lambda d: ["runs", "list", "--limit", "0"], "--limit"),
    ("rerun unknown", lambda d: ["rerun", "does-not-exist"], "does-not-exist"),
    ("diff unknown", lambda d: ["diff", "aaaaaaaa", "bbbbbbbb"], "aaaaaaaa"),
    ("export bad format", lambda d: ["export", "--format", "bogus", "--out", str(d / "e")], "bogus"),
    ("export bad date", lambda d: ["export", "--since", "yesterday-ish", "--out", str(d / "e")], "yesterday-ish"),
    ("export since after until", lambda d: ["export", "--since", "2027-01-01", "--until", "2026-01-01", "--out",
                                            str(d / "e")], "is after --until"),
    ("export comparison garbage", lambda d: ["export", "--comparison", str(d / "garbage.yaml"), "--out",
                                             str(d / "e")], "garbage.yaml"),
    # accounts
    ("user name with spaces", lambda d: ["users", "add", "bad name!", "--password-stdin"], "user names are"),
    ("user name control chars", lambda d: ["users", "add", "a\x1b[31mb", "--password-stdin"], "\\x1b"),
    ("short password", lambda d: ["users", "add", "eve", "--password-stdin"], "at least 8 characters"),
    ("unknown role", lambda d: ["users", "add", "eve", "--role", "boss", "--password-stdin"], "role must be one of"),
    ("role of nobody", lambda d: ["users", "role", "nobody", "admin"], "no user 'nobody'"),
    ("users file garbage", lambda d: ["users", "list", "--data-dir", str(d / "badusers")], "users.txt: not a text"),
    ("remove nobody", lambda d: ["users", "remove", "nobody"], "no user 'nobody'"),
    # the web server
    ("port out of range", lambda d: ["web", "--port", "99999"], "--port"),
    ("port a word", lambda d: ["web", "--port", "http"], "--port"),
    ("auth password too short", lambda d: ["web", "--auth", "ops:x", "--port", "1"], "at least 8 characters"),
    ("host not an address", lambda d: ["web", "--host", "bad_host!!", "--port", "1"], "--host 'bad_host!!'"),
    ("auth without colon", lambda d: ["web", "--auth", "nocolon", "--port", "1"], "--auth must look like"),
]


@pytest.mark.parametrize(("label", "make_args", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(label: str, make_args: Callable[[Path], list[str]], message: str,
                                          files: Path, capfd: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAESTRO_HOME", str(files / "home"))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("MAESTRO_DB", raising=False)
    monkeypatch.delenv("MAESTRO_REGISTRY", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    monkeypatch.chdir(files)
    with pytest.raises(SystemExit) as exited:
        main(make_args(files))
    _, err = capfd.readouterr()
    lines = err.strip().splitlines()
    assert exited.value.code == 2, f"{label}: exit {exited.value.code}; {err[-500:]}"
    assert len(lines) == 1, f"{label}: {len(lines)} lines on stderr:\n{err[-2000:]}"
    assert "Traceback" not in err and message in lines[0], f"{label}: {lines[0][:300]}"
    assert not any(c in lines[0] for c in "\x1b\x07\r"), "control characters are shown, never sent"


def test_there_are_many_cases() -> None:
    assert len(CASES) >= 76


@pytest.mark.parametrize("value", ["abc", "-5", "nan"])
def test_a_bad_upload_quota_is_one_line(value: str, tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAESTRO_UPLOAD_MB_PER_USER", value)
    with pytest.raises(SystemExit) as exited:
        main(["web", "--port", "1", "--data-dir", str(tmp_path / "home")])
    lines = capfd.readouterr().err.strip().splitlines()
    assert exited.value.code == 2 and len(lines) == 1 and "MAESTRO_UPLOAD_MB_PER_USER must be" in lines[0], lines
