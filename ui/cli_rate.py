"""``maestro rate`` and ``maestro users``: rating runs from the command line, and managing annotator accounts.

``maestro rate RUN_ID --verdict correct|incorrect|partial [--correction TEXT | --no-correction] [--step N]
[--rater NAME]`` saves a
rating through ``Store.add_ratings`` exactly as the web UI and the API do (one live rating per annotator per run
or step: rating again edits it, the old version is kept), then updates the skill handbook. ``--from FILE.jsonl``
saves many at once — all or none: every line is checked before anything is written. ``--undo`` takes back the
rater's last rating. The rater is ``--rater``, else ``$MAESTRO_RATER``, else the login name of this shell.
A run rated incorrect needs its correction or an explicit "no correction known" (``--no-correction``; in a file,
``"no_correction": true``); at a terminal the command asks for it.

``maestro users add NAME [--role admin|reviewer|annotator]`` (password prompted twice, or read from stdin with
``--password-stdin``), ``users role NAME ROLE``, ``users list`` and ``users remove NAME`` edit
``<data dir>/users.txt`` (see ``ui.accounts``); the web app then asks for a login. Setting a password or removing
an account ends that account's sessions in a running web app at its next request (``ui.login_guard``).
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ui.cli_options import DataDir, DbOpt, RegistryOpt, friendly_errors, settings
from ui.terminal import neutralise

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import Store

log = logging.getLogger(__name__)

users_app = typer.Typer(no_args_is_help=True, help="Accounts of the web app and their roles (<data dir>/users.txt).")
RoleOpt = Annotated[str | None, typer.Option("--role", help="admin | reviewer | annotator (a new account: "
                                                            "annotator; an existing one keeps its role).")]

#: Keys a line of a ``--from`` file may have (``correction`` and ``corrected_answer`` mean the same).
LINE_KEYS = {"run_id", "verdict", "correction", "corrected_answer", "step", "rater", "comment", "no_correction"}


def default_rater() -> str:
    return os.environ.get("MAESTRO_RATER") or getpass.getuser()


def _open_store(data_dir: Path | None, registry: Path | None, db: str | None) -> tuple[Any, Any]:
    from agents.registry import load_registry
    from storage import open_store

    resolved = settings(data_dir, registry, db)
    return open_store(resolved.data_dir, resolved.db_url), load_registry(resolved.registry_path,
                                                                         resolved.skills_paths)


def _full_id(store: Store, run_id: str) -> str:
    """A run id, or a unique prefix of one (at least 6 characters, as ``agents.replay.rerun.find_run``), as the full id."""
    from agents.replay.rerun import find_run

    return str(find_run(store, run_id).id)


def read_lines(path: Path, store: Store, rater: str) -> list[Any]:
    """The ratings in a JSONL file, or ``ValueError`` naming the first bad line."""
    from storage import RatingInput

    if not path.is_file():
        raise FileNotFoundError(f"ratings file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (JSON lines in UTF-8 expected)") from None
    inputs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("each line must be a JSON object")
            unknown = set(row) - LINE_KEYS
            if unknown:
                raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; use {', '.join(sorted(LINE_KEYS))}")
            step = row.get("step")
            if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
                raise ValueError("step must be a whole number")
            correction = row.get("correction", row.get("corrected_answer"))
            check_correction(str(row.get("verdict") or ""), correction, bool(row.get("no_correction")), step,
                             how='"correction": TEXT or "no_correction": true')
            item = RatingInput(_full_id(store, str(row.get("run_id") or "")), str(row.get("rater") or rater),
                               str(row.get("verdict") or ""), correction, comment=row.get("comment"),
                               step_index=step)
            inputs.append(item.check())
        except (ValueError, KeyError) as exc:
            message = exc.args[0] if exc.args else exc
            raise ValueError(f"{path} line {number}: {message}") from None
        except RecursionError:  # json recurses per level of nesting
            raise ValueError(f"{path} line {number}: nested too deeply; each line is a flat JSON object") from None
    if not inputs:
        raise ValueError(f"{path} holds no ratings")
    return inputs


def check_correction(verdict: str, correction: str | None, unknown: bool, step: int | None, *,
                     how: str = "--correction TEXT or --no-correction") -> None:
    """``ValueError`` when a whole-run incorrect rating has neither a correction nor "no correction known", or
    has both."""
    given = bool((correction or "").strip())
    if given and unknown:
        raise ValueError("a correction and 'no correction known' together: give one of them")
    if verdict == "incorrect" and step is None and not given and not unknown:
        raise ValueError(f"the run is rated incorrect: give {how}")


def ask_correction() -> str | None:
    """At a terminal: the right answer, or None when the rater says it is not known (an explicit '-')."""
    while True:
        answer = typer.prompt("Rated incorrect. The right answer (or - if no correction is known)").strip()
        if answer == "-":
            return None
        if answer:
            return answer


def learn(store: Store, registry: Registry, run_ids: set[str]) -> None:
    """Feed the saved ratings to the skill handbook (as the web UI does); a failure there never loses a rating."""
    from agents.routing.handbook import record_feedback

    for run_id in sorted(run_ids):
        try:
            record_feedback(store, run_id, registry)
        except Exception as exc:  # the ratings are stored; `maestro handbook rebuild` catches up
            typer.echo(f"warning: the handbook was not updated for run {run_id}: {exc}", err=True)


@friendly_errors
def rate_command(
        run_id: Annotated[str | None, typer.Argument(help="Run id (or a unique prefix).")] = None,
        verdict: Annotated[str | None, typer.Option("--verdict", help="correct | incorrect | partial")] = None,
        correction: Annotated[str | None, typer.Option("--correction", help="The right answer.")] = None,
        no_correction: Annotated[bool, typer.Option("--no-correction", help="Rated incorrect, and the right "
                                                                           "answer is not known.")] = False,
        step: Annotated[int | None, typer.Option("--step", min=0, help="Rate this step (0-based), not the run.")] = None,
        rater: Annotated[str | None, typer.Option("--rater", help="Who rates (default $MAESTRO_RATER or you).")] = None,
        comment: Annotated[str | None, typer.Option("--comment")] = None,
        from_file: Annotated[Path | None, typer.Option("--from", help="JSONL of {run_id, verdict, correction, "
                                                                          "step, rater, comment} lines.")] = None,
        undo: Annotated[bool, typer.Option("--undo", help="Take back the rater's last rating.")] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Rate a stored run (or one step), several from a JSONL file, or undo the last rating."""
    from storage import RatingInput

    who = (rater or default_rater()).strip()
    chosen = sum(bool(x) for x in (run_id, from_file, undo))
    if chosen != 1:
        raise ValueError("give a RUN_ID with --verdict, or --from FILE.jsonl, or --undo")
    store, loaded = _open_store(data_dir, registry, db)
    with store:
        if undo:
            undone = store.undo_last_rating(who)
            if undone is None:
                raise ValueError(f"{who} has no rating to undo")
            learn(store, loaded, {undone.run_id})
            back = f"; back to {undone.restored.verdict}" if undone.restored else "; the run is unrated by them again"
            _say(as_json, {"undone": undone.verdict, "run_id": undone.run_id, "step": undone.step_index,
                           "restored": undone.restored.verdict if undone.restored else None, "rater": who},
                 f"undid {who}'s {undone.verdict} rating of run {undone.run_id}{back}")
            return
        if from_file is not None:
            inputs = read_lines(from_file, store, who)
        else:
            if not verdict:
                raise ValueError("--verdict is required: correct, incorrect or partial")
            if (verdict == "incorrect" and step is None and not (correction or "").strip() and not no_correction
                    and sys.stdin.isatty()):
                correction = ask_correction()
                no_correction = correction is None
            check_correction(verdict, correction, no_correction, step)
            inputs = [RatingInput(_full_id(store, str(run_id)), who, verdict, correction, comment=comment,
                                  step_index=step)]
        saved = store.add_ratings(inputs)
        learn(store, loaded, {item.run_id for item in inputs})
        rows = [{"run_id": i.run_id, "rater": i.rater, "verdict": i.verdict, "step": i.step_index,
                 "corrected_answer": i.corrected_answer, "rating_id": s.id, "replaced": s.replaced}
                for i, s in zip(inputs, saved, strict=True)]
        replaced = sum(s.replaced for s in saved)
        if len(rows) == 1:
            row = rows[0]
            what = f"step {row['step']} of run" if row["step"] is not None else "run"
            line = (f"saved {row['verdict']} for {what} {row['run_id']} by {row['rater']}"
                    + (" (replaced their earlier rating)" if replaced else ""))
        else:
            line = f"saved {len(rows)} ratings ({replaced} replaced earlier ones)"
        _say(as_json, rows if len(rows) > 1 else rows[0], line)


