"""Loading untrusted images safely: size limits before decoding, every mode normalised to 8-bit RGB.

Uploads come from anywhere: truncated files, decompression bombs, 16-bit PNGs, CMYK JPEGs, palettes with
transparency. ``load_image`` turns each into a plain RGB image or raises ``ImageError`` with a sentence a person
can act on. The pixel limit is checked from the header, before any pixel is decoded, so memory stays bounded.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from vision_tools.image import config

#: The default limits (``config.CONFIG.max_pixels`` and ``max_bytes``), for the UI's texts and the upload
#: checks made before an image reaches this module; the checks here read ``config.CONFIG`` at every call.
MAX_PIXELS = config.CONFIG.max_pixels
MAX_BYTES = config.CONFIG.max_bytes

_ORIENTATION = 0x0112  # the EXIF tag saying how the camera was held


class ImageError(ValueError):
    """An image that cannot be used, with a message meant for the person who supplied it."""


def shape_problem(width: int, height: int) -> str | None:
    """Why an image of ``width`` x ``height`` cannot be asked about (too small, too elongated), or None."""
    min_side, max_aspect = config.CONFIG.min_side, config.CONFIG.max_aspect
    if min(width, height) < min_side:
        return (f"image too small: {width}x{height} pixels; an image to ask about needs at least {min_side} pixels "
                f"a side")
    if max(width, height) > max_aspect * min(width, height):
        return (f"image too elongated: {width}x{height} pixels; the long side may be at most {max_aspect} times "
                f"the short one")
    return None


def load_image(source: str | Path | bytes | Image.Image, max_pixels: int | None = None, *,
               lazy: bool = False, to_ask: bool = False) -> Image.Image:
    """Open ``source`` (a path, encoded bytes or a PIL image) as an 8-bit RGB image, or raise ``ImageError``.
    ``max_pixels``: by default ``config.CONFIG.max_pixels``. ``to_ask``: the image a question is about,
    refused from its header when ``shape_problem`` finds one.

    ``lazy`` is for an image known to decode (one from the image store, checked when it was first stored): an
    upright RGB file is then returned undecoded, and Pillow decodes it when something first reads its pixels. A
    rerun whose tool outputs are all reused never does."""
    if isinstance(source, Image.Image):
        image = source
    else:
        data = _read_bytes(source)
        try:
            with warnings.catch_warnings():
                # Pillow warns (and past 2x its own limit raises) about big headers; our limit below decides.
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                image = Image.open(io.BytesIO(data))
        except UnidentifiedImageError as exc:
            raise ImageError("not an image: the file is not in a format Pillow can read (PNG, JPEG, WebP, ...)") from exc
        except Image.DecompressionBombError as exc:
            raise ImageError(f"image too large: {exc}; downscale it first") from exc
        except (OSError, SyntaxError, ValueError) as exc:  # a recognised format with a corrupt header
            raise ImageError(f"broken image: the header could not be read ({exc})") from exc
    max_pixels = config.CONFIG.max_pixels if max_pixels is None else max_pixels
    width, height = image.size
    if width < 1 or height < 1:
        raise ImageError(f"empty image: {width}x{height} pixels")
    if width * height > max_pixels:
        raise ImageError(
            f"image too large: {width}x{height} = {width * height / 1e6:.1f} MP exceeds the limit of "
            f"{max_pixels / 1e6:.0f} MP; downscale it first"
        )
    problem = shape_problem(width, height) if to_ask else None
    if problem:
        raise ImageError(problem)
    if lazy and image.mode == "RGB" and _upright_without_decoding(image):
        return image
    try:
        image.load()
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"broken image: the pixel data could not be decoded ({exc})") from exc
    return to_rgb(image)


def _upright_without_decoding(image: Image.Image) -> bool:
    """Whether ``image`` surely needs no EXIF rotation, found out without decoding it. Pillow's PNG reader
    decodes the whole image to look for an eXIf chunk after the pixel data, so PNG chunks are walked instead."""
    if image.format == "JPEG":
        return image.getexif().get(_ORIENTATION, 1) == 1
    # Only an opened file (ImageFile) carries the bytes it was read from; an image made in memory has none.
    if image.format != "PNG" or not isinstance(image, ImageFile.ImageFile):
        return False
    if not isinstance(image.fp, io.BytesIO):
        return False
    with image.fp.getbuffer() as data:
        at = 8  # after the signature: chunks of length (4), type (4), data, CRC (4)
        while at + 8 <= len(data):
            length, kind = int.from_bytes(data[at:at + 4], "big"), bytes(data[at + 4:at + 8])
            if kind == b"eXIf":
                return False
            if kind == b"IEND":
                return True
            at += 12 + length
    return False


def to_rgb(image: Image.Image) -> Image.Image:
    """Any PIL mode to 8-bit RGB: EXIF rotation applied, alpha composited on white, 16-bit scaled down."""
    if image.getexif().get(_ORIENTATION, 1) != 1:  # exif_transpose copies even an upright image
        image = ImageOps.exif_transpose(image) or image
    mode = image.mode
    if mode == "RGB":
        return image
    if mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        return Image.fromarray(_stretch_to_8bit(image), mode="L").convert("RGB")
    if mode == "P" and "transparency" in image.info:
        image = image.convert("RGBA")
        mode = "RGBA"
    if mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        canvas.alpha_composite(rgba)
        return canvas.convert("RGB")
    return image.convert("RGB")


#: Pixels converted at a time from 16-bit or float to 8-bit: bounds the float32 working copy (4 bytes a pixel).
_BAND_PIXELS = 1 << 20


def _stretch_to_8bit(image: Image.Image) -> np.ndarray:
    """A high-bit-depth or float image's values stretched linearly from their (finite) minimum and maximum to
    0-255, as an 8-bit array. Done in bands of rows so that no full-size float copy exists: a 36 MP 16-bit PNG
    that is 80 KB on disk would otherwise cost two 290 MB float64 arrays. NaN and infinities become 0."""
    width, height = image.size
    rows = max(1, _BAND_PIXELS // max(1, width))
    bands = [(top, min(height, top + rows)) for top in range(0, height, rows)]

    def band(top: int, bottom: int) -> np.ndarray:
        return np.array(image.crop((0, top, width, bottom)), dtype=np.float32)  # a writable copy of one band

    low, high = np.inf, -np.inf
    for top, bottom in bands:
        values = band(top, bottom)
        finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
        if finite.size:
            low, high = min(low, float(finite.min())), max(high, float(finite.max()))
    scale = 255.0 / (high - low) if np.isfinite(low) and high > low else 0.0
    low = low if np.isfinite(low) else 0.0
    gray = np.empty((height, width), dtype=np.uint8)
    for top, bottom in bands:
        values = band(top, bottom)
        np.nan_to_num(values, copy=False, nan=low, posinf=low, neginf=low)
        values -= low
        values *= scale
        np.clip(values, 0, 255, out=values)
        gray[top:bottom] = values  # cast to uint8 in place of the band
    return gray


def require_rgb(image: Image.Image, min_side: int = 1, purpose: str = "be used") -> Image.Image:
    """``image`` as 8-bit RGB after the checks every tool makes on its input, or a ``ValueError`` saying which
    failed: a PIL image, not empty, at least ``min_side`` pixels a side (too small to ``purpose`` otherwise), and at
    most ``config.CONFIG.max_pixels`` (a decoded 40 MP image is ~120 MB; bigger ones are to be cropped or
    downscaled first)."""
    if not isinstance(image, Image.Image):
        raise ValueError(f"expected a PIL image, got {type(image).__name__}")
    width, height = image.size
    if width < 1 or height < 1:
        raise ValueError(f"empty image: {width}x{height}")
    if width < min_side or height < min_side:
        raise ValueError(f"image is {width}x{height} px: too small to {purpose} (needs {min_side} px a side)")
    max_pixels = config.CONFIG.max_pixels
    if width * height > max_pixels:
        raise ValueError(f"image is {width}x{height} = {width * height / 1e6:.1f} MP, over the "
                         f"{max_pixels / 1e6:.0f} MP limit; crop or downscale it first")
    return image if image.mode == "RGB" else to_rgb(image)


def shrink(image: Image.Image, max_side: int) -> tuple[Image.Image, float]:
    """``image`` scaled down (never up) to at most ``max_side`` on its long side, and the scale applied.

    A whole-number box reduction comes first: averaging k x k blocks is several times cheaper than a bilinear
    resize of a 4K image, and as smooth; the resize then covers the remaining factor under two."""
    scale = min(1.0, max_side / max(image.size))
    if scale == 1.0:
        return image, 1.0
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    factor = int(1 / scale)
    if factor >= 2:
        image = image.reduce(factor)
    return (image if image.size == size else image.resize(size, Image.Resampling.BILINEAR)), scale


def _read_bytes(source: str | Path | bytes) -> bytes:
    max_bytes = config.CONFIG.max_bytes
    if isinstance(source, bytes | bytearray):
        data = bytes(source)
    else:
        path = Path(source)
        if not path.exists():
            raise ImageError(f"file not found: {path}")
        if not path.is_file():
            raise ImageError(f"not a file: {path}")
        if path.stat().st_size > max_bytes:
            raise ImageError(f"file too large: {path.stat().st_size / 1e6:.1f} MB exceeds {max_bytes / 1e6:.0f} MB")
        data = path.read_bytes()
    if not data:
        raise ImageError("empty file: no image data")
    if len(data) > max_bytes:
        raise ImageError(f"file too large: {len(data) / 1e6:.1f} MB exceeds {max_bytes / 1e6:.0f} MB")
    return data
