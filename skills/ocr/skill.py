"""OCR skill: read the text with the OCR tool, then answer a document field, transcribe, or let a neural expert answer.

With the tools expert the answer is settled only where reading settles it:
- a document question ("How much did I pay?", "Which shop is this from?", "What is the invoice number?") is
  answered by the key-information tool (``vision_tools.documents``): the field exactly as printed, its box drawn,
  and a confidence; below ``DEFAULT_MIN_CONFIDENCE`` the skill abstains and says what is missing;
- a question that asks for the printed text itself ("What is written on the sign?") gets the text in reading
  order, or the text inside the named object ("the orange label"); a question about one part of it gets the
  smallest span that answers it (``skills.ocr.printed``) or nothing, never the whole reading;
- anything else is returned as evidence with a plain statement that the tools cannot answer it alone.
A neural expert gets the OCR lines and, for document questions, the field the tool read, as evidence.
"""

from __future__ import annotations

import re

from PIL import Image

from skills.answer_form import answer_form, format_answer
from skills.base import SkillContext, SkillResult
from skills.coloured_words import coloured_word_answer, coloured_word_question
from skills.common import COLOUR_WORDS, conclude
from skills.document_questions import DEFAULT_MIN_CONFIDENCE, DocumentQuestion, document_field, settle
from skills.ocr.choices import choose_printed_option
from skills.ocr.field_evidence import evidence_factor, field_features
from skills.ocr.inside_shapes import asks_for_text_inside_a_shape, text_inside_shape
from skills.ocr.named_values import asks_for_named_value, named_value
from skills.ocr.opening_hours import asks_about_hours, hours_answer
from skills.ocr.printed import asks_for_span, printed_answer
from skills.ocr.quantities import asks_for_quantity, quantity_answer
from skills.ocr.scene_facts import asks_for_scene_fact, scene_fact
from skills.ocr.spans import STOP_WORDS, PrintedAnswer, fuzzy_in, own_record, words_of
from skills.ocr.spans_by_name import ASKING
from skills.question_text import task_text
from skills.runner import ask_expert
from vision_tools.documents import DocumentReading, FieldAnswer, read_document
from vision_tools.image import Box
from vision_tools.text import OcrLine, read_text, read_text_cached
from vision_tools.zoom import SearchResult, find_region

_TRANSCRIBING = ("text_recognition", "scene_text_qa", "formula_recognition")
#: Questions about where the text is or what it looks like, which its transcription does not answer ("In which
#: quadrant is the word GATE written?").
_ABOUT_THE_TEXT = re.compile(r"\b(?:where|quadrant|corner|side|position|located|how many|how big|colou?r|font|size|"
                             r"language|which line|which row)\b", re.IGNORECASE)
#: Questions about how or where the text is printed, which no span of it answers ("What colour is the price?").
_LOOKS_OF_THE_TEXT = re.compile(r"\b(?:colou?rs?|font|typeface|size|language|quadrant|corner|position|located|"
                                r"how big|bold|italic|underlined)\b", re.IGNORECASE)
#: Questions that ask for the printed text itself ("What is written on the sign?", "What does the label say?",
#: "Read the notice"): the only ones a whole transcription answers.
_ALL_THE_TEXT = re.compile(r"\bwhat(?:'s| is| are)?\s+(?:written|printed|shown|displayed)\b"
                           r"|\bwhat\s+(?:does|do)\b.{0,60}\b(?:say|read)\b"
                           r"|\bwhat(?:'s| is)\s+the\s+(?:text|wording|writing)\b"
                           r"|\bwhat\s+(?:text|words?|writing)\s+(?:is|are|does|do|appears?)\b"
                           r"|^\W*(?:(?:please|can you|could you)\s+)?(?:read|transcribe)\b", re.IGNORECASE)
