"""load_image on real encoded files of every awkward kind: each becomes 8-bit RGB or a clear ImageError."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile

from vision_tools.image.loading import MAX_PIXELS, ImageError, load_image, to_rgb

REPO = Path(__file__).resolve().parent.parent


def _encode(image: Image.Image, fmt: str = "PNG", **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` but whose pixel data is one compressed row: cheap to make,
    and decoding it would fail, so a "too large" refusal proves the header was checked before decoding."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grayscale
    idat = zlib.compress(b"\x00" + b"\x00" * width)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_empty_bytes_are_refused() -> None:
    with pytest.raises(ImageError, match="empty"):
        load_image(b"")


def test_not_an_image_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.png"
    path.write_text("this is a text file with a .png name\n")
    with pytest.raises(ImageError, match="not an image"):
        load_image(path)


def test_missing_file_and_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="not found"):
        load_image(tmp_path / "nope.png")
    with pytest.raises(ImageError, match="not a file"):
        load_image(tmp_path)


def test_one_pixel_image_loads() -> None:
    image = load_image(_encode(Image.new("RGB", (1, 1), (10, 200, 30))))
    assert image.mode == "RGB" and image.size == (1, 1)
    assert image.getpixel((0, 0)) == (10, 200, 30)


def test_grayscale_becomes_equal_channel_rgb() -> None:
    gray = Image.fromarray(np.tile(np.arange(0, 256, 4, dtype=np.uint8), (8, 1)), mode="L")
    image = load_image(_encode(gray))
    array = np.asarray(image)
    assert image.mode == "RGB" and image.size == (64, 8)
    assert (array[..., 0] == array[..., 1]).all() and (array[..., 1] == array[..., 2]).all()
    assert array[0, 0, 0] == 0 and array[0, -1, 0] == 252


def test_deep_images_are_stretched_band_by_band_like_the_whole_image() -> None:
    """Many bands of rows (3000 wide: ~350 rows a band), values spread over the whole range, NaN and infinity in
    a float image: the result is the linear stretch of the finite values, as one float64 pass would give it."""
    rng = np.random.default_rng(3)
    deep = rng.integers(300, 60000, (1200, 3000), dtype=np.uint16)
    expected = ((deep.astype(np.float64) - deep.min()) * (255.0 / (int(deep.max()) - int(deep.min()))))
    got = np.asarray(load_image(_encode(Image.fromarray(deep))))[..., 0].astype(int)
    assert np.abs(got - expected.astype(np.uint8)).max() <= 1
    floats = rng.normal(0.5, 0.2, (900, 1500)).astype(np.float32)
    floats[0, 0], floats[500, 7], floats[899, 1499] = np.nan, np.inf, -np.inf
    got = np.asarray(to_rgb(Image.fromarray(floats, mode="F")))[..., 0]
    finite = floats[np.isfinite(floats)]
    assert got[floats == finite.min()].min() == 0 and got[floats == finite.max()].max() == 255
    assert got[0, 0] == got[500, 7] == got[899, 1499] == 0, "NaN and infinities become the minimum"


@pytest.mark.parametrize(("size", "why"), [((1, 1), "too small"), ((8, 8), "too small"), ((30000, 10), "too small"),
                                           ((15, 400), "too small"), ((2000, 40), "too elongated")])
def test_images_to_ask_about_are_refused_when_tiny_or_degenerate(size: tuple[int, int], why: str) -> None:
    data = _encode(Image.new("RGB", size, "white"))
    with pytest.raises(ImageError, match=f"image {why}: {size[0]}x{size[1]} pixels"):
        load_image(data, to_ask=True)
    assert load_image(data).size == size, "tools may still load small images (crops, stored evidence)"
    assert load_image(_encode(Image.new("RGB", (16, 640))), to_ask=True).size == (16, 640)


def test_sixteen_bit_png_is_scaled_to_eight_bits() -> None:
    values = np.array([[1000, 2000, 3000, 65000]], dtype=np.uint16)
    png = _encode(Image.fromarray(values))
    assert Image.open(io.BytesIO(png)).mode.startswith("I")  # really a 16-bit file
    array = np.asarray(load_image(png))[0, :, 0].astype(int)
    assert array[0] == 0 and array[-1] == 255
    assert array[0] < array[1] < array[2] < array[3]


def test_rgba_is_composited_on_white() -> None:
    rgba = Image.new("RGBA", (3, 1))
    rgba.putdata([(255, 0, 0, 255), (0, 0, 255, 0), (0, 0, 0, 128)])
    image = load_image(_encode(rgba))
    assert image.mode == "RGB"
    assert image.getpixel((0, 0)) == (255, 0, 0)
    assert image.getpixel((1, 0)) == (255, 255, 255)
    assert all(120 <= c <= 135 for c in image.getpixel((2, 0)))  # half-transparent black over white


def test_palette_with_transparency_is_composited() -> None:
    palette_image = Image.new("P", (2, 1))
    palette_image.putpalette([0, 128, 0] + [255, 0, 255] + [0, 0, 0] * 254)
    palette_image.putdata([0, 1])
    png = _encode(palette_image, transparency=1)
    assert "transparency" in Image.open(io.BytesIO(png)).info
    image = load_image(png)
    assert image.getpixel((0, 0)) == (0, 128, 0)
    assert image.getpixel((1, 0)) == (255, 255, 255)  # the magenta index is transparent, not magenta


def test_cmyk_jpeg_becomes_rgb() -> None:
    cmyk = Image.new("CMYK", (32, 32), (0, 255, 255, 0))  # full magenta + yellow = red
    jpeg = _encode(cmyk, "JPEG", quality=95)
    assert Image.open(io.BytesIO(jpeg)).mode == "CMYK"
    red, green, blue = load_image(jpeg).getpixel((16, 16))
    assert red > 200 and green < 60 and blue < 60


def test_exif_rotation_is_applied() -> None:
    wide = Image.new("RGB", (40, 20), (0, 0, 255))
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 CW to display"
    image = load_image(_encode(wide, "JPEG", exif=exif.tobytes()))
    assert image.size == (20, 40)


def test_a_stored_image_opened_lazily_is_decoded_only_when_read_and_still_turned_upright() -> None:
    rng = np.random.default_rng(1)
    png = _encode(Image.fromarray(rng.integers(0, 255, (30, 40, 3), dtype=np.uint8)))
    lazy = load_image(png, lazy=True)
    assert isinstance(lazy, ImageFile.ImageFile) and lazy.tile, "an upright RGB PNG is not decoded up front"
    assert np.array_equal(np.asarray(lazy), np.asarray(load_image(png)))
    # An eXIf chunk after the pixel data (where Pillow looks only after decoding) is still honoured.
    exif = Image.Exif()
    exif[0x0112] = 6
    data = exif.tobytes()
    chunk = struct.pack(">I", len(data)) + b"eXIf" + data + struct.pack(">I", zlib.crc32(b"eXIf" + data))
    iend = png.rindex(b"IEND") - 4
    turned = load_image(png[:iend] + chunk + png[iend:], lazy=True)
    assert turned.size == (30, 40)


def test_truncated_png_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    png = _encode(Image.fromarray(rng.integers(0, 255, (200, 200, 3), dtype=np.uint8)))
    path = tmp_path / "cut.png"
    path.write_bytes(png[: len(png) // 2])
    with pytest.raises(ImageError, match="broken image"):
        load_image(path)


def test_pixel_limit_applies_to_pil_images_too() -> None:
    with pytest.raises(ImageError, match="too large"):
        load_image(Image.new("RGB", (100, 100)), max_pixels=5_000)


def test_huge_png_is_refused_from_its_header_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(_png_header_only(10_000, 10_000))
    assert path.stat().st_size < 50_000
    assert MAX_PIXELS < 10_000 * 10_000
    # In a fresh interpreter so that its peak memory is this load alone: decoding 10000x10000 would need
    # 100 MB (gray) and 300 MB (RGB); refusing from the header needs nothing beyond the interpreter itself.
    script = (
        "import resource, sys\n"
        "from vision_tools.image.loading import ImageError, load_image\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        "    load_image(sys.argv[1])\n"
        "    print('LOADED')\n"
        "except ImageError as exc:\n"
        "    print('REFUSED', exc)\n"
        "print('GROWTH_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("REFUSED image too large: 10000x10000"), done.stdout + done.stderr
    growth_kb = int(lines[-1].split()[1])
    assert growth_kb < 50_000, f"memory grew by {growth_kb} kB while refusing"


def test_header_beyond_pillows_own_bomb_limit_is_an_image_error(tmp_path: Path) -> None:
    # Pillow itself raises DecompressionBombError past 2x its limit (~179 MP); that must surface as ImageError.
    with pytest.raises(ImageError, match="too large"):
        load_image(_png_header_only(20_000, 20_000))


def test_every_tool_refuses_the_same_inputs_with_the_same_words() -> None:
    from vision_tools.charts.parse import parse_chart
    from vision_tools.detection.counting import count_shapes
    from vision_tools.diagrams.letters import count_line_crossings
    from vision_tools.image.colour import name_colour
    from vision_tools.text.ocr import read_text
    from vision_tools.zoom.regions import find_region

    tools = [read_text, lambda im: find_region(im, "red"), name_colour, count_shapes, parse_chart,
             count_line_crossings]
    huge = Image.new("L", (8000, 5001))  # 40.008 MP: one row over the limit
    assert huge.width * huge.height > MAX_PIXELS
    for tool in tools:
        with pytest.raises(ValueError, match=r"over the 40 MP limit; crop or downscale it first"):
            tool(huge)
        with pytest.raises(ValueError, match="expected a PIL image, got ndarray"):
            tool(np.zeros((64, 64, 3), np.uint8))
