"""Category labels written on a slant (matplotlib's ``rotation=45``, the usual fix for long names).

A slanted word's box is about as tall as it is wide, and a row of them overlaps: read as one row, they join into
one label, and their tall boxes make every line of the chart look several times its height. ``text_height`` is
the height of the level texts; ``anchor_slanted`` moves each slanted label to its tick.
"""

from __future__ import annotations

import re

import numpy as np

from vision_tools.charts.axes import Text
from vision_tools.charts.pixels import Rect
from vision_tools.image import Box


def _looks_slanted(t: Text) -> bool:
    """A word of four or more letters in a box about as tall as it is wide: written on a slant."""
    return sum(ch.isalnum() for ch in t.text) >= 4 and t.box.width < 1.6 * t.box.height


def text_height(texts: list[Text]) -> float:
    """The height of a line of the chart's text: the median box height of the level texts. A slanted label's box
    is as tall as it is wide, and a row of them would make every line look several times its height."""
    level = [t.height for t in texts if not _looks_slanted(t)] or [t.height for t in texts]
    return float(np.median(level)) if level else 12.0


def anchor_slanted(labels: list[Text], text_h: float) -> list[Text]:
    """Category labels written on a slant (rotated 30-60 degrees, ending at their tick) moved to their tick.

    A slanted word's box is about as tall as it is wide, where a level word of the same length is several times
    wider than tall; its tick is at the box's top-right corner, about one glyph height in from the right edge.
    """
    out = []
    for t in labels:
        if _looks_slanted(t) and t.box.height > 1.8 * text_h:
            x = t.box.x1 - 0.7 * text_h
            out.append(Text(t.text, Box(x - 1, t.box.y0, x + 1, t.box.y0 + text_h), t.confidence, t.number,
                            t.percent))
        else:
            out.append(t)
    return out


def read_across(labels: list[Text], pitch: float) -> set[int]:
    """The labels (by index) read across one another under vertical bars ``pitch`` pixels apart: slanted labels that
    a reader of level lines cut into strips spanning two or three of them ("e Colts Castle Park" from "Brookside
    Colts" and "Castle Park Juniors"). Such a strip is wider than the room under its bar and has two or more words
    of other labels ("Colts", "Castle", "Park"), and the labels it has words of are strips of the same slant. Level
    labels keep to their room, and share words by name only ("Museum" of "History Museum" and "Railway Museum";
    "Region" of every label)."""
    if len(labels) < 3:
        return set()
    words = [{w.lower() for w in re.findall(r"[A-Za-z]{4,}", t.text)} for t in labels]
    everywhere = set.intersection(*words)
    cut = set()
    for i, own in enumerate(words):
        shared = set().union(*((own - everywhere) & other for j, other in enumerate(words) if j != i))
        if len(shared) >= 2 and labels[i].box.width > 1.2 * pitch:
            cut.add(i)
    # A strip's words are the other labels' words: those labels were cut from the same slant.
    strips = set().union(*(words[i] for i in cut)) - everywhere if cut else set()
    return cut | {i for i, own in enumerate(words) if own & strips}


def unlabel_cut(groups: dict[Text | str, list[Rect]], pitch: float,
                 warnings: list[str]) -> dict[Text | str, list[Rect]]:
    """``groups`` with labels read across one another (``slanted.read_across``) taken for no label: "Bar n"."""
    read = [(i, k) for i, k in enumerate(groups) if not isinstance(k, str)]
    cut = {read[n][0] for n in read_across([k for _, k in read], pitch)}
    if cut:
        warnings.append(f"{len(cut)} category label(s) read across one another: their bars are left unnamed")
    return {(f"Bar {i + 1}" if i in cut else k): members for i, (k, members) in enumerate(groups.items())}
