"""Answers that are one part of the printed text: the smallest span of the OCR reading that answers the question.

A question about a sign, a label or a chart often asks for one part of what is printed: the title, the exit
number, the distance to a place, a phone number, a price, "the number written on the label", or whether a word
is printed at all. ``printed_answer(question, lines, image)`` recognises these kinds of question by their words
(never by item) and returns:

- None when the question is none of these kinds (the skill then transcribes, or reads a document field);
- a ``PrintedAnswer`` with the span as printed ("17", "12 km", "555-0142", "$4.50", "Yes"), its confidence (the
  recogniser's score of the span's least legible character, ``vision_tools.text.chars``) and evidence features;
- or a ``PrintedAnswer`` without an answer and what is missing ("two numbers are printed (12, 45) and the
  question does not say which"), so the skill abstains instead of answering with the whole transcription.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from PIL import Image

from skills.question_text import task_text
from vision_tools.documents.patterns import QUANTITY as _QUANTITY
from vision_tools.image import Box
from vision_tools.text import OcrLine
from vision_tools.text.chars import char_scores
from vision_tools.text.ocr import order_lines

STOP_WORDS = frozenset(["a", "an", "the", "is", "are", "to", "of", "for", "on", "in", "at", "it", "this", "that", "what",
                   "which", "how", "far", "away", "does", "do", "sign", "says", "say", "according", "distance",
                   "many", "km", "kilometres", "kilometers", "miles", "mile", "give", "gives", "shown", "written",
                   "printed", "there", "from", "me", "tell", "please", "board", "much", "cost", "costs", "price"])
_YESNO_TARGETS = (
    re.compile(r"[\"“‘']([^\"”’']{1,40})[\"”’']"),
    re.compile(r"\b(?:say|says|read|reads|spell|spells|show|shows|mentions?|contains?|includes?|lists?)\s+"
               r"(?:the\s+words?\s+)?(?P<t>.+?)\s*(?:\bon\b.*)?\??$", re.I),
    re.compile(r"^(?:is|are)\s+(?:the\s+(?:word|words|text|name)\s+)?(?P<t>.+?)\s+(?:written|printed|shown|"
               r"displayed|visible|mentioned)\b", re.I),
    re.compile(r"\bthe\s+(?:word|words|text|name)\s+(?P<t>.+?)\s+(?:on|in|written|printed|shown|appear)", re.I),
)
_PRINTED_YESNO = re.compile(r"\b(say|says|read|reads|spell|spells|written|printed|word|words|text|shows?|"
                            r"mentions?|contains?|includes?|lists?)\b", re.I)
#: Yes/no verbs about what the text is about rather than its words: only "Yes" is settled by a printed match.
_ABOUT_CONTENT = re.compile(r"\b(?:mentions?|contains?|includes?|lists?)\b", re.I)
#: A question about the title or heading (also read by ``skills.ocr.choices``).
TITLE_QUESTION = re.compile(r"\b(title|titled|heading|headline|caption)\b"
                            r"|\bname of (?:the|this) (?:chart|graph|plot|figure|diagram)\b"
                            r"|\b(?:chart|graph|plot|figure|diagram) (?:is )?called\b", re.I)
DISTANCE_Q = re.compile(r"\bhow far\b|\bdistance\b|\bhow many (?:km|kilomet\w+|miles?|mi|metres?|meters?)\b", re.I)
DISTANCE = re.compile(r"(?<![\w.,/])(\d+(?:[.,/]\d+)?)\s?(km|kilomet(?:re|er)s?|mi|miles?|m|ft|yds?)\b", re.I)
#: "How much does it weigh?", "net weight?", "How heavy is the pack?", "How many ml is the bottle?"
_QUANTITY_Q = re.compile(r"\bweigh|\bweight\b|\bheavy\b|\bvolume\b|\bcapacity\b|\bhow many (?:ml|millilit\w+|"
                         r"lit(?:re|er)s?|l|cl|g|grams?|kg|kilograms?|oz|ounces?|lbs?|pounds?)\b", re.I)
#: "What's the alcohol percentage?", "How much is the discount in percent?"
_PERCENT_Q = re.compile(r"\bpercent(?:age)?\b|\babv\b|%", re.I)
_PERCENT = re.compile(r"(?<![\w.,])[-+−]?\d+(?:[.,]\d+)?\s?%")
#: Words a percentage's line prints for what the question names ("alcohol" as "13.5% vol", "ALC 12%").
_PERCENT_NAMES = {"alcohol": ("alcohol", "alc", "vol", "abv"), "abv": ("alcohol", "alc", "vol", "abv"),
                  "discount": ("discount", "off", "save", "saving"), "off": ("off", "discount")}
_PERCENT_WORDS = frozenset(["percentage", "percent", "what", "how", "much", "the", "is", "of", "this", "it", "its",
                            "whats", "s", "are", "on", "in", "does", "have", "has", "there", "a", "an", "per"])
#: "What year is this wine?", "Vintage?", "Which year was the shop founded?"
_YEAR_Q = re.compile(r"\b(?:what|which)\s+year\b|\bvintage\b|\byear\b.{0,30}\b(?:founded|established|built|made)\b",
                     re.I)
#: Question words that name no printed thing a year could stand beside.
_YEAR_WORDS = frozenset(["year", "was", "were", "did", "when", "photo", "picture", "image", "taken", "made", "this",
                         "which", "what", "vintage"])
#: What happened in the year asked: its line is the one naming it ("Founded 1890", "Est. 1890").
_YEAR_EVENT = re.compile(r"\b(founded|established|est\b\.?|built|opened|since)", re.I)
_YEAR = re.compile(r"(?<![\w./:-])(?:1[7-9]|20)\d{2}(?![\w./:-])")
_PHONE_Q = re.compile(r"\b(phone|telephone|tel|call|mobile|hotline|fax)\b", re.I)
_PHONE = re.compile(r"\+?\(?\d[\d\s().-]{5,}\d")
_PRICE_Q = re.compile(r"\bprice\b|\bcosts?\b|\bhow much\b", re.I)
PRICE = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d{1,2})?|\b(?:RM|USD|EUR|GBP)\s?\d[\d,]*(?:\.\d{1,2})?|"
                    r"\b\d[\d,]*\.\d{2}\s?(?:€|\$|EUR|USD|RM)?(?!\d)", re.I)
_NAMED_NUMBER = re.compile(r"\b(?P<noun>[a-z]+)(?:'s)?\s+(?:number|no\.?|#)(?!\w)", re.I)
_WHICH_NUMBER = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(?:number|digits?|code)\b|\bnumber (?:is )?(?:written|"
                           r"printed|shown)\b|\bwhat(?:'s| is) the number\b", re.I)
_WHICH_NOUN = re.compile(r"\b(?:what|which)\s+(?P<noun>[a-z]{3,})\b", re.I)
_NUMBER = re.compile(r"(?<![\w.,$€£-])\d+[A-Z]?(?![\w.,]\d)")
#: A yes/no about printed words is "yes" at this similarity of the best-matching words, "no" below ``ABSENT``.
PRESENT, ABSENT = 0.85, 0.5


@dataclass
class PrintedAnswer:
    """The span answering the question (or None and what is missing), how sure, and the evidence behind it."""

    answer: str | None
    confidence: float
    how: str  # which kind of question and where the span was found, for the trace
    missing: str | None = None
    features: dict[str, float] = field(default_factory=dict)
    #: The reading rule whose answers keep a calibration record of their own ("opening hours"), or None: the span
    #: is judged with OCR's printed spans, which the dev sets label. See ``own_record``.
    rule: str | None = None

    def summary(self) -> str:
        if self.answer is None:
            return f"no span answers it: {self.missing}"
        return f"{self.how} (confidence {self.confidence:.2f})"

    def to_dict(self) -> dict:
        data = {"answer": self.answer, "confidence": self.confidence, "how": self.how, "missing": self.missing,
                "features": dict(self.features)}
        if self.rule is not None:  # the evidence kind (``agents.trust.evidence``): this rule's own record only
            data |= {"field": f"{RULE}{self.rule}", "unchecked": True}
        return data


#: Prefix of the evidence detail of a reading rule with a record of its own (``agents.trust.evidence`` reads it).
RULE = "rule: "


def own_record(answer: PrintedAnswer | None, rule: str) -> PrintedAnswer | None:
    """``answer`` marked as a ``rule``'s: it answers only once labelled examples of that rule (rated runs, or an
    evaluation) certify the target precision, never on OCR's pooled record. The rules that read facts off signs and
    labels in the user's words (opening hours, a place's name, a quantity of the kind asked) had none of the dev
    sets' labels behind them, and new wordings showed them well below that record."""
    return None if answer is None else replace(answer, rule=rule)