#: Words that ask for one part of the text or something about it ("the first word", "the red text at the top",
#: "which town", "the shop's name"): a whole transcription is not their answer.
_PART_OF_THE_TEXT = re.compile(r"\b(?:axis|axes|legend|key|tick|ticks|subtitle|caption|footnote|footer|header|"
                               r"first|last|second|third|top|bottom|upper|lower|middle|left|right|biggest|"
                               r"largest|smallest|bold|heading|title|line|next|beside|under|above|below|after|before|"
                               r"which|who|whom|whose|when|why|how|mean|means|meaning|"
                               + "|".join(COLOUR_WORDS) + r")\b", re.IGNORECASE)
#: Two or more printed things taken together ("X or Y combined", "A and B together", "in total for both").
_COMBINES = re.compile(r"\b(?:or|and|plus)\b[^?]{0,60}\b(?:combined|together|altogether|in total)\b"
                       r"|\b(?:combined|sum of|total of)\b[^?]{0,60}\b(?:and|or|plus)\b", re.IGNORECASE)
#: Matches scoring at least this share of the best are candidates for the object that carries the text.
CARRIER_SHARE = 0.6
#: Words that pick one of several objects by place ("the lower green sign", "the plate under the signs"). A size word
#: alone ("the small orange label") describes the one object; several of them are caught as rivals.
_WHICH_ONE = re.compile(r"\b(?:top|bottom|upper|lower|left|right|first|second|third|last|middle|under|above|below|"
                        r"other)\b", re.IGNORECASE)
_OBJECT_RE = re.compile(r"\b(" + "|".join(COLOUR_WORDS) + r")\s+(?:label|sign|sticker|banner|tag|card|note|board|"
                        r"plate|box|button|poster)\b", re.IGNORECASE)


