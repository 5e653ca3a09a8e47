"""The registry a stored run was made under, rebuilt from its snapshot, so exports judge and prompt it faithfully.

Each run stores the hash of its registry (``runs.registry_hash``) and the registry itself once per hash
(``Store.save_registry_snapshot``). ``RunRegistries(store, loaded).for_run(record)`` gives back a ``RunRegistry``:
the orchestrator settings, experts and skills (names, aliases, descriptions, Level-2 sub-skills) the run was made
with — enough to check its protocol text against the names it could use, and to generate the orchestrator's system
prompt exactly as it read then (``agents.prompts.system_prompt`` takes it like a ``Registry``). Nothing is
instantiated: no expert back end is built, no skill code imported.

A run older than snapshots (or whose snapshot no longer validates) falls back to the registry loaded now, with the
names the run itself used added: a search step only has a model and a skill when the loop resolved them against
the run's registry at the time, so those names were valid then. ``source`` says which of the two was used, and
exports count it in their manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from agents.protocol import Names
from agents.registry import ExpertSpec, OrchestratorSpec
from skills.spec import SkillSpec
from storage.trace import RunRecord

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import Store

SNAPSHOT = "run_snapshot"
FALLBACK = "loaded_registry_fallback"


@dataclass(frozen=True)
class SnapshotSkill:
    """A skill as a snapshot describes it (the shape of ``LoadedSkill`` that prompts and name tables read)."""

    spec: SkillSpec


@dataclass
class RunRegistry:
    """The registry of one run: what it offered the orchestrator, and under which names."""

    orchestrator: OrchestratorSpec
    experts: list[Any]  # ExpertSpec (a snapshot) or the loaded registry's specs
    skills: list[Any]  # objects with a ``spec: SkillSpec``
    source: str  # SNAPSHOT or FALLBACK
    registry_hash: str = ""
    extra_models: dict[str, list[str]] = field(default_factory=dict)
    extra_skills: dict[str, list[str]] = field(default_factory=dict)

    @property
    def model_names(self) -> Names:
        return Names({**{e.name: e.aliases for e in self.experts}, **self.extra_models})

    @property
    def skill_names(self) -> Names:
        return Names({**{s.spec.name: s.spec.aliases for s in self.skills}, **self.extra_skills})


def _known_fields(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without keys ``model`` does not declare: a snapshot from a newer version still loads."""
    return {k: v for k, v in data.items() if k in model.model_fields}


def from_snapshot(snapshot: dict[str, Any], registry_hash: str = "") -> RunRegistry:
    """A ``RunRegistry`` from a stored snapshot (``Registry.snapshot()``); ``ValueError`` if it is unusable."""
    try:
        orchestrator = OrchestratorSpec.model_validate(_known_fields(OrchestratorSpec,
                                                                     snapshot.get("orchestrator") or {}))
        experts = [ExpertSpec.model_validate(_known_fields(ExpertSpec, e)) for e in snapshot.get("experts") or []]
        skills = [SnapshotSkill(SkillSpec.model_validate(_known_fields(SkillSpec, s)))
                  for s in snapshot.get("skills") or []]
    except (ValidationError, AttributeError, TypeError) as exc:
        raise ValueError(f"registry snapshot {registry_hash or '?'} does not validate: {exc}") from exc
    if not experts or not skills:
        raise ValueError(f"registry snapshot {registry_hash or '?'} lists no experts or no skills")
    return RunRegistry(orchestrator, experts, skills, SNAPSHOT, registry_hash)


def fallback(loaded: Registry, record: RunRecord) -> RunRegistry:
    """The loaded registry, plus the model and skill names ``record``'s resolved search steps used."""
    view = RunRegistry(loaded.orchestrator, list(loaded.experts), list(loaded.skills), FALLBACK,
                       record.registry_hash)
    models, skills = view.model_names, view.skill_names
    for step in record.steps:
        if step.kind == "search" and step.model and step.model not in models:
            view.extra_models.setdefault(step.model, [])
        if step.kind == "search" and step.skill and step.skill not in skills:
            view.extra_skills.setdefault(step.skill, [])
    return view


class RunRegistries:
    """Each run's registry, read from storage once per hash."""

    def __init__(self, store: Store, loaded: Registry) -> None:
        self.store = store
        self.loaded = loaded
        self._by_hash: dict[str, RunRegistry | None] = {}

    def for_run(self, record: RunRecord) -> RunRegistry:
        digest = record.registry_hash or ""
        if digest not in self._by_hash:
            snapshot = self.store.registry_snapshot(digest) if digest else None
            try:
                self._by_hash[digest] = from_snapshot(snapshot, digest) if snapshot else None
            except ValueError:
                self._by_hash[digest] = None
        found = self._by_hash[digest]
        return found if found is not None else fallback(self.loaded, record)
