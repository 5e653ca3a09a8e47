"""Reading ``SKILL.md`` files: the declaration of a Level-1 skill and its Level-2 sub-skills, validated by Pydantic.

Discovery walks each skills path for folders holding a ``SKILL.md``; a malformed folder is reported (file and
field) and skipped, never fatal, so one broken plug-in does not take the application down.

The plug-in contract of a folder's optional ``skill.py`` is declared once, here: ``SkillCode`` (``run``, required)
and ``ImagePrior`` (``image_prior``, optional: how strongly the image alone looks like this skill's kind).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from PIL import Image

    from skills.base import SkillContext, SkillResult


class SkillCode(Protocol):
    """What a skill folder's ``skill.py`` must define: the skill's work on one search (checked at load)."""

    def run(self, ctx: SkillContext) -> SkillResult: ...


class ImagePrior(Protocol):
    """A ``skill.py``'s optional ``image_prior(image) -> (score 0-1, reason)``: does the image alone look like this
    skill's kind (a chart, a document)? Routing makes such a skill plausible on its looks (``agents.policies``)."""

    def __call__(self, image: Image.Image) -> tuple[float, str]: ...


#: The skills shipped with the package.
BUILTIN_SKILLS_DIR = Path(__file__).resolve().parent
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")
_FRONT_MATTER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)(.*)\Z", re.DOTALL)


class Level2Spec(BaseModel):
    """A Level-2 sub-skill: selected by keywords, runs a list of tools."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    description: str
    keywords: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list, description="The tools it runs, as listed by `maestro registry`.")


class SkillSpec(BaseModel):
    """A Level-1 skill as declared in the front matter of its ``SKILL.md``."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str = Field(description="The name the orchestrator writes after '@@'.")
    description: str = Field(description="What input the skill expects and what it returns.")
    aliases: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list, description="Question keywords that suggest this skill.")
    level2: list[Level2Spec] = Field(min_length=1)
    fallback: bool = Field(False, description=(
        "Tried once more when the pairs the question and the image named settled nothing, for an open question "
        "(not multiple choice): a reader whose tools answer questions no keyword names, such as OCR on a sign "
        "that looked like a chart."))
    version: str = "1"

    # Filled in by the loader, not by the file.
    template: str = ""
    folder: str = ""

    @field_validator("name", "aliases")
    @classmethod
    def _names_are_tokens(cls, value: Any) -> Any:
        names = value if isinstance(value, list) else [value]
        for name in names:
            if not _NAME_RE.match(name):
                raise ValueError(f"{name!r} is not a valid skill name (letters, digits, '_', '-', '.'; no spaces)")
        return value


@dataclass
class LoadedSkill:
    """A skill ready to run: its spec and, when the folder has one, its ``skill.py`` module."""

    spec: SkillSpec
    module: SkillCode | None

    @property
    def image_prior(self) -> ImagePrior | None:
        """The skill's ``image_prior``, when its ``skill.py`` defines one."""
        prior = getattr(self.module, "image_prior", None)
        return cast("ImagePrior", prior) if callable(prior) else None


@dataclass
class SkillProblem:
    """A skill folder that could not be loaded, and why."""

    path: str
    message: str


class SkillFileError(ValueError):
    """A SKILL.md that is malformed; the message names the file and the field."""


def parse_skill_md(path: Path) -> SkillSpec:
    """Parse one ``SKILL.md`` into a ``SkillSpec`` or raise ``SkillFileError`` naming the file and field."""
    text = path.read_text(encoding="utf-8")
    match = _FRONT_MATTER_RE.match(text)
    if not match:
        raise SkillFileError(f"{path}: missing YAML front matter between '---' lines")
    try:
        data = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise SkillFileError(f"{path}: front matter is not valid YAML: {exc}") from exc
    except RecursionError:
        raise SkillFileError(f"{path}: front matter nested too deeply to read") from None
    if not isinstance(data, dict):
        raise SkillFileError(f"{path}: front matter must be a mapping")
    data.setdefault("id", path.parent.name)
    try:
        spec = SkillSpec.model_validate(data)
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise SkillFileError(f"{path}: {fields}") from exc
    return spec.model_copy(update={"template": match.group(2).strip(), "folder": str(path.parent)})


def discover_skills(paths: list[Path]) -> tuple[list[LoadedSkill], list[SkillProblem]]:
    """Every loadable skill under ``paths`` (folders with a SKILL.md), and the problems with the rest.

    Later paths override earlier ones for the same skill id, so a user's folder can replace a built-in skill.
    """
    by_id: dict[str, LoadedSkill] = {}
    problems: list[SkillProblem] = []
    for root in paths:
        root = Path(root)
        if not root.is_dir():
            problems.append(SkillProblem(str(root), "skills path does not exist or is not a folder"))
            continue
        for skill_md in sorted(root.glob("*/SKILL.md")):
            try:
                spec = parse_skill_md(skill_md)
                module = _load_module(skill_md.parent, spec.id)
            except Exception as exc:  # a broken plug-in is reported, not fatal
                problems.append(SkillProblem(str(skill_md), str(exc)))
                continue
            by_id[spec.id] = LoadedSkill(spec, module)
    return list(by_id.values()), problems


def _load_module(folder: Path, skill_id: str) -> SkillCode | None:
    source = folder / "skill.py"
    if not source.exists():
        return None
    module_name = f"maestro_skill_{re.sub(r'[^A-Za-z0-9_]', '_', skill_id)}"
    spec = importlib.util.spec_from_file_location(module_name, source)
    if spec is None or spec.loader is None:
        raise SkillFileError(f"{source}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise SkillFileError(f"{source}: import failed: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(module, "run", None)):
        raise SkillFileError(f"{source}: must define run(ctx: SkillContext) -> SkillResult")
    return cast("SkillCode", module)
