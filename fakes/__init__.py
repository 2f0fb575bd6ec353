"""Deterministic stand-ins, each named for what it does (or does wrong)."""
