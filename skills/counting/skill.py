"""Counting skill: catalogue every instance with its box (so nothing is counted twice), then count — but only
things a tool can actually detect.

What is counted comes from the question ("how many red circles", "count the people", "number of cups"):
- faces and people go to OpenCV's detectors (detection scores give the confidence; finding none is not taken as
  proof of none);
- a named shape and/or colour, or "shapes" in general, goes to colour/shape segmentation, on drawings only; on a
  drawing of overlapping outlines of one kind (Olympic rings, nested squares) the outline tracer counts too, and
  the count is surest when both agree;
- any other object goes to YOLO when the expert entry configures weights (``options: {yolo_weights: PATH}``);
  otherwise the skill counts nothing and says what it would need — never a count of something else.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
from PIL import Image, ImageDraw

from skills.answer_form import answer_form
from skills.base import SkillContext, SkillResult
from skills.common import conclude
from skills.counting.compare import CountPair, compare, compared_counts
from skills.counting.doubts import (
    may_be_the_kind,
    merged_circles,
    neighbour_shades,
    squares_by_tilt,
    stacked_over_another,
    touching_alike,
)
from skills.counting.fill import asks_by_fill, picks_by_fill
from skills.counting.standouts import asks_for_standouts, count_standouts
from skills.evidence import EXPERTS_DOC, check_kind, drawing_view, photo_missing, weighed
from skills.question_text import asks_about_relation, names_a_part, task_text
from skills.targets import Counted, counted
from vision_tools import detection, diagrams
from vision_tools.diagrams import is_line_drawing
from vision_tools.image import CLEAR_DRAWING, ImageKind
from vision_tools.text import read_text_cached

_PEOPLE = re.compile(r"\b(people|persons?|pedestrians?|humans?|men|women|players|children|kids)\b", re.IGNORECASE)
_FACES = re.compile(r"\bfaces?\b", re.IGNORECASE)
_TIMES = re.compile(r"\bhow many times\b", re.IGNORECASE)
#: Nouns for things in general ("items", "objects"): on a page of print, its letters would be counted as shapes.
_ANY_THING = frozenset(["item", "object", "thing", "element"])
#: Lines of words from which an image is a page of print, not a drawing of things.
PRINTED_LINES = 3
_TRACED = ("circle", "pentagon", "hexagon", "triangle", "square", "rectangle")
#: Detection scores from which a detection is sure (counted): OpenCV's Haar scores true frontal faces 0.98-1.0
#: and false alarms 0.55-0.84 on the photo benchmark; its HOG people scores are weaker and overlap more; YOLO's
#: are probabilities.
_SURE_FACE, _SURE_PERSON, _SURE_YOLO = 0.95, 0.85, 0.5


#: "How many circles are bigger than circle D?": a count of the ones that meet a comparison, not of all of them.
_COMPARED = re.compile(r"\b(?:bigger|larger|smaller|taller|shorter|longer|wider|narrower|heavier|lighter|higher|"
                       r"lower|darker)\s+than\b", re.IGNORECASE)


def run(ctx: SkillContext) -> SkillResult:
    question, image, trace = ctx.question, ctx.image, ctx.trace
    options = getattr(ctx.expert, "options", None) or {}
    if relation := asks_about_relation(question):
        return conclude(ctx, [], None, missing=(
            f"the question counts only the things picked by how they lie against another ('{relation}'); the "
            "Counting tools count every such thing in the image and do not see how they lie against each other"))
    if part := names_a_part(question):
        return conclude(ctx, [], None, missing=(
            f"the question counts only in one part of the image ('{part}'); the Counting tools count the whole "
            "image"))
    if _CAPACITY.search(question):
        # "max how many people can go in this lift": a limit the image states, not a count of what it shows (a
        # lift certificate had been answered "1", a person "seen" in its print).
        return conclude(ctx, [], None, missing=(
            "the question asks how many may or can be, a limit the image would state in words, not a count of "
            "what it shows"))
    if _FACES.search(question) or _PEOPLE.search(question):
        label = "face" if _FACES.search(question) else "person"
        if (kind := check_kind(ctx)).drawing >= CLEAR_DRAWING:
            # On a chart or a drawing the detectors find "people" in bars and letters (a survey chart: 1 person).
            return conclude(ctx, [kind], None, missing=(
                f"the image is a drawing or a chart, not a photograph: the {label} detectors find {label}s in "
                f"photographs, and what a chart says about people is read from its numbers, not counted"))
        result = trace.call("counting.detect_objects", detection.detect_objects, image, label)
        return _detected(ctx, result, label, _SURE_FACE if label == "face" else _SURE_PERSON)
    if compared := _COMPARED.search(question):
        return conclude(ctx, [], None, missing=(
            f"the question counts only the things that are {compared.group(0)} something else; "
            "the Counting tools count every such thing and do not compare their sizes"))
    if _TIMES.search(question):
        return conclude(ctx, [], None, missing=(
            "'how many times' asks how often something happens (lines crossing, a pattern repeating), not how many "
            "things there are: the Counting tools count things"))
    if (pair := compared_counts(question)) is not None:
        return _two_counts(ctx, pair)
    if asks_for_standouts(question) and (kind := check_kind(ctx)).drawing < CLEAR_DRAWING:
        # "how many coloured shapes are hidden in this": on a busy picture, those that stand out of it.
        found = count_standouts(image, trace)
        return conclude(ctx, [kind, found.search], None if found.count is None else str(found.count),
                        missing=found.missing, confidence=None if found.count is None else weighed(found.confidence, kind))
    target = counted(question)
    if target.names_object or (target.shape is None and target.colour is None and target.noun is None):
        # "How many cups" (or "red cars"): no drawn shape or colour blob stands for a cup.
        if target.noun and options.get("yolo_weights"):
            # A user who configured YOLO weights on this expert gets detection of any label the weights know.
            result = trace.call("counting.detect_objects", detection.detect_objects, image, target.noun,
                                backend="yolo", weights=options["yolo_weights"])
            return _detected(ctx, result, target.noun, _SURE_YOLO)
        what = f"'{target.noun}'" if target.noun else "what the question asks to count"
        return conclude(ctx, [], None, missing=(
            f"the tools have no detector for {what}: they count faces, people, drawn shapes (circles, squares, "
            f"triangles, …) and colours; configure YOLO weights (expert option yolo_weights) or a VLM expert "
            f"(see {EXPERTS_DOC})"))
    if target.shape is None and target.colour is None and target.noun in _ANY_THING:
        # "How many items were bought?" on a receipt: blobs of print are no drawn things.
        text = trace.call("ocr.read_text", read_text_cached, image)
        printed = [line for line in text.lines if sum(ch.isalpha() for ch in line.text) >= 3]
        if len(printed) >= PRINTED_LINES:
            return conclude(ctx, [text], None, missing=(
                f"the image is mostly printed text ({len(printed)} lines): a count of drawn shapes would count its "
                f"print, and the tools do not count the things a text lists; configure a VLM expert "
                f"(see {EXPERTS_DOC})"))
    if (shade := _BLUE_GREEN.search(question)) is not None:
        # "How many teal shapes?": the palette splits blue-greens between blue and green, so a count of them by the
        # palette's colours would count the wrong shapes (a teal count had been "0").
        return conclude(ctx, [], None, missing=(
            f"the question asks for {shade.group(0)} shapes, a blue-green the tools count as blue or green, not apart"))
    if target.colour is not None and (shade := _SHADE.search(question)):
        # "How many of the dark blue triangles": the tools name a colour, never its shades (dark and light blue
        # are both blue to them).
        return conclude(ctx, [], None, missing=(
            f"the question asks for a shade ('{shade.group(0)}'); the tools tell colours apart, not shades of one "
            "colour"))
    kind, image = drawing_view(ctx)
    if kind.is_photo:
        return conclude(ctx, [kind], None, missing=photo_missing("shape-counting tools", kind))
    return _as_asked(ctx, _count_drawn(ctx, target, kind, image))


def _two_counts(ctx: SkillContext, pair: CountPair) -> SkillResult:
    """"More blue circles than green ones?": each side counted as a question of its own, then compared."""
    sides = [run(replace(ctx, question=q, query=q)) for q in (pair.first, pair.second)]
    counts = [int(r.answer) if r.answer is not None and r.answer.isdigit() else None for r in sides]
    note = "\n".join(f"{q}: {r.answer if r.answer is not None else 'not counted (' + (r.missing or '') + ')'}"
                     for q, r in zip((pair.first, pair.second), sides, strict=True))
    if counts[0] is None or counts[1] is None:
        missing = next(f"'{q}' could not be counted: {r.missing}" for q, r, n in
                       zip((pair.first, pair.second), sides, counts, strict=True) if n is None)
        return conclude(ctx, [], None, note=note, missing=missing)
    answer = compare(ctx.question, pair, counts[0], counts[1])
    sure = [r.confidence for r in sides if r.confidence is not None]
    result = conclude(ctx, [], answer, note=note, confidence=min(sure) if len(sure) == 2 else None,
                      missing=None if answer is not None else "the two counts are equal, and no option says so")
    result.evidence = {"tools": [t for r in sides for t in r.evidence.get("tools", [])]}
    return result


#: "how many people can go in", "maximum number of guests", "how many are allowed": a stated limit.
_CAPACITY = re.compile(r"\bhow many\b.*\b(?:(?:can|could|may)\b(?!\s+(?:you|u|i|we|one|be)\s+(?:see|spot|find|count|"
                       r"make out|notice|identify|detect|seen|found|spotted|counted|visible)\b)|allowed|permitted|"
                       r"fit|max(?:imum)?|at most|up to|limit|capacity)\b|\b(?:max(?:imum)?|capacity|limit)\b.*"
                       r"\bhow many\b|\bmax(?:imum)? number of\b", re.I)
#: Blue-greens, which the palette splits between blue and green.
_BLUE_GREEN = re.compile(r"\b(?:teal|cyan|turquoise|aqua(?:marine)?|blue-green)\b", re.I)
#: A shade of a colour: "dark blue", "light-green", "pale pink", "navy".
_SHADE = re.compile(r"\b(?:dark|light|pale|bright|deep|sky|baby|neon|pastel|dull)[\s-]+(?:red|orange|yellow|green|"
                    r"blue|purple|violet|pink|brown|gr[ae]y|cyan|teal)\b|\bnavy\b", re.I)


def _as_asked(ctx: SkillContext, result: SkillResult) -> SkillResult:
    """A count answers "Are there any circles?" / "Is there a red star?" as Yes (one or more) or No (none); a
    yes/no about how many ("exactly 3", "more circles than squares", "only one") is not this question."""
    stem = task_text(ctx.question)[0] or ctx.question
    if (answer_form(ctx.question).kind == "yesno" and _ANY.search(stem) and not _HOW_MANY.search(stem)
            and result.answer is not None and result.answer.isdigit()):
        count = int(result.answer)
        result.answer = "Yes" if count else "No"
        result.observation += f"\nA count of {count} answers the yes/no question: {result.answer}."
    return result


#: "Are there any circles?", "Is there a red star?", "Can you see any squares?": whether one exists.
_ANY = re.compile(r"^\W*(?:is|are)\s+there\s+(?:any|an?|some)\b|^\W*(?:can|do)\s+you\s+see\s+(?:any|an?|some)\b|"
                  r"^\W*(?:does|do)\s+(?:the|this)\s+\w+\s+(?:have|contain|show)\s+(?:any|an?|some)\b", re.I)
#: Words that make a yes/no about the number, not the existence: "more … than", "exactly 3", "only one", "all".
_HOW_MANY = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|more|fewer|less|than|exactly|"
                       r"only|all|every|each|both|same|equal|least|most|several|many|multiple)\b", re.I)


def _count_drawn(ctx: SkillContext, target: Counted, kind: ImageKind, image: Image.Image) -> SkillResult:
    """Shapes and colours on a drawing (``image``: the pixels the drawing tools read, degrained where the drawing
    is under grain): colour/shape segmentation, and on a drawing of one kind of outline the outline tracer, which
    separates overlapping outlines that segmentation merges into one blob."""
    trace = ctx.trace
    traced = None
    # A traced call, so a cached rerun reuses it (it is most of a small drawing's pixel work).
    if target.colour is None and target.shape in _TRACED and trace.call("image.is_line_drawing", is_line_drawing,
                                                                          image):
        if target.shape in ("square", "rectangle"):
            traced = trace.call("diagram.count_nested_squares", diagrams.count_nested_squares, image)
        else:
            traced = trace.call("diagram.count_overlapping_shapes", diagrams.count_overlapping_shapes, image,
                                shape=target.shape)
        if traced.count and traced.doubtful <= 1 and _one_size(traced) and _overlapping(traced, image.size):
            # Overlapping outlines: segmentation would see one merged blob, so it is no independent check.
            return conclude(ctx, [kind, traced], traced.answer, confidence=weighed(0.95 * traced.confidence, kind),
                            note="Overlapping outlines of one kind: the outline tracer counts them.")
    found = trace.call("counting.count_shapes", detection.count_shapes, image, shape=target.shape,
                       colour=target.colour)
    unclassified = sum(n for label, n in found.others.items() if label.startswith("unclassified"))
    # Blobs no shape fits may hide the counted kind; a zero is the least sure count of all.
    confidence = (0.9 if not unclassified else 0.7) * (1.0 if found.count else 0.95)
    if traced is None and (merged := merged_circles(target, found)):
        # Two circles that overlap segment as one oval blob: "3 red circles, also seen: 1 red ellipse" for 5.
        return conclude(ctx, [kind, found], None, missing=(
            f"{merged} oval blob(s){f' of {target.colour}' if target.colour else ''} may be circles that overlap "
            "or lie partly hidden; the count cannot tell how many circles they hold"))
    fill = asks_by_fill(ctx.question)
    if picks_by_fill(ctx.question) and (fill is None or traced):
        return conclude(ctx, [kind, found], None, missing=(
            "the question counts shapes by how they are drawn (filled or outlined) in words the tools could not "
            "read as either"))
    if traced is None and fill is not None:
        # "How many shapes are just outlines, not filled in?": those drawn as outlines only (or only filled ones).
        kept = [d for d in found.detections if bool(d.extra.get("filled")) == fill]
        if unclassified:
            return conclude(ctx, [kind, found], None, missing=(
                f"{unclassified} piece(s) of the drawing fit no shape; whether they are "
                f"{'filled' if fill else 'outlines'} cannot be told"))
        return conclude(ctx, [kind, found], str(len(kept)), confidence=weighed(confidence, kind))
    # Pieces of about a counted shape's size that fit no shape ("how many shapes?"), or with a notch where two
    # shapes of one colour touch (a square joined by a star's point): each may be one more of those counted.
    notched = sum(n for label, n in found.others.items() if label.endswith("concave shape")
                  and (target.colour is None or label.startswith(target.colour)))
    pieces = notched + unclassified
    # None of them at all, beside a notched piece of the colour asked: two blue squares that touch are one piece.
    none_beside_piece = not found.detections and target.colour is not None and notched > 0
    if traced is None and pieces and (none_beside_piece or found.detections and found.largest_other >= 0.25 * min(
            float(d.extra.get("area", 0)) for d in found.detections)):
        return conclude(ctx, [kind, found], None, missing=(
            f"{pieces} piece(s) of the drawing of a size with the shapes counted fit no shape (a shape partly "
            "hidden, broken or joined to another of its colour); whether each is one more cannot be told"))
    if traced is None and target.shape is not None and (touching := touching_alike(trace.call(
            "counting.count_shapes", detection.count_shapes, image, shape=None, colour=target.colour))):
        # A green square joined by a green star's point is segmented as a "pentagon" beside the star: where two
        # shapes of one colour meet, the kind of each is a guess.
        return conclude(ctx, [kind, found], None, missing=(
            f"two {touching} shapes touch or overlap, and where one ends and the other begins cannot be told, so "
            "what kinds they are is unsure"))
    if traced is None and target.shape is not None and (kin := may_be_the_kind(ctx.question, target.shape, trace.call(
            "counting.count_shapes", detection.count_shapes, image, shape=None, colour=target.colour))):
        return conclude(ctx, [kind, found], None, missing=kin)
    if traced is None and target.shape == "square" and (by_tilt := squares_by_tilt(ctx.question, found)):
        return conclude(ctx, [kind, found], by_tilt[0], missing=by_tilt[1],
                        confidence=None if by_tilt[0] is None else weighed(confidence, kind))
    if traced is None and (shades := neighbour_shades(target, found)):
        # "How many white stars?" over stars a light grey (white lit softly, or a paper's grey): 0 white stars.
        return conclude(ctx, [kind, found], None, missing=(
            f"{shades} of a neighbouring shade are in the image; whether they are the {target.colour} ones asked "
            "for cannot be told from the shade"))
    if traced is None:
        stacked = stacked_over_another(found.detections)
        if stacked:
            # A shape drawn over another of another colour, nearly the same box: a shadow, a thick rim or a blot
            # under it is counted as a second shape (19 for 7 shapes with drop shadows).
            return conclude(ctx, [kind, found], None, missing=(
                f"{stacked} counted shape(s) lie on another of another colour (a shadow, a rim, an overlap); the "
                "count cannot tell one shape from two"))
        if unclassified >= 3 and unclassified > found.count:
            # More pieces no shape fits than shapes counted: overlapping shapes cut into lenses and crescents (a
            # Venn diagram read as "1 circle"), or clutter; the count would be of the pieces that happen to fit.
            return conclude(ctx, [kind, found], None, missing=(
                f"{unclassified} pieces of the drawing fit no shape (overlapping or broken shapes), more than the "
                f"{found.count} counted; the count cannot be trusted"))
        return conclude(ctx, [kind, found], found.answer, confidence=weighed(confidence, kind))
    if traced.count == found.count:
        return conclude(ctx, [kind, traced, found], found.answer, confidence=weighed(0.95, kind),
                        note="The outline tracer and the segmentation agree.")
    if traced.count and traced.doubtful <= 1 and found.count == 0:  # strokes too faint or thin to segment
        return conclude(ctx, [kind, traced, found], traced.answer,
                        confidence=weighed(0.9 * traced.confidence, kind),
                        note="Segmentation found no such shape; the outline tracer's count is used.")
    if traced.count and traced.doubtful == 0 and unclassified:
        # Blobs segmentation cannot name are typically outlines merged where they cross: the tracer separates them.
        return conclude(ctx, [kind, traced, found], traced.answer,
                        confidence=weighed(0.8 * traced.confidence, kind),
                        note="Segmentation left blobs it cannot name (crossing outlines); the tracer's count is used.")
    # Separate shapes are segmentation's strength; there the tracer can be fooled by pieces of other shapes.
    # (Giving no count here was tried: the question then went on to Diagram-Reasoning, whose tracer count was
    # wrong on new users' drawings more often than segmentation's; see docs/skills.md.)
    return conclude(ctx, [kind, traced, found], found.answer, confidence=weighed(0.75 * confidence, kind),
                    note="The outline tracer disagrees; the segmentation's count of separate shapes is used.")


def _detected(ctx: SkillContext, result: detection.CountResult, label: str, sure: float) -> SkillResult:
    """A detector's count of its sure detections (score >= ``sure``). Weaker ones are doubts — on dev photos they
    were false alarms (a sleeve, a patch) far more often than faces — so they lower the confidence instead of
    adding to the count. None found settles nothing: detectors miss small, turned or hidden instances."""
    if result.count == 0:
        return conclude(ctx, [result], None, missing=(
            f"the {result.method} found no {label}; it misses small, turned or partly hidden ones, so that is not "
            f"proof there are none — configure a VLM expert (see {EXPERTS_DOC}) to check"))
    strong = sum(1 for d in result.detections if d.score >= sure)
    weak = result.count - strong
    if strong == 0:
        # Only weak detections: a guess. A dark line chart had been "1 person" at P 0.99, since the calibration has
        # no labelled example of this score to say how rarely such a count is right.
        return conclude(ctx, [result], None, missing=(
            f"every {label} detection is weak (score below {sure}): the {weak} found may be anything "
            f"{label}-like, so no count is given"))
    return conclude(ctx, [result], str(strong), confidence=0.9 if weak == 0 else 0.55,
                    note=f"{weak} weak detection(s) (score below {sure}) not counted." if weak else "")


def _one_size(traced: diagrams.CountResult) -> bool:
    """Whether the traced shapes are of about one size, as in a drawing of one kind of outline (rings, a row of
    pentagons); nested squares are one size apart by design. Widely varied sizes are more often pieces of other
    shapes (a star's inner pentagon, a corner of a rectangle) taken for the asked kind."""
    if traced.kind == "square" or len(traced.boxes) < 2:
        return True
    sides = [max(b.width, b.height) for b in traced.boxes]
    return max(sides) <= 2.0 * min(sides)


def _overlapping(traced: diagrams.CountResult, size: tuple[int, int]) -> bool:
    """Whether two traced shapes overlap: their areas share at least 1 % of the smaller one. Rings drawn over one
    another (BlindTest) share 4-25 %; separate shapes that merely touch share next to nothing."""
    scale = min(1.0, 400 / max(size))
    canvas = (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))
    masks = []
    for k, box in enumerate(traced.boxes):
        image = Image.new("1", canvas, 0)
        draw = ImageDraw.Draw(image)
        corners = [box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale]
        if k < len(traced.outlines) and traced.outlines[k]:
            draw.polygon([(x * scale, y * scale) for x, y in traced.outlines[k]], fill=1)
        elif traced.kind == "square":
            draw.rectangle(corners, fill=1)
        else:
            draw.ellipse(corners, fill=1)
        masks.append(np.asarray(image, dtype=bool))
    areas = [int(m.sum()) for m in masks]
    return any(int((masks[i] & masks[j]).sum()) >= 0.01 * max(1, min(areas[i], areas[j]))
               for i in range(len(masks)) for j in range(i + 1, len(masks)))



