"""A real judge: any OpenAI-compatible chat-completions endpoint, treated as an instrument.

    --judge openai:MODEL      key from OPENAI_API_KEY, endpoint from OPENAI_BASE_URL

Faults become states, never crashes: a 429, a 5xx or a dropped connection is retried with
exponential backoff and jitter (a Retry-After header is honoured), then raised as one of the
"unavailable" errors of judge.py, so the level is unscored; a timeout is TimeoutError; a
reply of the wrong shape is handed on as text and the strict parser leaves it unscored; a
call past the budget is never made (OverBudget). A 4xx other than 429 is a configuration
error (a wrong key, an unknown model) and stops the run with one line, and so does a
missing key for an endpoint that is not on this machine — before any call.

A connection that could never be opened (refused, unknown host, TLS failure) is not retried:
no server is there, and waiting will not bring one. It and timeouts count towards guard.py's
breaker: after STOP_AFTER in a row the run stops asking and names the endpoint.

Every reply is stored in a SQLite journal the moment it arrives, keyed by endpoint, model,
the full prompt, the settings that change a reply, and the repeat index (the n-th time this
run asks the same thing). A re-run with the same inputs makes no call; a run interrupted or
killed, then re-run, pays for no reply twice. Within a run, a question that failed is not
asked again: the report pass meets the same failure the fetch pass met. The key is in none
of it, and never printed. The counts: `requests` made (retries included), `paid_calls`
(replies received), `from_cache` (replies an earlier run stored).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import random
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml
from stages.s08_eval import prompts
from stages.s08_eval.guard import Breaker, Progress
from stages.s08_eval.judge import UNAVAILABLE, OverBudget, RateLimited, Unreachable

SETTINGS_FILE = Path(__file__).resolve().parent / "openai_judge.toml"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Settings:
    temperature: float = 0.0
    max_tokens: int = 8
    timeout_s: float = 30.0
    concurrency: int = 8
    max_calls: int = 2000
    max_tokens_total: int = 0
    attempts: int = 5
    backoff_s: float = 0.5
    max_backoff_s: float = 20.0
    cache: str = ".judge-cache.sqlite"


def load_settings(path: Path = SETTINGS_FILE) -> Settings:
    """The settings in a TOML file; an unknown or mistyped one is an error naming it."""
    raw = load_toml(path)
    known = {f.name: f for f in fields(Settings)}
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in known:
            raise CourseInputError(f"{path}: unknown setting {name!r}; known: {', '.join(known)}")
        kind = type(getattr(Settings(), name))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CourseInputError(f"{path}: {name} must be {kind.__name__}, got {value!r}")
        values[name] = value
    return Settings(**values)


class ReplyCache:
    """Replies by key, in SQLite; each one committed as soon as it is stored."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # In WAL mode, NORMAL keeps every committed reply through a killed process (only a
        # power cut can lose the last few); FULL would wait for the disk at every reply.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT)")
        self.lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, reply: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, reply))


