"""TransformersExpert on a tiny random Qwen2-VL built in-process: the real processor, chat template and generate.

The processor packs the chat (the chat template, each image expanded to its patch tokens) and sizes the images; the
size it really fed the model is what the OpenAI back end computes with the same transformers rule for a served
model, so a box converts to the same original pixels on both paths.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.experts.base import ExpertError, ExpertReply, image_part, text_part
from agents.experts.coordinates import convert_box, expert_boxes, resized_input_size

pytest.importorskip("torch")
pytest.importorskip("transformers")

from agents.experts import transformers_backend as tb  # noqa: E402
from agents.experts.transformers_backend import TransformersExpert  # noqa: E402
from tests.tiny_vlm import build_tiny_qwen2vl  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen2vl(tmp_path_factory.mktemp("tiny-qwen2vl"))


@pytest.fixture(scope="module")
def chart() -> Image.Image:
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    for i, height in enumerate([120, 200, 80]):
        draw.rectangle((60 + 100 * i, 260 - height, 120 + 100 * i, 260), fill=(50, 90, 200))
    draw.text((20, 10), "Sales 2024", fill="black", font=ImageFont.truetype(FONT, 28))
    return image


def ask(image: Image.Image, question: str = "What is the tallest bar?") -> list[dict]:
    return [{"role": "system", "content": [text_part("Answer briefly.")]},
            {"role": "user", "content": [image_part(image), text_part(question)]}]


def check_reply(reply: ExpertReply, max_tokens: int) -> None:
    assert isinstance(reply.text, str)
    assert reply.tokens_in > 0
    assert 0 < reply.tokens_out <= max_tokens
    assert reply.latency_ms > 0


def test_generates_for_a_real_image(tiny_vlm: Path, chart: Image.Image) -> None:
    expert = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu", max_tokens=6)
    reply = expert.generate(ask(chart))
    check_reply(reply, 6)
    # The tiny processor caps images at 28*28*64 px: 400x300 -> the resize rule -> 252x168 (18x12 patches of 14).
    assert reply.input_size == (252, 168) == resized_input_size((400, 300), max_pixels=28 * 28 * 64)
    # 18*12/4 = 54 merged image tokens plus the template and the question are in the prompt.
    assert reply.tokens_in > 54
    # Greedy decoding on the same input is deterministic.
    assert expert.generate(ask(chart)).text == reply.text


def test_max_pixels_and_tokens_override(tiny_vlm: Path, chart: Image.Image) -> None:
    small = TransformersExpert("tiny-small", model_path=str(tiny_vlm), device="cpu", max_tokens=50,
                               max_pixels=28 * 28 * 16)
    reply = small.generate(ask(chart), max_tokens=3)
    check_reply(reply, 3)
    assert reply.input_size == (112, 84)
    default = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu")
    # Both experts share one loaded model, and the smaller image budget gives a shorter prompt.
    assert small.load() is default.load()
    assert default.generate(ask(chart), max_tokens=3).tokens_in > reply.tokens_in


@pytest.mark.parametrize("size", [(400, 300), (90, 250), (30, 20), (1000, 120)])
def test_processor_sizing_and_the_resize_rule_convert_boxes_alike(tiny_vlm: Path, size: tuple[int, int]) -> None:
    tiny_budget = 28 * 28 * 64  # the tiny processor's max_pixels
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).rectangle((size[0] // 4, size[1] // 4, size[0] // 2, size[1] // 2), fill="black")
    expert = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu", max_tokens=2)
    reply = expert.generate(ask(image, "Where is the black square?"))
    rule = resized_input_size(size, max_pixels=tiny_budget)
    assert reply.input_size == rule
    grid_w, grid_h = (side // 14 for side in rule)
    pad = expert.load().processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    prompt = expert.load().processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": "?"}]}],
        add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt")
    assert int((prompt["input_ids"] == pad).sum()) == grid_w * grid_h // 4  # one token per 2x2 merged patch
    written = [rule[0] / 4, rule[1] / 4, rule[0] / 2, rule[1] / 2]  # the square, in the model's input pixels
    from_processor = convert_box(written, image_size=size, frame="resized_pixels", input_size=reply.input_size)
    from_rule = convert_box(written, image_size=size, frame="resized_pixels", max_pixels=tiny_budget)
    assert from_processor == from_rule
    assert from_processor.as_list() == pytest.approx([size[0] / 4, size[1] / 4, size[0] / 2, size[1] / 2], abs=1)
    # The reply's own boxes went through the same conversion (the tiny model's gibberish rarely holds one).
    assert reply.boxes == expert_boxes(reply.text, image_size=size, model=str(tiny_vlm),
                                       input_size=reply.input_size)


def test_text_only_and_sampling(tiny_vlm: Path) -> None:
    expert = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu", max_tokens=4)
    reply = expert.generate([{"role": "user", "content": "Say hello."}], temperature=0.8)
    check_reply(reply, 4)
    assert reply.input_size is None


def test_concurrent_calls_are_serialised(tiny_vlm: Path, chart: Image.Image) -> None:
    expert = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu", max_tokens=4)
    other = TransformersExpert("tiny-2", model_path=str(tiny_vlm), device="cpu", max_tokens=4)
    expected = expert.generate(ask(chart)).text
    replies: list[ExpertReply] = []
    errors: list[BaseException] = []

    def run(e: TransformersExpert) -> None:
        try:
            replies.append(e.generate(ask(chart)))
        except BaseException as exc:  # noqa: BLE001 - collected and asserted on below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in [expert, other] * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(replies) == 6
    # Interleaved use of one model would corrupt its cache; serialised greedy runs all agree.
    assert {r.text for r in replies} == {expected}


def test_missing_local_weights_say_how_to_get_them(tmp_path: Path) -> None:
    expert = TransformersExpert("qwen", model_path=str(tmp_path / "no-such-model"), device="cpu")
    with pytest.raises(ExpertError) as info:
        expert.generate([{"role": "user", "content": "hi"}])
    message = str(info.value)
    assert "no model weights at" in message and "hf download" in message and "model_path" in message


def test_folder_without_config_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ExpertError, match="no config.json"):
        TransformersExpert("qwen", model_path=str(tmp_path), device="cpu").load()


def test_uncached_hub_id_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    expert = TransformersExpert("qwen", model_path="maestro-test/not-a-cached-model-VL", device="cpu")
    with pytest.raises(ExpertError) as info:
        expert.load()
    message = str(info.value)
    assert "HF_HUB_OFFLINE" in message
    assert "hf download maestro-test/not-a-cached-model-VL" in message
    assert "huggingface-cli download maestro-test/not-a-cached-model-VL" in message


def test_cuda_without_gpu(tiny_vlm: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ExpertError, match="no CUDA GPU"):
        TransformersExpert("tiny", model_path=str(tiny_vlm), device="cuda").load()


def test_clear_cache_reloads(tiny_vlm: Path) -> None:
    expert = TransformersExpert("tiny", model_path=str(tiny_vlm), device="cpu")
    first = expert.load()
    tb.clear_cache()
    assert expert.load() is not first
