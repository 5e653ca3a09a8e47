"""Orchestrators: given the context so far, write the next protocol turn."""
