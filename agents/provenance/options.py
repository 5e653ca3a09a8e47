"""Shuffling the options of multiple-choice items, reproducibly: ``maestro eval --shuffle-options SEED``.

A model that prefers a position (always "A") looks accurate on a set whose answers sit there. Shuffling the
options per item (the order is drawn from the seed and the item's id, so it does not depend on concurrency or on
which items run) and moving the expected letter with them measures the model, not the layout. Only options laid
out one per line (``A. text``, ``(B) text``, ``C) text``) are rewritten; an item whose options are inline, or whose
expected answer is not one of its letters, is left as it is and says so.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, TypeVar

from skills.answer_form import parse_options


class _Item(Protocol):
    # a dataclass (``prepared`` copies it with dataclasses.replace) with these fields
    __dataclass_fields__: ClassVar[dict[str, Any]]
    id: str
    question: str
    answer: str


ItemT = TypeVar("ItemT", bound=_Item)

_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<open>\(?)(?P<letter>[A-Z])(?P<close>[.):])(?P<space>[ \t]+)(?P<text>.*)$")


@dataclass(frozen=True)
class Shuffled:
    """An item's question and expected answer after shuffling, and the order applied (None: left as it was)."""

    question: str
    answer: str
    #: The original letters in their new positions: ["C", "A", "B"] puts the old C first.
    order: list[str] | None
    note: str | None = None


def shuffle_options(question: str, answer: str, *, seed: int, item_id: str) -> Shuffled:
    """``question`` with its lettered options in an order drawn from (``seed``, ``item_id``), and ``answer``
    (a letter) moved with them."""
    options = parse_options(question)
    if not options:
        return Shuffled(question, answer, None, "no lettered options")
    expected = answer.strip().strip("().").upper()
    if expected not in options:
        return Shuffled(question, answer, None, f"the expected answer {answer!r} is not one of the option letters")
    lines = question.split("\n")
    where = {}
    for number, line in enumerate(lines):
        match = _LINE.match(line)
        if match and match.group("letter") in options and match.group("letter") not in where:
            where[match.group("letter")] = (number, match)
    if sorted(where) != sorted(options):
        return Shuffled(question, answer, None, "options are not one per line")
    letters = list(options)
    order = letters[:]
    random.Random(f"{seed}:{item_id}").shuffle(order)
    for position, original in zip(letters, order, strict=True):
        number, _ = where[position]
        source = where[original][1]
        template = where[position][1]
        lines[number] = (f"{template.group('indent')}{template.group('open')}{position}{template.group('close')}"
                         f"{template.group('space')}{source.group('text')}")
    return Shuffled("\n".join(lines), letters[order.index(expected)], order)


def prepared(item: ItemT, seed: int | None) -> tuple[ItemT, dict[str, Any] | None]:
    """An evaluation item with its options shuffled by ``seed`` (None: unchanged), and what to record with its run:
    the seed and the option order (or why the item was left as it was)."""
    if seed is None:
        return item, None
    shuffled = shuffle_options(item.question, item.answer, seed=seed, item_id=item.id)
    record: dict[str, Any] = {"shuffle_options": seed, "option_order": shuffled.order}
    if shuffled.note:
        record["options_left"] = shuffled.note
    return replace(item, question=shuffled.question, answer=shuffled.answer), record
