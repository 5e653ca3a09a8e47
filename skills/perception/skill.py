"""Perception skill: find the thing the question is about (tiled search on large images), zoom in, then look.

The target is what the question names and the tools can find: a colour and/or a shape ("the red star"), or quoted
text. Colour questions name the colour of the found region; position questions report where it is (quadrant and
box); "what is written on the yellow label" reads the text inside the found region. Only questions about the image
as a whole ("the dominant colour of the image", "the background colour") look at the whole image. A question about
anything else ("what colour is the cup?") is not answered with some other region's colour: the step says the tools
cannot locate that object. Confidence comes from the match (its score, a rival match of another colour, how close
to a quadrant border it lies), the share of the region's pixels that have the named colour, and how far the image
is a drawing (colour blobs on a photograph are not objects). The crops go to a neural expert as extra images.
"""

from __future__ import annotations

import re

from skills.answer_form import answer_form
from skills.base import SkillContext, SkillResult
from skills.coloured_words import coloured_word_answer, coloured_word_question
from skills.common import COLOUR_WORDS, colours_in, conclude, shape_in
from skills.evidence import EXPERTS_DOC, drawing_view, weighed
from skills.perception.candidates import (
    MAX_CANDIDATES,
    RIVAL_SHARE,
    holds,
    no_one_stands_out,
    one_colour,
    overlapping_other,
    round_but_no_circle,
)
from skills.perception.marked_shapes import asks_about_marks, marked_shape_answer
from skills.perception.panels import PART_OF_PANEL, names_a_panel, panel_colour_answer, whole_image_colour
from skills.perception.relative import asks_relative_position, relative_answer
from skills.perception.shape_facts import asks_shape_fact, shape_fact
from skills.perception.sizes import asks_about_size, size_answer
from skills.perception.sweep import SWEEP_SCORE, sweep_colours
from skills.perception.zones import name_place, named_zone
from skills.question_text import task_text
from skills.targets import asks_about_whole_image, attribute_object, without_negated_colours
from vision_tools.detection import CountResult, count_shapes
from vision_tools.image import SEARCHABLE as SEARCHABLE_SHAPES
from vision_tools.image import Box, name_background, name_colour, spoken_name
from vision_tools.image.colour import CHROMATIC
from vision_tools.image.kind import CLEAR_DRAWING
from vision_tools.image.shape_words import DIAMOND_TILT
from vision_tools.text import read_text, read_text_cached
from vision_tools.zoom import GENERIC_SHAPE_WORDS, SearchResult, crop, find_region

# Quoted text, not apostrophes: "Product D's share ... Product A's" quotes nothing.
_QUOTED = re.compile(r"(?<![\w])[\"“']([^\"”']{2,40})[\"”'](?![\w])")
_COLOUR_Q = re.compile(r"\bwhat (colou?r)\b|\bwhich colou?r\b|\bcolou?r of\b|\bcolou?r is\b", re.I)
_WHERE_Q = re.compile(r"\bwhere(?:abouts)?\b|\bquadrant\b|\bwhich (corner|side|part)\b|\blocated\b", re.I)
#: "Which quadrant …?", "which corner …?", or an answer asked among the quadrants' names ("top-left, top-right …").
_QUADRANT_Q = re.compile(r"\bquadrant\b|\bcorner\b|\b(?:top|bottom|upper|lower)[- ](?:left|right)\b.*"
                         r"\b(?:top|bottom|upper|lower)[- ](?:left|right)\b", re.I)
#: "the one coloured circle", "a colourful square": not grey, white or black.
_COLOURED = re.compile(r"\bcolou?r(?:ed|ful)\b", re.I)
_TEXT_Q = re.compile(r"\b(written|say|says|word|text|label reads?)\b", re.I)
_WHERE_OBJECT = re.compile(r"\bwhere(?:abouts)?(?: in (?:the|this) (?:image|picture|photo|photograph))? (?:is|are) "
                           r"(?:the |a |an )?(?P<object>[a-z][a-z -]{0,40}?)\s*(?:\?|$|\blocated\b|"
                           r"\bin\b|\bon\b|\.)", re.I)