def asks_for_span(question: str, yesno: bool = False) -> bool:
    """Whether ``question`` may ask about one part of the printed text (cheap: its words only)."""
    if yesno:
        return bool(_PRINTED_YESNO.search(question))
    return any(p.search(question) for p in (TITLE_QUESTION, DISTANCE_Q, _QUANTITY_Q, _PERCENT_Q, _YEAR_Q, _PHONE_Q,
                                            _NAMED_NUMBER, _PRICE_Q, _WHICH_NUMBER, _WHICH_NOUN))


def printed_answer(question: str, lines: list[OcrLine], image: Image.Image | None,
                   yesno: bool = False) -> PrintedAnswer | None:
    """The smallest span of ``lines`` that answers ``question``, or None when the question is not about one part
    of the printed text. ``yesno``: the question asks for Yes or No (``skills.answer_form``)."""
    if not lines:
        return None
    # The task alone: options and the answer-format sentence ("Answer with the option's letter …") name nothing
    # printed, and their words would otherwise be looked for on the sign.
    question = task_text(question)[0] or question
    if yesno:
        return _yes_no(question, lines, image) if _PRINTED_YESNO.search(question) else None
    if TITLE_QUESTION.search(question):
        return _title(lines, image)
    lines = row_lines(lines)  # the engine splits a row at wide gaps ("UNIVERSITY 55" | "km")
    text = " ".join(line.text for line in lines)
    beside = _named_beside(question, lines, image)
    if beside is not None:
        return beside
    if DISTANCE_Q.search(question):
        return near_named(question, lines, image, DISTANCE, "distance")
    if _QUANTITY_Q.search(question):
        return _unique(lines, image, _QUANTITY, "quantity", lambda s: True)
    if _PERCENT_Q.search(question):
        return _percentage(question, lines, image)
    if _YEAR_Q.search(question):
        # A year on a line of its own (a vintage): "SINCE 1962", "2014 ELM ST" or a title's "since 2016" are not
        # the year of what the question asks about.
        bare = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                if line.text.strip(" .,:;") == m.group(0)]
        # Or on the line naming what the question asks about: "Harvest 2022" for "What year was the harvest?".
        subject = [w for w in words_of(question) if w not in STOP_WORDS and w not in _YEAR_WORDS and len(w) > 2]
        on_its_line = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                       if subject and all(fuzzy_in(w, line.text) for w in subject)]
        event = _YEAR_EVENT.search(question)
        if event:
            # "What year was the winery founded?": the year beside "Founded" (or "Est."), never the vintage.
            bare = []
            said = event.group(1)[:3].lower()
            on_its_line = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                           if any(e.group(1)[:3].lower() == said for e in _YEAR_EVENT.finditer(line.text))]
        # A vintage on a line of its own comes first: "Gold Medal Wine Awards 2019" names the wine too.
        return chosen(bare or on_its_line, image, "year printed on a line of its own" if bare
                      else "year printed on the line naming " + " ".join(subject))
    if _PHONE_Q.search(question):
        return _unique(lines, image, _PHONE, "phone number", lambda s: sum(c.isdigit() for c in s) >= 6)
    named = _NAMED_NUMBER.search(question)
    if named and named.group("noun").lower() not in ("what", "which", "the", "a", "phone"):
        noun = named.group("noun")
        pattern = re.compile(rf"\b{re.escape(noun)}\s*(?:no\.?|number|#|:)?\s*([A-Z]?\d+[A-Z]?)\b", re.I)
        hits = [(m.group(1), line) for line in lines for m in pattern.finditer(line.text)]
        if hits:
            return chosen(hits, image, f"the number after '{noun}'")
        if re.search(rf"\b{re.escape(noun)}\b", text, re.I) is None and not _WHICH_NUMBER.search(question):
            return None  # the noun is not printed: perhaps a document label read elsewhere
    if _PRICE_Q.search(question):
        return near_named(question, lines, image, PRICE, "price")
    if _WHICH_NUMBER.search(question) or named:
        return _unique(lines, image, _NUMBER, "number", lambda s: True)
    # "Which exit does this sign point to?": a printed word the question names, followed by a number or code.
    which = _WHICH_NOUN.search(question)
    if which:
        noun = which.group("noun")
        pattern = re.compile(rf"\b{re.escape(noun)}\s*(?:no\.?|number|#|:)?\s*([A-Z]?\d+[A-Z]?)\b", re.I)
        hits = [(m.group(1), line) for line in lines for m in pattern.finditer(line.text)]
        if hits:
            return chosen(hits, image, f"the number after '{noun}'")
    return None


