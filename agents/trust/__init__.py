"""Measured trust: every answer's confidence is a calibrated P(correct) for its kind of evidence, and a run answers
only where a threshold chosen with a finite-sample bound holds the target precision (docs/design.md §9, docs/trust.md).

- ``evidence``: what supports an answer (tool readings, OCR spans, agreement, margins), whatever produced it;
- ``calibration``: a fitted calibration as versioned JSON, evaluated with numpy on the answering path;
- ``ltt``: Learn-then-Test thresholds; ``fit``: fitting with scikit-learn; ``labels``: labelled answers from
  evaluation folders and ratings; ``report``: reliability, ECE and risk–coverage tables and plots.
"""
