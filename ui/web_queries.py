"""Read-only queries the web pages share: thin wrappers over the ``Store`` (recent ratings, per (expert, skill)
statistics) plus the total rating count, which only the Rate tab's caption needs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from storage.models import Rating
from storage.store import PairStats, RatingRow

__all__ = ["PairStats", "RatingRow", "count_ratings", "pair_stats", "recent_ratings"]


def recent_ratings(store: Any, *, limit: int = 50, offset: int = 0) -> list[RatingRow]:
    """Ratings newest first, each with its run's question and answer."""
    return store.recent_ratings(limit=limit, offset=offset)


def pair_stats(store: Any) -> list[PairStats]:
    """Per (expert, skill) call counts and how the rated runs were judged."""
    return store.pair_stats()


def count_ratings(store: Any) -> int:
    with store.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(Rating)) or 0)
