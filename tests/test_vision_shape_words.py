"""One shape vocabulary for questions, search targets and counting: plurals, synonyms, and what stays unnamed."""

from __future__ import annotations

import pytest
from PIL import Image

from vision_tools.image.shape_words import SEARCHABLE, SHAPES, first_shape, normalise_shape, shape_name
from vision_tools.zoom.regions import find_region


@pytest.mark.parametrize(("word", "name"), [
    ("circles", "circle"), ("Stars", "star"), ("ellipses", "ellipse"), ("boxes", "square"), ("dots", "circle"),
    ("oval", "ellipse"), ("pentagons.", "pentagon"), ("glasses", None), ("polygon", None), ("", None),
])
def test_shape_name_accepts_plurals_and_synonyms(word: str, name: str | None) -> None:
    assert shape_name(word) == name


def test_normalise_shape_names_the_known_shapes_when_it_refuses() -> None:
    assert normalise_shape("Hexagons") == "hexagon"
    with pytest.raises(ValueError, match="unknown shape 'blob'.*circle.*star"):
        normalise_shape("blob")


def test_first_shape_skips_words_that_usually_name_a_region() -> None:
    assert first_shape("How many red triangles are inside the box?") == "triangle"
    assert first_shape("What is written in the box?") is None
    assert first_shape("Round the number of octagons to the nearest ten") == "octagon"
    assert first_shape("Count the dots") == "circle"


def test_searchable_shapes_are_a_subset_and_the_search_refuses_the_rest() -> None:
    assert SEARCHABLE.issubset(SHAPES)
    with pytest.raises(ValueError, match="searchable shapes"):
        find_region(Image.new("RGB", (64, 64), "white"), "hexagon", kind="shape")
