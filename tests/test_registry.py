"""The registry is data: experts from YAML, skills from folders, every mistake named by file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents.registry import DEFAULT_REGISTRY, RegistryError, load_registry

FIXTURES = Path(__file__).parent / "fixtures"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "registry.yaml"
    path.write_text(text)
    return path


def test_the_bundled_registry_is_valid_and_offline() -> None:
    registry = load_registry(DEFAULT_REGISTRY)
    assert [e.backend for e in registry.experts] == ["tools"]
    assert "OCR" in registry.skill_names.names
    assert registry.problems == []
    assert len(registry.snapshot_hash()) == 16


def test_extra_skill_folders_plug_in_and_broken_ones_are_reported_not_fatal() -> None:
    registry = load_registry(FIXTURES / "registry_echo.yaml")
    names = registry.skill_names.names
    assert "Echo" in names and "Crashy" in names and "OCR" in names
    assert registry.skill("Echo-Skill").spec.name == "Echo"
    [problem] = registry.problems
    assert "broken" in problem.path and "name" in problem.message and "level2" in problem.message


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        ("experts:\n  - name: A\n    backend: magic\n", ["experts[0] (A).backend", "openai"]),
        ("experts:\n  - name: A\n    backend: openai\n", ["experts[0] (A)", "base_url and model"]),
        ("experts:\n  - backend: tools\n", ["experts[0].name", "Field required"]),
        ("experts:\n  - name: A\n    backend: tools\n  - name: A\n    backend: tools\n", ["duplicate name 'A'"]),
        ("experts:\n  - name: A\n    backend: tools\n  - name: B\n    aliases: [A]\n    backend: tools\n",
         ["'A' is used by both"]),
        ("experts:\n  - name: A\n    aliases: ['bad alias']\n    backend: tools\n", ["aliases", "not a valid expert name"]),
        ("experts:\n  - name: A@B\n    backend: tools\n", ["experts[0]", "name"]),
        ("experts:\n  - name: A\n    backend: tools\n    strengths: [Juggling]\n", ["strengths", "unknown skill 'Juggling'"]),
        ("experts:\n  - name: A\n    backend: tools\n    colour: red\n", ["colour", "Extra inputs"]),
        ("orchestrator: {policy: vlm}\nexperts:\n  - name: A\n    backend: tools\n", ["orchestrator.expert"]),
        ("experts: []\n", ["experts", "at least 1"]),
        ("experts: [\n", ["not valid YAML"]),
        ("- just a list\n", ["top level must be a mapping"]),
    ],
)
def test_each_mistake_is_one_clear_error_naming_file_and_field(tmp_path, body, fragments) -> None:
    path = write(tmp_path, body)
    with pytest.raises(RegistryError) as info:
        load_registry(path)
    message = str(info.value)
    assert message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message, message


def test_a_missing_registry_file_is_named(tmp_path) -> None:
    with pytest.raises(RegistryError, match="registry file not found"):
        load_registry(tmp_path / "nope.yaml")


def test_a_user_skill_folder_overrides_nothing_it_does_not_name(tmp_path) -> None:
    shutil.copytree(FIXTURES / "skills" / "echo", tmp_path / "skills" / "echo")
    path = write(tmp_path, "skills_paths: [skills]\nexperts:\n  - name: T\n    backend: tools\n")
    registry = load_registry(path)
    assert registry.skill("Echo").module is not None
    assert registry.problems == []


def test_expert_and_skill_names_match_exactly_never_loosely() -> None:
    registry = load_registry(FIXTURES / "registry_echo.yaml")
    assert registry.model_names.resolve("Tools") == "Tools"
    assert registry.model_names.resolve("tools") is None
    assert registry.model_names.resolve("Tool") is None
    assert registry.skill_names.resolve("Ech") is None
    with pytest.raises(KeyError):
        registry.expert("Tool")
