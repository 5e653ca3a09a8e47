"""Training data out of stored runs and ratings (``maestro export``): SFT, DPO, KTO, GRPO, verl and grounding rows.

``training_data`` is the export command's work; ``formats`` builds one row from one stored run; ``prompts`` the exact
conversations a run's orchestrator and experts saw; ``comparison`` preference pairs from two evaluations; ``files``
safe writing; ``grounding`` box rows; ``pair_length`` the checks that need the trainer's own processor.
"""
