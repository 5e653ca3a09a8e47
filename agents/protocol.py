"""The orchestrator protocol: the one parser, validator and renderer of the turn grammar (docs/design.md §2, paper 3.2/3.4).

A policy turn is ``<think>…</think>`` followed by exactly one action, ``<search> Model@@Skill: query </search>`` or
``<answer>…</answer>``; the system answers a search with ``<information>…</information>``. Choices made here:

- Tags: a tag is ``<name>`` or ``</name>`` for the four names in ``TAGS``, ASCII letters in any case, with optional
  ASCII whitespace inside the brackets (``< /Answer >``). No attributes, no self-closing form: anything else is
  text. Tags never nest. Whitespace around block contents is stripped. Forgiving on spelling, strict on structure:
  every tag counts, so a stray ``<answer>`` inside a think block is a structural error, not prose.
- Names (``Names``): exact, case-sensitive matching on the stripped name or a declared alias. The system prompt
  tells the policy names are case-sensitive, and two experts may differ only in case (``Qwen`` vs ``qwen``), so
  folding case could silently route a call to the wrong model; a registry that wants a variant declares an alias.
- Observations are untrusted: ``sanitize_observation`` (``agents/sanitize.py``, re-exported here) turns every
  tag-like sequence, in any disguise, into ``‹name›`` brackets before it enters an ``<information>`` block.
- Violation codes: the paper's (``unbalanced_tags``, ``think_count``, ``search_information_mismatch``,
  ``unknown_model``, ``unknown_skill``, ``answer_count``) and finer ones (``malformed_search``,
  ``policy_wrote_information``, ``empty_answer``, ``multiple_actions``, ``missing_action``: a turn with no action).
  Turn numbers in violations are 0-based indices of policy turns (the loop's ``Step.index``).
- ``text_outside_tags`` is a warning: it is reported in ``ParsedTurn.warnings`` (and by ``validate_trajectory`` only
  on request) and never costs format reward; every other code is an error and makes ``format_reward`` −1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from agents.sanitize import TAGS, sanitize_observation, sanitize_text, truncate_observation

__all__ = ["TAGS", "WARNING_CODES", "Answer", "Names", "ParsedTurn", "Search", "Violation", "format_reward",
           "parse_turn", "render_answer", "render_information", "render_search", "render_think", "render_turn",
           "sanitize_observation", "sanitize_text", "split_trajectory", "truncate_observation", "validate_trajectory"]

WARNING_CODES = frozenset({"text_outside_tags"})

_TAG_RE = re.compile(r"<[ \t\r\n\f\v]*(/?)[ \t\r\n\f\v]*(think|search|information|answer)[ \t\r\n\f\v]*>",
                     re.IGNORECASE | re.ASCII)


@dataclass(frozen=True)
class Search:
    """A call of expert ``model`` with ``skill``; names are canonical once resolved against a registry."""

    model: str
    skill: str
    query: str


@dataclass(frozen=True)
class Answer:
    """The final answer; it ends the run."""

    text: str


@dataclass(frozen=True)
class Violation:
    """One broken protocol rule; ``turn`` is the 0-based policy-turn index when known."""

    code: str
    message: str
    turn: int | None = None


@dataclass
class ParsedTurn:
    """One policy turn: its reasoning, its action (``None`` unless exactly one well-formed action with known names),
    its violations (errors) and warnings."""

    think: str | None
    action: Search | Answer | None
    violations: list[Violation]
    raw: str
    warnings: list[Violation] = field(default_factory=list)


class Names:
    """An exact-match name table: canonical names and their declared aliases (case-sensitive, see module doc)."""

    def __init__(self, canonical_to_aliases: Mapping[str, Iterable[str]]) -> None:
        self._canonical: dict[str, list[str]] = {}
        self._lookup: dict[str, str] = {}
        for canonical in canonical_to_aliases:
            self._canonical[canonical] = []
            self._add(canonical, canonical)
        for canonical, aliases in canonical_to_aliases.items():
            for alias in [aliases] if isinstance(aliases, str) else aliases:
                if alias != canonical and alias not in self._canonical[canonical]:
                    self._add(alias, canonical)
                    self._canonical[canonical].append(alias)

    def _add(self, name: str, canonical: str) -> None:
        if not isinstance(name, str) or not name or name != name.strip():
            raise ValueError(f"{name!r} is not a usable name (empty or surrounded by whitespace)")
        owner = self._lookup.get(name)
        if owner is not None and owner != canonical:
            raise ValueError(f"{name!r} would name both {owner!r} and {canonical!r}")
        self._lookup[name] = canonical

    def resolve(self, name: str) -> str | None:
        """The canonical name that ``name`` (stripped) is exactly, or is a declared alias of; else ``None``."""
        if not isinstance(name, str):
            return None
        return self._lookup.get(name.strip())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve(name) is not None

    @property
    def names(self) -> list[str]:
        """Canonical names, in declaration order."""
        return list(self._canonical)

    def aliases(self, canonical: str) -> list[str]:
        return list(self._canonical.get(canonical, []))

    def __iter__(self) -> Iterator[str]:
        return iter(self._canonical)

    def __len__(self) -> int:
        return len(self._canonical)

    def __repr__(self) -> str:
        return f"Names({self._canonical!r})"


# --- rendering ------------------------------------------------------------------------------------------------

def render_think(text: str) -> str:
    return f"<think>{sanitize_text(text).strip()}</think>"


def render_search(model: str, skill: str, query: str) -> str:
    """A search tag; raises ``ValueError`` for names that could not be parsed back."""
    for kind, name in (("model", model), ("skill", skill)):
        if not name.strip() or "@@" in name or ":" in name or sanitize_text(name) != name:
            raise ValueError(f"{name!r} cannot be written as a {kind} name")
    if model.strip().endswith("@") or skill.strip().startswith("@"):
        raise ValueError(f"{model!r}@@{skill!r} is ambiguous around '@@'")
    return f"<search> {model.strip()}@@{skill.strip()}: {sanitize_text(query).strip()} </search>"


def render_answer(text: str) -> str:
    return f"<answer>{sanitize_text(text).strip()}</answer>"


def render_information(observation: str) -> str:
    """The system's reply to a search; the observation is sanitised here, whatever the caller did."""
    return f"<information>{sanitize_observation(observation)}</information>"


