"""The ``transformers`` back end: a Hugging Face VLM (Qwen2-VL / Qwen2.5-VL / Qwen3-VL family) run in-process.

torch and transformers are an optional extra and are imported only when a model is first used. A model is loaded
once per (weights folder, device, dtype) and shared by every expert and policy that names it; a lock per loaded
model serialises generation so concurrent runs do not interleave on one set of weights. Weights come from a local
folder or the Hugging Face cache (``HF_HUB_OFFLINE`` respected); when they are missing the error says how to get
them. Replies carry ``input_size``, the image size the processor really fed the model, so boxes written in
resized-input pixels (Qwen2.5-VL) convert exactly; ``boxes`` are the reply's boxes in pixels of the first image.
Message packing (the chat template, image placeholders expanded to the image's patch tokens) is the processor's own
``apply_chat_template``.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import budget
from agents.experts.base import ChatMessage, ExpertError, ExpertReply, first_image
from agents.experts.coordinates import expert_boxes, rewrite_in_pixels
from agents.experts.reasoning import split_reasoning

INSTALL_HINT = 'pip install -c constraints.txt "maestro-agent[transformers]"'
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class LoadedModel:
    """One model and its processor in memory, with the lock that serialises its use."""

    model: Any
    processor: Any
    device: str
    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)


_CACHE: dict[tuple[str, str, str], LoadedModel] = {}
_CACHE_LOCK = threading.Lock()


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ExpertError(f"the transformers back end needs torch and transformers ({exc.name} is missing): "
                          f"{INSTALL_HINT}") from exc
    return torch, transformers


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def _how_to_get(model: str) -> str:
    repo = model if _HUB_ID.match(model) else "Qwen/Qwen2.5-VL-3B-Instruct"
    return (f"download the weights on a machine with network access with `hf download {repo} --local-dir "
            f"models/{repo.split('/')[-1]}` (older huggingface_hub: `huggingface-cli download {repo} --local-dir "
            f"...`) and set model_path in the registry to that folder")


def resolve_weights(model_path: str) -> Path:
    """The local folder holding ``model_path``'s weights: the folder itself, or its Hugging Face cache snapshot."""
    local = Path(model_path).expanduser()
    if local.is_dir():
        if not (local / "config.json").is_file():
            raise ExpertError(f"{local} has no config.json, so it is not a Hugging Face model folder; "
                              f"{_how_to_get(model_path)}")
        return local
    if not _HUB_ID.match(model_path):
        raise ExpertError(f"no model weights at {model_path!r}: {_how_to_get(model_path)}")
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise ExpertError(f"huggingface_hub is missing: {INSTALL_HINT}") from exc
    try:
        return Path(snapshot_download(model_path, local_files_only=True))
    except Exception as cached_exc:  # noqa: BLE001 - any miss means "not in the cache"
        if _offline():
            raise ExpertError(f"weights for {model_path!r} are not in the Hugging Face cache and HF_HUB_OFFLINE is "
                              f"set: {_how_to_get(model_path)}") from cached_exc
    try:
        return Path(snapshot_download(model_path))
    except Exception as exc:  # noqa: BLE001 - network, auth and missing-repo errors all end the same way
        raise ExpertError(f"could not download {model_path!r} ({type(exc).__name__}: {str(exc)[:200]}): "
                          f"{_how_to_get(model_path)}") from exc


def _chat_template(path: Path, tokenizer: Any) -> str | None:
    """The processor chat template, from the files a processor saves (newest format first)."""
    if (path / "chat_template.jinja").is_file():
        return (path / "chat_template.jinja").read_text(encoding="utf-8")
    for name in ("chat_template.json", "processor_config.json"):
        if (path / name).is_file():
            template = json.loads((path / name).read_text(encoding="utf-8")).get("chat_template")
            if template:
                return str(template)
    return getattr(tokenizer, "chat_template", None)


