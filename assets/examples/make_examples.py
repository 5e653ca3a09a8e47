"""Re-create the bundled example images of the Ask tab (rendered with PIL and DejaVu fonts) and their question list.

    python assets/examples/make_examples.py

The two BlindTest images beside them are copied byte for byte from the public benchmark (MIT, see
LICENSE-blindtest.txt); everything else here is drawn by this script, so the examples need no download.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
FONTS = Path("/usr/share/fonts/truetype/dejavu")
BLINDTEST = HERE.parents[2] / "shared" / "datasets" / "blindtest-dev"

#: (file, question) pairs in the order the Ask tab lists them.
EXAMPLES: list[tuple[str, str]] = [
    ("sign.png", "What is written on the sign?"),
    ("shapes.png", "How many circles are there?"),
    ("bar_chart.png", "Which fruit has the highest value in the chart?"),
    ("blindtest_counting_circles.png", "Count the circles in the image. Answer with a number in curly brackets e.g. {3}."),
    ("blindtest_line_intersection.png", "Count the intersection points where the blue and red lines meet. "
                                        "Put your answer in curly brackets, e.g., {2}."),
]
_BLINDTEST_SOURCES = {
    "blindtest_counting_circles.png": "images/blind_counting_circles_000.png",
    "blindtest_line_intersection.png": "images/blind_line_intersection_010.png",
}


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size)


def sign() -> Image.Image:
    """A green street sign on a pale background: scene text for the OCR skill."""
    image = Image.new("RGB", (640, 360), (214, 228, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((300, 250, 340, 360), fill=(120, 120, 120))  # the post
    draw.rounded_rectangle((80, 70, 560, 260), radius=18, fill=(20, 110, 60), outline=(240, 240, 240), width=8)
    draw.text((320, 135), "MAIN STREET", font=font(56, bold=True), fill=(255, 255, 255), anchor="mm")
    draw.text((320, 205), "Exit 42", font=font(40), fill=(255, 255, 255), anchor="mm")
    return image


def shapes() -> Image.Image:
    """Four circles, two squares and a triangle to count."""
    image = Image.new("RGB", (640, 400), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    for x, y in [(90, 90), (300, 110), (520, 80), (200, 300)]:
        draw.ellipse((x - 45, y - 45, x + 45, y + 45), outline=(200, 30, 30), width=6)
    for x, y in [(420, 280), (560, 300)]:
        draw.rectangle((x - 40, y - 40, x + 40, y + 40), outline=(30, 60, 200), width=6)
    draw.polygon([(330, 230), (280, 330), (380, 330)], outline=(20, 140, 40), width=6)
    return image


def bar_chart() -> Image.Image:
    """A labelled bar chart with values printed on the bars."""
    data = [("Apple", 12), ("Banana", 7), ("Cherry", 15), ("Grape", 4)]
    image = Image.new("RGB", (640, 420), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((320, 28), "Fruit sold per day", font=font(26, bold=True), fill=(0, 0, 0), anchor="mm")
    left, bottom, top = 80, 360, 70
    draw.line((left, top, left, bottom), fill=(0, 0, 0), width=3)
    draw.line((left, bottom, 610, bottom), fill=(0, 0, 0), width=3)
    scale = (bottom - top) / 16
    for i, (label, value) in enumerate(data):
        x0 = left + 30 + i * 130
        draw.rectangle((x0, bottom - value * scale, x0 + 80, bottom), fill=(70, 130, 180))
        draw.text((x0 + 40, bottom - value * scale - 16), str(value), font=font(20), fill=(0, 0, 0), anchor="mm")
        draw.text((x0 + 40, bottom + 24), label, font=font(20), fill=(0, 0, 0), anchor="mm")
    return image


def main() -> None:
    sign().save(HERE / "sign.png")
    shapes().save(HERE / "shapes.png")
    bar_chart().save(HERE / "bar_chart.png")
    for name, source in _BLINDTEST_SOURCES.items():
        shutil.copyfile(BLINDTEST / source, HERE / name)
    shutil.copyfile(BLINDTEST / "LICENSE", HERE / "LICENSE-blindtest.txt")
    (HERE / "examples.json").write_text(
        json.dumps([{"image": f, "question": q} for f, q in EXAMPLES], indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
