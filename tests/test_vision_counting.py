"""Counting by detection on rendered images: shapes by kind and colour, nesting, touching, NMS, round objects,
faces/people detectors and their error paths, and bad inputs."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from benchmarks.synthetic.shapes import generate
from vision_tools.detection.counting import count_round_objects, count_shapes, detect_objects, nms
from vision_tools.image.boxes import Box


def _polygon(cx: float, cy: float, r: float, sides: int, rot: float = 0.3) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(rot + 2 * math.pi * i / sides), cy + r * math.sin(rot + 2 * math.pi * i / sides))
            for i in range(sides)]


def _scene(bg: tuple[int, int, int] = (255, 255, 255)) -> Image.Image:
    """3 red triangles, 2 blue circles (one outlined), 1 green hexagon, 1 black square outline; 2x supersampled."""
    big = Image.new("RGB", (1200, 900), bg)
    d = ImageDraw.Draw(big)
    for cx, cy in ((150, 150), (450, 160), (760, 140)):
        d.polygon(_polygon(cx, cy, 90, 3), fill=(220, 30, 30))
    d.ellipse((100, 400, 300, 600), fill=(30, 90, 220))
    d.ellipse((420, 420, 600, 600), outline=(30, 90, 220), width=8)
    d.polygon(_polygon(850, 520, 110, 6), fill=(40, 160, 60))
    d.polygon([(200, 700), (380, 700), (380, 880), (200, 880)], outline=(20, 20, 20), width=8)
    return big.resize((600, 450), Image.LANCZOS)


def test_counts_by_shape_and_colour() -> None:
    image = _scene()
    assert count_shapes(image, shape="triangle", colour="red").count == 3
    assert count_shapes(image, shape="circles").count == 2
    assert count_shapes(image, colour="blue").count == 2
    assert count_shapes(image, shape="hexagon").count == 1
    assert count_shapes(image, shape="square", colour="black").count == 1
    assert count_shapes(image, shape="star").count == 0
    total = count_shapes(image)
    assert total.count == 7
    assert Counter(d.label for d in total.detections) == {"triangle": 3, "circle": 2, "hexagon": 1, "square": 1}


def test_result_catalogue_summary_dict_and_annotation() -> None:
    result = count_shapes(_scene(), shape="triangle")
    assert [d.index for d in result.detections] == [1, 2, 3]
    # Boxes are in original pixels and lie where the triangles were drawn (top band of the image).
    for det in result.detections:
        assert det.box.y1 < 150 and det.colour == "red"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["count"] == 3 and len(data["detections"]) == 3
    assert all(len(d["box"]) == 4 and all(isinstance(v, int) for v in d["box"]) for d in data["detections"])
    assert "3 triangles" in result.summary() and "#1" in result.summary()
    assert result.annotated is not None and max(result.annotated.size) <= 1600
    assert "blue circle" in result.others or "2" in str(result.others)


def test_dark_and_gradient_backgrounds() -> None:
    dark = _scene(bg=(30, 32, 44))
    # Black on dark is invisible by design of the scene; the coloured shapes must all be found.
    assert count_shapes(dark, shape="triangle", colour="red").count == 3
    assert count_shapes(dark, colour="blue").count == 2
    big = Image.linear_gradient("L").resize((1200, 900)).point(lambda v: 255 - v // 5).convert("RGB")
    d = ImageDraw.Draw(big)
    for i in range(5):
        d.polygon(_polygon(150 + 220 * i, 450, 80, 5, rot=0.2 * i), fill=(130, 50, 180))
    assert count_shapes(big.resize((600, 450), Image.LANCZOS), shape="pentagon", colour="purple").count == 5


def test_nested_outlines_each_count_once() -> None:
    big = Image.new("RGB", (1000, 1000), "white")
    d = ImageDraw.Draw(big)
    for k in range(4):  # four concentric square outlines, same colour
        m = 100 + 90 * k
        d.rectangle((m, m, 1000 - m, 1000 - m), outline=(0, 0, 0), width=8)
    result = count_shapes(big.resize((500, 500), Image.LANCZOS), shape="square")
    assert result.count == 4
    assert sorted(d.extra["nesting_depth"] for d in result.detections) == [0, 1, 2, 3]


def test_a_filled_shape_with_an_outline_in_another_colour_counts_once() -> None:
    image = Image.new("RGB", (900, 400), (235, 230, 220))
    d = ImageDraw.Draw(image)
    for cx in (130, 400, 700):  # purple discs with a black rim
        d.ellipse((cx - 55, 120, cx + 55, 230), fill=(130, 30, 170), outline="black", width=3)
    d.rectangle((60, 280, 170, 390), fill=(30, 160, 60), outline=(200, 20, 20), width=4)  # a rimmed green square
    d.rectangle((300, 280, 420, 390), outline=(20, 50, 220), width=4)  # a hollow blue square holding a yellow disc
    d.ellipse((330, 305, 390, 365), fill=(240, 200, 0))
    result = count_shapes(image, shape="circle")
    assert result.count == 4 and any("counted with it" in note for note in result.notes)
    assert count_shapes(image, shape="square").count == 2


def test_touching_shapes_are_separate() -> None:
    big = Image.new("RGB", (1000, 600), "white")
    d = ImageDraw.Draw(big)
    d.ellipse((100, 100, 400, 400), fill=(220, 30, 30))  # different colours, touching at x=400
    d.ellipse((400, 100, 700, 400), fill=(30, 90, 220))
    d.ellipse((100, 420, 260, 580), fill=(40, 160, 60))  # same colour, touching: split at the neck
    d.ellipse((258, 420, 418, 580), fill=(40, 160, 60))
    image = big.resize((500, 300), Image.LANCZOS)
    assert count_shapes(image, shape="circle", colour="red").count == 1
    assert count_shapes(image, shape="circle", colour="blue").count == 1
    assert count_shapes(image, shape="circle", colour="green").count == 2


def test_nms_keeps_best_of_overlapping_boxes() -> None:
    boxes = [Box(10, 10, 110, 110), Box(12, 11, 112, 108), Box(300, 300, 400, 400), Box(14, 14, 108, 112)]
    keep = nms(boxes, [0.6, 0.9, 0.8, 0.3], iou_threshold=0.5)
    assert sorted(keep) == [1, 2]
    assert nms([], []) == []


def test_synthetic_generator_counts_are_recovered(tmp_path: Path) -> None:
    items = generate(tmp_path, 8, seed=11)
    assert len(items) == 8 and all((tmp_path / it["image"]).exists() for it in items)
    for it in items:
        assert it["question"].startswith("How many") and it["answer"].isdigit()
        image = Image.open(tmp_path / it["image"])
        target = it["target"]
        assert count_shapes(image, target["shape"], target["colour"]).answer == it["answer"], it["id"]


def test_round_objects_hough(tmp_path: Path) -> None:
    img = Image.new("RGB", (640, 480), (235, 235, 230))
    d = ImageDraw.Draw(img)
    centres = [(100, 100), (300, 120), (520, 100), (150, 330), (400, 350)]
    for x, y in centres:
        d.ellipse((x - 50, y - 50, x + 50, y + 50), fill=(180, 140, 60), outline=(90, 60, 20), width=4)
        d.ellipse((x - 20, y - 20, x + 20, y + 20), outline=(90, 60, 20), width=3)  # inner detail, not a coin
    result = count_round_objects(img)
    assert result.count == 5
    for det in result.detections:
        cx, cy = det.extra["center"]
        assert min(math.hypot(cx - x, cy - y) for x, y in centres) < 6
        assert abs(det.extra["radius"] - 50) < 6


def test_round_objects_on_real_photo() -> None:
    skimage_data = pytest.importorskip("skimage.data")
    coins = Image.fromarray(skimage_data.coins()).convert("RGB")  # 24 coins on a dark tray
    assert 22 <= count_round_objects(coins).count <= 26


def test_haar_finds_a_real_face_and_none_in_drawings() -> None:
    # A drawing has no face: the detector must run and say zero.
    assert detect_objects(_scene(), "face").count == 0
    skimage_data = pytest.importorskip("skimage.data")
    astronaut = Image.fromarray(skimage_data.astronaut())  # portrait photo of Eileen Collins
    result = detect_objects(astronaut, "faces")
    assert result.count == 1 and result.method.startswith("OpenCV Haar")
    box = result.detections[0].box
    assert 150 < box.center[0] < 300 and 50 < box.center[1] < 200


def test_people_detector_runs_and_small_images_have_nobody() -> None:
    # No offline photo with a clearly visible standing person is available, so this checks the detector runs
    # on a drawing (nobody there) and on an image smaller than its 64x128 window.
    assert detect_objects(_scene(), "people").count == 0
    assert detect_objects(Image.new("RGB", (60, 60), "white"), "person").count == 0


def test_detector_errors_are_clear(tmp_path: Path) -> None:
    image = _scene()
    with pytest.raises(ValueError, match="YOLO"):
        detect_objects(image, "bicycle")
    with pytest.raises(ValueError, match="ultralytics|weights not found"):
        detect_objects(image, "bicycle", backend="yolo", weights=str(tmp_path / "missing.pt"))
    with pytest.raises(ValueError, match="faces only"):
        detect_objects(image, "car", backend="haar")
    with pytest.raises(ValueError, match="unknown backend"):
        detect_objects(image, "face", backend="magic")


@pytest.mark.parametrize("bad", ["not an image", Image.new("RGB", (1, 1)), Image.new("RGB", (5, 300))])
def test_bad_inputs_raise_value_error(bad: object) -> None:
    for tool in (count_shapes, count_round_objects):
        with pytest.raises(ValueError):
            tool(bad)  # type: ignore[arg-type]


def test_other_modes_and_unknown_names() -> None:
    gray = _scene().convert("L")  # grayscale-converted input still works (shapes, no colours to ask about)
    assert count_shapes(gray, shape="triangle").count == 3
    rgba = _scene().convert("RGBA")
    assert count_shapes(rgba, shape="hexagon").count == 1
    with pytest.raises(ValueError, match="unknown colour"):
        count_shapes(_scene(), colour="ultraviolet")
    with pytest.raises(ValueError, match="unknown shape"):
        count_shapes(_scene(), shape="dodecahedron")
    blank = count_shapes(Image.new("RGB", (300, 200), "white"))
    assert blank.count == 0 and blank.detections == []


def test_each_thread_detects_with_its_own_opencv_models() -> None:
    """OpenCV's detectors keep working buffers inside the object: threads (the web app, `maestro eval
    --concurrency`) must never share one. Each thread builds its own, once."""
    import threading

    from vision_tools.detection import objects

    seen: dict[str, list[object]] = {"haar": [], "hog": []}  # the objects themselves: ids of dead ones are reused

    def look() -> None:
        first, again = objects._face_cascade(), objects._face_cascade()
        assert first is again
        seen["haar"].append(first)
        seen["hog"].append(objects._people_hog())

    threads = [threading.Thread(target=look) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(m) for m in seen["haar"]}) == 3 and len({id(m) for m in seen["hog"]}) == 3
