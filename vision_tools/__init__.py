"""Pure functions on images, one sub-package per capability; nothing here imports the rest of the project.

- ``image``: safe loading, boxes, colour naming, the shape vocabulary
- ``text``: OCR (lines, boxes, confidences) and word search in large images
- ``zoom``: crop, tile, quadrant, and the tiled search for a colour, shape or word
- ``detection``: detecting and counting shapes, round objects, faces, people
- ``charts``: a chart's data table from its pixels
- ``diagrams``: exact answers on synthetic diagrams (crossings, contact, grids, nested shapes, circled letters)
- ``geometry``: segments, angles and labels of geometry figures

Every tool takes a PIL image (RGB) plus plain arguments and returns a typed result that carries the structured
findings, a one-line ``summary()`` for traces, ``to_dict()``, and an ``annotated`` image showing the evidence.
Callers import from the sub-package (``from vision_tools.text import read_text``), never from its modules.
"""
