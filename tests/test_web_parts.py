"""Pieces of the web app without a server: the header-only upload check (limits named, nothing decoded, refused
temporary copies deleted), the evidence viewer's boxes and waterfall from a stored run, answers rendered as text,
and the temporary-file sweep the app is built with."""

from __future__ import annotations

import os
import struct
import tempfile
import tracemalloc
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from agents.config import Settings
from agents.runtime import Maestro
from ui import render
from ui.web import CACHE_MAX_AGE_S, CACHE_SWEEP_S, build_app
from ui.web_evidence import CROP_MIN_PX, answer_crop, box_rows, confidence_line, evidence_items, timeline_html
from ui.web_upload import check_upload, discard

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


def png_header_only(path: Path, width: int, height: int) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
    return path


def test_the_upload_check_reads_headers_only_and_names_the_limits(tmp_path: Path) -> None:
    ok = tmp_path / "ok.png"
    Image.new("RGB", (64, 32), "white").save(ok)
    assert check_upload(ok) is None
    tracemalloc.start()
    message = check_upload(png_header_only(tmp_path / "wide.png", 20000, 20000))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert message == ("wide.png has 400 megapixels: the limit is 40 megapixels. Downscale or crop it first."), message
    assert peak < 5 * 1024 * 1024, f"{peak} bytes: the pixels were decoded"
    assert check_upload(png_header_only(tmp_path / "tall.png", 4000, 12000)).startswith(
        "tall.png is 4000×12000 = 48 megapixels: the limit is 40 megapixels")
    junk = tmp_path / "notes.png"
    junk.write_bytes(b"hello " * 1000)
    assert check_upload(junk, "my notes.png") == ("my notes.png is not an image Maestro can read: uploads must be "
                                                  "PNG, JPEG, WebP, GIF, BMP or TIFF, up to 50 MB and 40 megapixels.")
    svg = tmp_path / "x.svg"
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    assert "not an image Maestro can read" in check_upload(svg)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert "is empty" in check_upload(empty)
    big = tmp_path / "big.png"
    with big.open("wb") as handle:
        handle.truncate(51 * 1024 * 1024)  # sparse: 51 MB on paper
    assert check_upload(big) == "big.png is 51.0 MB: the limit is 50 MB per image."
    assert "could not be read" in check_upload(tmp_path / "gone.png")


def test_refused_uploads_are_deleted_only_inside_the_temporary_folder(tmp_path: Path) -> None:
    mine = tmp_path.parent / f"keep-{os.getpid()}.png"  # outside any temp folder? tmp_path is inside /tmp
    fd, temp = tempfile.mkstemp(suffix=".png")
    os.close(fd)
    discard(temp)
    assert not Path(temp).exists()
    kept = Path.home() / ".maestro-test-keep.png"
    kept.write_bytes(b"x")
    try:
        discard(kept)
        assert kept.exists(), "a file outside the temporary folder is never deleted"
    finally:
        kept.unlink()
    discard(None)
    discard(mine)  # a missing file is fine


@pytest.fixture(scope="module")
def sign_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Maestro, str]:
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))
    return maestro, maestro.ask(EXAMPLES / "sign.png", "What is written on the sign?").id


def test_evidence_boxes_and_waterfall_of_a_real_run(sign_run: tuple[Maestro, str]) -> None:
    maestro, run_id = sign_run
    record = maestro.store.get_run(run_id)
    rows = box_rows(record)
    assert [r[:4] for r in rows] == [["answer", 1, "ocr.read_text", "MAIN STREET"],
                                     ["answer", 1, "ocr.read_text", "Exit 42"]]
    assert rows[0][4:8] == [105, 105, 535, 160] and rows[0][8] == "1.00"
    # Evidence first: only the boxes the answer contains are marked, and they lead the table.
    exit_only = replace(record, answer="Exit 42")
    assert [r[:4] for r in box_rows(exit_only)] == [["answer", 1, "ocr.read_text", "Exit 42"],
                                                    ["", 1, "ocr.read_text", "MAIN STREET"]]
    crop, caption = answer_crop(exit_only, lambda image_id: maestro.store.images.path(image_id))
    assert crop.width >= CROP_MIN_PX and caption.startswith("The answer's evidence · Exit 42")
    assert answer_crop(replace(record, answer="nothing on the sign"), lambda i: None) is None
    assert "calibrated probability" in confidence_line(record)
    items = evidence_items(record, lambda image_id: maestro.store.images.path(image_id))
    assert len(items) == 1 and items[0][1].startswith("Step 1 · ocr.read_text · 2 boxes")
    html = timeline_html(record)
    assert html.count("class='mae-row'") == 1 + 1 + 1, "two steps and one tool call"
    assert "Step 1 · Tools@amp;@OCR" not in html and "Step 1 · Tools@@OCR" in html
    assert "Run took" in html and "<script" not in html


def test_answers_are_text_and_tools_only_runs_show_no_token_counts(sign_run: tuple[Maestro, str]) -> None:
    maestro, run_id = sign_run
    record = maestro.store.get_run(run_id)
    text = render.final_message(record).content
    assert "tokens" not in text and "MAIN STREET" in text
    assert all("tokens 0 in" not in m.content for m in render.render_run(record, lambda i: None)
               if isinstance(m.content, str))
    assert render.plain_text("A\n===\n# B") == "A  \n\\=\\=\\=  \n\\# B"


def test_the_app_sweeps_gradios_temporary_files(sign_run: tuple[Maestro, str]) -> None:
    app = build_app(sign_run[0])
    assert app.delete_cache == (CACHE_SWEEP_S, CACHE_MAX_AGE_S) and CACHE_MAX_AGE_S <= 3600
