"""Stage 6: timeouts, retries with backoff, tool errors as observations, a confirm gate."""
