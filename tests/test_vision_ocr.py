"""OCR on rendered text: exact reading, reading order, small text, regions, fuzzy search, back ends, bad inputs."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from vision_tools.image.boxes import Box
from vision_tools.text.backends import get_backend
from vision_tools.text.ocr import (
    OcrBackendUnavailable,
    OcrLine,
    find_text,
    fix_confusables,
    match_score,
    order_lines,
    read_text,
)

FONTS = Path("/usr/share/fonts/truetype/dejavu")


def _font(size: int, name: str = "DejaVuSans.ttf") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / name), size)


def _render(size: tuple[int, int], texts: list[tuple[tuple[int, int], str, int]], font: str = "DejaVuSans.ttf",
            background: tuple[int, int, int] = (255, 255, 255)) -> tuple[Image.Image, list[Box]]:
    """``texts`` as (position, text, font size) in black; returns the image and each text's ink box."""
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    boxes = []
    for position, text, font_size in texts:
        face = _font(font_size, font)
        draw.text(position, text, font=face, fill=(0, 0, 0))
        boxes.append(Box(*draw.textbbox(position, text, font=face)))
    return image, boxes


def test_single_line_is_read_exactly_with_its_box() -> None:
    image, (ink,) = _render((640, 160), [((60, 50), "Platform 9 Exit", 36)])
    result = read_text(image)
    assert result.text == "Platform 9 Exit"
    assert len(result.lines) == 1
    line = result.lines[0]
    assert line.confidence > 0.8
    assert line.box.iou(ink) > 0.5, (line.box, ink)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["lines"][0]["box"] == line.box.as_list()
    assert "Platform 9 Exit" in result.summary()
    assert result.annotated is not None and result.annotated.size == image.size


def test_reading_order_rows_then_columns() -> None:
    # Drawn in scrambled order; the right column sits a few pixels lower, as in a slightly skewed scan.
    image, _ = _render((700, 260), [
        ((400, 164), "Delta", 30), ((40, 40), "Alpha", 30), ((40, 160), "Charlie", 30), ((400, 44), "Bravo", 30),
    ])
    result = read_text(image)
    assert result.text == "Alpha Bravo\nCharlie Delta"
    assert [line.text for line in result.lines] == ["Alpha", "Bravo", "Charlie", "Delta"]


def test_order_lines_groups_by_vertical_overlap() -> None:
    def line(text: str, x0: float, y0: float, x1: float, y1: float) -> OcrLine:
        return OcrLine(text, Box(x0, y0, x1, y1), 0.9)

    rows = order_lines([
        line("c", 10, 50, 60, 70), line("b", 200, 12, 260, 32), line("a", 10, 10, 60, 30), line("d", 200, 55, 260, 75),
        line("e", 10, 90, 300, 110),
    ])
    assert [[item.text for item in row] for row in rows] == [["a", "b"], ["c", "d"], ["e"]]
    assert order_lines([]) == []


@pytest.mark.parametrize(("size", "font"), [(12, "DejaVuSans.ttf"), (14, "DejaVuSerif.ttf"), (16, "DejaVuSansMono.ttf")])
def test_small_text_is_upscaled_and_read(size: int, font: str) -> None:
    image, _ = _render((260, 70), [((8, 10), "Fresh Bread 42", size), ((8, 40), "keep left", size)], font=font)
    result = read_text(image)
    assert result.scale > 1.0
    assert result.text == "Fresh Bread 42\nkeep left"
    for line in result.lines:  # boxes come back in original pixels despite the upscaling
        assert 0 <= line.box.x0 < line.box.x1 <= 260 and 0 <= line.box.y0 < line.box.y1 <= 70


def test_region_reads_only_inside_and_reports_original_pixels() -> None:
    image, (_, right_ink) = _render((900, 200), [((30, 80), "LEFT SIDE", 32), ((560, 80), "RIGHT SIDE", 32)])
    region = Box(450, 0, 900, 200)
    result = read_text(image, region=region)
    assert result.text == "RIGHT SIDE"
    assert result.region.as_list() == [450, 0, 900, 200]
    assert result.lines[0].box.iou(right_ink) > 0.5