def _image_only_processor(path: Path, transformers: Any) -> Any:
    """The model's own processor class, built without its video processor.

    transformers 5 loads a video processor for every Qwen-VL processor, and that needs torchvision, which does not
    work with CPU torch (docs/design.md §8). Images never need it, so the processor is assembled from its tokenizer and
    image processor with the video slot left empty.
    """
    from transformers.models.auto.processing_auto import PROCESSOR_MAPPING_NAMES

    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    name = None
    if (path / "processor_config.json").is_file():
        name = json.loads((path / "processor_config.json").read_text(encoding="utf-8")).get("processor_class")
    name = name or PROCESSOR_MAPPING_NAMES.get(config.get("model_type", ""))
    base = getattr(transformers, name or "", None)
    if base is None:
        raise ExpertError(f"cannot tell which processor {path} needs (model_type {config.get('model_type')!r})")

    def check(self: Any, argument_name: str, argument: Any) -> Any:
        if argument_name == "video_processor" and argument is None:
            return None
        return base.check_argument_for_proper_class(self, argument_name, argument)

    cls = type(f"{base.__name__}ImagesOnly", (base,), {"check_argument_for_proper_class": check})
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    image_processor = transformers.AutoImageProcessor.from_pretrained(path)
    return cls(image_processor=image_processor, tokenizer=tokenizer, video_processor=None,
               chat_template=_chat_template(path, tokenizer))


def _load_processor(path: Path, transformers: Any) -> Any:
    try:
        return transformers.AutoProcessor.from_pretrained(path)
    except ImportError as exc:
        if "torchvision" not in str(exc).lower():
            raise
        return _image_only_processor(path, transformers)


