"""The answer-form contract: what shape of answer a question asks for, and whether an answer has that shape.

``answer_form(question)`` reads the form from the question (and from a dataset's declared ``match`` kind when one is
given): one of the offered option letters, Yes/No, a count (in ``{N}`` when the question asks for curly brackets),
a ``(R,C)`` pair, a number as printed, text copied from the image, or free text. ``conform(form, answer)`` returns
the answer rewritten in exactly that form, or None when it does not fit — and an answer that does not fit is never
returned to a user: the run abstains instead (``agents.loop``). Non-answers ("I could not determine…", "unknown")
never fit any form.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Literal

from skills.chat import without_opener

#: The one vocabulary of answer kinds, from the question's form to the loop's check, the trust calibration's
#: evidence kinds and the exports. (How an evaluation compares an answer with the expected one is a separate
#: choice, a ``MatchRule`` of ``agents.evaluation.answers``: "numeric" relaxed to 5 %, "contains", …)
AnswerKind = Literal["choice", "yesno", "count", "grid", "number", "text", "free"]
ANSWER_KINDS: tuple[AnswerKind, ...] = ("choice", "yesno", "count", "grid", "number", "text", "free")

#: Longest answer accepted for the text forms; a longer one is an explanation, not an answer.
MAX_TEXT_CHARS = 300

_CURLY = re.compile(r"curly\s+brac(?:e|ket)s?|in\s+\{\s*\w*\s*\}|e\.g\.,?\s*\{", re.IGNORECASE)
# "A. text", "(A) text", "A) text", "A: text" at the start of a line.
_OPTION_LINE = re.compile(r"^\s*\(?([A-H])[.):]\s+(.+?)\s*$", re.MULTILINE)
# Inline options: "... (A) red (B) blue ..." or "A. red B. blue" on one line.
_OPTION_INLINE = (re.compile(r"(?:^|\s)\(([A-H])\)\s*(.+?)(?=\s+\([A-H]\)\s|$)", re.DOTALL),
                  re.compile(r"(?:^|\s)([A-H])[.)]\s+(.+?)(?=\s+[A-H][.)]\s|$)", re.DOTALL),
                  # Typed by people in lower case: "a) 18% b) 22%", "(a) Reds (b) Blues" (never "a." : a sentence's
                  # "a." is too common).
                  re.compile(r"(?:^|\s)\(?([a-h])\)\s*(.+?)(?=\s+\(?[a-h]\)\s|$)", re.DOTALL))
_LETTER_ASK = re.compile(r"option'?s?\s+letter|letter of the (?:correct )?(?:option|answer|choice)|"
                         r"choose (?:one|from)|from the given choices", re.IGNORECASE)
_YESNO_ASK = re.compile(r"\byes\s*(?:/|or)\s*no\b|\byes or no\b", re.IGNORECASE)
_AUXILIARY = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|shall|"
                        r"must|may|might)\b", re.IGNORECASE)
#: "sushi zen wait vs 25 min - is it more?", "glasgow vs leeds in 2024, is glasgow dearer?": a Yes or No question
#: after what it is about.
_TRAILING_AUXILIARY = re.compile(r"(?:\s[-–—]+\s*|[:,;]\s*)(?:is|are|was|were|does|do|did|has|have|had)\s[^-–—:,;]*$",
                                 re.IGNORECASE)
_REQUEST = re.compile(r"^\s*(?:could|can|would|will)\s+(?:you|u|ya)\s+(?:(?:please|pls|plz)\s+)?"
                      r"(?:(?:tell|show)\s+me\s+)?"
                      r"(?=(?:count|tell|give|show|read|list|find|name|identify|work\s+out|figure\s+out|"
                      r"transcribe|spell|how|what|which|where|who|when)\b)", re.IGNORECASE)
_GRID_ASK = re.compile(r"\(\s*rows?\s*,\s*col(?:umn)?s?\s*\)|rows?\s+and\s+col(?:umn)?s?\b.*\bpair\b|"
                       r"\bpair\b.*\brows?\b.*\bcol", re.IGNORECASE | re.DOTALL)
_COUNT_ASK = re.compile(r"\bhow many\b|\bcount\b|\bnumber of\b(?!.*\bwhat is the number of\b.*\bon\b)",
                        re.IGNORECASE)
#: "Which month had the lowest number of admissions?": a category named by its count, not the count.
_WHICH_BY_NUMBER = re.compile(r"\b(?:which|what)\s+(?!is\b|was\b|are\b|were\b|s\b)[a-z]+\b.*\b(?:highest|lowest|"
                              r"largest|smallest|biggest|greatest|most|fewest|least|maximum|minimum|max|min|top)\s+"
                              r"number of\b", re.IGNORECASE)
#: "How many more hours per week …", "how many km": a measurement, which may fall between whole units (16.5).
_MEASURED_ASK = re.compile(r"\bhow many (?:more |fewer |less |extra |additional )?(?:hours?|hrs|minutes?|mins|seconds?|"
                           r"km|kilomet(?:re|er)s?|miles?|metres?|meters?|feet|kg|kilograms?|grams?|pounds?|lbs?|"
                           r"litres?|liters?|gallons?|dollars?|euros?|percent|percentage points?|points?|degrees?|"
                           r"tonnes?|tons?|calories|kcal|mg|ml|twh|gwh|mwh|kwh|kw|gb|mb|tb|gigabytes?|megabytes?|"
                           r"cm|mm|centimet(?:re|er)s?|millimet(?:re|er)s?|inch(?:es)?|ounces?|oz|pints?|"
                           # "how many thousand visitors": a count in thousands may be 34.8 of them
                           r"thousands?|millions?|billions?|k|m|bn)\b(?!-)", re.IGNORECASE)
_NUMBER_ASK = re.compile(r"\bhow much\b|\bwhat (?:is|was|are) the (?:\w+\s+){0,3}?(?:value|total|price|amount|"
                         r"cost|percentage|percent|share|sum|difference|average|mean|tax|change|rate|number)\b|"
                         r"\bwhat percentage\b|\bhow (?:tall|long|wide|high|far|old|heavy)\b", re.IGNORECASE)
#: "What is the lot number?", "the tracking no.": an identifier, printed with letters as often as not.
_IDENTIFIER_ASK = re.compile(r"\b(?:lot|batch|serial|tracking|reference|ref|order|account|model|part|invoice|receipt|"
                             r"flight|booking|confirmation|registration|licen[cs]e|policy|membership|customer|ticket|"
                             r"transaction|product|item|sku|article|site|seat|gate|platform|room|postal|zip|post)\s+"
                             r"(?:number|no\.?|code|id)\b", re.IGNORECASE)
_TEXT_ASK = re.compile(r"\bwhat (?:is|does) (?:written|it say)|\bwhat does the .{1,30} say\b|\bwhat (?:word|text|"
                       r"name|title|letter)\b|\bwhat is the (?:\w+(?:'s)? ){0,2}name\b|\bwhich (?:business|company|shop|store|seller|vendor|merchant)\b|"
                       r"\bwho (?:issued|sold)\b|\bwhen\b|\bwhich date\b|\bwhat date\b|\bwhere is the (?:shop|store|"
                       r"seller|business|company)\b|\baddress\b|\btranscribe\b|\bread the\b|\bspell", re.IGNORECASE)
_NON_ANSWER = re.compile(r"^\W*(?:i (?:could|can)(?:not|'t| not)|cannot|can't|unable|unknown|not sure|no answer|"
                         r"n/?a|none of the above is (?:visible|known)|insufficient|it is not possible)\b",
                         re.IGNORECASE)
_FRACTION = re.compile(r"(?<![\d/])\d+\s?/\s?\d+(?![\d/])")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?|[-+]?\.\d+%?")
_SCALED_COUNT = re.compile(r"[$€£¥]?(\d+(?:\.\d+)?)\s*([kKMB]|bn)")
_INT = re.compile(r"(?<![\d.,])\d+(?![\d.,]*\d)")
_WORD_NUMBERS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}
_BRACES = re.compile(r"\{([^{}]*)\}")
_ANSWER_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*(?:is)?\s*[:：]?\s*", re.IGNORECASE)

_DESCRIPTIONS: dict[AnswerKind, str] = {
    "choice": "one of the offered option letters", "yesno": "Yes or No", "count": "a whole number (a count)",
    "grid": "a (rows,columns) pair", "number": "a number as printed", "text": "text as printed in the image",
    "free": "a short free-text answer",
}


@dataclass(frozen=True)
class AnswerForm:
    """The shape of answer a question asks for."""

    kind: AnswerKind
    options: dict[str, str] = field(default_factory=dict)  # letter -> option text, for ``choice``
    braces: bool = False  # the question asks for the answer in curly brackets
    #: Alternatives the question names at its end ("…: circle, square or triangle?"); the answer is one of them.
    alternatives: tuple[str, ...] = ()
    #: The question asks what, which, where, who, when, why or how: "Yes" or "No" answers none of those.
    asks_wh: bool = False

    @property
    def description(self) -> str:
        """What a fitting answer looks like, for messages to the user ("one of the letters A, B, C, D")."""
        if self.kind == "choice" and self.options:
            return f"one of the option letters {', '.join(self.options)}"
        if self.alternatives:
            return "one of " + ", ".join(repr(a) for a in self.alternatives)
        text = _DESCRIPTIONS[self.kind]
        return f"{text}, in curly brackets" if self.braces else text

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "options": dict(self.options), "braces": self.braces,
                "alternatives": list(self.alternatives), "description": self.description}


def answer_form(question: str, expected_kind: str | None = None) -> AnswerForm:
    """The form ``question`` asks for; ``expected_kind`` is a dataset's declared match kind, when it has one
    (``choice``, ``yesno``, ``grid``, ``relaxed``/``numeric``, ``text``/``exact``)."""
    if (proper := without_opener(question)) != question:
        return answer_form(proper, expected_kind)  # "hey is glass more than …" asks Yes or No
    braces = bool(_CURLY.search(question))
    options = parse_options(question)
    hinted = _KIND_HINTS.get((expected_kind or "").lower())
    if hinted == "choice" or (hinted is None and options and (len(options) >= 2 or _LETTER_ASK.search(question))):
        return AnswerForm("choice", options, braces)
    if hinted is not None:
        return AnswerForm(hinted, {}, braces)
    if _GRID_ASK.search(question):
        return AnswerForm("grid", {}, braces)
    # "Could you count the stars?" is a request for a count, not a question to answer with Yes or No.
    request = _REQUEST.match(question)
    if request and not _YESNO_ASK.search(question):
        return answer_form(question[request.end():], expected_kind) if question[request.end():].strip() else \
            AnswerForm("free", {}, braces)
    # "… more returns due to 'damaged or defective' than …": an "or" inside quotes names no alternative.
    unquoted = _QUOTED.sub(" ", question)
    trailing = _TRAILING_AUXILIARY.search(unquoted)
    if trailing and not _WH_START.match(question) and not re.search(r"\bor\b", trailing.group(), re.I):
        return AnswerForm("yesno", {}, braces)
    if _YESNO_ASK.search(question) or (_AUXILIARY.search(question) and not re.search(r"\bor\b", unquoted, re.I)):
        return AnswerForm("yesno", {}, braces)
    if _COUNT_ASK.search(question) and not _MEASURED_ASK.search(question) and not (
            _WHICH_BY_NUMBER.search(question) and not re.search(r"\bhow many\b", question, re.I)):
        return AnswerForm("count", {}, braces)
    alternatives = named_alternatives(question)
    wh = bool(_WH_START.match(question))
    if _IDENTIFIER_ASK.search(question):
        return AnswerForm("text", {}, braces, alternatives, wh)  # "B47K29", "HV-2087": a code as printed
    if _NUMBER_ASK.search(question) or _MEASURED_ASK.search(question):
        return AnswerForm("number", {}, braces, alternatives, wh)
    if _TEXT_ASK.search(question):
        return AnswerForm("text", {}, braces, alternatives, wh)
    return AnswerForm("free", {}, braces, alternatives, wh)


#: A question word first: "what colour r the 2 shapes that are touching" is answered by a colour, never "Yes".
_WH_START = re.compile(r"^\W*(?:what|whats|what's|wat|which|wich|where|wheres|where's|who|whose|when|why|how)\b",
                       re.IGNORECASE)


#: Text in quotes (not an apostrophe: "what's", "Mary's").
_QUOTED = re.compile(r"(?<!\w)[\"“‘']([^\"”’']{1,60})[\"”’'](?!\w)")
#: Up to three words, then "X, Y or Z" at the very end of the question.
_ALTERNATIVES = re.compile(r"(?P<list>(?:[\w'-]+(?: [\w'-]+){0,2}, )*)(?P<last>[\w'-]+(?: [\w'-]+){0,2}),? or "
                           r"(?P<after>[\w'-]+(?: [\w'-]+){0,2})\s*[?.!]*\s*$")
_LEADING_ALTERNATIVES = re.compile(r"(?P<a>[\w'-]+(?: [\w'-]+){0,2}) or (?P<b>[\w'-]+(?: [\w'-]+){0,2})\s*[-–—:?]\s+\w")
#: Words that name two opposite answers wherever they stand in the question: "did it get better or worse …".
_OPPOSITE_WORDS = (r"better|worse|higher|lower|up|down|more|less|fewer|bigger|smaller|larger|longer|shorter|faster|"
                   r"slower|earlier|later|rise|fall|rose|fell|increase|decrease|increased|decreased|improved|worsened|"
                   r"grew|shrank|above|below|before|after|left|right|inside|outside")
_OPPOSITES = re.compile(rf"\b(?P<a>{_OPPOSITE_WORDS})\s+or\s+(?P<b>{_OPPOSITE_WORDS})\b", re.IGNORECASE)
_ARTICLE = re.compile(r"(?:the|a|an)\s", re.IGNORECASE)
_ASKING_WORD = re.compile(r"\b(?:what|which|who|where|when|how|is|are|was|were|does|do|did|can|could|should|will|"
                          r"would|the|this|that|answer|with)\b", re.IGNORECASE)


def named_alternatives(question: str) -> tuple[str, ...]:
    """The alternatives ``question`` names at its end, as it spells them: ("circle", "square", "triangle") for
    "What shape is the tag: circle, square or triangle?", ("up", "down") for "Is it pointing up or down?"; empty
    when it names none, or asks "yes or no" / "or not"."""
    match = _ALTERNATIVES.search(question.strip())
    if not match and (pair := _OPPOSITES.search(question)) and pair.group("a").lower() != pair.group("b").lower():
        return (pair.group("a"), pair.group("b"))  # "did City get better or worse over these 10 weeks?"
    if not match:
        # "top half or bottom half - where is the blue triangle?": the alternatives first, then the question.
        first = _LEADING_ALTERNATIVES.match(question.strip())
        leading: tuple[str, ...] = (first.group("a"), first.group("b")) if first else ()
        return () if any(_ASKING_WORD.search(a) for a in leading) else leading
    after = match.group("after")
    # "pointing up or down": the alternative before "or" has as many words as the one after it.
    last = " ".join(match.group("last").split()[-len(after.split()):])
    listed = [item.strip() for item in match.group("list").split(",") if item.strip()]
    kept: list[str] = []
    for item in reversed(listed):  # a list runs back from "or" until a part of the question itself
        if _ASKING_WORD.search(item):
            break
        kept.insert(0, item)
    if _ARTICLE.match(last) and _ARTICLE.match(after):
        return (*kept, last, after)  # "the blue square or the orange triangle": two things, each with its article
    if _ASKING_WORD.search(last) and not kept and len(after.split()) >= 2 and \
            not _ASKING_WORD.search(last.split()[-1]):
        # "in the left or right half?": one word before "or" shares the noun after it ("left half", "right half").
        # "on the left or the right side?": the noun after the article and the side.
        shared = after.split()[2:] if _ARTICLE.match(after) else after.split()[1:]
        last = " ".join([last.split()[-1], *shared])
    alternatives = (*kept, last, after)
    if any(a.lower() in ("no", "not", "yes", "neither", "both") for a in alternatives) or _ASKING_WORD.search(last):
        return ()
    if after.lower() == "so" or (after.lower() in _OR_SO and re.search(r"\d", match.group("last"))):
        return ()  # "10 degrees or more", "an hour or so": a bound, not two answers ("higher or lower?" is two)
    return alternatives


#: Words after "or" that bound a number rather than offer another answer.
_OR_SO = {"more", "less", "fewer", "above", "below", "over", "under", "higher", "lower", "so", "later", "earlier",
          "greater", "longer", "shorter", "better", "worse"}

_KIND_HINTS: dict[str, AnswerKind] = {"choice": "choice", "yesno": "yesno", "grid": "grid", "count": "count",
                                    "relaxed": "number", "numeric": "number", "number": "number", "text": "text",
                                    "exact": "text", "contains": "free", "free": "free"}


def parse_options(question: str) -> dict[str, str]:
    """The lettered options offered in ``question``, in order: ``{"A": "text", ...}``; empty if there are none.

    Options must run A, B, C… without gaps, so a stray "B." inside a sentence is not taken for an option."""
    found = [(m.group(1), m.group(2)) for m in _OPTION_LINE.finditer(question)]
    for inline in _OPTION_INLINE:
        if len(found) >= 2:
            break
        # "(A) drama or (B) sci-fi": the "or" between two options belongs to neither.
        found = [(m.group(1).upper(), re.sub(r"[\s,;]+or$|[\s,;]+$", "", m.group(2).strip()))
                 for m in inline.finditer(question)]
    options: dict[str, str] = {}
    for letter, text in found:
        expected = chr(ord("A") + len(options))
        if letter == expected:
            options[letter] = text.strip()
        elif letter in options:
            continue
        else:
            break
    return options if len(options) >= 2 else {}


def is_non_answer(answer: str | None) -> bool:
    """True for an empty answer or one that says it has none ("I could not determine the answer.")."""
    return answer is None or not answer.strip() or bool(_NON_ANSWER.search(answer.strip()))


def conform(form: AnswerForm, answer: str | None) -> str | None:
    """``answer`` rewritten in ``form`` (a bare option letter, "Yes"/"No", "{3}", "(3,4)", the printed number,
    the text), or None when it does not fit the form or is a non-answer."""
    if is_non_answer(answer):
        return None
    assert answer is not None
    text = _ANSWER_PREFIX.sub("", answer.strip())
    inner = _BRACES.findall(text)
    focus = inner[-1].strip() if inner else text
    value = _FITTERS[form.kind](form, focus)
    if value is None and inner:  # "{3} circles" fits; so may the text around the braces
        value = _FITTERS[form.kind](form, _BRACES.sub(lambda m: m.group(1), text))
    if value is None:
        return None
    if form.alternatives:
        value = _one_of(form.alternatives, value)
        if value is None:
            return None
    if form.braces and form.kind in ("count", "number", "yesno", "text", "free"):
        return "{" + value + "}"
    return value


def _choice(form: AnswerForm, text: str) -> str | None:
    letters = form.options or {chr(ord("A") + i): "" for i in range(8)}
    match = (re.fullmatch(r"\(?([A-Ha-h])\)?[.):]?", text.strip())
             or re.match(r"\s*\(?([A-H])\)?[.):]\s", text)
             or re.search(r"\b(?:answer|option|choice)\s*(?:is)?\s*[:：]?\s*\(?([A-H])\)?(?![A-Za-z])", text, re.I))
    if match:
        letter = match.group(1).upper()
        return letter if letter in letters else None
    wanted = _plain(text)
    hits = [letter for letter, option in form.options.items() if wanted and _plain(option) == wanted]
    return hits[0] if len(hits) == 1 else None


def _one_of(alternatives: tuple[str, ...], text: str) -> str | None:
    """``text`` when it is one of the named alternatives ("Coffee" for "tea or coffee?"), the one alternative it
    gives, as the question spells it ("It is a square" → "square"), or None: "B7" answers no "circle, square or
    triangle?"."""
    plain = _plain(text)
    if any(_plain(a) == plain or _ARTICLE.sub("", _plain(a)) == _ARTICLE.sub("", plain) for a in alternatives):
        return text.strip().rstrip(".!")  # "Pothos" for "the basil or the pothos?": the name as the tool read it
    within = [a for a in alternatives if re.search(rf"(?<![a-z0-9]){re.escape(_plain(a))}(?![a-z0-9])", plain)]
    if len(within) == 1 and len(text) <= 40:
        return within[0]
    # "filled" for "is the heart filled in or just an outline?": the one alternative holding the answer's word.
    holding = [a for a in alternatives if plain in _HOW_DRAWN and re.search(rf"(?<![a-z0-9]){re.escape(plain)}"
                                                                            r"(?![a-z0-9])", _plain(a))]
    if len(holding) == 1:
        return text.strip().rstrip(".!")
    return _side_of(alternatives, plain) if len(text) <= 40 else None


