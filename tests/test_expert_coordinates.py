"""Box parsing from expert text and per-family conversion to original-image pixels, with worked numbers."""

from __future__ import annotations

import pytest

from agents.experts.base import ExpertBox
from agents.experts.coordinates import (
    ModelFamily,
    ParsedBox,
    boxes_in_pixels,
    convert_box,
    expert_boxes,
    frame_for,
    model_family,
    parse_boxes,
    resized_input_size,
)
from vision_tools.image.boxes import Box, BoxFrame


@pytest.mark.parametrize(("model", "family", "frame"), [
    ("Qwen/Qwen2.5-VL-7B-Instruct", ModelFamily.QWEN25_VL, BoxFrame.RESIZED_PIXELS),
    ("/models/qwen2_5_vl_3b", ModelFamily.QWEN25_VL, BoxFrame.RESIZED_PIXELS),
    ("Qwen/Qwen3-VL-4B-Instruct", ModelFamily.QWEN3_VL, BoxFrame.RELATIVE_1000),
    ("Qwen/Qwen2-VL-2B-Instruct", ModelFamily.QWEN2_VL, BoxFrame.RELATIVE_1000),
    ("gpt-4o", ModelFamily.GENERIC, BoxFrame.RELATIVE_1),
    (None, ModelFamily.GENERIC, BoxFrame.RELATIVE_1),
])
def test_family_and_frame(model: str | None, family: ModelFamily, frame: BoxFrame) -> None:
    assert model_family(model) is family
    # The generic family answers in whatever frame the registry declares (here 0-1).
    assert frame_for(model, "relative_1") is frame


def test_resize_rule_worked_examples() -> None:
    # transformers' Qwen2-VL rule, called with (height, width) and answering (w, h) here: a swap would show.
    # 1920x1080 fits the default 12.8 MP budget: each side is rounded to a multiple of 28.
    assert resized_input_size((1920, 1080)) == (1932, 1092)
    # Over a 1 MP budget both sides shrink by the same ratio, floored to multiples of 28.
    assert resized_input_size((1920, 1080), max_pixels=1_003_520) == (1316, 728)
    # Tiny images are grown to reach min_pixels (56*56).
    assert resized_input_size((20, 10)) == (84, 56)
    assert resized_input_size((300, 200), max_pixels=28 * 28 * 64) == (252, 168)


@pytest.mark.parametrize("size", [(0, 10), (10, -1), (10_000, 20)])
def test_resize_rule_refuses_what_the_processor_refuses(size: tuple[int, int]) -> None:
    with pytest.raises(ValueError):  # an empty image, or an aspect ratio beyond 200:1
        resized_input_size(size)


def test_qwen25_resized_pixels_to_original() -> None:
    text = '```json\n[{"bbox_2d": [966, 546, 1932, 1092], "label": "sun"}]\n```'
    [(box, label)] = boxes_in_pixels(text, image_size=(1920, 1080), model="Qwen2.5-VL-7B-Instruct")
    assert label == "sun"
    # Resized input 1932x1092 -> scale 1920/1932 and 1080/1092.
    assert box == Box(960.0, 540.0, 1920.0, 1080.0)


def test_qwen25_uses_reported_input_size_over_the_rule() -> None:
    # The transformers back end reports the processor's real input size; it wins over the computed one.
    box = convert_box([100, 50, 200, 100], image_size=(800, 400), frame="resized_pixels", input_size=(400, 200))
    assert box == Box(200.0, 100.0, 400.0, 200.0)


def test_qwen25_after_client_downscale() -> None:
    # A 4000x3000 photo sent downscaled to 1156x867: the server resized that to 1148x868, not the original.
    [(box, _)] = boxes_in_pixels("[574, 434, 1148, 868]", image_size=(4000, 3000), model="Qwen2.5-VL-72B",
                                 sent_size=(1156, 867), max_pixels=1_003_520)
    assert resized_input_size((1156, 867), max_pixels=1_003_520) == (1148, 868)
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx((2000.0, 1500.0, 4000.0, 3000.0))


