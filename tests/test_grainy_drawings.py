"""Drawings under grain: shapes on a noisy, textured or graded ground are still drawings.

Sensor noise or a textured ground leaves no pixel of a drawing flat, so it measured as a photograph and the shape
tools refused it ("this looks like a photograph"). ``vision_tools.image.degrain`` reads such an image through a
median filter and keeps the copy only when that copy is a clear drawing; a photograph stays a photograph.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from agents.config import Settings
from agents.runtime import Maestro
from vision_tools.detection.counting import count_shapes
from vision_tools.image import degrain, image_kind


def grainy(width: int = 900, height: int = 600, sigma: float = 30.0, seed: int = 0) -> Image.Image:
    """Three red discs and two blue squares on a beige ground with strong grain."""
    image = Image.new("RGB", (width, height), (200, 190, 170))
    draw = ImageDraw.Draw(image)
    for cx, cy in ((150, 150), (450, 420), (760, 160)):
        draw.ellipse((cx - 60, cy - 60, cx + 60, cy + 60), fill=(220, 20, 20))
    for x, y in ((250, 380), (560, 60)):
        draw.rectangle((x, y, x + 110, y + 110), fill=(20, 50, 220))
    noise = np.random.default_rng(seed).normal(0, sigma, (height, width, 3))
    return Image.fromarray(np.clip(np.asarray(image, dtype=float) + noise, 0, 255).astype(np.uint8))


def test_a_grainy_drawing_measures_as_a_photograph_until_it_is_degrained() -> None:
    image = grainy()
    assert image_kind(image).is_photo
    clean = degrain(image)
    assert clean is not None and clean.kind.drawing >= 0.9
    assert count_shapes(clean.image, shape="circle", colour="red").count == 3
    assert count_shapes(clean.image, shape="square", colour="blue").count == 2
    assert "median filter" in clean.summary() and clean.to_dict()["kernel"] == clean.kernel


def test_thin_outlines_the_filter_would_wipe_out_keep_the_image_a_photograph() -> None:
    image = Image.new("RGB", (400, 400), "white")
    draw = ImageDraw.Draw(image)
    for i in range(4):
        draw.ellipse((50 + 80 * i, 170, 110 + 80 * i, 230), outline=(200, 0, 0), width=2)
    noisy = np.asarray(image, dtype=float) + np.random.default_rng(4).normal(0, 20, (400, 400, 3))
    assert degrain(Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))) is None


def test_a_photograph_is_not_taken_for_a_grainy_drawing() -> None:
    data = pytest.importorskip("skimage.data")
    for photo in (data.astronaut(), data.coffee(), data.chelsea(), data.hubble_deep_field()):
        assert degrain(Image.fromarray(photo).convert("RGB")) is None


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.mark.parametrize(("question", "expected"), [
    ("How many red circles are there?", "3"),
    ("how many blue squares", "2"),
    ("Are there any stars in this picture?", "No"),
    ("Are there any circles?", "Yes"),
])
def test_shapes_on_a_grainy_ground_are_counted_and_the_trace_shows_the_filtered_copy(
        maestro: Maestro, question: str, expected: str) -> None:
    run = maestro.ask(grainy(seed=1), question)
    assert run.status == "done" and run.answer == expected, run.reason
    search = next(s for s in run.steps if s.kind == "search" and s.skill == "Counting")
    assert any(c.tool == "image.degrain" for c in search.tool_calls)


def test_the_colour_of_a_shape_on_a_graded_ground_is_named(maestro: Maestro) -> None:
    ramp = np.linspace(0.0, 1.0, 900)[None, :, None]
    ground = (1 - ramp) * np.array([40, 20, 90]) + ramp * np.array([200, 60, 120])
    image = Image.fromarray(np.broadcast_to(ground, (600, 900, 3)).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for cx in (200, 650):
        draw.regular_polygon((cx, 300, 90), 5, fill=(255, 220, 0))  # two yellow pentagons
    noisy = np.asarray(image, dtype=float) + np.random.default_rng(2).normal(0, 10, (600, 900, 3))
    run = maestro.ask(Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)), "What colour are the pentagons?")
    assert run.status == "done" and run.answer == "yellow", run.reason


def _busy_photograph(seed: int = 2, size: tuple[int, int] = (1600, 900)) -> Image.Image:
    """Hundreds of soft, overlapping slivers and blobs in muted colours under sensor noise: a busy photograph with
    no shape anyone would point at."""
    rng = np.random.default_rng(seed)
    image = Image.new("RGB", size, (90, 70, 80))
    draw = ImageDraw.Draw(image, "RGBA")
    for _ in range(900):
        x, y = int(rng.integers(size[0])), int(rng.integers(size[1]))
        w, h = int(rng.integers(10, 140)), int(rng.integers(4, 40))
        fill = (int(rng.integers(60, 200)), int(rng.integers(40, 140)), int(rng.integers(60, 180)),
                int(rng.integers(80, 200)))
        if rng.random() < 0.5:
            draw.ellipse((x, y, x + w, y + h), fill=fill)
        else:
            draw.polygon([(x, y), (x + w, y + int(rng.integers(-h, h))), (x + int(rng.integers(w)), y + h)], fill=fill)
    noisy = np.asarray(image, dtype=float) + rng.normal(0, 8, (size[1], size[0], 3))
    return Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))


@pytest.mark.parametrize("seed", [2, 3])
def test_a_busy_photograph_is_not_segmented_for_a_shape_nobody_can_see(maestro: Maestro, seed: int) -> None:
    run = maestro.ask(_busy_photograph(seed), "what colour is the little triangle")
    assert run.status == "abstained" and "no clear triangle" in (run.reason or "")
    search = next(s for s in run.steps if s.kind == "search" and s.skill == "Perception")
    assert not any(c.tool == "counting.count_shapes" for c in search.tool_calls)