#: Directions a position is given in; "upper" is "top" and "lower" is "bottom".
_SIDES = {"left": "left", "right": "right", "top": "top", "bottom": "bottom", "upper": "top", "lower": "bottom"}


def _side_of(alternatives: tuple[str, ...], plain: str) -> str | None:
    """The alternative naming the one side a position lies on: "top-left" is in the "left side" of "left side or
    right side?", and in the "top half" of "top or bottom half?"."""
    sides = {a: [_SIDES[w] for w in _plain(a).split() if w in _SIDES] for a in alternatives}
    if not all(len(named) == 1 for named in sides.values()):
        return None
    said = {_SIDES[w] for w in plain.split() if w in _SIDES}
    hits = [a for a, named in sides.items() if named[0] in said]
    return hits[0] if len(hits) == 1 else None


def _yesno(form: AnswerForm, text: str) -> str | None:
    found = re.findall(r"\b(yes|no)\b", text.lower())
    if not found or len(set(found)) > 1 or len(text) > 80:
        return None
    return found[0].capitalize()


def _count(form: AnswerForm, text: str) -> str | None:
    if re.search(r"\d\s*[,x×]\s*\d", text) and re.search(r"[(\[]", text):
        return None  # a (rows, columns) pair is not a count
    if scaled := _SCALED_COUNT.fullmatch(text.strip()):
        # "63k" read off a chart's ticks is 63,000, never 63.
        value = float(scaled.group(1)) * {"k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9}[scaled.group(2).lower()]
        return str(int(value)) if value == int(value) else None
    integers = _INT.findall(text)
    if len(set(integers)) == 1 and not re.search(r"\d\.\d", text):
        return str(int(integers[0]))
    if not integers:
        words = [w for w in re.findall(r"[a-z]+", text.lower()) if w in _WORD_NUMBERS]
        if len(set(words)) == 1:
            return str(_WORD_NUMBERS[words[0]])
    return None


def _grid(form: AnswerForm, text: str) -> str | None:
    pairs = set(re.findall(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)", text))
    if len(pairs) == 1:
        rows, cols = pairs.pop()
        return f"({int(rows)},{int(cols)})"
    words = re.search(r"(\d+)\s*rows?\D{0,20}?(\d+)\s*col", text, re.IGNORECASE)
    return f"({int(words.group(1))},{int(words.group(2))})" if words else None


def _number(form: AnswerForm, text: str) -> str | None:
    fractions = _FRACTION.findall(text)  # "1/2 MILE" is one number
    numbers = _NUMBER.findall(_FRACTION.sub(" ", text)) + fractions
    if len(set(numbers)) != 1 or len(text) > 60:
        return None
    return text.strip() if len(text.strip()) <= 30 else numbers[0]


def _text(form: AnswerForm, text: str) -> str | None:
    cleaned = text.strip()
    if form.asks_wh and not form.alternatives and cleaned.lower().rstrip(".!") in ("yes", "no"):
        return None  # "what colour …?" answered "Yes": a tool that settled another question
    return cleaned if 0 < len(cleaned) <= MAX_TEXT_CHARS else None


_FITTERS = {"choice": _choice, "yesno": _yesno, "count": _count, "grid": _grid, "number": _number, "text": _text,
            "free": _text}


def normalise_text(text: str) -> str:
    """The one answer normaliser: lower case, no punctuation (a % stays), no articles, single spaces. Evaluation
    matching (``agents.evaluation.answers``) and the self-consistency vote compare answers under it."""
    text = text.lower().translate(_NO_PUNCTUATION)
    return " ".join(w for w in text.split() if w not in ("a", "an", "the"))


_NO_PUNCTUATION = str.maketrans("", "", string.punctuation.replace("%", ""))


#: How a shape is drawn, the words an alternative may hold with others ("heart filled in", "just an outline").
_HOW_DRAWN = frozenset(["filled", "outline", "outlined", "hollow", "solid", "shaded", "unfilled"])
#: A leading article, which an alternative may carry and the thing's own name not ("the pothos", "Pothos").
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


def _plain(text: str) -> str:
    # Token form for matching an answer to an offered option's text (not an answer normaliser: articles stay).
    return " ".join(re.sub(r"[^a-z0-9%]+", " ", text.lower()).split())


def format_answer(question: str, value: str) -> str:
    """``value`` in the form ``question`` asks for when it fits; otherwise ``value`` unchanged (the loop's final
    check then decides whether it may be returned)."""
    return conform(answer_form(question), value) or value
