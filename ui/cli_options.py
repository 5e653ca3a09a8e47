"""What every ``maestro`` command shares: the data directory, registry and database options (each with its
``MAESTRO_*`` environment variable), the one-line error handling, and opening the app or the store from them.

Command modules (``ui/cli_*.py``) define plain functions; ``ui.cli`` registers them on its app, so no command module
imports ``ui.cli``. A command declares the shared options it uses (``DataDir``, ``RegistryOpt``, ``DbOpt``);
``add_shared_options`` then gives every command of the app the ones it lacks, accepted and ignored, so all three
work on every command, as the README promises, without each command listing options it has no use for. A run
named on the command line (its id or a unique prefix of 6 or more characters) is found with ``agents.replay.rerun.find_run``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ui.terminal import neutralise

if TYPE_CHECKING:
    from agents.config import Settings
    from agents.runtime import Maestro
    from storage import Store

DataDir = Annotated[Path | None, typer.Option("--data-dir", envvar="MAESTRO_HOME",
                                              help="Data directory (default ~/.maestro).")]
RegistryOpt = Annotated[Path | None, typer.Option("--registry", envvar="MAESTRO_REGISTRY", help="Registry YAML file.")]
DbOpt = Annotated[str | None, typer.Option("--db", envvar="MAESTRO_DB", help="SQLAlchemy database URL.")]
ScOpt = Annotated[int | None, typer.Option("--sc", min=1, max=16, help="Self-consistency: sample K trajectories "
                                           "and vote (default: the registry's orchestrator.self_consistency).")]
F = TypeVar("F", bound=Callable[..., Any])
#: The options every command accepts, by parameter name.
SHARED_OPTIONS: dict[str, Any] = {"data_dir": DataDir, "registry": RegistryOpt, "db": DbOpt}


def one_line(message: object) -> str:
    """An error message as one line, control characters made visible."""
    return " ".join(neutralise(message).split()) or "unknown error"


def friendly_errors(fn: F) -> F:
    """Turn expected failures (bad input, unusable data directory or database, a port that cannot be bound) into
    one line on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ValueError, OSError, OverflowError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            typer.echo(f"error: {one_line(message)}", err=True)
            raise typer.Exit(2) from None
        except RecursionError:  # a last resort: readers name the file and line where they can
            typer.echo("error: the input is nested too deeply to read", err=True)
            raise typer.Exit(2) from None
    return wrapper  # type: ignore[return-value]


def add_shared_options(app: typer.Typer) -> None:
    """Give every command of ``app`` and of its sub-apps the shared options it does not declare itself. Typer reads
    a command's options from its function's signature when the app runs, so call this once all are registered."""
    for command in app.registered_commands:
        if command.callback is not None:
            command.callback = _accepting_shared_options(command.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_shared_options(group.typer_instance)


def _accepting_shared_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with the shared options it lacks added to its signature; their values are dropped before the call."""
    signature = inspect.signature(fn, eval_str=True)  # Typer reads real annotations, not strings
    missing = [name for name in SHARED_OPTIONS if name not in signature.parameters]
    if not missing:
        return fn

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name in missing:
            kwargs.pop(name, None)
        return fn(*args, **kwargs)

    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=SHARED_OPTIONS[name])
             for name in missing]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), *added])
    return wrapper


def settings(data_dir: Path | None, registry: Path | None, db: str | None,
             max_turns: int | None = None) -> Settings:
    """The one settings object, from the command's options (each falling back to its environment variable)."""
    from agents.config import Settings

    return Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry, max_turns=max_turns)


def open_maestro(data_dir: Path | None, registry: Path | None, db: str | None,
                 max_turns: int | None = None) -> Maestro:
    from agents.runtime import Maestro

    return Maestro.open(settings(data_dir, registry, db, max_turns))


def open_store(data_dir: Path | None, db: str | None) -> Store:
    from storage import open_store as open_

    resolved = settings(data_dir, None, db)
    return open_(resolved.data_dir, resolved.db_url)

