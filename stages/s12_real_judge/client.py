"""A real judge: any OpenAI-compatible chat-completions endpoint, treated as an instrument.

Faults become states, never crashes. A 429, a 5xx or a dropped connection is tried again
after a backoff that doubles, with jitter (a longer Retry-After wins), then is "unavailable"
(judge.py): the question is unscored. A time-out is not retried; a connection never opened
(refused, unknown host, TLS) is Unreachable at once, since waiting will not bring a server.
A reply of the wrong shape is passed on raw for the strict parser; a question past the
budget is never sent (OverBudget); any other 4xx (a wrong key or model) stops the run with
one line. Every reply is journalled as it arrives; a question is asked at most once a run.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import openai

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import UNAVAILABLE, Instrument, OverBudget, RateLimited, Unreachable
from stages.s12_real_judge import prompts
from stages.s12_real_judge.endpoint import locate, never_connected, safe_url
from stages.s12_real_judge.guard import Breaker
from stages.s12_real_judge.journal import Journal, Store
from stages.s12_real_judge.prompts import Messages
from stages.s12_real_judge.settings import Settings


class OpenAIJudge:
    """score() and compare() through a chat-completions endpoint: retries, budget, journal."""

    def __init__(
        self,
        model: str,
        settings: Settings | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        use_journal: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        progress: bool | None = None,
        identity: str | None = None,
    ) -> None:
        self.model, self.settings = model, settings or Settings()
        where = locate(model, api_key, base_url)
        self.base_url, self.endpoint, self._key = where.url, where.host, where.key
        # what the journal files replies under: the endpoint, unless the instrument is known
        # better by another name (a local model by its file's hash, whatever port it is on)
        self.identity = identity or self.endpoint
        self.client = openai.OpenAI(
            api_key=self._key or "no-key-needed-on-loopback", base_url=self.base_url, max_retries=0
        )
        path = self.settings.journal
        self.journal: Store | None = Journal(ROOT / path) if use_journal and path else None
        self.sleep, self.jitter, self.progress = sleep, random.Random(0), progress
        self.breaker = Breaker(
            f"endpoint {safe_url(where.url)} ({where.source}), model {model}, OPENAI_API_KEY "
            f"{'set' if self._key else 'not set'}, at most {self.settings.timeout_s:g} s a call"
        )
        self.lock = threading.Lock()
        self.asked: Counter[str] = Counter()  # prompt -> times asked in this run
        self.known: dict[str, str | Exception] = {}  # key -> this run's reply, or its failure
        self.sent = 0  # questions sent to the endpoint (what the budget counts)
        self.requests = self.paid = self.cached = self.tokens = 0

    def score(self, task: str, answer: str, reference: str) -> str:
        messages = self.score_messages(task, answer, reference)
        return self.unwrap(self.ask(messages, shape="score"), "score")

    def compare(self, task: str, first: str, second: str) -> str:
        messages = self.compare_messages(task, first, second)
        return self.unwrap(self.ask(messages, shape="verdict"), "verdict")

    # How a question is put and its reply read: a later stage's judge asks for JSON instead.
    def score_messages(self, task: str, answer: str, reference: str) -> Messages:
        return prompts.score_messages(task, answer, reference)

    def compare_messages(self, task: str, first: str, second: str) -> Messages:
        return prompts.compare_messages(task, first, second)

    def unwrap(self, raw: str, shape: str) -> str:
        return raw  # a bare reply goes to the strict parser as it came

    def form(self, shape: str) -> dict[str, Any]:
        return {}  # what a question is sent with besides its settings: nothing, for a bare reply

    def describe(self) -> Instrument:
        """What the report says about the instrument; never the key."""
        counts = (self.requests, self.paid, self.cached)  # requests, paid_calls, from_cache
        return Instrument(self.model, self.endpoint, *counts, kept_in="the journal")

    def down(self) -> str | None:
        """Why the run stopped asking this judge; None while it is asked."""
        return self.breaker.why

    def received(self) -> dict[str, str]:
        """Every reply this run got, by its key: from the endpoint or from the journal."""
        with self.lock:
            return {key: reply for key, reply in self.known.items() if isinstance(reply, str)}

    def restart_count(self) -> None:
        """Count repeats from the start again: the report pass after a prefetch."""
        with self.lock:
            self.asked.clear()

    def ask(self, messages: Messages, repeat: int | None = None, shape: str = "score") -> str:
        """One reply for these messages: 1) what this run already got (a reply or a failure),
        2) what an earlier run stored in the journal, 3) otherwise paid for once, and kept."""
        prompt = json.dumps(messages, sort_keys=True)
        with self.lock:
            if repeat is None:
                repeat = self.asked[prompt]
                self.asked[prompt] += 1
            known = self.known.get(key := self.key(prompt, repeat))
        if isinstance(known, Exception):
            raise known  # the fetch pass learned this question fails: it is not asked again
        if known is not None:
            return known
        if self.journal is not None and (stored := self.journal.get(key)) is not None:
            with self.lock:
                self.known[key] = stored
                self.cached += 1
            return stored
        self.breaker.check()
        try:
            reply = self._call(messages, shape)
        except UNAVAILABLE as error:
            with self.lock:
                self.known[key] = error
            self.breaker.record(error)
            raise
        self.breaker.record(None)
        if self.journal is not None:
            self.journal.put(key, reply)
        with self.lock:
            self.known[key] = reply
        return reply

    def key(self, prompt: str, repeat: int) -> str:
        """What identifies a reply: where, which model, what was asked, with which settings."""
        identity = [self.identity, self.model, prompt, self.key_settings(), repeat]
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    def key_settings(self) -> dict[str, Any]:
        return self.reply_settings()  # a judge that asks for another form adds it here

    def reply_settings(self) -> dict[str, Any]:
        """The settings sent with every question: they change the reply, so they key it."""
        return {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens}

    def _call(self, messages: Messages, shape: str) -> str:
        """One question, within the budget, tried up to `attempts` times."""
        with self.lock:
            over_tokens = 0 < self.settings.max_tokens_total <= self.tokens
            if self.sent >= self.settings.max_calls or over_tokens:
                raise OverBudget(f"budget of {self.settings.max_calls} calls spent")
            self.sent += 1
        for attempt in range(1, self.settings.attempts + 1):
            with self.lock:
                self.requests += 1
            try:
                response = self._post(messages, shape)
            except openai.APIStatusError as error:
                self._status(error.status_code, attempt)
                self.sleep(self._wait(attempt, error.response.headers.get("retry-after")))
                continue
            except openai.APIConnectionError as error:
                self._connection(error, attempt)
                self.sleep(self._wait(attempt, None))
                continue
            with self.lock:
                self.paid += 1
            return self._text(response)
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _post(self, messages: Messages, shape: str) -> Any:
        # The SDK's own request path (auth, errors, timeouts) without its typed models:
        # building those costs more CPU than the whole rest of a call.
        body = {"model": self.model, "messages": messages, **self.reply_settings()}
        body.update(self.form(shape))
        try:
            return self.client.post(
                "/chat/completions",
                body=body,
                cast_to=object,
                options={"timeout": self.settings.timeout_s},
            )
        except openai.APITimeoutError:
            limit = f"{self.settings.timeout_s:g} s"
            raise TimeoutError(f"no reply from {self.endpoint} within {limit}") from None

    def _status(self, status: int, attempt: int) -> None:
        """An error status: raise what it means, or return to try again."""
        if status != 429 and status < 500:
            raise CourseInputError(
                f"--judge openai:{self.model}: HTTP {status} from {self.endpoint}; "
                "check OPENAI_API_KEY, OPENAI_BASE_URL and the model name"
            ) from None
        if attempt == self.settings.attempts:
            message = f"HTTP {status} from {self.endpoint} after {attempt} attempts"
            raise (RateLimited if status == 429 else ConnectionError)(message) from None

    def _connection(self, error: BaseException, attempt: int) -> None:
        """A connection error: raise what it means, or return to try again."""
        cause = never_connected(error)
        if cause is not None:  # no server there: waiting will not bring one
            raise Unreachable(f"cannot connect to {self.endpoint}: {cause}") from None
        if attempt == self.settings.attempts:
            raise ConnectionError(
                f"connection to {self.endpoint} lost, {attempt} attempts"
            ) from None

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
        """Seconds before the next try: the backoff, with jitter, or Retry-After if longer."""
        backoff = min(self.settings.max_backoff_s, self.settings.backoff_s * 2 ** (attempt - 1))
        with self.lock:  # jitter, so that clients that failed together do not return together
            backoff *= 0.5 + self.jitter.random() / 2
        try:
            asked = float(retry_after) if retry_after is not None else 0.0
        except ValueError:
            asked = 0.0  # an HTTP date instead of seconds: fall back on the backoff
        return float(max(backoff, asked))
