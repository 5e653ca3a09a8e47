"""Shaping a settled answer the way the question asks for it (e.g. "put your answer in curly brackets")."""

from __future__ import annotations

import re

_CURLY = re.compile(r"curly\s+brac(?:e|ket)s?", re.IGNORECASE)


def format_answer(question: str, value: str) -> str:
    """``value`` wrapped as the question requests; unchanged when it requests nothing special."""
    if _CURLY.search(question) and not (value.startswith("{") and value.endswith("}")):
        return "{" + value + "}"
    return value
