"""Stage 8: evaluate the agent on three levels, with the judge treated as an instrument."""
