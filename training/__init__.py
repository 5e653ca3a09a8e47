"""Training assets, installed with the app (``import training.sft_collator`` works from any folder): the SFT
collator for TRL, and for verl on a GPU host the reward hook, the multi-turn agent loop and the GRPO config."""