def _pick_device(torch: Any, device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ExpertError(f"device {device!r} was asked for but torch sees no CUDA GPU (torch {torch.__version__})")
    return device


def _pick_dtype(torch: Any, dtype: str, device: str) -> Any:
    if dtype == "auto":
        # The checkpoint's own dtype (bf16 for Qwen) on a GPU; float32 on CPU, where bf16 matmuls are slow or missing.
        return "auto" if device.startswith("cuda") else torch.float32
    try:
        return getattr(torch, dtype)
    except AttributeError as exc:
        raise ExpertError(f"unknown dtype {dtype!r} (use auto, bfloat16, float16 or float32)") from exc


def load_model(model_path: str, *, device: str = "auto", dtype: str = "auto") -> LoadedModel:
    """The shared in-memory model for ``model_path`` on ``device``, loading it on first use."""
    torch, transformers = _import_torch()
    resolved_device = _pick_device(torch, device)
    path = resolve_weights(model_path)
    key = (str(path.resolve()), resolved_device, dtype)
    with _CACHE_LOCK:  # also keeps two threads from loading the same weights twice
        if key not in _CACHE:
            try:
                processor = _load_processor(path, transformers)
                model = transformers.AutoModelForImageTextToText.from_pretrained(
                    path, dtype=_pick_dtype(torch, dtype, resolved_device))
            except (OSError, ValueError) as exc:
                raise ExpertError(f"could not load the model in {path}: {str(exc)[:300]}") from exc
            _CACHE[key] = LoadedModel(model=model.to(resolved_device).eval(), processor=processor,
                                      device=resolved_device, path=path)
        return _CACHE[key]


def _to_processor_messages(messages: list[ChatMessage]) -> tuple[list[dict[str, Any]], int]:
    """Neutral chat -> the processor's chat format (the same shape; strings become text parts, images RGB)."""
    out: list[dict[str, Any]] = []
    images = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts: list[dict[str, Any]] = []
        for part in content or []:
            if part.get("type") == "image":
                parts.append({"type": "image", "image": part["image"].convert("RGB")})
                images += 1
            elif part.get("type") == "text":
                parts.append({"type": "text", "text": str(part.get("text", ""))})
            else:
                raise ExpertError(f"unsupported message part type {part.get('type')!r}")
        out.append({"role": message["role"], "content": parts})
    return out, images


class TransformersExpert:
    """An expert run in this process with Hugging Face transformers; the model loads on the first call."""

    neural = True

    def __init__(self, name: str, *, model_path: str, device: str = "auto", dtype: str = "auto",
                 max_tokens: int = 512, max_pixels: int | None = None, min_pixels: int | None = None,
                 box_frame: str = "pixels", model_id: str | None = None, temperature: float = 0.0,
                 top_p: float | None = None, top_k: int | None = None, seed: int | None = None) -> None:
        self.name = name
        self.model_path = model_path
        self.box_frame = box_frame
        # The hub id tells the model family (and so its box frame) when the weights folder's name does not.
        self.model_id = model_id or model_path
        self.device = device
        self.dtype = dtype
        self.max_tokens = max_tokens
        self.max_pixels = max_pixels
        self.min_pixels = min_pixels
        self.temperature = temperature
        self.top_p, self.top_k, self.seed = top_p, top_k, seed

    def load(self) -> LoadedModel:
        """Load (or fetch from the shared cache) the model now rather than on the first call."""
        return load_model(self.model_path, device=self.device, dtype=self.dtype)

    def _size_kwargs(self, processor: Any) -> dict[str, Any]:
        if self.max_pixels is None and self.min_pixels is None:
            return {}
        size = dict(getattr(processor.image_processor, "size", None) or {})
        if self.min_pixels is not None:
            size["shortest_edge"] = self.min_pixels
        if self.max_pixels is not None:
            size["longest_edge"] = self.max_pixels
        return {"processor_kwargs": {"size": size}}

    def generate(self, messages: list[ChatMessage], *, max_tokens: int | None = None,
                 temperature: float | None = 0.0) -> ExpertReply:
        """Greedy decoding at temperature 0, sampling otherwise (0/None: the entry's own temperature, top_p,
        top_k and seed); at most ``max_tokens`` new tokens."""
        budget.check()  # a local generation cannot be interrupted: do not start one the run has no time for
        loaded = self.load()
        torch, _ = _import_torch()
        chat, images = _to_processor_messages(messages)
        limit = int(max_tokens or self.max_tokens)
        temperature = float(temperature or self.temperature)
        sampling: dict[str, Any] = {"do_sample": False}
        if temperature > 0:
            sampling = {"do_sample": True, "temperature": temperature,
                        **({"top_p": self.top_p} if self.top_p is not None else {}),
                        **({"top_k": self.top_k} if self.top_k is not None and self.top_k > 0 else {})}
            if self.seed is not None:
                torch.manual_seed(self.seed)
        started = time.perf_counter()
        with loaded.lock:
            try:
                inputs = loaded.processor.apply_chat_template(
                    chat, add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt",
                    **self._size_kwargs(loaded.processor))
                inputs = inputs.to(loaded.device)
                with torch.inference_mode():
                    output = loaded.model.generate(**inputs, max_new_tokens=limit, **sampling)
            except (RuntimeError, ValueError) as exc:
                raise ExpertError(f"expert {self.name!r} failed while generating: {str(exc)[:300]}") from exc
        prompt_len = int(inputs["input_ids"].shape[1])
        new_tokens = output[0, prompt_len:]
        latency_ms = (time.perf_counter() - started) * 1000
        raw = loaded.processor.batch_decode(new_tokens[None], skip_special_tokens=True)[0]
        text, reasoning = split_reasoning(raw)
        input_size = None
        if images and "image_grid_thw" in inputs:
            # grid = (t, h, w) in patches; the processor resized the first image to h*patch x w*patch pixels.
            patch = int(getattr(loaded.processor.image_processor, "patch_size", 14))
            _, grid_h, grid_w = (int(v) for v in inputs["image_grid_thw"][0])
            input_size = (grid_w * patch, grid_h * patch)
        image = first_image(messages)
        boxes = expert_boxes(text, image_size=image.size if image is not None else None, model=self.model_id,
                             declared_frame=self.box_frame, input_size=input_size)
        return ExpertReply(text=text.strip(), tokens_in=prompt_len, tokens_out=int(new_tokens.numel()),
                           latency_ms=latency_ms, input_size=input_size, boxes=boxes,
                           pixel_text=rewrite_in_pixels(text.strip(), boxes), reasoning=reasoning,
                           raw=raw.strip() if raw.strip() != text.strip() else None)


def clear_cache() -> None:
    """Forget every loaded model (tests, or freeing memory before loading another)."""
    with _CACHE_LOCK:
        _CACHE.clear()
