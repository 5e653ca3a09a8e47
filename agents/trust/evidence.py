"""What supports a run's answer, whatever produced it: the evidence features the calibrator turns into P(correct).

``gather`` looks at the run's search steps and classifies the final answer against what the tools read on the
same image:

- ``verified``: a tool settled the same answer (up to case, spacing and, for text, OCR noise), or the answer is a
  span of an OCR reading;
- ``contradicted``: a tool settled a different answer in the form the question asks, or the text skill read the
  image and the answer is nowhere in its reading;
- ``unverifiable``: no tool reading bears on it (a neural expert's or the orchestrator's own words).

A failed call (expert down, timed out, HTTP 5xx, garbage) produced nothing and contributes no evidence. The
``source`` says whose words the answer is: ``tools``, ``expert:<name>`` or ``orchestrator``. Features beside the
kind: the tool's raw evidence score (the skills' confidences), the lowest OCR line score under the answer's span,
the margin between the settled value and its runner-up candidate, how many tool readings agree, the vote share.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypedDict

from agents.evaluation.answers import match_answer
from skills.answer_form import AnswerForm, conform
from skills.ocr.spans import RULE
from storage.trace import Step

#: Similarity (difflib ratio on normalised text) from which two readings count as the same text despite OCR noise.
FUZZY_SAME = 0.85
#: Forms whose answers are free text (checked against OCR spans); the others are closed (letters, counts…).
TEXT_FORMS = ("text", "free")
#: OCR lines read at least this surely count as "the tools read text here" (for a contradiction).
SURE_LINE = 0.8
#: Suffix of a field's detail when nothing else on the page confirms the value (``FieldAnswer.unchecked``), or
#: when the reading rule keeps a record of its own (``skills.ocr.spans.own_record``).
UNCHECKED = ", unchecked"


@dataclass(frozen=True)
class Evidence:
    """The evidence behind one candidate answer (``answer``), as features for the calibrator."""

    answer: str
    form: str
    skill: str | None
    level2: str | None
    source: str  # tools | expert:<name> | orchestrator
    check: str  # verified | contradicted | unverifiable
    score: float | None  # the tools' raw evidence score for this answer (None: no tool scored it)
    agreement: int = 0  # tool readings that settled this same answer
    ocr: float | None = None  # lowest OCR line confidence under the answer's span (None: not found in a reading)
    margin: float | None = None  # settled candidate's score minus the runner-up's
    vote: float | None = None  # self-consistency agreement
    against: str | None = None  # contradicted: what the tools read instead
    detail: str | None = None  # what the tool read, where it says (a receipt's field: total, date, address…)
    ruled_out: float | None = None  # multiple choice: share of the other options the tools ruled out
    warnings: int = 0  # warnings the tools raised while reading (a value they could not parse, a clipped mark)

    def kinds(self) -> list[str]:
        """The evidence kinds this answer belongs to, finest first: the field read, the sub-skill, the skill in
        this form, the skill in any form, then the form across skills (each within source and check)."""
        kinds = self._kinds(self.source)
        if self.source != "tools" and self.check == "verified":  # what the tools read is the evidence: pool with it
            kinds += self._kinds("tools")
        return kinds

    def _kinds(self, source: str) -> list[str]:
        head = f"{source}|{self.check}"
        skill = f"{head}|{self.form}|{self.skill}"
        kinds = [f"{skill}|{self.level2}", skill, f"{head}|*|{self.skill}", f"{head}|{self.form}"]
        # The field read is the same evidence whatever form the question asked it in ("What's the store name?" is
        # free text, "Which shop issued this?" text): one record per field, so a field shown below the target is
        # not answered through another form's coarser pool.
        if self.rule is not None:
            # A reading rule's answers are judged by that rule's labelled examples, then by those of all such rules
            # together (a rule shown below the target is kept out of that pool), never by OCR's pooled record.
            return [f"{head}|*|{self.skill}|{self.detail}", f"{head}|*|{self.skill}|{RULE}*"]
        field = f"{head}|*|{self.skill}|{self.level2}|{self.detail}"
        if self.unchecked:
            # One reading nothing else confirms never borrows the record of confirmed ones: it answers once its own
            # labelled examples certify the target.
            return [field]
        return ([field] if self.detail else []) + kinds

    @property
    def rule(self) -> str | None:
        """The reading rule that keeps a record of its own (``skills.ocr.spans.own_record``), if one answered."""
        if self.detail and self.detail.startswith(RULE):
            return self.detail[len(RULE):].removesuffix(UNCHECKED)
        return None

    @property
    def unchecked(self) -> bool:
        """Whether the tool said nothing else on the image confirms the value it read."""
        return bool(self.detail and self.detail.endswith(UNCHECKED))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evidence:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


class _Common(TypedDict):
    """The Evidence fields every outcome of ``gather`` shares."""

    answer: str
    form: str
    vote: float | None


def gather(fitted: str, steps: Sequence[Step], form: AnswerForm, *, neural_models: frozenset[str] = frozenset(),
           vote: float | None = None) -> Evidence:
    """The evidence for ``fitted`` (the answer already in the form the question asks) from ``steps``."""
    ok = [s for s in steps if s.kind == "search" and s.status != "error"]
    conformed = [(s, conform(form, s.settled_answer)) for s in ok if s.settled_answer is not None]
    settled = [(s, value) for s, value in conformed if value is not None]
    agreeing = [s for s, value in settled if similarity(value, fitted, form) >= 1.0]
    base: _Common = {"answer": fitted, "form": form.kind, "vote": vote}
    if agreeing:
        best = max(agreeing, key=lambda s: s.confidence if s.confidence is not None else -1.0)
        span = ocr_support(fitted, ok) if form.kind in TEXT_FORMS or form.kind == "number" else None
        return Evidence(**base, skill=best.skill, level2=best.level2, source="tools", check="verified",
                        score=best.confidence, agreement=len(agreeing), ocr=span, margin=_margin(best),
                        detail=_detail(best), ruled_out=_ruled_out(best, fitted), warnings=_warnings(best))
    experts = [s for s in ok if s.model in neural_models]
    source = f"expert:{experts[-1].model}" if experts else "orchestrator"
    candidates = experts or ok
    last = candidates[-1] if candidates else None
    skill, level2 = (last.skill, last.level2) if last is not None else (None, None)
    if settled:
        near = max(settled, key=lambda pair: similarity(pair[1], fitted, form))
        closeness = similarity(near[1], fitted, form)
        if closeness >= FUZZY_SAME:  # the same reading up to OCR noise: supported, scored down by the difference
            score = None if near[0].confidence is None else near[0].confidence * closeness
            return Evidence(**base, skill=near[0].skill, level2=near[0].level2, source=source, check="verified",
                            score=score, agreement=1, ocr=ocr_support(fitted, ok), margin=_margin(near[0]),
                            detail=_detail(near[0]))
        return Evidence(**base, skill=skill, level2=level2, source=source, check="contradicted", score=None,
                        against=near[1])
    lines = list(_ocr_lines(ok))
    span = ocr_support(fitted, ok) if form.kind in TEXT_FORMS or form.kind == "number" else None
    if span is not None:  # the answer is what the OCR read: scored by that reading
        return Evidence(**base, skill=skill, level2=level2, source=source, check="verified", score=span, ocr=span)
    text_read = [text for text, conf in lines if conf >= SURE_LINE and text.strip()]
    if form.kind in TEXT_FORMS and text_read and any(s.skill == "OCR" for s in ok):
        reading = " / ".join(text_read)
        return Evidence(**base, skill=skill, level2=level2, source=source, check="contradicted", score=None,
                        against=reading if len(reading) <= 120 else reading[:117] + "…")
    return Evidence(**base, skill=skill, level2=level2, source=source, check="unverifiable", score=None)


def plain(text: str | None) -> str:
    """Text compared up to case, spacing and punctuation."""
    return " ".join(re.sub(r"[^\w%.]+", " ", (text or "").casefold()).replace(".", " ").split())


def similarity(a: str, b: str, form: AnswerForm) -> float:
    """1.0 for the same answer; for free text, how alike two readings are (OCR noise: one wrong letter)."""
    x, y = plain(a), plain(b)
    if x == y:
        return 1.0
    if form.kind not in TEXT_FORMS or not x or not y:
        return 0.0
    if match_answer(a, b) or match_answer(b, a):  # free text has many right spellings: "seven" is 7
        return 1.0
    return difflib.SequenceMatcher(None, x, y, autojunk=False).ratio()


def ocr_support(answer: str, steps: Sequence[Step]) -> float | None:
    """The lowest confidence of the OCR lines the answer is read from, when it is a (fuzzy) span of a reading;
    None when no reading contains it."""
    target = plain(answer)
    if not target:
        return None
    lines = [(plain(text), conf) for text, conf in _ocr_lines(steps)]
    lines = [(text, conf) for text, conf in lines if text]
    # Try spans of consecutive lines (an address runs over several rows), shortest first.
    for width in range(1, min(8, len(lines)) + 1):
        for start in range(0, len(lines) - width + 1):
            window = lines[start:start + width]
            joined = " ".join(text for text, _ in window)
            if _contains_fuzzy(joined, target):
                return min(conf for _, conf in window)
    return None


def _contains_fuzzy(haystack: str, needle: str) -> bool:
    if needle in haystack:
        return True
    if len(needle) < 4 or len(haystack) < len(needle) * 0.8:
        return False
    matcher = difflib.SequenceMatcher(None, haystack, needle, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    return matched / len(needle) >= FUZZY_SAME and len(haystack) <= len(needle) * 1.6


def _ocr_lines(steps: Sequence[Step]) -> Iterator[tuple[str, float]]:
    """Every OCR line (text, confidence) the steps' tool calls read."""
    for step in steps:
        for call in step.tool_calls:
            if call.error is None:
                yield from _lines_in(call.data)


