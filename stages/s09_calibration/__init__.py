"""Stage 9: calibrate the judge — twins, intervals, flips, swaps, self-preference, kappa."""