#: "What shape is the red object?", "What kind of shape is the blue one?"
_SHAPE_OF = re.compile(r"\bshape\s+(?:is|of)\s+(?:the|this|that)\s+(?P<object>[a-z][a-z -]{0,40}?)\s*(?:\?|$|\.|,)",
                       re.I)
_SHAPE_Q = re.compile(r"\b(?:what|which)\s+(?:kind of |type of |sort of )?shape\b"
                      r"|^\W*what(?:'s|\s+is)\s+(?:the\s+)?(?:" + "|".join(COLOUR_WORDS) + r")\s+shape\s*\??\s*$",
                      re.I)
#: "There is one coloured shape in this picture. What colour is it?": the pronoun's antecedent, a shape of some kind.
_PRONOUN = frozenset(["it", "this", "that", "they", "them"])
_ANTECEDENT = re.compile(r"\b(?:one|a|an|the|single|only)\s+(?P<object>(?:[a-z]+\s+){0,2}?(?:"
                         + "|".join(sorted(GENERIC_SHAPE_WORDS)) + r"|" + "|".join(sorted(SEARCHABLE_SHAPES))
                         + r")s?)\b", re.I)
#: Words that name a findable region when a colour comes with them ("the yellow label").
_REGION_NOUNS = frozenset(["label", "sign", "box", "region", "area", "patch", "shape", "object", "mark", "marker",
                           "spot", "blob", "tag", "sticker", "board", "panel", "button", "block", "figure"])


#: A box in the orchestrator's query: ``[x0, y0, x1, y1]`` in original-image pixels, the frame every observation
#: declares for expert boxes, so a box one step reported can be zoomed into by the next.
_QUERY_BOX = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*,"
                        r"\s*(\d+(?:\.\d+)?)\s*\]")


def run(ctx: SkillContext) -> SkillResult:
    # The task alone: the options of "Which shape is red? A. square B. circle" name no target to look for.
    question = task_text(ctx.question)[0] or ctx.question
    question, unsaid = without_negated_colours(question)
    if unsaid:
        return conclude(ctx, [], None, missing=f"the question picks the thing by a colour it is not ({unsaid})")
    box = query_box(ctx.query, ctx.image.size)
    if box is not None:
        return _zoom_into(ctx, box)
    if asks_about_marks(question):
        _, image = drawing_view(ctx)
        marked = marked_shape_answer(question, image, ctx.trace)
        return conclude(ctx, marked.results, marked.answer, missing=marked.missing,
                        confidence=None if marked.answer is None else marked.confidence)
    if (word := coloured_word_question(question)) is not None and word.asks in ("where", "colour"):
        # "Where is the coloured word?", "One word is in colour - which colour?"
        found = coloured_word_answer(word, ctx.image, ctx.trace)
        return conclude(ctx, [found.found], found.answer, missing=found.missing,
                        confidence=found.confidence if found.answer else None)
    if asks_relative_position(question):
        kind, image = drawing_view(ctx)
        placed = relative_answer(question, image, ctx.trace)
        return conclude(ctx, list(placed.found), placed.answer, missing=placed.missing,
                        confidence=None if placed.answer is None else weighed(placed.confidence, kind))
    if asks_shape_fact(question):
        kind, image = drawing_view(ctx)
        fact = shape_fact(question, image, ctx.trace)
        return conclude(ctx, list(fact.found), fact.answer, missing=fact.missing,
                        confidence=None if fact.answer is None else weighed(fact.confidence, kind))
    if asks_about_size(question):
        kind, image = drawing_view(ctx)
        # "Which circle is the largest? (A) red (B) green": options of colours ask for its colour.
        offered = answer_form(ctx.question).options.values()
        sized = size_answer(question, image, ctx.trace,
                            by_colour=bool(offered) and all(colours_in(o) for o in offered))
        return conclude(ctx, [sized.result] if sized.result else [], sized.answer, missing=sized.missing,
                        confidence=None if sized.answer is None else weighed(sized.confidence, kind))
    named = _named_object(question)
    if _COLOUR_Q.search(question) and names_a_panel(named) and not PART_OF_PANEL.search(question):
        return panel_colour_answer(ctx)
    if _COLOUR_Q.search(question) and asks_about_whole_image(question, named):
        return whole_image_colour(ctx)
    target = _target(question, named)
    if target is None:
        what = f"a '{named}'" if named else "the thing the question is about"
        return conclude(ctx, [], None, missing=(
            f"the tools cannot locate {what} — they find colours, shapes and quoted text; configure a VLM expert "
            f"(see {EXPERTS_DOC})"))
    return _look_at(ctx, target, question)


