"""The document family's thresholds, in one place: ``CONFIG`` is what ``vision_tools.documents`` reads at every
call.

Its ``compute_hash()`` (``vision_tools.versions``) is the family's tool version: the code of
``vision_tools.documents`` plus these values, so a cached document output is reused only under the same code and
the same thresholds. Replace ``CONFIG`` (``dataclasses.replace``) to run with other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.versions import ToolConfig


@dataclass(frozen=True)
class DocumentConfig(ToolConfig):
    #: Words shorter than this are checked for one-letter slips only against the short suffix or street words,
    #: and only where such words stand (``checks.near_miss_words``).
    min_long_word: int = 5
    #: Name words of the lexicon at least this long are a company's vocabulary for near misses: shorter ones have
    #: real neighbours (PRINT/PAINT).
    min_name_word: int = 7
    #: Confidence kept per word that looks damaged by faded print or a stamp (the reading may be wrong there).
    damage_factor: float = 0.6
    #: Confidence kept per misread word of the name restored from the lexicon (``name_words``).
    restored_factor: float = 0.95
    #: Rows between the name and the address that may be passed over (registration number, branch name, date).
    max_skipped_rows: int = 3
    #: Rows of the page searched for the issuer's name.
    header_rows: int = 12
    #: Lines at least this many times wider than tall say reliably which way the page is turned.
    long_line_ratio: float = 3.0
    #: Turning more than this is not a scan's skew but a rotated page, which the detector handles line by line.
    max_skew_degrees: float = 8.0
    #: Shortest misread name word restored from the lexicon by one substituted letter.
    min_substituted: int = 8
    #: Shortest name word restored from the lexicon by dropping its accents.
    min_accented: int = 4
    #: Long side of the preview that answers are drawn on.
    preview_side: int = 1600
    #: Amounts are printed to the cent: two printed amounts agree when they differ by less than half a cent.
    cent: float = 0.005


CONFIG = DocumentConfig()
