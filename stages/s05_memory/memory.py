"""A small memory for preferences, with a filter in front that refuses secrets.

What the agent remembers is shown to the model at the start of every later turn, which is
the point of memory, and the danger of it: a card number stored once would be repeated into
every conversation afterwards. So the filter runs before anything is stored, and a refusal
names the reason, never the value.
"""

from __future__ import annotations

import re

CARD_CANDIDATE = re.compile(r"(?:\d[ -]?){12,18}\d")
PASSWORD = re.compile(r"\b(password|passcode|passwd|pin)\b\s*(is|:|=)?\s*\S+", re.IGNORECASE)
SECURITY_CODE = re.compile(r"\b(cvv|cvc|security code)\b", re.IGNORECASE)
TOKEN = re.compile(r"\b(?:sk|pk|api|key|token)[-_][A-Za-z0-9_-]{16,}")


def luhn_valid(digits: str) -> bool:
    """The checksum every payment card number passes (and most random digit runs fail)."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def secret_reason(text: str) -> str | None:
    """Why this text looks like a secret, or None when it does not."""
    for candidate in CARD_CANDIDATE.findall(text):
        digits = re.sub(r"\D", "", candidate)
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            return "it looks like a payment card number"
    if PASSWORD.search(text):
        return "it looks like a password or PIN"
    if SECURITY_CODE.search(text):
        return "it mentions a card security code"
    if TOKEN.search(text):
        return "it looks like an access key or token"
    return None


class Memory:
    """Preferences by key. `store` refuses anything `secret_reason` flags."""

    def __init__(self) -> None:
        self.facts: dict[str, str] = {}

    def store(self, key: str, value: str) -> str | None:
        """Store the fact and return None, or refuse and return the reason."""
        reason = secret_reason(f"{key} {value}")
        if reason is None:
            self.facts[key] = value
        return reason

    def describe(self) -> str:
        """What the model is told about the customer, one `key: value` per fact."""
        return "; ".join(f"{key}: {value}" for key, value in sorted(self.facts.items()))