def _look_at(ctx: SkillContext, target: str, question: str) -> SkillResult:
    trace = ctx.trace
    # The shape and colour tools read a drawing under grain through its degrained copy; text is read as printed.
    kind, image = drawing_view(ctx)
    shape = shape_in(target)
    found: CountResult | SearchResult
    # "the diamond": a square on its corner, which only the shape classifier measures the tilt of.
    diamond = shape == "square" and re.search(r"\bdiamonds?\b", question, re.I) is not None
    if shape is not None and (shape not in SEARCHABLE_SHAPES or diamond):
        # The tiled search knows few shapes; the shape classifier knows polygons, so it locates those instead.
        named_colours = colours_in(target)
        found = trace.call("counting.count_shapes", count_shapes, image, shape=shape,
                           colour=named_colours[0] if named_colours else None)
        matches = [(d.box, 0.9, d.colour) for d in found.detections
                   if not diamond or float(d.extra.get("tilt", 0.0)) >= DIAMOND_TILT]
        crops: list = []
    else:
        # A colour question looks at every candidate: "the small square" must be one square, or one colour.
        found = trace.call("zoom.find_region", find_region, image, target,
                           max_results=MAX_CANDIDATES if _COLOUR_Q.search(question) else 5)
        matches = [(m.box, m.score, None) for m in found.matches]
        crops = [m.crop for m in found.matches[:2] if m.crop is not None]
        weak = not matches or matches[0][1] < SWEEP_SCORE
        if weak and shape is not None and _COLOUR_Q.search(question) and not colours_in(target):
            # "What colour is the small circle?" in a busy photo: the shape search alone finds none among the
            # clutter, or only a weak likeness; searched colour by colour, one colour holding a clear such shape is
            # the answer.
            swept = trace.call("zoom.sweep_colours", sweep_colours, image, shape)
            if swept is not None:
                found = swept
                matches = [(m.box, m.score, m.label.split()[0]) for m in found.matches]
            elif matches:
                # Only weak likenesses, and no colour holds a clear one: a speck of the fabric or the gravel
                # (a 14-pixel "circle" of a cloth's weave), not a shape anyone would point at.
                return conclude(ctx, [kind, found], None, missing=(
                    f"no clear {shape} is in the image: the best likeness scores {matches[0][1]:.2f}"))
        if not matches and shape is not None and kind.drawing < CLEAR_DRAWING:
            # Segmented, a busy photograph falls into a hundred pieces, and a sliver of it fits any shape.
            return conclude(ctx, [kind, found], None, missing=(
                f"no clear {shape} is in the image: neither the search nor the colour sweep found one"))
        if not matches and shape is not None:
            # The search looks for vivid blobs; on a coloured or graded ground the shape is told from the ground
            # by segmentation instead.
            named_colours = colours_in(target)
            found = trace.call("counting.count_shapes", count_shapes, image, shape=shape,
                               colour=named_colours[0] if named_colours else None)
            matches = [(d.box, 0.9, d.colour) for d in found.detections]
    if not matches:
        wanted = "a diamond (a square on its corner)" if diamond else repr(target)
        return conclude(ctx, [kind, found], None, missing=f"nothing matching {wanted} was found in the image")
    if _COLOURED.search(question):
        # "the one coloured circle": grey, white and black ones are not it, however many of them match the shape.
        coloured: list[tuple[Box, float, str | None]] = []
        for box, score, own in matches[:12]:
            name = own or trace.call("colour.name_colour", name_colour, image, box).name
            if name in CHROMATIC:
                coloured.append((box, score, name))
        matches = coloured
        if not matches:
            return conclude(ctx, [kind, found], None, missing=f"no coloured {target!r} was found: those found are "
                                                              "grey, white or black")
    if not _WHERE_Q.search(question) and (zone := named_zone(question)) is not None:
        # "The small thing in the top left": only the matches there.
        matches = [m for m in matches if zone.holds(m[0], image.size)]
        if not matches:
            return conclude(ctx, [kind, found], None, missing=f"nothing matching {target!r} was found in the {zone} "
                                                              "of the image")
    if (labelled := _LABELLED.search(question)) is not None:
        # "the circle labelled A": the match whose outline holds that printed label, or no answer.
        lines = trace.call("ocr.read_text", read_text_cached, ctx.image)
        wanted = labelled.group("label").casefold()
        marks = [line.box for line in lines.lines if line.text.strip(" .:'\"").casefold() == wanted]
        holding = [m for m in matches if len(marks) == 1 and holds(m[0], marks[0].center)]
        if len(holding) != 1:
            return conclude(ctx, [kind, found, lines], None, missing=(
                f"the label {labelled.group('label')!r} the question picks the {target} by was not read inside exactly "
                f"one of the {len(matches)} found"))
        matches = holding
    matches, not_round = round_but_no_circle(ctx, image, kind.drawing, shape, found, matches)
    if not matches:
        return conclude(ctx, [kind, found], None, missing=(
            f"no {shape} is drawn: what looks round is a {' and a '.join(dict.fromkeys(not_round))}"))
    if no_one_stands_out(matches):
        # "A small coloured shape somewhere" on gravel: a dozen dull blobs of the ground alike, none of them clear.
        return conclude(ctx, [kind, found], None, missing=(
            f"no {target!r} stands out: {len(matches)} faint likenesses, none clearly drawn or coloured"))
    box, score, _ = matches[0]
    results: list = [kind, found]
    answer, confidence = None, 0.0
    if _COLOUR_Q.search(question):
        picked = one_colour(image, matches)
        if picked.answer is None or picked.box is None:  # a pick with an answer always has its box
            return conclude(ctx, results, None, missing=picked.missing)
        box = picked.box
        colour = trace.call("colour.name_colour", name_colour, image, box)
        results.append(colour)
        answer = colour.name
        confidence = min(0.95, 0.5 + 0.45 * colour.fraction) * picked.factor
        if picked.colour is not None and picked.colour != colour.name:
            # Segmentation named the shape's own pixels; its box holds ground too (half a triangle's box).
            answer, confidence = picked.colour, 0.9 * picked.factor
        elif picked.colour is None and answer == trace.call("colour.name_background", name_background, image).name:
            # Round 37: "what colour is the circle" with none drawn gave the cardboard's brown, the colour inside
            # an outline the search took for a circle: a shape is told from the ground, so it is never its colour.
            return conclude(ctx, results, None, missing=(
                f"the colour where the {target} was found is the ground's: no {target} stands apart from it"))
        if labelled is None and (hidden := overlapping_other(image, box, answer)) is not None:
            # A Venn diagram's blue circle, half under the red one, is no circle to the search: "the circle" may
            # be either.
            return conclude(ctx, results, None, missing=(
                f"a {hidden} shape overlaps the {target} found; it may be another {target} partly hidden, and the "
                "question does not single one out"))
        if answer == colour.name:
            answer = spoken_name(colour)
    elif _SHAPE_Q.search(question) and isinstance(found, SearchResult) and found.matches:
        # "What shape is the red object?": the shape of the best blob, unless a close rival has another one.
        label = found.matches[0].label.split()[-1]
        rivals = [m for m in found.matches[1:] if m.score >= RIVAL_SHARE * score and m.label.split()[-1] != label]
        if not rivals and label in ("circle", "ellipse", "square"):
            # The tiled search knows few shapes and calls any round-ish blob a circle: a hexagon or an octagon is
            # named by the shape classifier, on the blob's surroundings.
            blob_colour = found.matches[0].label.split()[0]
            named_here = trace.call("counting.count_shapes", count_shapes, crop(image, box, pad=0.4).image,
                                    colour=blob_colour if blob_colour in CHROMATIC else None)
            results.append(named_here)
            kinds = {d.label for d in named_here.detections}
            label = kinds.pop() if len(kinds) == 1 else "region"
            if label == "square" and all(float(d.extra.get("tilt", 0.0)) >= DIAMOND_TILT
                                         for d in named_here.detections):
                label = "diamond"  # a square on its corner, as a person names it
        # "other", "region", "concave shape": no name of a shape anyone would give.
        answer = label if not rivals and shape_in(label) is not None else None
        confidence = min(0.95, 0.5 + 0.45 * score)
    elif _WHERE_Q.search(question):  # before text: "in which quadrant is the word 'X' written?" asks where
        # Any match nearly as good, not only the runner-up: five letters of a sign alike are no one place.
        as_good = [m[0] for m in matches[1:] if m[1] >= 0.8 * score]
        answer, where_missing = name_place(box, as_good, image.size, quadrants=bool(_QUADRANT_Q.search(ctx.question)))
        if answer is None:  # the whole question above: "Answer with the quadrant: …" is no task text
            return conclude(ctx, results, None, missing=f"{target!r}: {where_missing}")
        confidence = min(0.95, 0.55 + 0.4 * score)
    elif _TEXT_Q.search(question):
        text = trace.call("ocr.read_text", read_text, ctx.image, region=box)
        results.append(text)
        answer = text.text or None
        scores = [line.confidence for line in text.lines]
        confidence = min(scores) if scores else 0.0
    if answer is None:
        return conclude(ctx, results, None, missing=f"{target!r} was found, but the question asks something the "
                                                    f"tools cannot read off it; configure a VLM expert "
                                                    f"(see {EXPERTS_DOC})")
    outcome = conclude(ctx, results, answer, confidence=weighed(confidence, kind))
    outcome.extra_images = crops
    return outcome


