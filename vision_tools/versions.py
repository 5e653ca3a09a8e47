"""Tool versions: a hash of a tool family's code and of the thresholds it runs with.

Each family (a sub-package such as ``vision_tools.text``) may declare its thresholds as a frozen dataclass that
subclasses ``ToolConfig``, with the instance in force as ``CONFIG`` in its ``config`` module (the family's code
reads the thresholds from there). ``ToolConfig.compute_hash()`` digests the source of every module of the family
and the config's values, so editing the code or changing a threshold (also at run time, e.g. from an environment
variable) gives a new version. ``tool_version(fn)`` finds the family of the function a tool call runs and returns
that hash; a family without a config is versioned by its code alone. Tool-output caches put the version in their
key, so an output computed by other code or other thresholds is never handed back.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Hex characters of a version (64 bits: collisions between two versions of one tool are not a concern).
VERSION_CHARS = 16


@dataclasses.dataclass(frozen=True)
class ToolConfig:
    """Base of a tool family's thresholds; subclasses add fields with their defaults."""

    def compute_hash(self) -> str:
        """Digest of the family's code (every module of the package the subclass is declared in) and the values."""
        family = type(self).__module__.rsplit(".", 1)[0]
        digest = hashlib.sha256(code_hash(family).encode())
        digest.update(json.dumps(dataclasses.asdict(self), sort_keys=True, default=repr).encode())
        return digest.hexdigest()[:VERSION_CHARS]


@functools.cache
def code_hash(package: str) -> str:
    """Digest of the source of every module in ``package`` (its folder, sub-folders included), read once."""
    module = importlib.import_module(package)
    files = [Path(module.__file__)] if module.__file__ and not hasattr(module, "__path__") else []
    for folder in getattr(module, "__path__", []):
        files += sorted(Path(folder).rglob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:VERSION_CHARS]


def family_of(module: str) -> str:
    """The family package of a module: ``vision_tools.charts.parse`` -> ``vision_tools.charts``; a skill's
    module -> its skill package (``skills.charts.skill`` -> ``skills.charts``); any other module -> itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else module


def config_of(family: str) -> ToolConfig | None:
    """The ``CONFIG`` in force for ``family`` (its ``config`` module), or None when it declares none."""
    name = f"{family}.config"
    config_module = sys.modules.get(name)
    if config_module is None:
        try:
            config_module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            return None
    config = getattr(config_module, "CONFIG", None)
    return config if isinstance(config, ToolConfig) else None


def tool_version(fn: Callable[..., Any]) -> str:
    """The version of the tool that ``fn`` runs: its family's config hash, or the code hash of its module's
    family when there is no config; "" for a callable from nowhere (a builtin, a lambda typed in a shell)."""
    module = getattr(getattr(fn, "__func__", fn), "__module__", None) or ""
    if not module or module == "__main__" or module not in sys.modules:
        return ""
    family = family_of(module)
    config = config_of(family)
    if config is not None:
        return config.compute_hash()
    try:
        return code_hash(family)
    except (ImportError, OSError, TypeError):
        return ""
