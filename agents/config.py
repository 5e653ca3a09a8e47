"""Settings shared by every entry point (CLI, web app, eval), with one documented field per option.

Each field can come from a command-line option or an environment variable (``MAESTRO_HOME``, ``MAESTRO_DB``,
``MAESTRO_REGISTRY``, ``MAESTRO_SKILLS_PATH``), in that order of precedence.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from storage import default_data_dir


class Settings(BaseModel):
    """Where data lives and which registry to use."""

    data_dir: Path = Field(description="Data directory: database, images, exports (default ~/.maestro).")
    db_url: str | None = Field(None, description="SQLAlchemy URL; default sqlite:///<data_dir>/maestro.db.")
    registry_path: Path | None = Field(None, description="Registry YAML; default the bundled assets/registry.yaml.")
    skills_paths: list[Path] = Field(default_factory=list, description="Extra skill folders (os.pathsep-separated).")
    max_turns: int | None = Field(None, ge=1, le=32, description="Override the registry's T_max.")

    @classmethod
    def resolve(cls, data_dir: str | Path | None = None, db_url: str | None = None,
                registry_path: str | Path | None = None, skills_paths: list[str | Path] | None = None,
                max_turns: int | None = None) -> Settings:
        env = os.environ
        home = data_dir or default_data_dir()  # MAESTRO_HOME, read in one place: storage, which owns the folder
        registry = registry_path or env.get("MAESTRO_REGISTRY") or None
        paths = list(skills_paths or [])
        if not paths and env.get("MAESTRO_SKILLS_PATH"):
            paths = [p for p in env["MAESTRO_SKILLS_PATH"].split(os.pathsep) if p]
        return cls(data_dir=Path(home).expanduser(), db_url=db_url or env.get("MAESTRO_DB") or None,
                   registry_path=Path(registry).expanduser() if registry else None,
                   skills_paths=[Path(p).expanduser() for p in paths], max_turns=max_turns)
