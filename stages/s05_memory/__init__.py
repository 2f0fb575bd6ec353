"""Stage 5: remember the customer's preferences across turns, and never a secret."""