def test_qwen3_relative_1000() -> None:
    [(box, label)] = boxes_in_pixels('{"bbox_2d": [250, 500, 750, 1000], "label": "dog"}', image_size=(640, 480),
                                     model="Qwen/Qwen3-VL-8B-Instruct")
    assert (box, label) == (Box(160.0, 240.0, 480.0, 480.0), "dog")


def test_generic_declared_frames() -> None:
    assert boxes_in_pixels("[0.1, 0.2, 0.5, 0.6]", image_size=(1000, 500), model="some-vlm",
                           declared_frame="relative_1")[0][0] == Box(100.0, 100.0, 500.0, 300.0)
    assert boxes_in_pixels("[12, 34, 56, 78]", image_size=(100, 100), model="some-vlm")[0][0] == Box(12, 34, 56, 78)


def test_out_of_range_and_reversed_boxes_are_clamped() -> None:
    [(box, _)] = boxes_in_pixels("[1100, 900, -20, 100]", image_size=(200, 100), model="Qwen3-VL-4B")
    assert box == Box(0.0, 10.0, 200.0, 90.0)


def test_parse_tagged_boxes() -> None:
    text = "The cat is at <box>(10,20),(110,220)</box> and the dog <box>( 5.5 , 6 ) , ( 7 , 8.25 )</box>."
    assert parse_boxes(text) == [ParsedBox((10.0, 20.0, 110.0, 220.0)), ParsedBox((5.5, 6.0, 7.0, 8.25))]
    qwen2 = "<|object_ref_start|>the red car<|object_ref_end|><|box_start|>(120,340),(560,780)<|box_end|>"
    assert parse_boxes(qwen2) == [ParsedBox((120.0, 340.0, 560.0, 780.0), "the red car")]


def test_parse_json_with_prose_and_nesting() -> None:
    text = ('Here are the objects:\n{"objects": [{"bbox_2d": [1, 2, 3, 4], "label": "a"}, '
            '{"bbox": [5, 6, 7, 8], "name": "b"}, {"bbox_2d": [1, 2, 3], "label": "broken"}]}\nDone.')
    assert parse_boxes(text) == [ParsedBox((1.0, 2.0, 3.0, 4.0), "a"), ParsedBox((5.0, 6.0, 7.0, 8.0), "b")]


def test_parse_bare_lists_and_nothing() -> None:
    assert parse_boxes("box one [1, 2, 3, 4]; box two [10.5,20,30,40.5]") == [
        ParsedBox((1.0, 2.0, 3.0, 4.0)), ParsedBox((10.5, 20.0, 30.0, 40.5))]
    assert parse_boxes("There are 3 circles [see image].") == []
    assert parse_boxes("[1, 2, 3]") == []


def test_resized_frame_rejects_empty_image() -> None:
    with pytest.raises(ValueError):
        convert_box([1, 2, 3, 4], image_size=(0, 10), frame="resized_pixels")


def test_expert_boxes_at_the_expert_boundary() -> None:
    text = 'I see it: {"bbox_2d": [574, 434, 1148, 868], "label": "dog"}'
    # Sent downscaled to 1156x867, which the server resized to 1148x868.
    assert expert_boxes(text, image_size=(4000, 3000), model="Qwen2.5-VL-3B", sent_size=(1156, 867)) == [
        ExpertBox(convert_box([574, 434, 1148, 868], image_size=(4000, 3000), frame="resized_pixels",
                              input_size=(1148, 868)), "dog")]
    # The size the back end saw wins over the computed one.
    [reported] = expert_boxes(text, image_size=(4000, 3000), model="Qwen2.5-VL-3B", input_size=(2296, 1736))
    assert reported.box.as_list() == [1000, 750, 2000, 1500]
    assert expert_boxes(text, image_size=None, model="Qwen2.5-VL-3B") == []  # no image in the chat
    assert expert_boxes("There are 3 dogs.", image_size=(640, 480), model="Qwen2.5-VL-3B") == []
    # An image the processor would refuse (201:1): no input size to convert with, so nothing is guessed.
    assert expert_boxes(text, image_size=(20100, 100), model="Qwen2.5-VL-3B") == []
