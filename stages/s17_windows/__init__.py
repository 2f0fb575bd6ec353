"""Stage 17: the distribution of scores over time."""
