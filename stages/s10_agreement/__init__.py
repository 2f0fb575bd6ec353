"""Stage 10: does the judge agree with people? Kappa, the
review queue, the length confound, the gate."""
