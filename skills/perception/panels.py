"""The colour of the image as a whole, of its background, or of the sign (label, board) its words are printed on:
"what is the dominant colour of the image?", "what colour is the background?", "what colour is the parking sign?".
"""

from __future__ import annotations

import re

from skills.base import SkillContext, SkillResult
from skills.common import colours_in, conclude
from skills.targets import asks_background
from vision_tools.image import name_background, name_colour
from vision_tools.text import read_text_cached
from vision_tools.text.panel import panel_colour

#: Boards that carry text: their colour is the colour around their words.
_PANELS = frozenset(["sign", "signs", "label", "board", "plate", "notice", "poster", "sticker", "banner", "placard",
                     "signboard", "nameplate", "plaque", "tag"])


def whole_image_colour(ctx: SkillContext) -> SkillResult:
    """The background's colour, or the colour covering most of the image."""
    image, trace = ctx.image, ctx.trace
    if asks_background(ctx.question):
        result = trace.call("colour.name_background", name_background, image)
        return conclude(ctx, [result], result.name, confidence=round(min(0.95, result.fraction), 3),
                        note="The background's colour is the colour of most of the image's border.")
    result = trace.call("colour.name_colour", name_colour, image)
    ranked = sorted(result.shares.values(), reverse=True) + [0.0]
    top = max(result.shares, key=result.shares.__getitem__)
    # The colour covering most of the image, as sure as its lead over the runner-up.
    confidence = 0.5 + 0.45 * min(1.0, (ranked[0] - ranked[1]) / 0.3)
    return conclude(ctx, [result], top, confidence=round(confidence, 3),
                    note="The question is about the image as a whole: the colour covering most of it.")


#: A part of the sign or something beside it ("the border of the sign", "the wall behind the sign", "the text on
#: the sign"): not the colour around its words.
PART_OF_PANEL = re.compile(r"\b(?:borders?|edges?|frame|outline|rim|trim|stripes?|band|ring|wall|behind|under|"
                            r"above|below|next to|beside|post|pole|text|letters?|lettering|writing|words?|font|"
                            r"arrows?|symbols?|icons?|logo|numbers?|digits?|circle|triangle|square)\b", re.IGNORECASE)


def names_a_panel(named: str | None) -> bool:
    """Whether ``named`` is a board text is printed on ("the sign", "the parking sign", "the sign background"),
    named without a colour of its own ("the green sign" is found by its colour instead)."""
    if not named:
        return False
    words = [w for w in named.lower().split() if w != "background"]
    return bool(words) and words[-1] in _PANELS and not colours_in(named)


def panel_colour_answer(ctx: SkillContext) -> SkillResult:
    """The colour around the sign's words (``vision_tools.text.panel``)."""
    lines = ctx.trace.call("ocr.read_text", read_text_cached, ctx.image)
    panel = ctx.trace.call("text.panel_colour", panel_colour, ctx.image, lines.lines)
    if panel.name is None:
        return conclude(ctx, [lines, panel], None, missing=f"the sign's colour is unclear: {panel.missing}")
    return conclude(ctx, [lines, panel], panel.name, confidence=round(min(0.95, 0.5 + 0.45 * panel.fraction), 3),
                    note="A sign's colour is the colour around its words.")
