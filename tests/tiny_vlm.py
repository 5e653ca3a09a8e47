"""Builds a tiny, randomly initialised Qwen2-VL checkpoint on CPU so the transformers back end can be tested offline.

No weights can be downloaded here (docs/design.md §8), so the model is made from a config, the tokenizer is trained
in-process with the ``tokenizers`` library on a small corpus, and the files the real ``Qwen2VLProcessor`` reads
(image processor, tokenizer, chat template, processor class) are saved beside it, in the layout of a Qwen2-VL
download. ``AutoModelForImageTextToText`` loads the folder; ``AutoProcessor`` does too where torchvision works,
and the transformers back end assembles the same processor without its video half where it does not (this venv).
The output is gibberish; the plumbing is real.
"""

from __future__ import annotations

import json
from pathlib import Path

#: The chat-template special tokens Qwen2-VL uses; the processor looks the image/video pads up by these names.
SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

# A Qwen-style template: images become <|vision_start|><|image_pad|><|vision_end|>, which the processor expands
# to one pad per merged patch.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "How many circles are in the image? There are 3 circles.",
    "What is the value of the tallest bar in the chart? The answer is 42.",
    "Read the text in the sign: OPEN 24 HOURS.",
    "Do the two lines intersect? Yes, they cross once at (120, 80).",
    "Return the bounding box as JSON: {\"bbox_2d\": [10, 20, 110, 220], \"label\": \"cat\"}",
    "You are a helpful visual assistant. Answer briefly.",
    "The quick brown fox jumps over the lazy dog 0123456789.",
]


def _train_tokenizer() -> object:
    """A byte-level BPE tokenizer (any text encodes, nothing is unknown) with the Qwen special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=SPECIAL_TOKENS[1:])


def build_tiny_qwen2vl(out_dir: Path | str, *, seed: int = 0) -> Path:
    """Write a tiny random Qwen2-VL (model, tokenizer, image processor, chat template) into ``out_dir``."""
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    vocab = len(tokenizer)

    # head_dim 16 -> 8 rotary frequencies, split over (temporal, height, width) by mrope_section.
    text = {"vocab_size": vocab, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
            "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"]}
    vision = {"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 2,
              "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}
    config = Qwen2VLConfig(text_config=text, vision_config=vision, image_token_id=ids["<|image_pad|>"],
                           video_token_id=ids["<|video_pad|>"], vision_start_token_id=ids["<|vision_start|>"],
                           vision_end_token_id=ids["<|vision_end|>"])
    torch.manual_seed(seed)
    model = Qwen2VLForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(out)

    # Keep images small so the vision tower stays cheap: at most 64 merged tokens per image.
    image_processor = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=28 * 28 * 64)
    # The files Qwen2VLProcessor.save_pretrained writes, written piecewise: without torchvision the processor
    # itself cannot be instantiated here (its video processor needs it), while loading the pieces works.
    image_processor.save_pretrained(out)
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)
    (out / "chat_template.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
    (out / "processor_config.json").write_text(json.dumps({"processor_class": "Qwen2VLProcessor"}) + "\n",
                                               encoding="utf-8")
    return out


if __name__ == "__main__":  # pragma: no cover - handy for building one by hand
    import sys

    print(build_tiny_qwen2vl(sys.argv[1] if len(sys.argv) > 1 else "tiny-qwen2vl"))
