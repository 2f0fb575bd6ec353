"""Stage 16: your judge changed — a calibration history, a stale calibration, canaries."""
