"""The registry: which expert models and which skills exist, loaded from data and validated with Pydantic.

``assets/registry.yaml`` (or any file given by ``--registry`` / ``MAESTRO_REGISTRY``) lists the experts and the
orchestrator; skills come from ``skills/*/SKILL.md`` plus any extra ``skills_paths``. Every problem is reported as
one clear line naming the file and the field. Names are matched exactly (with declared aliases), never loosely.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agents.experts.base import Expert, RegisteredExpert, ToolsExpert
from agents.protocol import Names
from skills.spec import BUILTIN_SKILLS_DIR, LoadedSkill, SkillProblem, discover_skills

if TYPE_CHECKING:
    from agents.trust.calibration import Calibration

#: The registry shipped with the application: the offline, CPU-only ``tools`` expert.
DEFAULT_REGISTRY = Path(__file__).resolve().parent.parent / "assets" / "registry.yaml"


class RegistryError(ValueError):
    """A registry file that cannot be used; the message names the file and the field."""


class CostSpec(BaseModel):
    """Money per call and per 1k tokens, in whatever currency the user thinks in."""

    model_config = ConfigDict(extra="forbid")

    input_per_1k: float = Field(default=0.0, ge=0)
    output_per_1k: float = Field(default=0.0, ge=0)
    per_call: float = Field(default=0.0, ge=0)

    def of(self, tokens_in: int, tokens_out: int) -> float:
        return self.per_call + tokens_in / 1000 * self.input_per_1k + tokens_out / 1000 * self.output_per_1k


class ServeSpec(BaseModel):
    """How ``maestro serve-experts`` starts a vLLM server for this expert."""

    model_config = ConfigDict(extra="forbid")

    port: int = Field(ge=1, le=65535)
    gpu_memory_utilization: float = Field(0.85, gt=0, le=1)
    max_model_len: int | None = Field(None, ge=256)
    max_images_per_prompt: int = Field(4, ge=1)
    reasoning_parser: str | None = Field(None, description="vLLM --reasoning-parser (default: the model family's, "
                                         "e.g. glm45 for GLM-4.xV, deepseek_r1 for Qwen3-VL Thinking; 'none': off).")
    extra_args: list[str] = Field(default_factory=list)


class ExpertSpec(BaseModel):
    """One expert model (or the tools-only pseudo-expert)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The name the orchestrator writes before '@@'.")
    description: str = ""
    backend: Literal["openai", "transformers", "tools"]
    aliases: list[str] = Field(default_factory=list)
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://gpu-host:8001/v1")
    model: str | None = Field(None, description="Model id sent to the server / hub id for transformers.")
    model_path: str | None = Field(None, description="Local weights folder for the transformers back end.")
    api_key_env: str | None = Field(None, description="Environment variable holding the API key.")
    max_tokens: int = Field(1024, ge=1)
    timeout_s: float = Field(60.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    max_pixels: int = Field(1_003_520, ge=3136, description="Largest image area: images are downscaled to it "
                            "before sending, the server's processor is started with it (serve-experts), and "
                            "resized-pixel boxes are converted with it.")
    min_pixels: int | None = Field(None, ge=3136, description="Smallest image area after the processor's resize "
                                   "(None: the model family's default); used like max_pixels.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature (0: greedy).")
    top_p: float | None = Field(None, gt=0, le=1)
    top_k: int | None = Field(None, ge=-1, description="-1 or None: no top-k cut.")
    presence_penalty: float | None = Field(None, ge=-2, le=2)
    seed: int | None = Field(None, description="Sampling seed sent with each request (reproducible sampling).")
    stop: list[str] = Field(default_factory=list, description="Stop strings sent with each request.")
    extra_body: dict[str, Any] = Field(default_factory=dict, description="Extra request fields passed through "
                                       "as they are, e.g. {chat_template_kwargs: {enable_thinking: false}}.")
    image_format: Literal["png", "jpeg"] = Field("png", description="How images are encoded in requests.")
    jpeg_quality: int = Field(90, ge=1, le=95, description="JPEG quality when image_format is jpeg.")
    device: str = Field("auto", description="transformers: auto | cpu | cuda | cuda:N.")
    dtype: str = Field("auto", description="transformers: auto | float32 | bfloat16 | float16.")
    box_frame: Literal["pixels", "relative_1", "relative_1000", "resized_pixels"] = Field(
        "pixels", description="The frame the model writes boxes in (known Qwen-VL families override it); the back "
        "end converts its reply's boxes to original-image pixels (ExpertReply.boxes).")
    cost: CostSpec = Field(default_factory=CostSpec)
    strengths: list[str] = Field(default_factory=list, description="Skill names this expert is good at.")
    options: dict[str, Any] = Field(default_factory=dict, description="Expert-specific tool settings that skills "
                                    "read from ctx.expert.options, e.g. {ocr_backend: tesseract}.")
    serve: ServeSpec | None = None

    @field_validator("name", "aliases")
    @classmethod
    def _no_protocol_characters(cls, value: Any) -> Any:
        for name in value if isinstance(value, list) else [value]:
            if not name or name != name.strip() or any(ch in name for ch in "@:<>\n\t "):
                raise ValueError(f"{name!r} is not a valid expert name (no spaces, '@', ':', '<', '>')")
        return value

    @model_validator(mode="after")
    def _backend_fields(self) -> ExpertSpec:
        if self.backend == "openai" and not (self.base_url and self.model):
            raise ValueError("the openai back end needs both base_url and model")
        if self.backend == "transformers" and not (self.model_path or self.model):
            raise ValueError("the transformers back end needs model_path or model")
        if self.min_pixels is not None and self.min_pixels > self.max_pixels:
            raise ValueError(f"min_pixels ({self.min_pixels}) is larger than max_pixels ({self.max_pixels})")
        reserved = {"model", "messages", "stream"} & set(self.extra_body)
        if reserved:
            raise ValueError(f"extra_body cannot set {', '.join(sorted(reserved))} (the client sets it)")
        return self


class OrchestratorSpec(BaseModel):
    """Which policy orchestrates, and its knobs."""

    model_config = ConfigDict(extra="forbid")

    policy: Literal["keyword", "router", "vlm"] = "keyword"
    # Defaults are spelled ``default=``: type checkers see a field as optional only then.
    expert: str | None = Field(
        default=None, description="For the vlm policy: the expert entry that serves it.")
    max_turns: int = Field(default=4, ge=1, le=32)
    observation_max_chars: int = Field(default=4000, ge=200, description="Observation budget in characters.")
    observation_max_tokens: int = Field(
        default=1024, ge=64, description="VLM policy: observation budget in tokens (paper D.4).")
    cost_weight: float = Field(
        default=0.1, ge=0, description="λ in expected success − λ·cost (router policy).")
    self_consistency: int = Field(
        default=1, ge=1, le=16, description="sc@k: sample k trajectories and vote on the answer "
        "(needs a policy that samples: vlm; the others are asked once, with a warning).")
    self_consistency_concurrency: int = Field(
        default=4, ge=1, le=16, description="sc@k samples in flight at once.")
    target_precision: float = Field(
        default=0.95, gt=0.5, lt=1, description="Answer only where the calibrated evidence "
        "kind keeps precision at least this high (with 90 % confidence, Learn-then-Test); "
        "otherwise abstain and say what is missing (docs/trust.md).")
    min_confidence: float = Field(
        default=0.5, ge=0, le=1, description="Deprecated (use target_precision): the raw-score "
        "threshold, used only when no calibration is available.")
    expert_confidence: float = Field(
        default=0.6, ge=0, le=1, description="Deprecated with min_confidence: the confidence "
        "of a neural expert's unchecked reply when no calibration is available.")
    run_budget_s: float = Field(
        default=300.0, gt=0, description="Wall-time budget of one run; expert timeouts, retries "
        "and fallbacks all fit inside it.")

class RegistryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    orchestrator: OrchestratorSpec = Field(default_factory=OrchestratorSpec)
    skills_paths: list[str] = Field(default_factory=list)
    experts: list[ExpertSpec] = Field(min_length=1)


@dataclass
class Registry:
    """Experts and skills, with exact name tables, building expert back ends on first use."""

    path: Path
    orchestrator: OrchestratorSpec
    experts: list[ExpertSpec]
    skills: list[LoadedSkill]
    problems: list[SkillProblem] = field(default_factory=list)
    #: P(correct) per evidence kind and thresholds (``agents.trust``); None: the deprecated raw-score threshold.
    #: ``Maestro.open`` sets it (the data directory's calibration, else the shipped one).
    calibration: Calibration | None = None
    _instances: dict[str, RegisteredExpert] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def model_names(self) -> Names:
        return Names({e.name: e.aliases for e in self.experts})

    @property
    def skill_names(self) -> Names:
        return Names({s.spec.name: s.spec.aliases for s in self.skills})

    def expert_spec(self, name: str) -> ExpertSpec:
        canonical = self.model_names.resolve(name)
        for spec in self.experts:
            if spec.name == canonical:
                return spec
        raise KeyError(f"unknown expert {name!r}")

    def skill(self, name: str) -> LoadedSkill:
        canonical = self.skill_names.resolve(name)
        for skill in self.skills:
            if skill.spec.name == canonical:
                return skill
        raise KeyError(f"unknown skill {name!r}")

    def expert(self, name: str) -> RegisteredExpert:
        """The back end for expert ``name``, built once and shared."""
        spec = self.expert_spec(name)
        with self._lock:
            if spec.name not in self._instances:
                self._instances[spec.name] = build_expert(spec)
            return self._instances[spec.name]

    def snapshot(self) -> dict[str, Any]:
        """Everything this registry configures (orchestrator, experts, skills with their prompt templates), as
        stored with each run so it can be reproduced and exported after the file changes. Secrets stay out: an
        expert names the environment variable holding its key, never the key."""
        return {
            "orchestrator": self.orchestrator.model_dump(),
            "experts": [e.model_dump() for e in self.experts],
            "skills": [s.spec.model_dump(exclude={"folder"}) for s in self.skills],
        }

    def snapshot_hash(self) -> str:
        """A content hash of ``snapshot()``, stored on each run (``runs.registry_hash``)."""
        return hashlib.sha256(json.dumps(self.snapshot(), sort_keys=True).encode()).hexdigest()[:16]


def build_expert(spec: ExpertSpec) -> RegisteredExpert:
    """Instantiate the back end an expert spec asks for (heavy back ends are imported lazily).

    The spec's ``options`` ride on the instance as ``expert.options`` (a copy), so a skill can read them from
    ``ctx.expert`` without importing the registry."""
    if spec.backend == "tools":
        expert: Expert = ToolsExpert(spec.name)
    elif spec.backend == "openai":
        from agents.experts.factory import build_openai_expert

        expert = build_openai_expert(spec)
    else:
        from agents.experts.factory import build_transformers_expert

        expert = build_transformers_expert(spec)
    registered = cast(RegisteredExpert, expert)  # a back end has no ``options`` until they are set here
    registered.options = dict(spec.options)
    return registered


def load_registry(path: str | Path | None = None,
                  extra_skills_paths: Sequence[str | Path] | None = None) -> Registry:
    """Load and validate a registry file plus the skills it can see; raise ``RegistryError`` on any problem."""
    path = Path(path) if path else DEFAULT_REGISTRY
    if not path.is_file():
        raise RegistryError(f"{path}: registry file not found")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except UnicodeDecodeError:
        raise RegistryError(f"{path}: not a text file (YAML in UTF-8 expected)") from None
    except yaml.YAMLError as exc:
        raise RegistryError(f"{path}: not valid YAML: {exc}") from exc
    except RecursionError:  # PyYAML composes nested collections recursively
        raise RegistryError(f"{path}: nested too deeply to read (a registry is a few levels deep)") from None
    if not isinstance(raw, dict):
        raise RegistryError(f"{path}: the top level must be a mapping with an 'experts' list")
    try:
        parsed = RegistryFile.model_validate(raw)
    except ValidationError as exc:
        raise RegistryError(f"{path}: " + "; ".join(_describe(err, raw) for err in exc.errors())) from exc

    skill_dirs = [BUILTIN_SKILLS_DIR]
    skill_dirs += [(path.parent / p).resolve() for p in parsed.skills_paths]
    skill_dirs += [Path(p) for p in (extra_skills_paths or [])]
    skills, problems = discover_skills(skill_dirs)
    if not skills:
        raise RegistryError(f"{path}: no usable skills found in {', '.join(map(str, skill_dirs))}")

    _check_unique(path, "experts", [(e.name, e.aliases) for e in parsed.experts])
    _check_unique(path, "skills", [(s.spec.name, s.spec.aliases) for s in skills])
    skill_names = Names({s.spec.name: s.spec.aliases for s in skills})
    for i, expert in enumerate(parsed.experts):
        for strength in expert.strengths:
            if skill_names.resolve(strength) is None:
                raise RegistryError(f"{path}: experts[{i}].strengths: unknown skill {strength!r} "
                                    f"(known: {', '.join(skill_names.names)})")
    if parsed.orchestrator.policy == "vlm":
        names = {e.name for e in parsed.experts}
        if parsed.orchestrator.expert not in names:
            raise RegistryError(f"{path}: orchestrator.expert: the vlm policy needs an expert entry to serve it "
                                f"(got {parsed.orchestrator.expert!r})")
    return Registry(path=path, orchestrator=parsed.orchestrator, experts=parsed.experts, skills=skills,
                    problems=problems)


def _check_unique(path: Path, what: str, entries: list[tuple[str, list[str]]]) -> None:
    seen: dict[str, str] = {}
    for name, aliases in entries:
        for label in [name, *aliases]:
            if label in seen and seen[label] != name:
                raise RegistryError(f"{path}: {what}: name or alias {label!r} is used by both "
                                    f"{seen[label]!r} and {name!r}")
            if label in seen and label == name:
                raise RegistryError(f"{path}: {what}: duplicate name {name!r}")
            seen[label] = name


def _describe(error: Any, raw: dict[str, Any]) -> str:
    loc = error["loc"]
    parts: list[str] = []
    node: Any = raw
    for key in loc:
        if isinstance(key, int):
            name = node[key].get("name") if isinstance(node, list) and key < len(node) and isinstance(node[key], dict) else None
            parts[-1] = f"{parts[-1]}[{key}]" + (f" ({name})" if name else "") if parts else f"[{key}]"
            node = node[key] if isinstance(node, list) and key < len(node) else None
        else:
            parts.append(str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return f"{'.'.join(parts) or '(top level)'}: {error['msg']}"
