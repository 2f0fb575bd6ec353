"""Stage 1: one model call behind a `Model` protocol, and a scripted fake to drive it."""
