"""Building neural expert back ends from registry entries (kept apart so the tools-only path imports nothing heavy)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.experts.openai_backend import OpenAIExpert
    from agents.experts.transformers_backend import TransformersExpert
    from agents.registry import ExpertSpec


def build_openai_expert(spec: ExpertSpec) -> OpenAIExpert:
    from agents.experts.openai_backend import OpenAIExpert

    if not (spec.base_url and spec.model):  # ExpertSpec's validator rejects such an entry; this tells mypy
        raise ValueError(f"expert {spec.name!r}: the openai back end needs both base_url and model")
    api_key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    return OpenAIExpert(spec.name, base_url=spec.base_url, model=spec.model, api_key=api_key,
                        timeout_s=spec.timeout_s, max_tokens=spec.max_tokens, max_pixels=spec.max_pixels,
                        min_pixels=spec.min_pixels, retries=spec.retries, box_frame=spec.box_frame,
                        temperature=spec.temperature, top_p=spec.top_p, top_k=spec.top_k,
                        presence_penalty=spec.presence_penalty, seed=spec.seed, stop=spec.stop,
                        extra_body=spec.extra_body, image_format=spec.image_format, jpeg_quality=spec.jpeg_quality)


def build_transformers_expert(spec: ExpertSpec) -> TransformersExpert:
    from agents.experts.transformers_backend import TransformersExpert

    model_path = spec.model_path or spec.model
    if not model_path:  # ExpertSpec's validator rejects such an entry; this tells mypy
        raise ValueError(f"expert {spec.name!r}: the transformers back end needs model_path or model")
    return TransformersExpert(spec.name, model_path=model_path, device=spec.device,
                              dtype=spec.dtype, max_tokens=spec.max_tokens, max_pixels=spec.max_pixels,
                              min_pixels=spec.min_pixels, box_frame=spec.box_frame, model_id=spec.model,
                              temperature=spec.temperature, top_p=spec.top_p, top_k=spec.top_k, seed=spec.seed)
