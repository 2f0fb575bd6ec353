"""Stage 12: a real judge on the wire, and the reports of stages 8 and 9 through it."""
