"""Stage 11: scores you already have, over time — an audit of a file of scores first."""
