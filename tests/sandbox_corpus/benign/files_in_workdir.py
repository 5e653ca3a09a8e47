# Benign: write, read, list, rename and delete files in its own working directory and a temporary directory.
import os
import pathlib
import tempfile

pathlib.Path("notes.txt").write_text("first line\nsecond line\n")
with open("notes.txt", "a") as handle:
    handle.write("third line\n")
os.rename("notes.txt", "kept.txt")
print(pathlib.Path("kept.txt").read_text().splitlines(), sorted(os.listdir(".")))
with tempfile.TemporaryDirectory() as scratch:
    path = pathlib.Path(scratch) / "data.bin"
    path.write_bytes(bytes(range(256)))
    print(len(path.read_bytes()))
os.remove("kept.txt")
print(sorted(os.listdir(".")))