def _say(as_json: bool, data: Any, line: str) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False) if as_json else neutralise(line))


@users_app.command("add")
@friendly_errors
def users_add(name: Annotated[str, typer.Argument(help="Login name (letters, digits, _ . @ -).")],
              password_stdin: Annotated[bool, typer.Option("--password-stdin",
                                                           help="Read the password from stdin.")] = False,
              role: RoleOpt = None, data_dir: DataDir = None) -> None:
    """Add an account (or set a new password, which ends its sessions)."""
    from ui.accounts import Accounts, check_name, check_role

    name = check_name(name)
    if role is not None:
        check_role(role)
    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = typer.prompt(f"password for {name}", hide_input=True, confirmation_prompt=True)
    accounts = Accounts.of(_data_dir(data_dir))
    existed = accounts.add(name, password, role)
    typer.echo(f"{'updated the password of' if existed else 'added'} {name} ({accounts.role(name)}) in "
               f"{accounts.path}")


@users_app.command("role")
@friendly_errors
def users_role(name: Annotated[str, typer.Argument()],
               role: Annotated[str, typer.Argument(help="admin | reviewer | annotator")],
               data_dir: DataDir = None) -> None:
    """Give an account another role (effective at its next click; it stays logged in)."""
    from ui.accounts import Accounts

    accounts = Accounts.of(_data_dir(data_dir))
    before = accounts.set_role(name, role)
    typer.echo(f"{name}: {before} -> {role}")


@users_app.command("list")
@friendly_errors
def users_list(data_dir: DataDir = None) -> None:
    """List the accounts with their roles."""
    from ui.accounts import Accounts

    accounts = Accounts.of(_data_dir(data_dir))
    roles = accounts.roles()
    if not roles:
        typer.echo(f"no accounts yet ({accounts.path}); add one with `maestro users add NAME --role admin`")
        return
    typer.echo("\n".join(f"{name}\t{role}" for name, role in roles.items()))


@users_app.command("remove")
@friendly_errors
def users_remove(name: Annotated[str, typer.Argument()], data_dir: DataDir = None) -> None:
    """Remove an account (their ratings stay, attributed to them; their sessions end)."""
    from ui.accounts import Accounts

    accounts = Accounts.of(_data_dir(data_dir))
    if not accounts.remove(name):
        raise ValueError(f"no user {name!r} in {accounts.path}")
    typer.echo(f"removed {name}")


def _data_dir(data_dir: Path | None) -> Path:
    from storage import default_data_dir

    return Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
