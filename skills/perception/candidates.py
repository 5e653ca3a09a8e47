"""The candidates a colour or shape question found, checked before one is named: one colour among the strong
ones, no rival hidden under the one found, no round blob that the classifier names another shape.
"""

from __future__ import annotations

from typing import NamedTuple

from PIL import Image

from skills.base import SkillContext
from skills.perception.sweep import SWEEP_SCORE
from vision_tools.detection import CountResult, count_shapes
from vision_tools.image import Box, name_colour
from vision_tools.image.kind import CLEAR_DRAWING
from vision_tools.zoom import SearchResult, crop, find_region

#: Candidates a colour question compares, and the share of the best match's score that makes one a rival.
MAX_CANDIDATES = 12
RIVAL_SHARE = 0.8
#: A candidate: its box, how well it matched, and its own colour where segmentation named one.
Match = tuple[Box, float, str | None]


def round_but_no_circle(ctx: SkillContext, image: Image.Image, drawing: float, shape: str | None,
                        found: CountResult | SearchResult, matches: list[Match]) -> tuple[list[Match], list[str]]:
    """The matches for a "circle" the tiled search found on a drawing that the shape classifier does not name
    another shape, and the shapes it named those it dropped: the search calls any round-ish blob a circle, and a
    hexagon had answered "what colour is the circle"."""
    if shape != "circle" or not isinstance(found, SearchResult) or drawing < CLEAR_DRAWING:
        return matches, []
    kept: list[Match] = []
    dropped: list[str] = []
    best = matches[0][1]
    for match in matches:
        if match[1] < RIVAL_SHARE * best:
            kept.append(match)  # not a rival: it names nothing either way
            continue
        named = ctx.trace.call("counting.count_shapes", count_shapes, crop(image, match[0], pad=0.15).image)
        kinds = {d.label for d in named.detections}
        if kinds and "circle" not in kinds:
            dropped.extend(sorted(kinds))
        else:
            kept.append(match)
    return kept, dropped


def overlapping_other(image: Image.Image, box: Box, colour: str | None) -> str | None:
    """The colour of a solid blob of another colour, at least a third the size of ``box``, overlapping it without
    lying inside it (a shape partly hidden under the one found), or None."""
    for match in find_region(image, "shape", max_results=MAX_CANDIDATES).matches:
        other = match.box
        inter = max(0.0, min(box.x1, other.x1) - max(box.x0, other.x0)) * \
            max(0.0, min(box.y1, other.y1) - max(box.y0, other.y0))
        inside = inter >= 0.9 * other.area
        if inter > 0 and not inside and other.area >= box.area / 3 and inter < 0.9 * box.area:
            name = name_colour(image, other).name
            if name != colour:
                return name
    return None


def holds(box: Box, point: tuple[float, float]) -> bool:
    return box.x0 <= point[0] <= box.x1 and box.y0 <= point[1] <= box.y1


def no_one_stands_out(matches: list[Match]) -> bool:
    """Whether the best of several matches is a weak likeness with two or more rivals as good: the texture of a
    busy ground, not a shape anyone would point at."""
    best = matches[0][1]
    return best < SWEEP_SCORE and sum(score >= RIVAL_SHARE * best for _, score, _ in matches) >= 3


class Pick(NamedTuple):
    """The candidate a colour question is about (its box, how much less sure for a size choice), or why none.
    (A NamedTuple: a skill file is loaded without a module entry, which dataclasses need.)"""

    answer: bool | None
    box: Box | None = None
    factor: float = 1.0
    missing: str | None = None
    colour: str | None = None  # the shape's own colour, where segmentation named it


def one_colour(image: Image.Image, matches: list[Match]) -> Pick:
    """The match "the <shape>" refers to: the strong matches (score near the best) must all have one colour;
    otherwise the question is ambiguous. (A size word does not single one out: on a busy 4K image "the small
    square" was as often a small square of the clutter as the one meant.)"""
    best = matches[0][1]
    strong = [(box, own) for box, score, own in matches if score >= RIVAL_SHARE * best]
    named = [(box, own or name_colour(image, box).name) for box, own in strong]
    colours = list(dict.fromkeys(name for _, name in named))
    if len(colours) == 1:
        return Pick(True, strong[0][0], colour=strong[0][1])
    listed = ", ".join(colours[:5])
    return Pick(None, missing=f"{len(strong)} matching shapes of different colours ({listed}) are in the image, "
                               "and the question does not single one out")
