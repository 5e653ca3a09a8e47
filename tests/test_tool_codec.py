"""Stored tool outputs: real tool results survive the JSON round trip exactly; decoding builds only trusted result
classes; the trace's cache key separates calls that differ anywhere and reuses a stored output only on a match."""

from __future__ import annotations

import hashlib
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from agents.replay.tool_codec import NotDecodable, NotEncodable, decode, encode
from sandbox import run_python
from skills.base import CachedOutput, ToolTrace, reusing_tool_outputs
from vision_tools.charts import parse_chart
from vision_tools.detection import count_shapes
from vision_tools.diagrams import count_line_crossings
from vision_tools.image import Box, BoxFrame, name_colour
from vision_tools.text import read_text
from vision_tools.zoom import crop, find_region

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"


class MemoryImages:
    """An image store in a dict: content id (sha256 of the PNG) -> PNG bytes."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def save(self, image: Image.Image) -> str:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        key = hashlib.sha256(buffer.getvalue()).hexdigest()
        self.files[key] = buffer.getvalue()
        return key

    def load(self, image_id: str) -> Image.Image:
        return Image.open(io.BytesIO(self.files[image_id]))


def round_trip(value: Any) -> tuple[Any, MemoryImages]:
    images = MemoryImages()
    return decode(encode(value, images.save), images.load), images


def example(name: str) -> Image.Image:
    return Image.open(EXAMPLES / name).convert("RGB")


def _label_scene() -> Image.Image:
    image = Image.new("RGB", (900, 500), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((500, 300, 760, 400), fill=(245, 140, 20))
    draw.regular_polygon((200, 150, 40), 5, fill=(220, 30, 30))
    return image


TOOL_CALLS = {
    "ocr": lambda: read_text(example("sign.png")),
    "chart": lambda: parse_chart(example("bar_chart.png")),
    "shapes": lambda: count_shapes(example("shapes.png"), shape="circle"),
    "crossings": lambda: count_line_crossings(example("blindtest_line_intersection.png"), "blue", "red"),
    "colour": lambda: name_colour(_label_scene(), Box(500, 300, 760, 400)),
    "search": lambda: find_region(_label_scene(), "orange", kind="colour"),
    "crop": lambda: crop(example("sign.png"), Box(10, 10, 200, 120), pad=0.1),
    "python": lambda: run_python("print(sum(range(10)))"),
}


@pytest.mark.parametrize("tool", sorted(TOOL_CALLS))
def test_real_tool_results_come_back_equal(tool: str) -> None:
    result = TOOL_CALLS[tool]()
    back, images = round_trip(result)
    assert type(back) is type(result)
    assert back.summary() == result.summary()
    assert back.to_dict() == result.to_dict()
    # Every field, nested boxes and images included: images are stored by the content id of their pixels.
    assert encode(back, images.save) == encode(result, images.save)
    annotated = getattr(result, "annotated", None)
    if annotated is not None:
        assert (back.annotated.mode, back.annotated.size) == (annotated.mode, annotated.size)
        assert back.annotated.tobytes() == annotated.tobytes()


def test_values_json_would_blur_keep_their_kind() -> None:
    value = {"box": Box(1.5, 2, 3, 4), "frame": BoxFrame.RELATIVE_1000, "pair": (1, 2.5), "tags": {"a", "b"},
             (3, 4): "tuple key", 5: "int key", "nan": math.nan, "inf": -math.inf, "np": np.float32(0.25),
             "mask": np.arange(12, dtype=np.int16).reshape(3, 4), "raw": b"\x00\xff", "grey": Image.new("L", (4, 3), 7)}
    back, _ = round_trip(value)
    assert back["box"] == Box(1.5, 2, 3, 4) and back["frame"] is BoxFrame.RELATIVE_1000
    assert back["pair"] == (1, 2.5) and isinstance(back["pair"], tuple) and back["tags"] == {"a", "b"}
    assert back[(3, 4)] == "tuple key" and back[5] == "int key"
    assert math.isnan(back["nan"]) and back["inf"] == -math.inf
    assert type(back["np"]) is np.float32 and back["np"] == np.float32(0.25)
    assert back["mask"].dtype == np.int16 and np.array_equal(back["mask"], value["mask"])
    assert back["raw"] == b"\x00\xff" and back["grey"].mode == "L"
    assert back["grey"].tobytes() == value["grey"].tobytes()


@pytest.mark.parametrize("value", [object(), lambda: 1, Image.new("F", (2, 2)), np.array([object()]),
                                   Path("/etc/passwd")])
def test_values_without_a_faithful_form_are_not_stored(value: Any) -> None:
    with pytest.raises(NotEncodable):
        encode({"x": value}, MemoryImages().save)


@pytest.mark.parametrize("cls", ["os:system", "subprocess:Popen", "builtins:object", "vision_tools.text:read_text",
                                 "vision_tools.image.boxes:Box.__init__", "sandbox:subprocess.Popen",
                                 "vision_toolsx.evil:Thing"])
def test_decoding_builds_only_trusted_result_classes(cls: str) -> None:
    stored = {"format": 1, "value": {"$t": "dataclass", "cls": cls, "f": {}}}
    with pytest.raises(NotDecodable):
        decode(stored, MemoryImages().load)


def test_decoding_refuses_tampered_data() -> None:
    load = MemoryImages().load
    for value in ({"$t": "ndarray", "dtype": "|O", "shape": [1], "b64": "AA=="},
                  {"$t": "npscalar", "dtype": "<M8[s]", "v": 0},
                  {"$t": "pickle", "v": "x"},
                  {"$t": "dataclass", "cls": "vision_tools.image.boxes:Box", "f": {"x0": 1}}):  # fields missing
        with pytest.raises(NotDecodable):
            decode({"format": 1, "value": value}, load)
    with pytest.raises(NotDecodable):
        decode({"format": 99, "value": 1}, load)


def test_decoding_sets_fields_without_running_constructor_code(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = encode(Box(1, 2, 3, 4), MemoryImages().save)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the constructor ran")

    monkeypatch.setattr(Box, "__init__", refuse)
    assert decode(stored, MemoryImages().load).as_list() == [1, 2, 3, 4]


def test_the_cache_key_separates_calls_that_differ_anywhere() -> None:
    trace = ToolTrace()
    image = example("sign.png")
    long_a, long_b = "x" * 400 + "a", "x" * 400 + "b"  # the recorded args cut both to the same 300 characters
    key = trace.cache_key
    assert key("python.run", run_python, (long_a,), {}) != key("python.run", run_python, (long_b,), {})
    assert key("python.run", run_python, (long_a,), {}) == ToolTrace().cache_key("python.run", run_python, (long_a,), {})
    other = image.copy()
    other.putpixel((0, 0), (1, 2, 3))
    assert key("ocr.read_text", read_text, (image,), {}) != key("ocr.read_text", read_text, (other,), {})
    assert key("ocr.read_text", read_text, (image,), {}) != key("ocr.read_text", read_text, (image,), {"region": None})
    assert key("t", read_text, (image,), {}) != key("t", find_region, (image,), {})  # the function counts too
    assert key("t", crop, (image, Box(0, 0, 5, 5)), {}) != key("t", crop, (image, Box(0, 0, 5, 6)), {})


class DictCache:
    def __init__(self, outputs: dict[str, Any]) -> None:
        self.outputs = outputs

    def get(self, tool: str, key: str) -> CachedOutput | None:
        return CachedOutput(self.outputs[key], "ab" * 32) if key in self.outputs else None


def test_a_trace_with_a_cache_reuses_matching_calls_and_runs_the_rest() -> None:
    image = example("sign.png")
    calls: list[str] = []

    def tool(img: Image.Image, word: str) -> Any:
        calls.append(word)
        return crop(img, Box(0, 0, 50, 50))

    stored = crop(image, Box(0, 0, 50, 50))
    key = ToolTrace().cache_key("demo.tool", tool, (image, "stored"), {})
    with reusing_tool_outputs(DictCache({key: stored})):
        trace = ToolTrace()  # made inside: the active cache is picked up, as the loop's trace is
        assert trace.call("demo.tool", tool, image, "stored") is stored
        trace.call("demo.tool", tool, image, "fresh")
    assert calls == ["fresh"]
    reused, live = trace.calls
    assert (reused.reused, reused.image_id, reused.output) == (True, "ab" * 32, None)
    assert (live.reused, live.image_id) == (False, None) and live.output is not None
    assert reused.summary == stored.summary() and reused.cache_key == key
    assert ToolTrace().cache is None  # outside the block nothing is reused
