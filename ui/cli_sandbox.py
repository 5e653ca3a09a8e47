"""``maestro sandbox run`` and ``maestro sandbox check``: the code sandbox from the command line.

``run`` executes a Python file in exactly the sandbox the Python Code skill uses (``sandbox.run_python``),
prints its output, and exits with the program's status: non-zero when a rule stopped it, with the rule named on
stderr. Only this command writes lines that begin with ``sandbox:``; a line of the program's own stderr (and of
its stdout, when that is a terminal) that begins so is shown as ``program: sandbox: ...``, and its control and
invisible characters (escape sequences that move the cursor or erase lines, zero-width spaces, bidi overrides) are
shown as ``\\xNN`` escapes, so a program cannot forge the report, even on a terminal. Operators use it to try
hostile code on their machine; the tests use it. ``check`` lists which protections this machine supports and
whether the strict (default) mode can run.
"""

from __future__ import annotations

import math
import sys
import unicodedata
from pathlib import Path
from typing import Annotated

import typer

sandbox_app = typer.Typer(no_args_is_help=True,
                          help="Run a Python file in the code sandbox, or check this machine's protections.")


def _exit_status(returncode: int | None, timed_out: bool) -> int:
    if timed_out:
        return 124  # the convention of timeout(1)
    if returncode is None:
        return 1
    return 128 - returncode if returncode < 0 else returncode


def _visible(text: str) -> str:
    """``text`` with control and invisible format characters as escapes (newlines and tabs kept): on a terminal
    a program's output then cannot move the cursor, erase the report or hide a prefix."""
    return "".join(char if char in "\n\t" or unicodedata.category(char)[0] != "C"
                   else (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}") for char in text)


def _own_lines_marked(output: str) -> str:
    """The program's output, with its lines that could pass for this command's report marked as the program's."""
    return "".join(f"program: {line}" if line.lstrip().startswith("sandbox") else line
                   for line in _visible(output).splitlines(keepends=True))


@sandbox_app.command("run")
def run(file: Annotated[Path, typer.Argument(help="The Python file to run.")],
        timeout: Annotated[float, typer.Option("--timeout", min=0.5, max=600, help="Wall-clock seconds.")] = 10.0,
        weak: Annotated[bool, typer.Option("--weak", help="Run even if this machine lacks some protections "
                                           "(same as MAESTRO_SANDBOX=weak); the missing ones are listed.")] = False,
        no_audit_hook: Annotated[bool, typer.Option("--no-audit-hook", help="Leave out the Python audit hook to "
                                                    "check the kernel's layers alone.")] = False,
        verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List the protections in force.")] = False,
        ) -> None:
    """Run FILE in the code sandbox; standard input is passed to it. Exits with the program's status."""
    from sandbox import SandboxUnavailable, run_python

    if not file.is_file():
        typer.echo(f"error: file not found: {file}", err=True)
        raise typer.Exit(2)
    try:
        code = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"error: cannot read {file}: {exc}", err=True)
        raise typer.Exit(2) from None
    stdin = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    try:
        result = run_python(code, timeout_s=timeout, cpu_s=max(1, math.ceil(timeout)), stdin=stdin,
                            mode="weak" if weak else None, audit_hook=not no_audit_hook)
    except (SandboxUnavailable, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    # A terminal shows stdout beside the report, so there it is marked like stderr; a pipe gets the bytes.
    sys.stdout.write(_own_lines_marked(result.stdout) if sys.stdout.isatty() else result.stdout)
    sys.stdout.flush()
    sys.stderr.write(_own_lines_marked(result.stderr))
    if verbose:
        for protection in result.protections:
            sys.stderr.write(f"sandbox: on: {protection}\n")
    for gap in result.missing:
        sys.stderr.write(f"sandbox: weak mode, missing: {gap}\n")
    if verbose and result.cpu_s is not None:
        peak = f", peak memory {result.peak_memory_mb:.0f} MiB" if result.peak_memory_mb is not None else ""
        sys.stderr.write(f"sandbox: the run used {result.cpu_s:.2f} CPU s{peak} (all its processes)\n")
    if result.stopped_by:
        sys.stderr.write(f"sandbox: stopped by {result.stopped_by}\n")
    elif result.hint:
        sys.stderr.write(f"sandbox: its last error line looks like the {result.hint} (the program's own words, "
                         "not verified)\n")
    sys.stderr.flush()
    raise typer.Exit(_exit_status(result.returncode, result.timed_out))


@sandbox_app.command("check")
def check() -> None:
    """Print which protections this machine supports; exit 1 if the strict (default) mode would refuse."""
    from sandbox import SandboxUnavailable, machine_report, run_python

    for layer, available, detail in machine_report():
        typer.echo(f"{'yes' if available else 'NO ':3}  {layer}: {detail}")
    try:
        probe = run_python("print('ok')", timeout_s=20, mode="weak")
    except SandboxUnavailable as exc:
        typer.echo(f"NO   a trial run: {exc}")
        raise typer.Exit(1) from None
    for protection in probe.protections:
        typer.echo(f"on   {protection}")
    for gap in probe.missing:
        typer.echo(f"off  {gap}")
    if probe.missing or probe.stdout.strip() != "ok":
        typer.echo("strict mode would refuse to run code here (MAESTRO_SANDBOX=weak runs it with the above off)")
        raise typer.Exit(1)
    typer.echo("strict mode: every protection is available")
