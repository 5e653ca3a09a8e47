"""Embeddings of the shipped skills' descriptions, computed once and shipped beside this module.

Every routing decision compares the question with each skill's and Level-2 sub-skill's description (34 texts, ~1,400
tokens for the shipped skills): about half a second of CPU in a new process whose data directory has no embeddings
cache yet, most of a cold ``maestro ask``. These vectors depend only on the model and the text, so they are
computed here once and shipped (``skill_vectors.npz``, keyed like the disk cache by the model tag and the text's
hash): a text whose description changed, or a skill dropped in later, simply misses and is computed as before.
A test checks that the file matches what the model computes for the shipped descriptions today.

    python -m agents.routing.shipped_vectors      # rewrite skill_vectors.npz after a description changes
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from skills.spec import SkillSpec

SHIPPED = Path(__file__).with_name("skill_vectors.npz")


def description_texts(spec: SkillSpec) -> list[str]:
    """The texts a skill is described by for routing: its own description, then each Level-2 sub-skill's."""
    return [f"{spec.name}: {spec.description}"] + [f"{sub.name}: {sub.description}" for sub in spec.level2]


@functools.cache
def shipped() -> dict[str, np.ndarray]:
    """The shipped vectors by cache key (``agents.routing.embeddings`` keys: model tag and text); empty when missing."""
    try:
        with np.load(SHIPPED) as data:
            return {str(key): vector.astype(np.float32) for key, vector in zip(data["keys"], data["vectors"],
                                                                              strict=True)}
    except (OSError, KeyError, ValueError):
        return {}


def write(path: Path = SHIPPED) -> int:
    """Compute the shipped skills' description vectors and write them to ``path``; how many."""
    from agents.registry import DEFAULT_REGISTRY, load_registry
    from agents.routing import embeddings

    texts = list(dict.fromkeys(t for skill in load_registry(DEFAULT_REGISTRY).skills
                               for t in description_texts(skill.spec)))
    vectors = embeddings.compute(texts)
    keys = np.array([embeddings.cache_key(t) for t in texts])
    np.savez(path, keys=keys, vectors=vectors.astype(np.float32))
    return len(texts)


if __name__ == "__main__":
    print(f"{write()} description vectors written to {SHIPPED}")
