"""Stage 3: the agent loop, and the step budget that stops a model that never finishes."""
