"""Searching a large image for one text: detect once, read the lines that could hold it, widen only when needed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from vision_tools.image.boxes import Box
from vision_tools.text.ocr import OcrBackendUnavailable, detect_lines, read_quads, read_text
from vision_tools.text.search import glyph_count, search_text, split_by_plausibility
from vision_tools.zoom.regions import find_region

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
WORDS = ["harbor", "bakery", "museum", "parking", "library", "market", "garden", "office", "school", "station",
         "bridge", "castle", "forest", "island", "tunnel", "valley", "canyon", "meadow", "plaza", "temple"]


def _haystack(needle: str, where: tuple[int, int], size: tuple[int, int] = (3840, 2160), seed: int = 0,
              distractors: int = 40) -> tuple[Image.Image, Box]:
    """A 4K image with ``distractors`` gray words of every length scattered over it and ``needle`` in black at
    ``where``; returns the image and the needle's ink box."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, (236, 232, 222))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 36)
    needle_box = Box(*draw.textbbox(where, needle, font=font))
    placed = [needle_box]
    while len(placed) < distractors + 1:
        word = rng.choice(WORDS)
        x, y = rng.randrange(20, size[0] - 300), rng.randrange(20, size[1] - 60)
        box = Box(*draw.textbbox((x, y), word, font=font))
        grown = Box(box.x0 - 30, box.y0 - 30, box.x1 + 30, box.y1 + 30)
        if all(grown.iou(other) == 0 for other in placed):
            draw.text((x, y), word, font=font, fill=(110, 110, 110))
            placed.append(box)
    draw.text(where, needle, font=font, fill=(10, 10, 10))
    return image, needle_box


def _centred(found: Box, truth: Box) -> bool:
    cx, cy = truth.center
    return found.x0 <= cx <= found.x1 and found.y0 <= cy <= found.y1


def test_a_word_in_4k_is_found_by_reading_only_the_lines_that_could_hold_it() -> None:
    image, truth = _haystack("LIGHTHOUSE", (2900, 1700))
    search = search_text(image, "lighthouse")
    assert search.lines and search.lines[0].text == "LIGHTHOUSE"
    assert _centred(search.lines[0].box, truth)
    assert search.passes == ["plausible@1440"]
    # 41 words were detected; boxes holding about ten glyphs are read first, so the target is in the first few.
    assert search.detected >= 35
    assert search.read <= search.detected // 4


def test_a_target_merged_into_a_longer_line_is_found_in_the_second_pass() -> None:
    image, _ = _haystack("CITY", (300, 200), distractors=20, seed=3)
    ImageDraw.Draw(image).text((1500, 1200), "OLD TOWN NORTH GATE", font=ImageFont.truetype(FONT, 36),
                               fill=(10, 10, 10))
    search = search_text(image, "north gate")
    assert search.lines and "NORTH GATE" in search.lines[0].text
    assert search.passes == ["plausible@1440", "rest@1440"]
    assert search.read == search.detected


@pytest.mark.slow
def test_nothing_found_reads_everything_then_tiles() -> None:
    image, _ = _haystack("BAKERY", (100, 100), distractors=10, seed=5)
    search = search_text(image, "zeppelin")
    assert search.lines == []
    # The 1920 view found only the boxes already read at 1440, so nothing was read twice before the tiles.
    assert search.passes == ["plausible@1440", "tiles"]
    assert search.read == search.detected == 11


@pytest.mark.slow
def test_text_too_small_for_the_first_view_is_found_in_the_second() -> None:
    image, truth = _haystack("TRAMWAY", (3000, 400), distractors=15, seed=2)
    search = search_text(image, "tramway", detect_sides=(400, 1920))  # 36 px text is 4 px tall at 400
    assert search.passes[-1] == "plausible@1920"
    assert _centred(search.lines[0].box, truth)


def test_small_images_are_read_whole() -> None:
    image, truth = _haystack("EXIT 42", (200, 300), size=(1000, 700), distractors=5, seed=1)
    search = search_text(image, "exit 42")
    assert search.passes == ["whole"] and search.detected == 0
    assert _centred(search.lines[0].box, truth)


def test_plausibility_orders_boxes_by_how_well_their_shape_fits_the_length() -> None:
    def quad(width: float, height: float = 40.0) -> list[tuple[float, float]]:
        return [(0, 0), (width, 0), (width, height), (0, height)]

    short, fits, close, long_line, upright = quad(40), quad(160), quad(220), quad(900), quad(30, 200)
    first, rest = split_by_plausibility([short, long_line, close, upright, fits], "lighthouse")
    assert first == [fits, close]  # 10 letters at 40 px high is ~164 px wide
    assert rest == [short, long_line, upright]


def test_detecting_then_reading_chosen_quads_reads_what_a_full_read_reads() -> None:
    image = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 40)
    draw.text((40, 40), "Platform 9", font=font, fill="black")
    draw.text((40, 160), "Departures", font=font, fill="black")
    quads = detect_lines(image)
    assert len(quads) == 2
    lines = read_quads(image, quads)
    assert sorted(line.text for line in lines) == sorted(line.text for line in read_text(image).lines)
    assert [line.text for line in read_quads(image, quads[1:])] == [lines[1].text]
    # The engine keeps the switches of its last call: a full read after a detection-only call still reads.
    assert read_text(image).text == "Platform 9\nDepartures"


def test_back_ends_that_cannot_detect_alone_say_so_and_search_reads_whole() -> None:
    image = Image.new("RGB", (1800, 600), "white")
    ImageDraw.Draw(image).text((1200, 400), "Tesseract Gate", font=ImageFont.truetype(FONT, 48), fill="black")
    try:
        with pytest.raises(OcrBackendUnavailable, match="cannot detect"):
            detect_lines(image, backend="tesseract")
        search = search_text(image, "tesseract gate", backend="tesseract")
    except OcrBackendUnavailable as exc:  # pytesseract or the tesseract program missing
        assert "tesseract" in str(exc).lower() and "cannot detect" not in str(exc)
        return
    assert search.passes == ["whole"]
    assert search.lines and search.lines[0].box.x0 > 1000


def test_find_region_reports_how_much_it_read(tmp_path: Path) -> None:
    image, truth = _haystack("OBSERVATORY", (600, 1800), seed=9)
    result = find_region(image, "observatory", kind="text")
    assert result.matches[0].quadrant == "bottom-left"
    assert _centred(result.matches[0].box, truth)
    assert "detected lines (plausible@1440)" in result.summary()
    assert result.to_dict()["effort"].startswith("read ")


def test_empty_target_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        search_text(Image.new("RGB", (100, 100)), "  ")


@pytest.mark.parametrize(("word", "glyphs"), [("LIGHTHOUSE", 10), ("bakery", 6), ("Mississippi", 11), ("42 km", 4)])
def test_glyph_count_counts_letters_not_dots(word: str, glyphs: int) -> None:
    image = Image.new("RGB", (600, 120), (20, 30, 60))  # light text on a dark ground, too
    draw = ImageDraw.Draw(image)
    draw.text((30, 30), word, font=ImageFont.truetype(FONT, 44), fill=(240, 240, 240))
    x0, y0, x1, y1 = draw.textbbox((30, 30), word, font=ImageFont.truetype(FONT, 44))
    quad = [(x0 - 6, y0 - 8), (x1 + 6, y0 - 8), (x1 + 6, y1 + 8), (x0 - 6, y1 + 8)]
    assert glyph_count(image, quad) == glyphs
