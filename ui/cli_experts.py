"""``maestro serve-experts``, ``maestro doctor`` and ``maestro prompt``: the commands for real expert models.

The commands are plain functions; ``ui.cli`` registers them on its app.
"""

from __future__ import annotations

import json
import shlex
from typing import Annotated

import typer
from rich.table import Table

from ui.cli_options import RegistryOpt, friendly_errors
from ui.terminal import escape


@friendly_errors
def serve_experts(
        registry: RegistryOpt = None,
        only: Annotated[list[str] | None, typer.Option("--only", help="Serve only this expert (repeatable).")] = None,
        vllm: Annotated[str | None, typer.Option(
            "--vllm", help="The vLLM command, e.g. ~/vllm-env/bin/vllm (default: `vllm` on PATH).")] = None,
        host: Annotated[str, typer.Option("--host", help="Interface to listen on (0.0.0.0: other machines).")]
        = "127.0.0.1",
        health_timeout: Annotated[float, typer.Option("--health-timeout", min=1, help="Seconds to wait for "
                                                      "every server to list its model.")] = 900.0,
        grace: Annotated[float, typer.Option("--grace", min=0, help="Seconds between SIGTERM and SIGKILL.")] = 10.0,
        one_by_one: Annotated[bool, typer.Option("--one-by-one", help="Start each server only once the one "
                                                 "before is healthy (servers sharing a GPU).")] = False,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the commands and exit (vLLM need not "
                                               "be installed here).")] = False) -> None:
    """Start one `vllm serve` per registry expert with a serve: block, wait until all are healthy, stream their
    logs, and stop them all on Ctrl-C / SIGTERM."""
    from agents.experts.serving import (
        ExpertServers,
        ServerProcess,
        ServingError,
        local_vllm,
        plan_problems,
        servable,
    )
    from agents.registry import load_registry

    loaded = load_registry(registry)
    specs = servable(loaded.experts)
    if only:
        unknown = sorted(set(only) - {s.name for s in specs})
        if unknown:
            raise ValueError(f"no expert with a serve: block named {', '.join(map(repr, unknown))} in {loaded.path} "
                             f"(servable: {', '.join(s.name for s in specs) or 'none'})")
        specs = [s for s in specs if s.name in only]
    if not specs:
        raise ValueError(f"{loaded.path}: no expert has a serve: block, so there is nothing to serve")
    for problem in plan_problems(specs):
        typer.echo(f"warning: {problem}", err=True)
    # The user's own command line, split like a shell would but never run through one.
    servers = ExpertServers(specs, executable=shlex.split(vllm) if vllm else None, host=host)
    if dry_run:
        # Printing needs no vLLM here: operators read these on the app host and run them on the GPU host.
        if vllm is None and local_vllm() is None:
            typer.echo("note: vLLM is not installed here; the commands run `vllm` from PATH on the GPU host",
                       err=True)
        for spec, command in zip(specs, servers.commands(to_print=True), strict=True):
            typer.echo(f"{spec.name}: {shlex.join(command)}")
        return
    try:
        commands = servers.commands()
    except ServingError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    for spec, command in zip(specs, commands, strict=True):
        typer.echo(f"{spec.name}: {shlex.join(command)}")
    def ready(server: ServerProcess, seconds: float) -> None:
        typer.echo(f"ready: {server.name} serving {server.model} on {server.health_url.removesuffix('/models')} "
                   f"after {seconds:.1f} s")

    try:
        servers.start(one_by_one=one_by_one, timeout_s=health_timeout, on_ready=ready)
        servers.wait_healthy(health_timeout, on_ready=ready)
    except (ServingError, KeyboardInterrupt) as exc:
        servers.stop(grace)
        if isinstance(exc, KeyboardInterrupt):
            typer.echo("interrupted; servers stopped", err=True)
            raise typer.Exit(130) from None
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"all {len(specs)} expert server(s) healthy; Ctrl-C stops them")
    code = servers.serve_forever(grace)
    typer.echo("stopped")
    raise typer.Exit(code)


@friendly_errors
def doctor(registry: RegistryOpt = None,
           as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False) -> None:
    """Check every expert: reachable, serving its model, how fast it answered. Exit code 1 if any is not."""
    from agents.experts.serving import check_expert
    from agents.registry import load_registry

    loaded = load_registry(registry)
    rows = [check_expert(spec) for spec in loaded.experts]
    if as_json:
        typer.echo(json.dumps([r.as_dict() for r in rows], ensure_ascii=False))
    else:
        from ui.cli_render import console

        table = Table("expert", "backend", "status", "latency", "detail", title=f"experts ({loaded.path})")
        for r in rows:
            status = "[green]ok[/]" if r.ok else "[red]unreachable[/]"
            latency = f"{r.latency_ms:.0f} ms" if r.latency_ms is not None else "-"
            table.add_row(escape(r.name), r.backend, status, latency, escape(r.detail))
        console.print(table)
    if not all(r.ok for r in rows):
        raise typer.Exit(1)


@friendly_errors
def prompt(registry: RegistryOpt = None,
           max_turns: Annotated[int | None, typer.Option("--max-turns", min=1, max=32,
                                                         help="Turn limit (default: the registry's).")] = None
           ) -> None:
    """Print the VLM orchestrator's system prompt, generated from the registry."""
    from agents.prompts import system_prompt
    from agents.registry import load_registry

    loaded = load_registry(registry)
    typer.echo(system_prompt(loaded, max_turns or loaded.orchestrator.max_turns))