#: "the circle labelled A", "the square marked 2": a shape picked by a printed label.
_LABELLED = re.compile(r"\b(?:labell?ed|marked|lettered|numbered|tagged)\s+['\"“]?(?P<label>[A-Za-z0-9]{1,3})\b", re.I)


def _named_object(question: str) -> str | None:
    """The object a colour or position question asks about, in the question's words."""
    named = attribute_object(question)
    if named is None:
        match = _WHERE_OBJECT.search(question) or _SHAPE_OF.search(question)
        named = match.group("object").strip() if match else None
    if named is not None and re.fullmatch(r"(?:\w+\s+)+one", named.lower()):
        named = named[:-3] + "shape"  # "what shape is the red one": the red shape
    if named is None and (_COLOUR_Q.search(question) or _WHERE_Q.search(question)):
        # "find the coloured shape. which colour?": the question's colour asks about the thing named before it.
        antecedent = _ANTECEDENT.search(question)
        named = antecedent.group("object").lower() if antecedent else None
    if named is not None and named.lower() in _PRONOUN:
        antecedent = _ANTECEDENT.search(question)
        named = antecedent.group("object").lower() if antecedent else named
    return named


def _target(question: str, named: str | None) -> str | None:
    """What to search for: quoted text, else '<colour> <shape>' (either part may be missing) — but only when the
    named object is such a thing (a shape, a coloured region); None when the tools cannot look for it."""
    quoted = _QUOTED.search(question)
    if quoted:
        return quoted.group(1)
    colour_asked = bool(_COLOUR_Q.search(question))
    if named is not None:
        head = named.split()[-1]
        shape = shape_in(named)
        colours = colours_in(named)
        if shape is None and head.rstrip("s") in GENERIC_SHAPE_WORDS and not _names_more(named) and (
                colour_asked or _SHAPE_Q.search(question) or _WHERE_Q.search(question)):
            # "the small shape", "the red object", "where is the red thing": a drawn shape of any kind, found as a
            # solid coloured blob (one that stands out, or none).
            colour = colours[0] if colours and not colour_asked else None
            return " ".join(w for w in (colour, "shape") if w)
        findable = shape is not None or (colours and (head in _REGION_NOUNS or colours_in(head)))
        if not findable:
            return None
        words = [w for w in ((colours[0] if colours and not colour_asked else None), shape) if w]
        return " ".join(words) or (colours[0] if colours else None)
    colours, shape = colours_in(question), shape_in(question)
    colour = colours[0] if colours and not colour_asked else None
    if shape is None and colour is not None and _SHAPE_Q.search(question):
        return f"{colour} shape"  # "What shape is blue?": the blue blob, whatever its shape
    words = [w for w in (colour, shape) if w]
    if not words and re.search(r"\blabel\b", question, re.I) and colours:
        words = [colours[0]]
    return " ".join(words) or None


