"""Evaluation beyond one process: evaluations shared by many workers on one database (``shared``)."""
