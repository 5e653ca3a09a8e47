"""crop, tile and find_region on real renderings: frames, padding, upscaling, and needles in 4K and 8K images."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from benchmarks.synthetic import needles
from vision_tools.image.boxes import Box
from vision_tools.text.ocr import read_text
from vision_tools.zoom.regions import crop, find_region, quadrant, tile, tile_boxes


@pytest.fixture(scope="module")
def photo() -> Image.Image:
    """A 800x600 image with distinct pixels everywhere, so that any misplaced crop shows."""
    rng = np.random.default_rng(7)
    return Image.fromarray(rng.integers(0, 256, (600, 800, 3), dtype=np.uint8))


@pytest.fixture(scope="module")
def needle_items(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("needles")
    return out, needles.generate(out, 3, seed=11)  # one shape, one label, one word needle


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: tuple[int, int, int]) -> None:
    draw.polygon([(cx + (r if k % 2 == 0 else 0.42 * r) * math.cos(-math.pi / 2 + k * math.pi / 5),
                   cy + (r if k % 2 == 0 else 0.42 * r) * math.sin(-math.pi / 2 + k * math.pi / 5))
                  for k in range(10)], fill=fill)


def test_crop_returns_the_exact_pixels(photo: Image.Image) -> None:
    result = crop(photo, (100, 50, 300, 250), min_side=1)
    assert result.box.as_list() == [100, 50, 300, 250] and result.scale == 1.0
    assert np.array_equal(np.asarray(result.image), np.asarray(photo)[50:250, 100:300])
    assert result.annotated is not None
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()


@pytest.mark.parametrize(("coords", "frame", "resized"), [
    ((0.125, 0.1, 0.5, 0.5), "relative_1", None),
    ((125, 100, 500, 500), "relative_1000", None),
    ((50, 30, 200, 150), "resized_pixels", (400, 300)),
])
def test_crop_converts_model_frames(photo: Image.Image, coords: tuple, frame: str, resized: tuple | None) -> None:
    assert crop(photo, coords, frame=frame, resized_size=resized, min_side=1).box.as_list() == [100, 60, 400, 300]


def test_crop_pads_clamps_and_upscales(photo: Image.Image) -> None:
    padded = crop(photo, (100, 100, 200, 150), pad=0.5, min_side=1)
    assert padded.box.as_list() == [50, 75, 250, 175]
    clamped = crop(photo, (-50, 500, 100, 700), min_side=1)
    assert clamped.box.as_list() == [0, 500, 100, 600]
    small = crop(photo, (10, 10, 50, 30))  # 40 x 20 -> short side 448
    assert small.image.size == (896, 448) and math.isclose(small.scale, 22.4)
    thin = crop(photo, (0, 0, 800, 4))  # long side capped before the short side reaches 448
    assert max(thin.image.size) <= 2048 and thin.image.width == 2048


def test_crop_rejects_bad_boxes(photo: Image.Image) -> None:
    with pytest.raises(ValueError, match="four finite numbers"):
        crop(photo, (1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="four finite numbers"):
        crop(photo, (0, 0, float("nan"), 10))
    with pytest.raises(ValueError, match="empty"):
        crop(photo, (900, 700, 1000, 800))
    with pytest.raises(ValueError, match="resized_size"):
        crop(photo, (0, 0, 10, 10), frame="resized_pixels")
    with pytest.raises(ValueError, match="pad"):
        crop(photo, (0, 0, 10, 10), pad=-1)


def test_tiles_cover_every_pixel_with_overlap() -> None:
    boxes = tile_boxes((2500, 1100), tile_size=1024, overlap=128)
    covered = np.zeros((1100, 2500), dtype=np.int32)
    for box in boxes:
        x0, y0, x1, y1 = box.as_list()
        assert x1 - x0 == 1024 and y1 - y0 == 1024
        covered[y0:y1, x0:x1] += 1
    assert covered.min() >= 1 and covered.max() >= 2
    assert tile_boxes((300, 200), tile_size=1024) == [Box(0, 0, 300, 200)]
    with pytest.raises(ValueError):
        tile_boxes((100, 100), tile_size=64, overlap=64)


def test_tile_images_match_their_boxes(photo: Image.Image) -> None:
    pieces = tile(photo, tile_size=256, overlap=32)
    assert len(pieces) == 4 * 3
    for box, piece in pieces:
        x0, y0, x1, y1 = box.as_list()
        assert np.array_equal(np.asarray(piece), np.asarray(photo)[y0:y1, x0:x1])


def test_quadrant() -> None:
    assert quadrant(Box(10, 10, 20, 20), (100, 100)) == "top-left"
    assert quadrant(Box(80, 10, 90, 20), (100, 100)) == "top-right"
    assert quadrant(Box(10, 80, 20, 90), (100, 100)) == "bottom-left"
    assert quadrant(Box(80, 80, 90, 90), (100, 100)) == "bottom-right"


def test_star_is_told_from_same_colour_decoys_in_4k() -> None:
    image = Image.new("RGB", (3840, 2160), (225, 225, 220))
    draw = ImageDraw.Draw(image)
    red = (220, 25, 25)
    draw.ellipse([400, 300, 480, 380], fill=red)
    draw.rectangle([2900, 1500, 2970, 1570], fill=red)
    draw.ellipse([1500, 1700, 1560, 1760], fill=(30, 80, 220))
    _star(draw, 3300, 400, 30, red)
    stars = find_region(image, "red star")
    assert stars.kind == "colour+shape"
    assert len(stars.matches) == 1
    best = stars.matches[0]
    assert best.quadrant == "top-right" and best.box.iou(Box(3270, 370, 3330, 430)) > 0.5
    assert best.crop is not None and min(best.crop.size) >= 448
    circles = find_region(image, "red circles")
    assert [m.quadrant for m in circles.matches] == ["top-left"]
    assert find_region(image, "green").matches == []
    assert max(stars.annotated.size) <= 1600
    assert json.loads(json.dumps(stars.to_dict())) == stars.to_dict()
    assert "red star" in stars.summary()


def test_a_small_square_on_grainy_bluish_ground_is_found_and_the_edge_of_the_ground_is_not() -> None:
    rng = np.random.default_rng(3)
    ramp = np.linspace(0.0, 1.0, 3840)[None, :, None]
    ground = (1 - ramp) * np.array([200, 200, 210]) + ramp * np.array([120, 125, 140])
    pixels = np.broadcast_to(ground, (2160, 3840, 3)) + rng.normal(0, 12, (2160, 3840, 3))
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    ImageDraw.Draw(image).rectangle([2900, 1500, 2960, 1560], fill=(0, 190, 40))
    squares = find_region(image, "square")
    assert squares.matches and squares.matches[0].box.iou(Box(2900, 1500, 2961, 1561)) > 0.7
    assert all(m.box.x1 < 3839 for m in squares.matches)  # the bluish ground the right edge cuts is no square


def test_a_vivid_shape_on_a_coloured_ground_is_its_own_blob() -> None:
    ramp = np.linspace(0.0, 1.0, 2160)[:, None, None]
    ground = (1 - ramp) * np.array([40, 60, 80]) + ramp * np.array([70, 90, 60])  # bluish to greenish, no grey
    image = Image.fromarray(np.broadcast_to(ground, (2160, 3840, 3)).astype(np.uint8))
    ImageDraw.Draw(image).ellipse([700, 600, 780, 680], fill=(230, 20, 20))
    circles = find_region(image, "circle")
    assert circles.matches and circles.matches[0].box.iou(Box(700, 600, 781, 681)) > 0.7


def test_small_blue_circle_in_8k() -> None:
    image = Image.new("RGB", (7680, 4320), (235, 230, 215))
    draw = ImageDraw.Draw(image)
    for i in range(40):  # gray and brown clutter
        draw.rectangle([150 * i, 200 + 90 * i, 150 * i + 120, 260 + 90 * i], fill=(120, 118, 115))
        draw.ellipse([7000 - 160 * i, 300 + 80 * i, 7080 - 160 * i, 380 + 80 * i], fill=(120, 75, 35))
    draw.ellipse([6100, 3500, 6140, 3540], fill=(25, 70, 225))  # 40 px: 8 px in the downscaled search view
    result = find_region(image, "blue circle")
    assert result.matches and result.matches[0].quadrant == "bottom-right"
    assert result.matches[0].box.iou(Box(6100, 3500, 6141, 3541)) > 0.6


@pytest.mark.slow
def test_generated_needles_are_found(needle_items: tuple[Path, list[dict]]) -> None:
    out, items = needle_items
    by_kind = {item["meta"]["kind"]: item for item in items}
    shape = by_kind["shape"]
    image = Image.open(out / shape["image"]).convert("RGB")
    assert image.size == (3840, 2160)
    result = find_region(image, shape["meta"]["target"])
    assert result.matches[0].quadrant == shape["answer"]
    assert result.matches[0].box.iou(Box(*shape["meta"]["box"])) > 0.3

    label = by_kind["label"]
    result = find_region(Image.open(out / label["image"]).convert("RGB"), label["meta"]["target"])
    assert result.matches[0].box.iou(Box(*label["meta"]["box"])) > 0.5
    assert read_text(result.matches[0].crop).text == label["answer"]

    word = by_kind["word"]
    result = find_region(Image.open(out / word["image"]).convert("RGB"), word["meta"]["target"], kind="text")
    assert result.kind == "text"
    best = result.matches[0]
    assert best.text is not None and word["answer"] == best.quadrant
    truth = Box(*word["meta"]["box"])
    # Detector boxes are padded around the ink, so the test is mutual centring rather than overlap.
    assert best.box.x0 <= truth.center[0] <= best.box.x1 and best.box.y0 <= truth.center[1] <= best.box.y1
    assert truth.x0 - truth.height <= best.box.center[0] <= truth.x1 + truth.height


def test_needle_items_have_the_evaluation_format(needle_items: tuple[Path, list[dict]]) -> None:
    out, items = needle_items
    for item in items:
        assert {"id", "image", "question", "answer", "category"} <= set(item)
        assert isinstance(item["answer"], str) and (out / item["image"]).is_file()
        assert item["question"].endswith("?") or "quadrant" in item["question"]


def test_find_region_bad_inputs() -> None:
    assert find_region(Image.new("RGB", (1, 1), (255, 0, 0)), "blue").matches == []
    gray = Image.new("L", (200, 200), 255)
    ImageDraw.Draw(gray).rectangle([50, 50, 100, 100], fill=0)
    assert find_region(gray, "black square").matches[0].box.as_list() == [50, 50, 101, 101]
    with pytest.raises(ValueError, match="kind"):
        find_region(gray, "black", kind="smell")
    with pytest.raises(ValueError, match="no colour"):
        find_region(gray, "square", kind="colour")
    with pytest.raises(ValueError, match="no shape"):
        find_region(gray, "black", kind="shape")