def run(ctx: SkillContext) -> SkillResult:
    # An expert entry may pick the OCR engine (registry ``options: {ocr_backend: tesseract}``): two tools experts
    # that differ for real, which the learned router can tell apart.
    backend = (getattr(ctx.expert, "options", None) or {}).get("ocr_backend", "rapidocr")
    if (word := coloured_word_question(ctx.question)) is not None and word.asks == "read" and \
            not getattr(ctx.expert, "neural", False):
        # "What does the red word say?": the one word of that colour, read where it is (a 4K clutter of grey
        # words around it would drown it in a reading of everything).
        read = coloured_word_answer(word, ctx.image, ctx.trace)
        return conclude(ctx, [read.found], read.answer, missing=read.missing,
                        confidence=read.confidence if read.answer else None)
    located = _locate_named_object(ctx)
    if isinstance(located, str):
        return SkillResult(observation=f"No answer: {located}.", missing=located)
    if located is not None:
        search, box = located
        result = ctx.trace.call("ocr.read_text", read_text, ctx.image, region=box, backend=backend)
        text = result.text.replace("\n", " ").strip()
        return conclude(ctx, [search, result], text or None, confidence=reading_confidence(result.lines),
                        note=f"Text read inside the {search.target} region only." if text else
                        f"No text inside the {search.target} region.")
    if (inside := asks_for_text_inside_a_shape(ctx.question)) is not None and not getattr(ctx.expert, "neural", False):
        within = text_inside_shape(ctx, inside)  # "what number is written inside the hexagon?"
        return conclude(ctx, [within.reading] if within.reading else [], within.text, missing=within.missing,
                        confidence=reading_confidence(within.reading.lines) if within.text and within.reading else None)
    asked = document_field(ctx.question)
    field = None
    document = False
    if asked is not None:
        reading = ctx.trace.call("documents.read_document", read_document, ctx.image, backend=backend)
        lines = reading.ocr.lines
        document = reading.looks_like_document
        if _reads_as_document(asked, reading):
            field = _scene_checked(ctx.trace.call("documents.read_field", reading.field, asked.field), document)
            field = _first_row_only(field, document, ctx.question, reading.ocr.lines)
            field = _one_end_of_a_range(field, ctx.question, reading.ocr.lines)
    else:
        lines = ctx.trace.call("ocr.read_text", read_text_cached, ctx.image, backend=backend).lines
    evidence = _evidence(lines)
    # One part of the printed text (a title, an exit number, a price, "does it say STOP?") is answered with the
    # smallest span that answers it; a receipt's fields stay with the key-information tool.
    form = answer_form(ctx.question).kind
    if form == "choice" and not document and not _field_read(field) and not getattr(ctx.expert, "neural", False):
        chosen = ctx.trace.call("ocr.printed_option", choose_printed_option, ctx.question, lines, ctx.image)
        if chosen is not None:
            return _answer_span(ctx, chosen, evidence, lines)
    yesno = form == "yesno"
    about_text = bool(_LOOKS_OF_THE_TEXT.search(task_text(ctx.question)[0] or ctx.question))
    # "What colour is the price printed in?" asks about the print, not for the price.
    # "What percentage is satisfied or very satisfied combined?": a sum of printed values, which no one span is.
    combines = bool(_COMBINES.search(task_text(ctx.question)[0] or ctx.question))
    spans_asked = not document and not _field_read(field) and not about_text and not combines
    # A printed label "Opening hours" has a row under it, but only the hours module reads every day's row.
    hours = not document and not about_text and asks_about_hours(ctx.question, yesno)
    span = ctx.trace.call("ocr.named_value", _named_value, ctx.question, lines, ctx.image) \
        if spans_asked and not yesno and asks_for_named_value(ctx.question) else None
    if span is None and hours:
        span = ctx.trace.call("ocr.opening_hours", _opening_hours, ctx.question, lines, ctx.image, yesno=yesno)
    if span is None and spans_asked and asks_for_scene_fact(ctx.question, yesno):
        span = ctx.trace.call("ocr.scene_fact", _scene_fact, ctx.question, lines, ctx.image, yesno=yesno)
    if span is None and spans_asked and not yesno and asks_for_quantity(ctx.question):
        span = ctx.trace.call("ocr.quantity", _quantity, ctx.question, lines, ctx.image)
    if span is None and spans_asked and asks_for_span(ctx.question, yesno):
        span = ctx.trace.call("ocr.printed_span", printed_answer, ctx.question, lines, ctx.image, yesno=yesno)
    if span is not None and not getattr(ctx.expert, "neural", False):
        return _answer_span(ctx, span, evidence, lines)
    if getattr(ctx.expert, "neural", False):
        if field is not None:
            evidence += f"\nKey-information tool: {field.summary()}"
        return ask_expert(ctx, evidence, extra_images=[field.annotated] if field and field.annotated else None)
    data: dict[str, object] = {"lines": [line.text for line in lines]}
    if field is not None and asked is not None:
        return _answer_field(ctx, asked, field, evidence, data, lines)
    if not lines:
        return SkillResult(observation="OCR found no text in the image.", evidence=data,
                           missing="no text could be read in the image")
    if ctx.level2.id in _TRANSCRIBING and asks_for_all_the_text(ctx.question):
        text = " ".join(line.text for line in lines)
        return SkillResult(observation=f"OCR lines:\n{evidence}\nTranscription: {text}",
                           answer=format_answer(ctx.question, text), evidence=data,
                           confidence=reading_confidence(lines))
    return SkillResult(observation=f"OCR lines:\n{evidence}\nThe tools read the text but cannot answer this "
                                   "question without a reasoning expert.", evidence=data,
                       missing="the question needs a reasoning expert; the tools can only read the text")


# The rules that read a fact off a sign or label in the user's words keep a calibration record of their own
# (``skills.ocr.spans.own_record``): no dev set labels their answers, so they answer once rated runs certify them.
def _named_value(question: str, lines: list[OcrLine], image: Image.Image) -> PrintedAnswer | None:
    return own_record(named_value(question, lines, image), "a value beside its name")


def _opening_hours(question: str, lines: list[OcrLine], image: Image.Image, yesno: bool) -> PrintedAnswer | None:
    return own_record(hours_answer(question, lines, image, yesno=yesno), "opening hours")


def _scene_fact(question: str, lines: list[OcrLine], image: Image.Image, yesno: bool) -> PrintedAnswer | None:
    return own_record(scene_fact(question, lines, image, yesno=yesno), "a fact a sign states")


