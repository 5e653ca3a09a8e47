"""Routing helpers: how a question is matched to skills (sentence embeddings run by onnxruntime)."""
