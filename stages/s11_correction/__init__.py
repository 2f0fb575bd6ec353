"""Stage 11: the corrected number — the pass rate four ways, and a world
where the truth is known."""