class OpenAIJudge:
    """score() and compare() through a chat-completions endpoint, with retries, budget, cache."""

    def __init__(
        self,
        model: str,
        settings: Settings | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        use_cache: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        progress: bool | None = None,
    ) -> None:
        import openai  # the optional extra; imported only when a real judge is asked for

        self.openai = openai
        self.model = model
        self.settings = settings or load_settings()
        self._key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        from_env = base_url is None and bool(os.environ.get("OPENAI_BASE_URL"))
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.endpoint = urlparse(self.base_url).netloc or self.base_url
        where = safe_url(self.base_url)
        if not self._key and not on_this_machine(self.base_url):
            raise CourseInputError(
                f"--judge openai:{model}: OPENAI_API_KEY is not set, and {where} is not on this "
                "machine; set the key (a server on 127.0.0.1 or localhost needs none)"
            )
        self.client = openai.OpenAI(
            api_key=self._key or "no-key-needed-on-loopback", base_url=self.base_url, max_retries=0
        )
        cache_path = self.settings.cache
        self.cache = ReplyCache(ROOT / cache_path) if use_cache and cache_path else None
        self.sleep = sleep
        self.jitter = random.Random(0)
        self.progress = progress
        configured = "OPENAI_BASE_URL" if from_env else "the default" if not base_url else "given"
        self.breaker = Breaker(
            f"endpoint {where} ({configured}), model {model}, OPENAI_API_KEY "
            f"{'set' if self._key else 'not set'}, at most {self.settings.timeout_s:g} s a call"
        )
        self.lock = threading.Lock()
        self.asked: Counter[str] = Counter()  # prompt -> times asked in this run
        self.known: dict[str, str | Exception] = {}  # key -> this run's reply, or its failure
        self.sent = 0  # questions sent to the endpoint (what the budget counts)
        self.requests = 0  # HTTP requests made, retries included
        self.paid = 0  # replies received
        self.cached = 0  # replies an earlier run had stored
        self.tokens = 0

    # -- the judge protocol -----------------------------------------------------------------

    def score(self, task: str, answer: str, reference: str) -> str:
        return self.ask(prompts.score_messages(task, answer, reference))

    def compare(self, task: str, first: str, second: str) -> str:
        return self.ask(prompts.compare_messages(task, first, second))

    def describe(self) -> dict[str, Any]:
        """What the report says about the instrument (never the key)."""
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "requests": self.requests,
            "paid_calls": self.paid,
            "from_cache": self.cached,
        }

    # -- asking -----------------------------------------------------------------------------

    def ask(self, messages: list[dict[str, str]], repeat: int | None = None) -> str:
        """One reply for these messages, asked at most once in a run.

        1) this run already asked: the same reply, or the same failure, again;
        2) an earlier run stored the reply: from the journal;
        3) otherwise paid for once (within the budget), stored, and remembered.
        """
        prompt = json.dumps(messages, sort_keys=True)
        with self.lock:
            if repeat is None:
                repeat = self.asked[prompt]
                self.asked[prompt] += 1
        key = self.key(prompt, repeat)
        with self.lock:
            known = self.known.get(key)
        if isinstance(known, Exception):
            raise known  # the fetch pass learned this question fails: it is not asked again
        if known is not None:
            return known
        if self.cache is not None and (stored := self.cache.get(key)) is not None:
            with self.lock:
                self.known[key] = stored
                self.cached += 1
            return stored
        self.breaker.check()
        try:
            with self.lock:
                over_tokens = 0 < self.settings.max_tokens_total <= self.tokens
                if self.sent >= self.settings.max_calls or over_tokens:
                    raise OverBudget(f"budget of {self.settings.max_calls} calls spent")
                self.sent += 1
            reply = self._call(messages)
        except UNAVAILABLE as error:
            with self.lock:
                self.known[key] = error
            self.breaker.record(error)
            raise
        self.breaker.record(None)
        if self.cache is not None:
            self.cache.put(key, reply)
        with self.lock:
            self.known[key] = reply
        return reply

    def key(self, prompt: str, repeat: int) -> str:
        changes_reply = {
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
        }
        identity = [self.endpoint, self.model, prompt, changes_reply, repeat]
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    def _call(self, messages: list[dict[str, str]]) -> str:
        errors = self.openai
        for attempt in range(1, self.settings.attempts + 1):
            with self.lock:
                self.requests += 1
            try:
                # The SDK's own request path (auth, errors, timeouts) without its typed
                # models: building those costs more CPU than the whole rest of a call.
                response = self.client.post(
                    "/chat/completions",
                    body={
                        "model": self.model,
                        "messages": messages,
                        "temperature": self.settings.temperature,
                        "max_tokens": self.settings.max_tokens,
                    },
                    cast_to=object,
                    options={"timeout": self.settings.timeout_s},
                )
            except errors.APITimeoutError:
                raise TimeoutError(
                    f"no reply from {self.endpoint} within {self.settings.timeout_s:g} s"
                ) from None
            except errors.APIStatusError as error:
                status = error.status_code
                if status != 429 and status < 500:
                    raise CourseInputError(
                        f"--judge openai:{self.model}: HTTP {status} from {self.endpoint}; "
                        "check OPENAI_API_KEY, OPENAI_BASE_URL and the model name"
                    ) from None
                if attempt == self.settings.attempts:
                    message = f"HTTP {status} from {self.endpoint} after {attempt} attempts"
                    raise (RateLimited if status == 429 else ConnectionError)(message) from None
                self.sleep(self._wait(attempt, error.response.headers.get("retry-after")))
                continue
            except errors.APIConnectionError as error:
                cause = never_connected(error)
                if cause is not None:  # no server there: waiting will not bring one
                    raise Unreachable(f"cannot connect to {self.endpoint}: {cause}") from None
                if attempt == self.settings.attempts:
                    raise ConnectionError(
                        f"connection to {self.endpoint} lost, {attempt} attempts"
                    ) from None
                self.sleep(self._wait(attempt, None))
                continue
            with self.lock:
                self.paid += 1
            return self._text(response)
        raise AssertionError("unreachable: every attempt returns or raises")  # pragma: no cover

    def _text(self, response: Any) -> str:
        """The reply's text; a reply of another shape is passed on as its raw JSON."""
        try:
            tokens = int(response["usage"]["total_tokens"])
        except (KeyError, TypeError, ValueError):
            tokens = 0
        with self.lock:
            self.tokens += tokens
        try:
            content = response["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if isinstance(content, str):
            return content
        return json.dumps(response, sort_keys=True, default=repr)

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        backoff = min(self.settings.max_backoff_s, self.settings.backoff_s * 2 ** (attempt - 1))
        with self.lock:
            # jitter, so that clients that failed together do not all come back together
            backoff *= 0.5 + self.jitter.random() / 2
        try:
            asked = float(retry_after) if retry_after is not None else 0.0
        except ValueError:
            asked = 0.0  # an HTTP date instead of seconds: fall back on the backoff
        return float(max(backoff, asked))

    # -- many calls at once -----------------------------------------------------------------

    def prefetch(self, planned: list[list[dict[str, str]]]) -> int:
        """Ask every planned prompt, `concurrency` at a time; return how many there were.

        Repeat indices follow the plan's order, so the sequential run that follows finds each
        reply (or failure) where a sequential run would have asked for it: same replies, same
        order, and no question asked twice. InstrumentDown stops it.
        """
        seen: Counter[str] = Counter()
        jobs = []
        for messages in planned:
            prompt = json.dumps(messages, sort_keys=True)
            jobs.append((messages, seen[prompt]))
            seen[prompt] += 1
        done = failed = 0
        progress = Progress(f"judge openai:{self.model}", live=self.progress)
        progress.begin()

        def one(job: tuple[list[dict[str, str]], int]) -> bool:
            try:
                self.ask(job[0], repeat=job[1])
            except UNAVAILABLE:
                return False
            return True

        try:
            with ThreadPoolExecutor(max_workers=max(1, self.settings.concurrency)) as pool:
                pending = {pool.submit(one, job) for job in jobs}
                try:
                    while pending:  # wakes once a second: progress shows a stalled run too
                        finished, pending = wait(pending, 1.0, return_when=FIRST_COMPLETED)
                        done += len(finished)
                        failed += sum(not future.result() for future in finished)
                        progress.tick(done, failed, len(jobs))
                except BaseException:  # a 401, Ctrl-C: ask nothing more than is in flight
                    for future in pending:
                        future.cancel()
                    raise
        finally:
            progress.finish()
        with self.lock:
            self.asked.clear()  # the real pass counts its repeats from the start again
        return len(jobs)


class PlanningJudge:
    """Records every question a run would ask and replies with something parseable."""

    def __init__(self) -> None:
        self.planned: list[list[dict[str, str]]] = []

    def score(self, task: str, answer: str, reference: str) -> str:
        self.planned.append(prompts.score_messages(task, answer, reference))
        return "5"

    def compare(self, task: str, first: str, second: str) -> str:
        self.planned.append(prompts.compare_messages(task, first, second))
        return "tie"


def safe_url(url: str) -> str:
    """The endpoint as it may be printed: no user, password, query or fragment."""
    parts = urlparse(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunparse((parts.scheme, netloc, parts.path, "", "", "")) or "(no endpoint)"


def on_this_machine(url: str) -> bool:
    """Whether the endpoint is on loopback, where a server needs no key."""
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
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