def _lines_in(data: Any, depth: int = 0) -> Iterator[tuple[str, float]]:
    if depth > 4:
        return
    if isinstance(data, dict):
        lines = data.get("lines")
        if isinstance(lines, list) and lines and all(isinstance(x, dict) and "text" in x for x in lines):
            for line in lines:
                conf = line.get("confidence")
                yield str(line["text"]), float(conf) if isinstance(conf, int | float) else 0.0
            return
        for value in data.values():
            yield from _lines_in(value, depth + 1)
    elif isinstance(data, list):
        for value in data[:50]:
            yield from _lines_in(value, depth + 1)


def _margin(step: Step) -> float | None:
    """The settled candidate's score minus the runner-up's, where a tool listed its candidates."""
    for call in reversed(step.tool_calls):
        candidates = call.data.get("candidates") if isinstance(call.data, dict) else None
        if isinstance(candidates, list) and candidates:
            scores = sorted((float(c.get("score", 0.0)) for c in candidates if isinstance(c, dict)), reverse=True)
            if scores:
                return round(scores[0] - (scores[1] if len(scores) > 1 else 0.0), 4)
    return None


def _detail(step: Step) -> str | None:
    """The named field a tool read (``documents.read_field``'s ``field``), when one did; marked unchecked when
    nothing else on the page confirms the value."""
    for call in reversed(step.tool_calls):
        value = call.data.get("field") if isinstance(call.data, dict) else None
        if isinstance(value, str) and value and len(value) <= 40:
            return f"{value}{UNCHECKED}" if call.data.get("unchecked") is True else value
    return None


_VERDICT = re.compile(r"^\s*([A-H])\s*:\s*(true|false|unknown)\b", re.M)


def _ruled_out(step: Step, chosen: str) -> float | None:
    """Multiple choice: the share of the other options that the tools showed false (``X: false`` lines of the
    observation); None when the step judged no options."""
    verdicts = dict(_VERDICT.findall(step.observation or ""))
    others = [v for letter, v in verdicts.items() if letter != chosen.strip().upper()]
    return round(sum(v == "false" for v in others) / len(others), 4) if others else None


def _warnings(step: Step) -> int:
    """How many warnings the step's tools raised (``warnings`` lists in their outputs), capped at 5."""
    count = 0
    for call in step.tool_calls:
        found = call.data.get("warnings") if isinstance(call.data, dict) else None
        count += len(found) if isinstance(found, list) else 0
    return min(count, 5)
