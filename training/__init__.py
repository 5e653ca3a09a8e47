"""GPU-host training assets for verl: the reward hook, the multi-turn agent loop, the GRPO config."""
