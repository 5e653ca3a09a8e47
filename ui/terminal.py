"""Text from storage, images and experts made safe to print on a terminal.

A stored question, an OCR reading or an expert's reply can hold escape sequences (ESC [ 2 J clears the screen, OSC 8
forges a link, OSC 52 writes the clipboard), carriage returns that overwrite a line, or bidirectional overrides that
make a line read differently from what it is. ``neutralise`` shows each such character as a visible ``\\xNN`` /
``\\uNNNN`` code instead; ``escape`` does that and then escapes Rich markup, for text printed through a Rich console.
"""

from __future__ import annotations

import unicodedata

from rich.markup import escape as escape_markup

#: Kept as they are: they only break lines or indent, and multi-line observations need them.
_KEPT = frozenset("\n\t")


def _visible(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralise(text: object) -> str:
    """``text`` with every control and format character (C0, DEL, C1, bidi overrides, zero-width…) made visible."""
    value = str(text)
    if value.isprintable():  # the common case, checked in C
        return value
    return "".join(c if c in _KEPT or unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") else _visible(c)
                   for c in value)


def escape(text: object) -> str:
    """``text`` for a Rich console: control characters made visible, markup escaped."""
    return escape_markup(neutralise(text))