#: Words that may stand before "thing", "object" or "shape" in a question about a drawn shape of any kind.
_PLAIN_MODIFIERS = frozenset(["the", "a", "an", "this", "that", "one", "only", "single", "lone", "odd", "other",
                              "small", "smaller", "smallest", "little", "tiny", "big", "bigger", "biggest", "large",
                              "larger", "largest", "huge", "coloured", "colored", "bright", "filled", "solid",
                              "outlined", "hidden", "round"])


def _names_more(named: str) -> bool:
    """Whether ``named`` says what the thing is beyond its colour and size ("the sea lion thing", "the feeding
    object"): no drawn shape of any kind is it, and a search for one would find any blob."""
    return any(w not in _PLAIN_MODIFIERS and not colours_in(w) for w in named.lower().split()[:-1])


def query_box(query: str, size: tuple[int, int]) -> Box | None:
    """The box ``[x0, y0, x1, y1]`` (original pixels) the query asks to zoom into, when it names one inside the
    image; None otherwise (numbers that do not fit the image are not a box of it)."""
    match = _QUERY_BOX.search(query or "")
    if match is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in match.groups())
    if not (0 <= x0 < x1 <= size[0] and 0 <= y0 < y1 <= size[1]):
        return None
    return Box(x0, y0, x1, y1)


def _zoom_into(ctx: SkillContext, box: Box) -> SkillResult:
    """Crop the named box (a little context around it), read what the tools can there, and show the crop to the
    expert; the tools settle only what they read in the crop."""
    cropped = ctx.trace.call("zoom.crop", crop, ctx.image, box.as_list(), pad=0.05)
    results: list = [cropped]
    answer, confidence = None, None
    if _COLOUR_Q.search(ctx.question):
        colour = ctx.trace.call("colour.name_colour", name_colour, ctx.image, box)
        results.append(colour)
        answer, confidence = spoken_name(colour), min(0.95, 0.5 + 0.45 * colour.fraction)
    elif _TEXT_Q.search(ctx.question):
        text = ctx.trace.call("ocr.read_text", read_text, ctx.image, region=box)
        results.append(text)
        scores = [line.confidence for line in text.lines]
        answer, confidence = text.text or None, (min(scores) if scores else None)
    outcome = conclude(ctx, results, answer, confidence=confidence, images=[cropped.image],
                       missing=None if answer else f"the tools read nothing they can settle in {box.as_list()}")
    outcome.extra_images = [cropped.image]
    return outcome