def _quantity(question: str, lines: list[OcrLine], image: Image.Image) -> PrintedAnswer | None:
    return own_record(quantity_answer(question, lines, image), "a quantity of the kind asked")


def asks_for_all_the_text(question: str) -> bool:
    """Whether ``question`` asks for the printed text itself, all of it: the transcription is its answer. A question
    about one part of the text ("Which town is 12 km away?", "What's the first word?") or about where it is or how
    it looks gets no transcription: the whole reading is not the span it asks for."""
    stem = task_text(question)[0] or question
    request = _READ_REQUEST.search(stem)
    if request and set(words_of(request.group("what"))) - _WHOLE_TEXT_WORDS:
        return False  # "Can you read me the recipient's postcode?": a read request for one thing on the label
    return bool(_ALL_THE_TEXT.search(stem)) and not _PART_OF_THE_TEXT.search(stem) \
        and not _ABOUT_THE_TEXT.search(stem)


#: "Read the notice", "Can you read me what the sign says": what follows a request to read or transcribe.
_READ_REQUEST = re.compile(r"^\W*(?:(?:please|can you|could you|would you)\s+)?(?:read|transcribe)\b(?P<what>[^?.!]*)",
                           re.IGNORECASE)
#: The only words a request for the whole text may name: the text itself or what carries it. Any other ("the
#: recipient's postcode", "the batch number") names one part of it.
_WHOLE_TEXT_WORDS = frozenset(["me", "out", "aloud", "loud", "for", "us", "please", "the", "this", "that", "these", "all",
                               "of", "everything", "whole", "full", "entire", "complete", "text", "words", "word",
                               "writing", "wording", "what", "it", "its", "says", "say", "is", "written", "printed",
                               "on", "in", "here", "there", "image", "picture", "photo", "sign", "label", "notice",
                               "board", "poster", "note", "page", "document", "receipt", "screen", "plate", "card",
                               "banner", "sticker", "menu", "letter", "message", "tag", "box", "packet", "package",
                               "bottle", "jar", "ticket", "flyer", "leaflet", "paper", "lines", "line", "by", "one",
                               "to", "exactly", "as", "and", "order", "top", "bottom", "from"])


def _scene_checked(field: FieldAnswer, document: bool) -> FieldAnswer:
    """On a sign (not a document) words stacked over rows are one phrase ("SPEED / LIMIT / 30", "NO / PARKING"):
    a word under a label is its continuation, not its value; a value under it carries a number."""
    if document or field.value is None or not field.how.startswith("under the label") or re.search(r"\d", field.value):
        return field
    return FieldAnswer(field.field, None, 0.0, missing=f"the words under '{field.label}' continue the sign's text; "
                                                       "no value is printed under it")


#: "09:00 - 15:30": a time that starts a range; and the words that ask for a range's start.
_RANGE_AFTER = r"\s*(?:-|–|—|to|until|till)\s*\d{1,2}[:.]\d{2}"
_ASKS_START = re.compile(r"\b(?:start|starts|begin|begins|from|off|open|opens|cut)\b", re.IGNORECASE)


def _one_end_of_a_range(field: FieldAnswer, question: str, lines: list[OcrLine]) -> FieldAnswer:
    """A time read where a range starts ("Time: 09:00 - 15:30") answers only a question about its start: round
    37's "what time is the water back on" had been answered 09:00, when the supply is cut."""
    if field.field != "time" or field.value is None or _ASKS_START.search(question):
        return field
    starts = re.compile(re.escape(field.value.strip()) + _RANGE_AFTER)
    if not any(starts.search(line.text) for line in lines):
        return field
    return FieldAnswer(field.field, None, 0.0, missing=f"{field.value.strip()} starts a range of times printed, and "
                                                       "the question does not ask for its start")


