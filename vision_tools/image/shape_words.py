"""The one vocabulary of shape words: what a question or a search target may call a shape, mapped onto the names the
shape classifiers return.

``detect_shapes`` (counting, diagrams) tells every kind in ``SHAPES`` apart. The tiled search in
``zoom.find_region`` uses a faster classifier that knows only ``SEARCHABLE``, and calls ellipses circles.
"""

from __future__ import annotations

import re

#: Shape kinds the shape classifier can return (plus "other" and "line", which are never counted as shapes).
SHAPES: tuple[str, ...] = ("circle", "ellipse", "triangle", "square", "rectangle", "quadrilateral", "pentagon",
                           "hexagon", "heptagon", "octagon", "star", "heart")
#: Everyday words for those shapes.
SYNONYMS: dict[str, str] = {
    "round": "circle", "disc": "circle", "disk": "circle", "dot": "circle", "ball": "circle", "oval": "ellipse",
    "diamond": "square", "rhombus": "quadrilateral", "box": "square",
}
#: Synonyms that in a question more often name a region or a manner ("the text in the box", "round to ...") than
#: a shape: accepted as a search target or a count's shape, not picked out of free text.
VAGUE: frozenset[str] = frozenset({"box", "round"})
#: Tilt (degrees) of a square standing on its corner, which people call a diamond, and of one on its side.
DIAMOND_TILT, UPRIGHT_TILT = 30.0, 15.0
#: The kinds ``zoom.find_region``'s search can tell apart.
SEARCHABLE: frozenset[str] = frozenset({"star", "circle", "ellipse", "triangle", "square", "rectangle"})


def shape_name(word: str) -> str | None:
    """The classifier's name for ``word`` (any case, plural or synonym accepted), or None if it names no shape."""
    key = word.strip().strip(".,;:!?'\"").lower()
    for candidate in (key, key[:-1] if key.endswith("s") else None, key[:-2] if key.endswith("es") else None):
        if candidate:
            name = SYNONYMS.get(candidate, candidate)
            if name in SHAPES:
                return name
    return None


def normalise_shape(name: str) -> str:
    """``shape_name(name)``, or ``ValueError`` listing the shapes known."""
    found = shape_name(name)
    if found is None:
        raise ValueError(f"unknown shape {name!r}; use one of {', '.join(SHAPES)}")
    return found


def first_shape(text: str) -> str | None:
    """The first word of ``text`` that names a shape (``VAGUE`` words aside), as the classifier's name."""
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in VAGUE or word.removesuffix("s") in VAGUE or word.removesuffix("es") in VAGUE:
            continue
        name = shape_name(word)
        if name is not None:
            return name
    return None
