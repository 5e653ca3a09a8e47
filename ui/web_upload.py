"""Uploads checked before anything decodes them: size on disk, format and pixel count from the header alone.

Gradio streams an upload to a temporary file (refusing more than ``MAX_BYTES`` while it streams); every event that
takes the image is registered with ``preprocess=False``, so Gradio never opens it either, and the first thing that
looks inside is ``check_upload``: Pillow's ``Image.open`` reads only the header (width, height, format), never the
pixels. A refused file gets one sentence that names the limit, and its temporary copy is deleted at once.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from vision_tools.image import MAX_BYTES, MAX_PIXELS
from vision_tools.image.loading import shape_problem

log = logging.getLogger(__name__)

#: Formats Pillow reads that an upload may be in (what the vision tools are tested on).
FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF")
LIMITS = (f"PNG, JPEG, WebP, GIF, BMP or TIFF, up to {MAX_BYTES // (1024 * 1024)} MB and "
          f"{MAX_PIXELS / 1e6:.0f} megapixels")


def payload_path(payload: Any) -> str | None:
    """The file path of an un-preprocessed image value: a Gradio ``FileData`` dict/model, or a plain path."""
    if payload is None:
        return None
    if isinstance(payload, str | Path):
        return str(payload) or None
    path = payload.get("path") if isinstance(payload, dict) else getattr(payload, "path", None)
    return str(path) if path else None


def payload_name(payload: Any) -> str:
    name = payload.get("orig_name") if isinstance(payload, dict) else getattr(payload, "orig_name", None)
    return str(name or Path(payload_path(payload) or "the file").name)


def check_upload(path: str | Path, name: str | None = None) -> str | None:
    """None when ``path`` is an image Maestro accepts; otherwise one sentence saying why not, naming the limit."""
    file = Path(path)
    shown = name or file.name
    try:
        size = file.stat().st_size
    except OSError:
        return f"The upload {shown} could not be read; upload it again ({LIMITS})."
    if size > MAX_BYTES:
        return f"{shown} is {size / 1024 / 1024:.1f} MB: the limit is {MAX_BYTES // (1024 * 1024)} MB per image."
    if size == 0:
        return f"{shown} is empty: upload an image ({LIMITS})."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit below decides
            with Image.open(file, formats=FORMATS) as image:  # reads the header only
                width, height = image.size
    except Image.DecompressionBombError as exc:  # Pillow's own ceiling: its message carries the pixel count
        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = f"{int(found.group(1)) / 1e6:.0f} megapixels" if found else "far too many pixels"
        return (f"{shown} has {pixels}: the limit is {MAX_PIXELS / 1e6:.0f} megapixels. "
                "Downscale or crop it first.")
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return f"{shown} is not an image Maestro can read: uploads must be {LIMITS}."
    if width * height > MAX_PIXELS:
        return (f"{shown} is {width}×{height} = {width * height / 1e6:.0f} megapixels: the limit is "
                f"{MAX_PIXELS / 1e6:.0f} megapixels. Downscale or crop it first.")
    problem = shape_problem(width, height)  # the same rule as `maestro ask` (vision_tools.image.loading)
    if problem:
        return f"{shown}: {problem}. Upload a larger picture."
    return None


def discard(path: str | Path | None) -> None:
    """Delete a refused upload's temporary copy (only inside the temporary folder: never a user's own file)."""
    if not path:
        return
    file = Path(path).resolve()
    temps = {Path(tempfile.gettempdir()).resolve()}
    if os.environ.get("GRADIO_TEMP_DIR"):
        temps.add(Path(os.environ["GRADIO_TEMP_DIR"]).resolve())
    if any(temp in file.parents for temp in temps) and file.is_file():
        try:
            file.unlink()
        except OSError:
            log.warning("could not delete refused upload %s", file)