def _percentage(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer:
    """The percentage on the one line that prints every word the question names ("alcohol" as "vol"), never the
    only percentage printed whatever it is about ("30% OFF" for "What percentage of the shoppers wear hats?")."""
    def names(line: OcrLine, word: str) -> bool:
        return any(fuzzy_in(spelling, line.text) for spelling in _PERCENT_NAMES.get(word, (word,)))
    asked = [w for w in words_of(question) if w not in _PERCENT_WORDS and w not in STOP_WORDS and len(w) > 2]
    # Words printed nowhere ("tag", "advertise") name the question's setting, not the percentage's line.
    named = [w for w in asked if any(names(line, w) for line in lines)]
    if not named:
        return PrintedAnswer(None, 0.0, "percentage", missing="the question names nothing printed beside a "
                                                              "percentage" if asked else
                             "the question does not say what the percentage is of")
    hits = [(m.group(0).strip(), line) for line in lines for m in _PERCENT.finditer(line.text)
            if all(names(line, w) for w in named)]
    return chosen(hits, image, f"percentage on the line naming {' '.join(named)}")


def row_lines(lines: list[OcrLine]) -> list[OcrLine]:
    """Each visual row as one line: its pieces joined left to right, their boxes united, their least score."""
    rows = []
    for row in order_lines(lines):
        box = Box(min(piece.box.x0 for piece in row), min(piece.box.y0 for piece in row), max(piece.box.x1 for piece in row),
                  max(piece.box.y1 for piece in row))
        rows.append(OcrLine(" ".join(piece.text for piece in row), box, min(piece.confidence for piece in row)))
    return rows


def _yes_no(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    target = _yes_no_target(question)
    if not target:
        return None
    best, best_line = best_match(target, lines)
    weakest_line = min(line.confidence for line in lines)
    features = {"printed_match": round(best, 3), "reading_min_line": round(weakest_line, 3)}
    if best >= PRESENT:
        score = span_score(image, best_line, target)
        features["span_min_char"] = round(score, 3)
        return PrintedAnswer("Yes", round(min(0.97, score * best), 3), f"'{target}' is printed: {best_line.text!r}",
                             features=features)
    if best < ABSENT and _ABOUT_CONTENT.search(question):
        # "Does the label contain sugar?" may be printed in other words (CANE SYRUP): only a printed match settles it.
        return PrintedAnswer(None, 0.0, "not printed", missing=f"no printed words resemble '{target}', but the text "
                                                               "may say it in other words", features=features)
    if best < ABSENT:
        # "No" is only as sure as the whole reading: a word the recogniser garbled could be the one asked about.
        return PrintedAnswer("No", round(min(0.95, weakest_line), 3), f"no printed words resemble '{target}'",
                             features=features)
    return PrintedAnswer(None, 0.0, "unclear", missing=(f"the closest printed words ({best_line.text!r}) neither "
                                                        f"clearly match nor clearly differ from '{target}'"),
                         features=features)


def best_match(target: str, lines: list[OcrLine]) -> tuple[float, OcrLine]:
    """How closely ``target``'s words are printed (difflib ratio of the best window of as many words in one line,
    case and punctuation ignored) and the line where; ``lines`` must not be empty."""
    words = words_of(target)
    best, best_line = 0.0, lines[0]
    for line in lines:
        tokens = words_of(line.text)
        for start in range(max(1, len(tokens) - len(words) + 1)):
            window = "".join(tokens[start:start + len(words)])
            ratio = SequenceMatcher(None, "".join(words), window, autojunk=False).ratio()
            if ratio > best:
                best, best_line = ratio, line
    return best, best_line


def _yes_no_target(question: str) -> str | None:
    for pattern in _YESNO_TARGETS:
        match = pattern.search(question.strip())
        if match:
            target = (match.groupdict().get("t") or match.group(1)).strip(" ?.!\"'“”‘’")
            target = re.sub(r"\s+(?:on|in|at)\s+(?:the|this|that)\s+\w+$", "", target, flags=re.I)
            if target and len(target.split()) <= 6:
                return target
    return None


def _title(lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer:
    rows = order_lines(lines)
    top = [line for line in rows[0] if sum(c.isalpha() for c in line.text) >= 2]
    rest = [line for row in rows[1:] for line in row]
    if not top:
        return PrintedAnswer(None, 0.0, "title", missing="no line of words is printed above the rest to be a title")
    height = max(line.box.y1 - line.box.y0 for line in top)
    left, right = min(line.box.x0 for line in top), max(line.box.x1 for line in top)
    # Set apart from the text under it; a chart's top tick label beside the title, left of it, is not under it.
    under = [line for line in rest if line.box.x1 > left and line.box.x0 < right]
    gap = min((line.box.y0 for line in under), default=10 ** 6) - max(line.box.y1 for line in top)
    title = " ".join(line.text for line in top)
    scores = [span_score(image, line, line.text) for line in top]
    features = {"title_gap_heights": round(gap / max(1.0, height), 3), "span_min_char": round(min(scores), 3)}
    if gap < -0.25 * height:
        return PrintedAnswer(None, 0.0, "title", missing=f"the top line {title!r} is not set apart from the text "
                                                         "below it, so it may not be a title", features=features)
    return PrintedAnswer(title, round(min(0.97, min(scores)), 3), f"the top line of the text: {title!r}",
                         features=features)


#: Words of the asking, not of the thing asked about: "how much did the screws cost in total" names the screws, and
#: the receipt's "TOTAL" line is not theirs.
ASKING = frozenset(["did", "was", "were", "will", "would", "paid", "pay", "spent", "spend", "total", "altogether",
                     "overall", "get", "got", "buy", "bought"])


def near_named(question: str, lines: list[OcrLine], image: Image.Image | None, pattern: re.Pattern[str],
                what: str) -> PrintedAnswer | None:
    """The ``pattern`` span on the line naming what the question names ("how far is the airport"), or the only
    such span when the question names nothing printed."""
    if pattern.search(question):
        return None  # the question quotes such a span itself ("What would 3 coffees at $3.00 cost?"): not a look-up
    hits = [(m.group(0).strip(), line) for line in lines for m in pattern.finditer(line.text)]
    named = [w for w in words_of(question) if w not in STOP_WORDS and w not in ASKING and len(w) > 2]
    if named and hits:
        lined = [(span, line) for span, line in hits if any(fuzzy_in(w, line.text) for w in named)]
        if lined:
            return chosen(lined, image, f"the {what} on the line naming {' '.join(named)}")
        naming = [i for i, line in enumerate(lines) if any(fuzzy_in(w, line.text) for w in named)]
        if naming:
            # Every named word printed, and between the naming line and the span's own line nothing but other
            # bare values ("NET WT 500 g"): no other name the span could belong to ("AIRPORT / HOTEL / 500 m").
            every = all(any(fuzzy_in(w, line.text) for line in lines) for w in named)
            bare = [(span, line) for span, line in hits if _bare(line.text, span)
                    and _only_values_between(lines, naming[-1], lines.index(line))]
            if every and len({span for span, _ in hits}) == 1 and bare:
                # The one such span, on a line of its own ("Price: $6.49" under the product's name): the whole
                # label's, so the named thing's.
                return chosen(bare, image, f"the only {what} printed, on a line of its own")
            return PrintedAnswer(None, 0.0, what, missing=f"{' '.join(named)} is printed, but no {what} beside it")
    return chosen(hits, image, f"the {what} printed")


#: "Which town is 12 km away?", "What costs $3.50?": a question that quotes a span and asks what is printed with it.
_ASKS_WHAT_HAS = re.compile(r"^\W*(?:which|what)\b", re.I)
#: Words that may stand right before the quoted span ("is 12 km", "costs $3.50", "priced at $2") and the only
#: words that may follow it ("away", "from here"): any other wording does something with the span.
_BEFORE_SPAN = re.compile(r"\b(?:is|are|lies|costs?|for|at)\s*$", re.I)
_AFTER_SPAN = re.compile(r"^\s*(?:away|from here|ahead|off|each|a piece|only)?\s*[?.!]*\s*$", re.I)


def _named_beside(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """The words printed on the one line that carries the distance or price the question quotes, or None when the
    question quotes none."""
    if not _ASKS_WHAT_HAS.search(question):
        return None
    for pattern, what in ((DISTANCE, "distance"), (PRICE, "price")):
        found = list(pattern.finditer(question))
        quoted = {_squeezed(m.group(0)) for m in found}
        if len(quoted) != 1:
            continue
        first, last = found[0], found[-1]
        if not (_BEFORE_SPAN.search(question[:first.start()]) and _AFTER_SPAN.match(question[last.end():])):
            return None  # "What would 3 coffees at $3.00 cost?", "What is 5 km in miles?"
        asked = quoted.pop()
        hits = [(line, m) for line in lines for m in pattern.finditer(line.text) if _squeezed(m.group(0)) == asked]
        if len(hits) != 1:
            return PrintedAnswer(None, 0.0, what, missing=f"{asked} is printed {len(hits) or 'no'} times; the "
                                                          f"question needs the one line that carries it")
        line, match = hits[0]
        rest = line.text[:match.start()] + " " + line.text[match.end():]
        words = re.findall(r"[A-Za-z0-9][\w'&.-]*", rest)
        if not any(re.search(r"[A-Za-z]", w) for w in words) or len(pattern.findall(rest)):
            return PrintedAnswer(None, 0.0, what, missing=f"nothing else is printed beside {asked} on its line")
        return chosen([(" ".join(words), line)], image, f"the words printed beside {asked}")
    return None


def _squeezed(span: str) -> str:
    return re.sub(r"\s+", "", span).casefold()


#: Words a line may print beside a span and still be that span's line alone ("Price: $6.49", "Net wt 500 g").
_SPAN_LABELS = frozenset(["price", "only", "now", "each", "per", "net", "wt", "weight", "distance", "ahead", "approx",
                          "lb", "kg", "g", "pound", "mile", "miles", "km", "mi", "m", "ft"])


def _only_values_between(lines: list[OcrLine], named: int, span: int) -> bool:
    """Whether the span's line comes after the naming line with only values or details between them: bare values
    (weights, prices, distances), a labelled detail ("Single origin: Colombia") or a line carrying a number
    ("250 g · Roasted 2024", "Acidity 0.3%"). A line of words alone may name another thing the span is for."""
    if span <= named:
        return False
    return all(_bare(line.text, "") or any(_bare(line.text, m.group(0)) for p in (PRICE, _QUANTITY, DISTANCE)
                                            for m in p.finditer(line.text)) or _is_detail(line.text)
               for line in lines[named + 1:span])


def _is_detail(text: str) -> bool:
    """A detail of the named thing rather than another thing's name: a label with its value ("Single origin:
    Colombia"), or a number with at most one word ("Harvest 2022", "250 g · Roasted 2024"). "Beeswax Candles (pack
    of 6)" names another product."""
    if re.match(r"^[^:]{2,30}:\s*\S", text):
        return True
    return bool(re.search(r"\d", text)) and len([w for w in re.findall(r"[A-Za-z]{3,}", text)]) <= 1


def _bare(text: str, span: str) -> bool:
    """Whether ``text`` prints ``span`` with no other word than a label of it."""
    rest = text.replace(span, " ") if span else text
    return all(word in _SPAN_LABELS for word in words_of(rest) if not word.isdigit())


def _unique(lines: list[OcrLine], image: Image.Image | None, pattern: re.Pattern[str], what: str,
            keep) -> PrintedAnswer:  # noqa: ANN001 - a predicate on the span
    hits = [(m.group(0).strip(), line) for line in lines for m in pattern.finditer(line.text) if keep(m.group(0))]
    return chosen(hits, image, f"the {what} printed")


def chosen(hits: list[tuple[str, OcrLine]], image: Image.Image | None, how: str) -> PrintedAnswer:
    spans = list(dict.fromkeys(span for span, _ in hits))
    if not spans:
        return PrintedAnswer(None, 0.0, how, missing=f"no {how.removeprefix('the ')} could be read in the image")
    if len(spans) > 1:
        listed = ", ".join(repr(s) for s in spans[:4])
        return PrintedAnswer(None, 0.0, how, missing=f"several spans could be {how.removeprefix('the ')} "
                                                     f"({listed}) and the question does not say which",
                             features={"span_candidates": float(len(spans))})
    span, line = hits[0]
    score = span_score(image, line, span)
    return PrintedAnswer(span, round(min(0.97, score), 3), f"{how}: {span!r} in {line.text!r}",
                         features={"span_min_char": round(score, 3), "line_confidence": round(line.confidence, 3),
                                   "span_candidates": 1.0})


def span_score(image: Image.Image | None, line: OcrLine, span: str) -> float:
    """The recogniser's score of the span's least legible character; the line's score when it cannot re-read."""
    reading = char_scores(image, line.box) if image is not None else None
    score = reading.span_score(span) if reading is not None else None
    return line.confidence if score is None else score


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def fuzzy_in(word: str, text: str) -> bool:
    return any(SequenceMatcher(None, word, token, autojunk=False).ratio() >= 0.8 for token in words_of(text))
