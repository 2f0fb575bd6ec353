"""Stage 14: scores you already have, read so that every row is measured or named."""