def render_turn(think: str, action: Search | Answer) -> str:
    """A complete policy turn: the reasoning, then the action on its own line."""
    if isinstance(action, Search):
        body = render_search(action.model, action.skill, action.query)
    elif isinstance(action, Answer):
        body = render_answer(action.text)
    else:
        raise TypeError(f"not an action: {action!r}")
    return f"{render_think(think)}\n{body}"


# --- parsing --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Block:
    name: str
    content: str
    start: int
    end: int


def _scan(text: str) -> tuple[list[_Block], list[str], list[str]]:
    """Flat scan: (closed blocks in order, non-blank text outside blocks, structural problems)."""
    blocks: list[_Block] = []
    outside: list[str] = []
    problems: list[str] = []
    open_name: str | None = None
    open_at = content_at = 0
    last = 0
    for match in _TAG_RE.finditer(text):
        closing, name = match.group(1) == "/", match.group(2).lower()
        if open_name is None:
            if closing:
                problems.append(f"</{name}> closes nothing")
            else:
                open_name, open_at, content_at = name, match.start(), match.end()
            outside.append(text[last:match.start()])
            last = match.end()
        elif not closing:
            problems.append(f"<{name}> opened inside <{open_name}>; protocol tags do not nest")
        elif name != open_name:
            problems.append(f"</{name}> where </{open_name}> was expected")
        else:
            blocks.append(_Block(name, text[content_at:match.start()].strip(), open_at, match.end()))
            open_name, last = None, match.end()
    if open_name is not None:
        problems.append(f"<{open_name}> is never closed")
    else:
        outside.append(text[last:])
    return blocks, [t.strip() for t in outside if t.strip()], problems


def _parse_search(content: str, models: Names | None, skills: Names | None) -> Search | Violation:
    model, sep, rest = content.partition("@@")
    if not sep:
        return Violation("malformed_search", f"no '@@' between model and skill in {content[:80]!r}")
    skill, sep, query = rest.partition(":")
    if not sep:
        return Violation("malformed_search", f"no ':' after the skill name in {content[:80]!r}")
    model, skill, query = model.strip(), skill.strip(), query.strip()
    if not model or not skill:
        return Violation("malformed_search", f"empty model or skill name in {content[:80]!r}")
    if models is not None:
        canonical = models.resolve(model)
        if canonical is None:
            return Violation("unknown_model", f"{model[:80]!r} is not an expert in the registry ({_listing(models)})")
        model = canonical
    if skills is not None:
        canonical = skills.resolve(skill)
        if canonical is None:
            return Violation("unknown_skill", f"{skill[:80]!r} is not a skill in the registry ({_listing(skills)})")
        skill = canonical
    return Search(model, skill, query)


def _listing(names: Names) -> str:
    shown = names.names[:12]
    return "known: " + ", ".join(shown) + (", …" if len(names) > len(shown) else "")


