"""Why a count of drawn shapes may be off, told from the shapes found beside the counted ones.

Segmentation names each piece it finds; a count is given only when nothing else found could be one of the asked
kind. A square on its corner may be called a diamond, a white shape in soft light gray, two touching circles one
ellipse, two touching shapes of one colour one piece, a heart half under another shape a notched polygon. Each
function here says whether (and why) such a piece leaves the count open.
"""

from __future__ import annotations

import re

from skills.targets import Counted
from vision_tools import detection
from vision_tools.image.shape_words import DIAMOND_TILT, UPRIGHT_TILT


def squares_by_tilt(question: str, found: detection.CountResult) -> tuple[str | None, str | None] | None:
    """A count of diamonds (squares on a corner) when the question says "diamonds", or why not; None when the
    question asks for squares, which counts them all."""
    tilts = [float(d.extra.get("tilt", 0.0)) for d in found.detections]
    diamonds = sum(1 for t in tilts if t >= DIAMOND_TILT)
    between = sum(1 for t in tilts if UPRIGHT_TILT < t < DIAMOND_TILT)
    if re.search(r"\bdiamonds?\b", question, re.I):
        if between:
            return None, f"{between} square(s) are tilted between upright and on a corner: diamond or square?"
        return str(diamonds), None
    # "How many squares?" counts every square, however it stands: a square on its corner is still one (abstaining
    # there was tried: the synthetic mix draws its squares at any angle and counts them all).
    return None


#: Colour names a shade can fall either side of: a white shape in soft light is named gray, a dark gray black.
_NEIGHBOUR_SHADES = {"white": ("gray",), "gray": ("white", "black"), "black": ("gray",)}


def neighbour_shades(target: Counted, found: detection.CountResult) -> str | None:
    """The shapes of the asked kind seen in a shade next to the asked one ("6 gray star"), or None."""
    near = _NEIGHBOUR_SHADES.get(target.colour or "", ())
    seen = [f"{n} {label}" for label, n in found.others.items()
            if label.split()[0] in near and (target.shape is None or label.split()[-1] == target.shape)]
    return ", ".join(seen) or None


def merged_circles(target: Counted, found: detection.CountResult) -> int:
    """How many ellipse blobs (of the asked colour, if one is asked) were seen beside the circles counted."""
    if target.shape != "circle":
        return 0
    return sum(n for label, n in found.others.items() if label.endswith(("ellipse", "oval"))
               and (target.colour is None or label.startswith(target.colour)))


def touching_alike(found: detection.CountResult) -> str | None:
    """The colour of two detected shapes of one colour whose boxes overlap without one holding the other, or None."""
    shapes = found.detections
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            if a.colour is None or a.colour != b.colour:
                continue
            ix = min(a.box.x1, b.box.x1) - max(a.box.x0, b.box.x0)
            iy = min(a.box.y1, b.box.y1) - max(a.box.y0, b.box.y0)
            # A tenth of the smaller box at least: a star's empty box corner over a rectangle beside it is no contact.
            if ix > 0 and iy > 0 and 0.1 <= ix * iy / max(1.0, min(a.box.area, b.box.area)) < 0.5:
                return a.colour
    return None


def stacked_over_another(detections: list[detection.Detection]) -> int:
    """How many counted shapes share most of their box (IoU over 0.6) with one of another colour."""
    return sum(1 for i, a in enumerate(detections)
               if any(b.colour != a.colour and a.box.iou(b.box) > 0.6 for j, b in enumerate(detections) if j != i))


#: Solidity under which a polygon has a notch (drawn polygons measure 0.97 and more).
HIDDEN_SOLIDITY = 0.95
#: Polygons that a heart partly hidden by another shape is read as: its notch or its tip cut off.
_HIDDEN_HEART_KINDS = ("pentagon", "hexagon", "heptagon", "octagon")


#: Kinds told by their corners, which a shape drawn over one of them adds or removes.
_POLYGONS = ("triangle", "square", "rectangle", "quadrilateral", "pentagon", "hexagon", "heptagon", "octagon")


#: How much of its hull a polygon may miss, beyond its pixel staircase, and still be drawn whole.
_DENT = 0.02


def _partly_under(shape: detection.Detection, others: list[detection.Detection]) -> bool:
    """Whether filled ``shape`` has a dent and overlaps a filled shape of another colour, neither inside the other's
    box: the other hides part of it."""
    # A shape with part of its outline hidden has a dent where the other lies over it; one only touching a
    # neighbour is as solid as a drawn polygon, whose pixel staircase costs about 1.5 / sqrt(area) (0.03 at 50 px
    # across, 0.004 at 360 px).
    area = float(shape.extra.get("area", shape.box.area))
    dent = 1.0 - float(shape.extra.get("solidity", 1.0)) - 1.5 / max(1.0, area) ** 0.5
    if not shape.extra.get("filled", True) or dent <= _DENT:
        return False
    for other in others:
        if other is shape or other.colour == shape.colour or not other.extra.get("filled", True):
            continue
        ix = min(shape.box.x1, other.box.x1) - max(shape.box.x0, other.box.x0)
        iy = min(shape.box.y1, other.box.y1) - max(shape.box.y0, other.box.y0)
        nested = ix * iy >= 0.9 * min(shape.box.area, other.box.area)  # one drawn inside the other (a star on a disc)
        if ix > 0 and iy > 0 and ix * iy >= 0.02 * min(shape.box.area, other.box.area) and not nested:
            return True
    return False


def may_be_the_kind(question: str, shape: str, every: detection.CountResult) -> str | None:
    """Why a count of ``shape`` is unsure because of other shapes that may be of that kind: a notched polygon may
    be a heart partly hidden (round 37: "how many hearts" was 2 beside a "heptagon", a heart under another heart),
    and a rhombus is a diamond to most people, whatever its tilt ("how many diamonds" was 0 beside three)."""
    if shape == "heart":
        notched = [d for d in every.detections if d.label in _HIDDEN_HEART_KINDS
                   and float(d.extra.get("solidity", 1.0)) < HIDDEN_SOLIDITY]
        if notched:
            return (f"{len(notched)} notched {notched[0].label}(s) may be hearts partly hidden by another shape; "
                    "how many hearts there are cannot be told")
    if shape in _POLYGONS and (hidden := [d for d in every.detections if d.label in _POLYGONS
                                          and _partly_under(d, every.detections)]):
        # Round 39: "how many pentagons" was 3 beside a square with a circle over its corner, read as a pentagon.
        return (f"{len(hidden)} {hidden[0].label}(s) overlap a shape of another colour, so may be another kind "
                f"partly hidden (a square under a circle reads as a pentagon); how many {shape}s there are cannot "
                "be told")
    if shape == "square" and re.search(r"\bdiamonds?\b", question, re.I):
        rhombi = [d for d in every.detections if d.label == "quadrilateral"]
        if rhombi:
            return (f"{len(rhombi)} four-sided shape(s) that are not squares may be diamonds (a rhombus on its "
                    "corner); how many diamonds there are cannot be told")
    return None
