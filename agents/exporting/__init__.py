"""Checks and helpers around the training exports that need more than the stored runs (a tokenizer, a processor)."""
