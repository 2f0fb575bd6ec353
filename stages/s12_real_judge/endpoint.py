"""Where a real judge lives and the key it needs: from the usual variables, OPENAI_BASE_URL
and OPENAI_API_KEY; the key is never printed, and only a server on this machine needs none."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from urllib.parse import urlparse, urlunparse

from stages.s01_model.errors import CourseInputError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Endpoint:
    url: str  # the base URL the client talks to
    source: str  # where it came from: "OPENAI_BASE_URL", "the default" or "given"
    key: str = field(repr=False)  # "" when there is none; kept out of every repr

    @property
    def host(self) -> str:
        """host:port, which the report names and the journal's keys include."""
        return urlparse(self.url).netloc or self.url


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
    """The endpoint as it may be printed: no user, password, query or fragment."""
    parts = urlparse(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunparse((parts.scheme, netloc, parts.path, "", "", "")) or "(no endpoint)"


def on_this_machine(url: str) -> bool:
    """Whether the endpoint is on loopback, where a server needs no key."""
    host = urlparse(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def never_connected(error: BaseException) -> str | None:
    """Why no connection was ever made (refused, unknown host, TLS), or None for a dropped one.

    The SDK wraps its HTTP library's ConnectError, which wraps the socket's own error; a
    connection that was made and then lost raises a different class, and is worth a retry.
    """
    cause: BaseException | None = error
    while cause is not None:
        if type(cause).__name__ == "ConnectError":
            return " ".join(str(cause).split()) or type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    return None
