"""Stored Markdown that other people see (the team's rating guidelines) rendered to HTML that cannot act.

Two layers, either of which alone would stop a stored ``<form>``:

1. ``markdown-it-py`` renders CommonMark (plus tables and strikethrough) with raw HTML **off**: a ``<form>``,
   ``<iframe>`` or ``<script>`` written in the source comes out as visible text, and its link validator already
   drops ``javascript:``, ``vbscript:`` and ``data:`` links.
2. ``nh3`` (Python binding of the Ammonia sanitizer) then keeps only an allow-list of tags and attributes: text
   structure, tables, code, and links to ``http``, ``https`` and ``mailto`` (opened with
   ``rel="noopener noreferrer nofollow"``). Forms, inputs, buttons, iframes, scripts, styles, images (a picture
   from an outside address would tell it who reads the guidelines), every ``on*`` handler and ``style``
   attribute are removed.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre",
        "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "sub", "sup"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}

_RENDERER = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"])


def markdown_html(text: str) -> str:
    """``text`` (Markdown from anyone) as sanitized HTML, safe to put in a page."""
    html = _RENDERER.render(text or "")
    return nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES,
                     link_rel="noopener noreferrer nofollow", strip_comments=True,
                     clean_content_tags={"script", "style"})