def _first_row_only(field: FieldAnswer, document: bool, question: str, lines: list[OcrLine]) -> FieldAnswer:
    """On a board or a timetable (not a document) the value under a column's label ("Time") is the first row's: when
    the question names another printed thing ("the train to Swindon"), that row may not be the one asked about."""
    if document or field.value is None or not field.how.startswith("under the label"):
        return field
    label = (field.label or "").lower()
    named = [w for w in words_of(task_text(question)[0] or question)
             if w not in STOP_WORDS and w not in ASKING and len(w) > 2 and w not in label]
    printed = [w for w in named if any(fuzzy_in(w, line.text) for line in lines)]
    if not printed:
        return field
    return FieldAnswer(field.field, None, 0.0, missing=f"the question names {', '.join(printed)}, and the value under "
                                                       f"'{field.label}' is the first row's, which need not be theirs")


def _field_read(field: FieldAnswer | None) -> bool:
    """A labelled value or a total the key-information tool read with confidence (a receipt that does not look
    like one keeps its total from the tool, not from a span of the reading)."""
    return field is not None and field.value is not None and field.confidence >= DEFAULT_MIN_CONFIDENCE


def _answer_span(ctx: SkillContext, span: PrintedAnswer, evidence: str, lines: list[OcrLine]) -> SkillResult:
    """The span as the answer, or the abstention that says which part of the text could not be settled."""
    data: dict[str, object] = {"lines": [line.text for line in lines], "span": span.how}
    if span.answer is None:
        return SkillResult(observation=f"OCR lines:\n{evidence}\nNo answer: {span.missing}.", evidence=data,
                           missing=span.missing, features=span.features)
    answer = format_answer(ctx.question, span.answer)
    return SkillResult(observation=f"OCR lines:\n{evidence}\nThe question asks for one part of the text: "
                                   f"{span.how}.\nAnswer from the tools: {answer}", answer=answer,
                       confidence=span.confidence, evidence=data, features=span.features)


def _reads_as_document(asked: DocumentQuestion, reading: DocumentReading) -> bool:
    """Totals, dates and labelled values are read from any image with text; the issuer's name and address only
    from pages that look like receipts or invoices (a shop sign's name is scene text, not a document header)."""
    return asked.field not in ("company", "address") or reading.looks_like_document


def _answer_field(ctx: SkillContext, asked: DocumentQuestion, field: FieldAnswer, evidence: str,
                  data: dict[str, object], lines: list[OcrLine]) -> SkillResult:
    """The field as the answer when it is certain enough, else an abstention that says what is missing."""
    missing = _another_value(asked, field, lines)
    if missing is not None:
        return SkillResult(observation=f"Key information ({asked.field}, asked as {asked.wording!r}): "
                                       f"{field.summary()}\nNo answer: {missing}.\nOCR lines:\n{evidence}",
                           evidence=data, missing=missing)
    # Signs of a misreading the line scores miss (a near-miss word, an accent the page lacks, an address that is
    # not shaped like one, an illegible character) lower the confidence before it is compared with the threshold.
    page = " ".join(line.text for line in lines)
    features = field_features(ctx.image, field, page)
    confidence = round(field.confidence * evidence_factor(features), 4)
    settled = settle(field.value, confidence, field.missing, _field_words(asked.field),
                     min_confidence=DEFAULT_MIN_CONFIDENCE)
    data["field"] = field.to_dict()
    if features:
        data["field_features"] = features
    # The field comes first: a long receipt's OCR lines are cut to the observation limit from the end.
    found = f"Key information ({asked.field}, asked as {asked.wording!r}): {field.summary()}"
    shown = f"OCR lines:\n{evidence}"
    if settled.answer is None:
        return SkillResult(observation=f"{found}\nNo answer: {settled.missing}.\n{shown}", evidence=data,
                           confidence=settled.confidence, missing=settled.missing, features=features)
    answer = format_answer(ctx.question, settled.answer)
    return SkillResult(observation=f"{found}\nAnswer from the tools: {answer}\n{shown}", answer=answer,
                       confidence=settled.confidence, evidence=data, features=features)