def test_find_text_is_case_insensitive_and_tolerant() -> None:
    image, (_, harbour_ink) = _render((700, 220), [((40, 40), "EXIT ONLY", 34), ((40, 130), "Harbour Road", 34)])
    reading = read_text(image)
    exit_hits = find_text(image, "exit", ocr=reading)
    assert [hit.text for hit in exit_hits] == ["EXIT ONLY"]
    fuzzy = find_text(image, "harbor road", ocr=reading)  # one letter missing
    assert fuzzy and fuzzy[0].text == "Harbour Road" and fuzzy[0].box.iou(harbour_ink) > 0.5
    assert find_text(image, "bakery", ocr=reading) == []
    with pytest.raises(ValueError, match="target"):
        find_text(image, " ?! ", ocr=reading)


def test_match_score_and_confusables() -> None:
    assert match_score("Welcome to CAFÉ Luna", "cafe luna") == 1.0
    assert match_score("Gate12", "gate 12") >= 0.95
    assert 0.8 <= match_score("Harbour Road", "harbor road") < 1.0
    assert match_score("Library", "stadium") < 0.5
    assert match_score("", "x") == 0.0
    assert fix_confusables("Taxi 0ak B00K c0ffee") == "Taxi Oak BOOK coffee"
    assert fix_confusables("Room 4B0, A0 paper, C0-2, 2020") == "Room 4B0, A0 paper, C0-2, 2020"


def test_grayscale_and_blank_images() -> None:
    image, _ = _render((500, 140), [((30, 40), "Gray Scale", 40)])
    assert read_text(image.convert("L")).text == "Gray Scale"
    blank = read_text(Image.new("RGB", (300, 200), (255, 255, 255)))
    assert blank.lines == [] and blank.text == ""
    assert "no text" in blank.summary()


def test_bad_inputs_raise_clear_value_errors() -> None:
    with pytest.raises(ValueError, match="too small"):
        read_text(Image.new("RGB", (1, 1)))
    with pytest.raises(ValueError, match="too small"):
        read_text(Image.new("RGB", (100, 100)), region=Box(200, 200, 300, 300))
    with pytest.raises(ValueError, match="MP limit"):
        read_text(Image.new("1", (7000, 7000)))  # 49 MP, refused before any conversion
    with pytest.raises(ValueError, match="PIL image"):
        read_text(b"not an image")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown OCR back end"):
        get_backend("easyocr")


def test_annotation_is_capped_for_large_images() -> None:
    image, _ = _render((3200, 400), [((100, 150), "WIDE BANNER TEXT", 60)])
    result = read_text(image)
    assert "WIDE BANNER TEXT" in result.text
    assert result.annotated is not None and max(result.annotated.size) == 1600


def test_concurrent_calls_share_one_engine_and_stay_correct() -> None:
    first, _ = _render((480, 120), [((20, 40), "First Thread", 30)])
    second, _ = _render((480, 120), [((20, 40), "Second Thread", 30)])
    results: dict[str, str] = {}

    def work(name: str, image: Image.Image) -> None:
        results[name] = read_text(image).text

    threads = [threading.Thread(target=work, args=(n, im)) for n, im in (("a", first), ("b", second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert results == {"a": "First Thread", "b": "Second Thread"}
    assert get_backend("rapidocr") is get_backend("RapidOCR")


def test_tesseract_back_end_works_or_says_what_is_missing() -> None:
    image, _ = _render((520, 140), [((30, 40), "Tesseract Line", 40)])
    try:
        result = read_text(image, backend="tesseract")
    except OcrBackendUnavailable as exc:
        assert "tesseract" in str(exc).lower() and ("pip install" in str(exc) or "apt-get" in str(exc))
    else:
        assert result.backend == "tesseract"
        assert result.text == "Tesseract Line"


def test_paddle_back_end_works_or_says_what_is_missing() -> None:
    image, _ = _render((520, 140), [((30, 40), "Paddle Line", 40)])
    try:
        result = read_text(image, backend="paddle")
    except OcrBackendUnavailable as exc:
        assert "paddle" in str(exc).lower()
    else:
        assert result.text == "Paddle Line"
