"""Pure functions on images: OCR, detection and counting, zoom/crop/tiling, chart parsing, geometry, colour.

Nothing here imports the rest of the project. Every tool takes a PIL image (RGB) plus plain arguments and returns a
typed result dataclass that carries the structured findings, a one-line ``summary()`` for traces, and an
``annotated`` PIL image showing the evidence (boxes, numbers, crops) for the UI.
"""
