"""Rerunning a stored run: the same image and question again, under the registry and policy of the ``Maestro`` given.

The new run is an ordinary stored run with ``parent_run_id`` naming the run it repeats, the same dataset item,
expected answer and answer form; the turn limit, thresholds, experts and skills are the registry's. With ``tools="cached"`` every tool call whose tool, exact
arguments and image pixels match a stored call gets that call's stored output instead of running
(``agents.replay.tool_cache``; the call is recorded with ``reused=True``); experts and the policy still run, so a rerun
tests a new router, registry or model against the very tool evidence the first run saw. Self-consistency sampling
is not repeated: a rerun is one trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agents.loop import EventSink
from agents.replay.tool_cache import StoredToolCache
from storage import RunRecord, Store
from storage.trace import Run

if TYPE_CHECKING:  # the runtime imports the recorder, which imports this package's tool cache
    from agents.runtime import Maestro

ToolsMode = Literal["cached", "live"]
TOOLS_MODES: tuple[ToolsMode, ...] = ("cached", "live")


@dataclass
class ReuseCount:
    """How many tool calls of a run were reused from storage, of how many."""

    reused: int
    calls: int

    @property
    def all_reused(self) -> bool:
        return self.reused == self.calls

    def __str__(self) -> str:
        return f"{self.reused} of {self.calls} tool call{'s' if self.calls != 1 else ''} reused"


def reuse_count(run: Run | RunRecord) -> ReuseCount:
    calls = [call for step in run.steps for call in step.tool_calls]
    return ReuseCount(sum(1 for call in calls if call.reused), len(calls))


def changed_tools(source: Run | RunRecord, again: Run | RunRecord) -> list[str]:
    """Tools that ran again in ``again`` because their version (code or thresholds, ``vision_tools.versions``)
    differs from the one ``source`` ran them with: a cached rerun cannot reuse those outputs, and says so."""
    before: dict[str, set[str]] = {}
    for call in (c for step in source.steps for c in step.tool_calls):
        before.setdefault(call.tool, set()).add(call.tool_version or "")
    changed = [call.tool for step in again.steps for call in step.tool_calls
               if not call.reused and call.tool in before and (call.tool_version or "") not in before[call.tool]]
    return list(dict.fromkeys(changed))


def tools_mode(value: str) -> ToolsMode:
    """``value`` as a tools mode; ``ValueError`` naming the choices otherwise."""
    if value not in TOOLS_MODES:
        raise ValueError(f"--tools must be one of {', '.join(TOOLS_MODES)}; got {value!r}")
    return value


#: Shortest prefix of a run id that names a run (a shorter one too easily names another run tomorrow).
MIN_PREFIX = 6


def find_run(store: Store, run_id: str) -> RunRecord:
    """The stored run ``run_id`` (or the one run whose id starts with it, 6+ characters); ``KeyError`` otherwise."""
    run_id = (run_id or "").strip().lower()
    record = store.get_run(run_id) if run_id else None
    if record is not None:
        return record
    if len(run_id) < MIN_PREFIX:
        raise KeyError(f"no run {run_id!r} in this data directory (a prefix of a run id needs at least "
                       f"{MIN_PREFIX} characters)")
    matches = [r.id for r in store.list_runs(limit=100_000) if r.id.startswith(run_id)]
    if len(matches) > 1:
        raise KeyError(f"{run_id!r} starts {len(matches)} run ids; give more characters")
    record = store.get_run(matches[0]) if matches else None
    if record is None:
        raise KeyError(f"no run {run_id!r} in this data directory")
    return record


def rerun(maestro: Maestro, source: str | RunRecord, *, tools: ToolsMode = "cached",
          cache: StoredToolCache | None = None, on_event: EventSink | None = None,
          expected: str | None = None) -> Run:
    """Run ``source`` again with ``maestro`` (its registry and policy); returns the new, stored run.

    ``cache`` shares one tool cache between many reruns (an evaluation); by default a rerun with cached tools opens
    its own. ``expected`` overrides the stored expected answer (an evaluation passes its dataset's)."""
    tools = tools_mode(tools)
    record = source if isinstance(source, RunRecord) else find_run(maestro.store, source)
    try:
        image = maestro.store.images.read_bytes(record.image_id)
    except FileNotFoundError as exc:
        raise ValueError(f"run {record.id}: its image {record.image_id[:12]}… is missing from the image store") \
            from exc
    if tools == "cached":
        cache = cache or StoredToolCache(maestro.store)
        cache.prefetch([c.cache_key for s in record.steps for c in s.tool_calls if c.cache_key])
    else:
        cache = None
    kind = (record.answer_form or {}).get("kind")  # the stored form's kind gives back exactly that form
    return maestro.ask(image, record.question, on_event=on_event, dataset=record.dataset, item_id=record.item_id,
                       expected=expected if expected is not None else record.expected,
                       expected_kind=str(kind) if kind else None, parent_run_id=record.id, tool_cache=cache,
                       run_config={"rerun_of": record.id, "tools": tools}, stored_image=True,
                       live_tools=tools == "live")
