"""Peak memory of loading a small-on-disk, large-in-pixels 16-bit or float image (the upload path's decode).

Run from the repository root: ``python -m benchmarks.bench_image_memory [--side N]``. It writes a 16-bit greyscale
PNG (``I;16``; a smooth gradient compresses to tens of KB) and a 32-bit float TIFF (``F``) of ``side`` x ``side``
pixels, then loads each with ``vision_tools.image.load_image`` in a fresh Python process and prints the file size,
the process's peak resident memory (``VmHWM`` from ``/proc/self/status``) over a baseline process that only
imported the same modules, and the time taken. The decoded 8-bit RGB result itself is 3 bytes a pixel.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

CHILD = """
import sys, time
from vision_tools.image import load_image
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) * 1024
path = sys.argv[1]
start = time.perf_counter()
image = load_image(path) if path != '-' else None
took = time.perf_counter() - start
print(hwm(), took, image.mode if image else '-')
"""


def write_images(folder: Path, side: int) -> dict[str, Path]:
    ramp = (np.arange(side, dtype=np.uint32) * 65535 // max(1, side - 1)).astype(np.uint16)
    png = folder / "gradient16.png"
    Image.fromarray(np.broadcast_to(ramp, (side, side)).copy()).save(png, optimize=True)
    tif = folder / "gradient32f.tif"
    Image.fromarray(np.broadcast_to(ramp.astype(np.float32) / 65535, (side, side)).copy(), mode="F").save(
        tif, compression="tiff_adobe_deflate")
    return {"PNG I;16": png, "TIFF F": tif}


def peak(path: str) -> tuple[int, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, check=True)
    hwm, took, _ = out.stdout.split()
    return int(hwm), float(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--side", type=int, default=6000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        images = write_images(Path(tmp), args.side)
        baseline, _ = peak("-")
        print(f"{args.side}x{args.side} = {args.side ** 2 / 1e6:.0f} MP; baseline process {baseline / 2**20:.0f} MiB")
        for label, path in images.items():
            hwm, took = peak(str(path))
            print(f"{label:9s} file {path.stat().st_size / 1024:7.0f} KB  peak +{(hwm - baseline) / 2**20:6.0f} MiB  "
                  f"({took:.2f} s)")


if __name__ == "__main__":
    main()
