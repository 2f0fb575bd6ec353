"""Where a real judge lives and the key it needs: from the usual variables, OPENAI_BASE_URL
and OPENAI_API_KEY; only a server on this machine needs none. Of these, only `safe_url` shows."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse, urlunparse

from stages.s01_model.errors import CourseInputError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Endpoint:
    url: str = field(repr=False)  # the base URL as given, with its user, password and query
    source: str  # where it came from: "OPENAI_BASE_URL", "the default" or "given"
    key: str = field(repr=False)  # "" when there is none; kept out of every repr

    def scrub(self, text: str) -> str:
        """An error's own text (the SDK's may quote the URL) with the URL's user, password
        and each value of its query, as written or decoded, replaced by `***`."""
        parts = urlparse(self.url)
        found = [parts.username or "", parts.password or ""]
        found += [pair.partition("=")[2] or pair for pair in parts.query.split("&")]
        for secret in sorted({*found, *map(unquote, found)} - {""}, key=len, reverse=True):
            text = text.replace(secret, "***")  # the longest first: one may hold another
        return text

    def never_connected(self, error: BaseException) -> str | None:
        """Why no connection was ever made (refused, unknown host, TLS: the SDK wraps its HTTP
        library's ConnectError), scrubbed; None for one made and then lost, worth a retry."""
        cause: BaseException | None = error
        while cause is not None:
            if type(cause).__name__ == "ConnectError":
                return self.scrub(" ".join(str(cause).split()) or type(cause).__name__)
            cause = cause.__cause__ or cause.__context__
        return None


def locate(model: str, api_key: str | None = None, base_url: str | None = None) -> Endpoint:
    """The endpoint and key for `openai:MODEL`; a missing key off this machine is an error."""
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
    from_env = os.environ.get("OPENAI_BASE_URL")
    source = "given" if base_url else "OPENAI_BASE_URL" if from_env else "the default"
    url = base_url or from_env or DEFAULT_BASE_URL
    if not key and not on_this_machine(url):
        raise CourseInputError(
            f"--judge openai:{model}: OPENAI_API_KEY is not set, and {safe_url(url)} is not on "
            "this machine; set the key (a server on 127.0.0.1 or localhost needs none)"
        )
    return Endpoint(url, source, key)


def safe_url(url: str) -> str:
    """What messages, reports, journal keys and fingerprints hold of an endpoint: its scheme,
    host, port and path, never a user, password, query or fragment; without a host, nothing."""
    parts = urlparse(url)
    where = parts.netloc.rpartition("@")[2]  # what follows the user and password, if any
    return urlunparse((parts.scheme, where, parts.path, "", "", "")) if where else "(no host)"


def on_this_machine(url: str) -> bool:
    """Whether the endpoint is on loopback, where a server needs no key."""
    host = urlparse(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
