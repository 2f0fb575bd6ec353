"""Stage 9: noise is not bias — twins, repeats, intervals, both orders, self-preference."""
