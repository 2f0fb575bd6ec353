"""Stage 7: a tracer that makes every step findable, and `run(task, model) -> Trajectory`."""
