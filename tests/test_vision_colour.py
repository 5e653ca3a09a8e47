"""name_colour and colour_mask on rendered objects (flat and shaded) and on the BlindTest line images."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from vision_tools.image.boxes import Box
from vision_tools.image.colour import NAMES, PALETTE, canonical_name, colour_mask, name_colour

# Everyday variants of each colour, deliberately not the palette's own representative values.
VARIANTS = {
    "red": [(200, 20, 30), (255, 40, 40), (150, 10, 10)],
    "orange": [(255, 165, 0), (235, 120, 30)],
    "yellow": [(255, 230, 0), (245, 215, 60)],
    "green": [(0, 140, 60), (120, 200, 80), (20, 90, 30)],
    "blue": [(0, 60, 200), (70, 130, 230), (10, 20, 120)],
    "purple": [(120, 40, 160), (150, 0, 200)],
    "pink": [(255, 105, 180), (250, 170, 200)],
    "brown": [(139, 69, 19), (110, 70, 40)],
    "black": [(10, 10, 10), (40, 35, 45)],
    "gray": [(128, 128, 128), (170, 170, 175)],
}


def _object_on(background: tuple[int, int, int], fill: tuple[int, int, int], size: int = 200) -> Image.Image:
    image = Image.new("RGB", (size, size), background)
    ImageDraw.Draw(image).ellipse([50, 60, 150, 140], fill=fill)
    return image


@pytest.mark.parametrize(("expected", "rgb"), [(name, rgb) for name, rgbs in VARIANTS.items() for rgb in rgbs])
def test_object_colour_is_named_and_white_background_ignored(expected: str, rgb: tuple[int, int, int]) -> None:
    result = name_colour(_object_on((255, 255, 255), rgb))
    assert result.name == expected, result.summary()


def test_coloured_object_wins_over_a_coloured_background() -> None:
    result = name_colour(_object_on((40, 90, 200), (240, 210, 20)))
    assert result.name == "yellow"
    assert result.background == "blue"


def test_plain_regions_are_named_by_their_own_colour() -> None:
    assert name_colour(Image.new("RGB", (64, 64), (255, 255, 255))).name == "white"
    assert name_colour(Image.new("RGB", (64, 64), (130, 130, 130))).name == "gray"
    assert name_colour(Image.new("RGB", (64, 64), (0, 0, 0))).name == "black"


def test_shaded_sphere_is_still_red() -> None:
    # A sphere lit from the top-left: bright highlight, dark rim. Value varies 4x; hue does not.
    size = 160
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    dist = np.hypot(xx - 80, yy - 80)
    light = np.clip(1.1 - np.hypot(xx - 55, yy - 55) / 110, 0.25, 1.0)
    rgb = np.full((size, size, 3), 245, dtype=np.float32)
    inside = dist < 70
    rgb[inside] = np.stack([230 * light, 25 * light, 20 * light], axis=-1)[inside]
    result = name_colour(Image.fromarray(rgb.astype(np.uint8)))
    assert result.name == "red", result.summary()
    assert result.rgb[0] > 2 * max(result.rgb[1], result.rgb[2])


def test_region_selects_the_object_inside_it() -> None:
    image = Image.new("RGB", (300, 100), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle([10, 10, 90, 90], fill=(220, 30, 30))
    draw.rectangle([210, 10, 290, 90], fill=(30, 160, 60))
    assert name_colour(image, region=Box(200, 0, 300, 100)).name == "green"
    assert name_colour(image, region=Box(0, 0, 100, 100)).name == "red"
    result = name_colour(image, region=Box(200, 0, 300, 100))
    assert result.to_dict()["region"] == [200, 0, 300, 100]
    assert result.annotated is not None and max(result.annotated.size) <= 1600


def test_colour_mask_covers_exactly_the_drawn_pixels() -> None:
    image = Image.new("RGB", (120, 80), (250, 250, 250))
    ImageDraw.Draw(image).rectangle([10, 20, 49, 49], fill=(40, 170, 60))  # 40 x 30 px
    mask = colour_mask(image, "green")
    assert mask.shape == (80, 120) and mask.dtype == bool
    assert int(mask.sum()) == 40 * 30
    assert mask[20:50, 10:50].all()
    assert not colour_mask(image, "red").any()


def test_blindtest_line_images_have_red_and_blue_lines(blindtest_dir: Path) -> None:
    items = [json.loads(line) for line in (blindtest_dir / "items.jsonl").read_text().splitlines()]
    lines = [item for item in items if item["category"] == "line_intersection"][:5]
    for item in lines:
        image = Image.open(blindtest_dir / item["image"]).convert("RGB")
        total = image.width * image.height
        red, blue = colour_mask(image, "red").sum() / total, colour_mask(image, "blue").sum() / total
        assert red > 0.002 and blue > 0.002, item["id"]
        assert colour_mask(image, "green").sum() / total < 0.0005, item["id"]
        assert name_colour(image).name in ("red", "blue")


def test_names_aliases_and_unknown_names() -> None:
    assert set(PALETTE) == set(NAMES) == {"red", "orange", "yellow", "green", "blue", "purple", "pink", "brown",
                                          "black", "white", "gray"}
    assert canonical_name("Grey") == "gray" and canonical_name(" VIOLET ") == "purple"
    with pytest.raises(ValueError, match="unknown colour"):
        canonical_name("octarine")
    with pytest.raises(ValueError, match="unknown colour"):
        colour_mask(Image.new("RGB", (4, 4)), "octarine")


def test_bad_inputs() -> None:
    one = Image.new("RGB", (1, 1), (0, 0, 255))
    assert name_colour(one).name == "blue"
    gray_mode = _object_on((255, 255, 255), (200, 30, 30)).convert("L")
    assert name_colour(gray_mode).name in ("gray", "black")  # colour is gone once converted to grayscale
    with pytest.raises(ValueError, match="empty"):
        name_colour(Image.new("RGB", (50, 50)), region=Box(60, 60, 80, 80))
    with pytest.raises(ValueError):
        name_colour(np.zeros((4, 4, 3), dtype=np.uint8))  # type: ignore[arg-type]


def test_summary_and_dict_are_plain_data() -> None:
    result = name_colour(_object_on((255, 255, 255), (30, 90, 220)))
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["name"] == "blue" and math.isclose(sum(data["shares"].values()), 1.0, abs_tol=1e-3)
    assert "blue" in result.summary()


@pytest.mark.parametrize(("rgb", "spoken"), [
    ((0, 128, 128), "teal"),  # web teal
    ((20, 150, 150), "teal"),
    ((0, 120, 140), "teal"),
    ((0, 175, 155), "teal"),
    ((40, 200, 230), "cyan"),  # bright: cyan, not teal
    ((0, 200, 220), "cyan"),
    ((0, 191, 255), "blue"),  # deep sky blue
    ((10, 20, 120), "blue"),  # navy
    ((30, 90, 220), "blue"),
    ((0, 140, 60), "green"),
    ((200, 20, 30), "red"),
    ((128, 128, 0), "olive"),  # a dark yellow had been "yellow"
    ((240, 200, 0), "yellow"),
    ((255, 0, 255), "magenta"),  # had been "pink"
    ((192, 0, 192), "magenta"),
    ((245, 130, 190), "pink"),
    ((150, 0, 200), "purple"),
])
def test_colours_the_palette_folds_are_spoken_of_by_their_own_names(rgb: tuple[int, int, int], spoken: str) -> None:
    # The palette splits blue-greens between blue and green; annotators wrote "teal" and "cyan" for them.
    from vision_tools.image.colour import spoken_name

    assert spoken_name(name_colour(_object_on((255, 255, 255), rgb))) == spoken
