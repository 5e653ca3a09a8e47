"""What a run or an evaluation needs to be reproduced: sampling, seeds, option order, registry, engine flags and
package versions (``fingerprint``), multiple-choice option shuffling (``options``) and repeated evaluations with
their spread (``repeats``)."""
