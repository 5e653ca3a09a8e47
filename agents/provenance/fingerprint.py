"""The reproducibility record of a run: everything besides the image and question that decided what it did.

Stored with each run as ``config["reproducibility"]`` (``maestro runs show --json`` prints it) and with each
evaluation in its ``summary.json``: per expert the exact request parameters (sampling, seed, stop, ``extra_body``,
image encoding, processor limits), the orchestrator's sampling, the registry (file and content hash; the snapshot
itself is stored once per hash), the vLLM flags ``serve-experts`` starts each served entry with, and the versions of
the packages that shape answers. vLLM batches requests, so even a seeded greedy run can differ between runs on a
busy server; recording the settings is what makes such differences explainable.
"""

from __future__ import annotations

import platform
import sys
from functools import lru_cache
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.registry import ExpertSpec, Registry

#: Distributions whose versions can change an answer (imported or not: versions are read from metadata only).
PACKAGES = ("maestro-agent", "torch", "transformers", "trl", "tokenizers", "rapidocr", "onnxruntime",
            "opencv-python-headless", "pillow", "numpy", "httpx", "sentence-transformers", "vllm")
#: Per-expert settings a request depends on.
_REQUEST_FIELDS = ("backend", "model", "model_path", "base_url", "max_tokens", "temperature", "top_p", "top_k",
                   "presence_penalty", "seed", "stop", "extra_body", "image_format", "jpeg_quality", "min_pixels",
                   "max_pixels", "box_frame", "device", "dtype")


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str | None]:
    """Python, the platform and each of ``PACKAGES`` (None: not installed here)."""
    versions: dict[str, str | None] = {"python": sys.version.split()[0], "platform": platform.platform()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def expert_settings(spec: ExpertSpec) -> dict[str, Any]:
    """What requests to this expert carry (no secrets: the key's variable name is not even needed)."""
    return {name: getattr(spec, name) for name in _REQUEST_FIELDS if getattr(spec, name, None) not in (None, [], {})}


def engine_flags(spec: ExpertSpec) -> list[str] | None:
    """The vLLM command ``serve-experts`` starts this entry with (None: it has no ``serve:`` block, so the engine
    was started by other means and its flags are not known here)."""
    if spec.serve is None:
        return None
    from agents.experts.serving import build_command

    return build_command(spec, ["vllm"])[1:]


def fingerprint(registry: Registry, policy: Any, *, extra: dict[str, Any] | None = None,
                registry_hash: str | None = None) -> dict[str, Any]:
    """The reproducibility record of a run made with ``registry`` and ``policy`` (``extra``: e.g. option order)."""
    orchestrator = registry.orchestrator
    sampling = {"policy": getattr(policy, "name", str(policy)),
                "policy_temperature": getattr(policy, "temperature", None),
                "self_consistency": orchestrator.self_consistency, "max_turns": orchestrator.max_turns}
    experts = {spec.name: expert_settings(spec) for spec in registry.experts if spec.backend != "tools"}
    seeds = {name: settings.get("seed") for name, settings in experts.items()}
    return {"sampling": sampling, "experts": experts, "seeds": seeds,
            "registry": {"file": str(registry.path), "hash": registry_hash or registry.snapshot_hash()},
            "engine_flags": {spec.name: engine_flags(spec) for spec in registry.experts if spec.serve is not None},
            "packages": package_versions(), **(extra or {})}


def evaluation_record(maestro: Any, **settings: Any) -> dict[str, Any]:
    """The reproducibility record of an evaluation: the runs' record plus the harness settings (option-shuffle
    seed, self-consistency, concurrency, tool reuse)."""
    return fingerprint(maestro.registry, maestro.policy, extra={"harness": settings})