def _another_value(asked: DocumentQuestion, field: FieldAnswer, lines: list[OcrLine]) -> str | None:
    """Why the value read answers another question than the one asked, or None: words narrowing the question
    ("in Q3") or the event of a date ("delivered") not printed with it ("Ship date: 03/11/2025")."""
    if field.value is None:
        return None
    if asked.qualifier and not _printed_with(asked.qualifier, field, lines):
        return (f"the question asks about {' '.join(asked.qualifier)}, which is not printed with the "
                f"{_field_words(asked.field)} read ({field.value!r})")
    if asked.event and not _row_names(asked.event, field, lines):
        return (f"the question asks for the date of an event ({asked.event[0]}…) that is not printed with the date "
                f"read ({field.value!r})")
    return None


def _printed_with(words: tuple[str, ...], field: FieldAnswer, lines: list[OcrLine]) -> bool:
    """Whether every word narrowing the question ("q3" of "revenue in Q3") is printed on the row of the value read
    or of its label: the value after "Revenue" in a chart's title is no quarter's revenue."""
    row = _row_of(field, lines)
    return all(re.search(rf"\b{re.escape(w)}(?:e?s)?\b", row) for w in words)


def _row_names(stems: tuple[str, ...], field: FieldAnswer, lines: list[OcrLine]) -> bool:
    """Whether a word starting with one of ``stems`` ("deliver", "arriv") is printed on the row of the value read
    or of its label."""
    row = _row_of(field, lines)
    return any(re.search(rf"\b{re.escape(stem)}", row) for stem in stems)


def _row_of(field: FieldAnswer, lines: list[OcrLine]) -> str:
    """The words of the lines on the row of the value read or of its label, lower case."""
    anchors = [*field.boxes, *([field.label_box] if field.label_box else [])]

    def same_row(line: OcrLine) -> bool:
        return any(min(line.box.y1, a.y1) - max(line.box.y0, a.y0) > 0.5 * min(line.box.height, a.height)
                   for a in anchors)

    return " ".join(re.findall(r"[a-z0-9]+", " ".join(line.text for line in lines if same_row(line)).lower()))


def reading_confidence(lines: list[OcrLine]) -> float | None:
    """How sure a transcription is: as sure as its least legible line (the recogniser's score), never certain
    (a line the detector missed leaves no score behind)."""
    return round(min(0.95, min(line.confidence for line in lines)), 3) if lines else None


def _field_words(field: str) -> str:
    return {"company": "issuer's name", "address": "issuer's address"}.get(field, field)


def _evidence(lines: list[OcrLine]) -> str:
    return "\n".join(f"{i + 1}. {line.text!r} box={line.box.as_list()} conf={line.confidence:.2f}"
                     for i, line in enumerate(lines)) or "(no text found)"


def _locate_named_object(ctx: SkillContext) -> tuple[SearchResult, Box] | str | None:
    """For "the text on the <colour> <label|sign|...>": the object's region, found by a tiled colour search; or
    what is missing when several such objects could be meant ("the lower green sign" among two green signs)."""
    match = _OBJECT_RE.search(ctx.question)
    if not match:
        return None
    search = ctx.trace.call("zoom.find_region", find_region, ctx.image, match.group(1).lower(), kind="colour")
    if not search.matches:
        return None
    # A label or banner carries text: of the solid matches the largest, not a letter printed in its colour.
    best = search.matches[0].score
    solid = [m for m in search.matches if m.score >= CARRIER_SHARE * best]
    carrier = max(solid, key=lambda m: m.box.area)
    rivals = [m for m in solid if m is not carrier and m.box.area >= 0.3 * carrier.box.area
              and m.box.iou(carrier.box) < 0.3]
    where = _WHICH_ONE.search(ctx.question)
    what = f"{match.group(1).lower()} {match.group(0).split()[-1].lower()}"
    if rivals:
        return f"{len(rivals) + 1} {what}s could be meant, and the colour search cannot tell which is asked about"
    if where:
        return (f"the question picks the {what} by its place ('{where.group(0)}'), which the colour search cannot "
                "tell")
    return search, carrier.box