def parse_turn(text: str, models: Names | None = None, skills: Names | None = None) -> ParsedTurn:
    """One policy turn parsed and checked; never raises. Without ``models``/``skills`` names are not checked.

    ``action`` is set whenever the turn holds exactly one well-formed action with known names, even if other rules
    are broken (a missing think, a stray tag): the caller decides from ``violations`` whether to act on it.
    """
    text = str(text)
    blocks, outside, problems = _scan(text)
    violations = [Violation("unbalanced_tags", p) for p in problems]
    if any(m.group(2).lower() == "information" for m in _TAG_RE.finditer(text)):
        violations.append(Violation("policy_wrote_information", "<information> is written by the system only"))
    thinks = [b for b in blocks if b.name == "think"]
    if len(thinks) != 1:
        violations.append(Violation("think_count", f"{len(thinks)} <think> blocks; a turn needs exactly one"))
    actions = [b for b in blocks if b.name in ("search", "answer")]
    action: Search | Answer | None = None
    if len(actions) > 1:
        kinds = ", ".join(f"<{b.name}>" for b in actions)
        violations.append(Violation("multiple_actions", f"one action per turn, found {kinds}"))
    elif not actions:
        violations.append(Violation("missing_action", "no <search> or <answer> block"))
    elif actions[0].name == "answer":
        if actions[0].content:
            action = Answer(actions[0].content)
        else:
            violations.append(Violation("empty_answer", "the <answer> block is empty"))
    else:
        parsed = _parse_search(actions[0].content, models, skills)
        if isinstance(parsed, Violation):
            violations.append(parsed)
        else:
            action = parsed
    warnings = []
    if outside:
        warnings.append(Violation("text_outside_tags", f"text outside tags: {' '.join(outside)[:80]!r}"))
    return ParsedTurn(thinks[0].content if thinks else None, action, violations, text, warnings)


# --- whole trajectories ---------------------------------------------------------------------------------------

def _is_information_item(text: str) -> bool:
    tags = list(_TAG_RE.finditer(text))
    return (len(tags) == 2 and tags[0].start() == 0 and tags[1].end() == len(text)
            and [(t.group(1), t.group(2).lower()) for t in tags] == [("", "information"), ("/", "information")])


def split_trajectory(trajectory: Sequence[str] | str) -> list[tuple[str, str]]:
    """``("policy" | "information", text)`` items, blank ones dropped.

    A list is taken item by item: an item that is exactly one ``<information>`` block is the system's, anything else
    is a policy turn. A string is cut at each ``<information>…</information>`` block (an unclosed one runs to the
    end); whatever lies between blocks is one policy turn.
    """
    if not isinstance(trajectory, str):
        given = [str(t).strip() for t in trajectory]
        return [("information" if _is_information_item(t) else "policy", t) for t in given if t]
    items: list[tuple[str, str]] = []
    last, opened = 0, None
    for match in _TAG_RE.finditer(trajectory):
        if match.group(2).lower() != "information":
            continue
        if match.group(1) != "/" and opened is None:
            items.append(("policy", trajectory[last:match.start()]))
            opened = match.start()
        elif match.group(1) == "/" and opened is not None:
            items.append(("information", trajectory[opened:match.end()]))
            opened, last = None, match.end()
    items.append(("information" if opened is not None else "policy", trajectory[last if opened is None else opened:]))
    return [(kind, text.strip()) for kind, text in items if text.strip()]


def validate_trajectory(turns: Sequence[str] | str, models: Names, skills: Names, *,
                        include_warnings: bool = False) -> list[Violation]:
    """Every format-reward violation of a whole trajectory (paper 3.4), in order; ``[]`` when it is well formed.

    Each policy turn is checked by ``parse_turn``; then across turns: every ``<search>`` is answered by exactly one
    ``<information>`` block right after its turn and no block answers nothing; exactly one ``<answer>``, in the last
    policy turn, with nothing after it. An unclosed ``<information>`` block in a string is ``unbalanced_tags``.
    """
    violations: list[Violation] = []
    answers: list[int] = []
    pending = 0  # searches of the latest policy turn not yet answered by an <information> block
    turn = -1
    items = split_trajectory(turns)
    for position, (kind, text) in enumerate(items):
        if kind == "information":
            if not _is_information_item(text):
                violations.append(Violation("unbalanced_tags", "<information> is never closed", turn))
            if pending == 0:
                violations.append(Violation("search_information_mismatch",
                                            "an <information> block that answers no <search>", turn))
            pending = max(0, pending - 1)
            continue
        if pending:
            violations.append(Violation("search_information_mismatch",
                                        f"{pending} <search> call(s) got no <information> block", turn))
        turn += 1
        parsed = parse_turn(text, models, skills)
        violations += [Violation(v.code, v.message, turn) for v in parsed.violations]
        if include_warnings:
            violations += [Violation(v.code, v.message, turn) for v in parsed.warnings]
        blocks = _scan(text)[0]
        pending = sum(b.name == "search" for b in blocks)
        answers += [position] * sum(b.name == "answer" for b in blocks)
    if pending:
        violations.append(Violation("search_information_mismatch",
                                    f"{pending} <search> call(s) got no <information> block", turn))
    if not answers:
        violations.append(Violation("answer_count", "the trajectory has no final <answer>"))
    elif len(answers) > 1:
        violations.append(Violation("answer_count", f"{len(answers)} <answer> blocks; exactly one must end the run"))
    elif answers[0] != len(items) - 1:
        violations.append(Violation("answer_count", "the <answer> does not end the trajectory", turn))
    return violations


def format_reward(violations: Sequence[Violation]) -> float:
    """r_fmt of the paper: −1 when any rule is broken, else 0 (warnings do not count)."""
    return -1.0 if any(v.code not in WARNING_CODES for v in violations) else 0.0
