"""A real judge: any OpenAI-compatible chat-completions endpoint, treated as an instrument.

Faults become states, never crashes: what fails is "unavailable" (judge.py), the question
unscored; only a wrong key or model (a 4xx but 429) stops the run, with one line. Every reply
is journalled as it arrives, and a question is asked at most once a run."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import UNAVAILABLE, Instrument, OverBudget, RateLimited, Unreachable
from stages.s12_real_judge import prompts
from stages.s12_real_judge.endpoint import locate, safe_url
from stages.s12_real_judge.guard import Breaker
from stages.s12_real_judge.journal import Journal
from stages.s12_real_judge.prompts import Messages
from stages.s12_real_judge.settings import Settings

PLANNED = {"score": "5", "verdict": "tie"}  # what a question planned, not asked, is answered


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
    ) -> None:
        self.model, self.settings = model, settings or Settings()
        self.where = where = locate(model, api_key, base_url)  # its URL and key: never shown
        self.endpoint = self.identity = safe_url(where.url)  # shown; what the journal keys hold
        self.spec = f"openai:{model}"  # how --judge names it; a later stage's judge may differ
        import openai  # here, not with the module: 0.7 s that a fake judge or --help never pays

        self.sdk = openai
        self.client = openai.OpenAI(
            api_key=where.key or "no-key-needed-on-loopback", base_url=where.url, max_retries=0
        )
        path = self.settings.journal
        self.journal = Journal(ROOT / path) if use_journal and path else None
        self.sleep, self.jitter, self.progress = sleep, random.Random(0), progress
        self.breaker = Breaker(
            f"endpoint {self.endpoint} ({where.source}), model {model}, OPENAI_API_KEY "
            f"{'set' if where.key else 'not set'}, at most {self.settings.time_limit():g} s a call"
        )
        self.lock = threading.Lock()
        self.asked: Counter[str] = Counter()  # prompt -> times asked in this run
        self.known: dict[str, str | Exception] = {}  # key -> this run's reply, or its failure
        self.planned: list[tuple[Messages, str]] | None = None  # its questions, while planned
        self.sent = 0  # questions sent to the endpoint (what the budget counts)
        self.requests = self.paid = self.cached = self.tokens = 0

    def score(self, task: str, answer: str, reference: str) -> str:
        return self.ask(prompts.score_messages(task, answer, reference), shape="score")

    def compare(self, task: str, first: str, second: str) -> str:
        return self.ask(prompts.compare_messages(task, first, second), shape="verdict")

    def form(self, shape: str) -> dict[str, Any]:
        return {}  # what a question is sent with besides its settings: nothing, for a bare reply

    def describe(self) -> Instrument:
        """What the report says about the instrument; never the key."""
        counts = (self.requests, self.paid, self.cached)  # requests, paid_calls, from_cache
        return Instrument(self.model, self.endpoint, *counts, kept_in="the journal")

    def down(self) -> str | None:
        """Why the run stopped asking this judge; None while it is asked."""
        return self.breaker.why

    def ask(self, messages: Messages, repeat: int | None = None, shape: str = "score") -> str:
        """One reply for these messages: 1) what this run already got (a reply or a failure),
        2) what an earlier run stored in the journal, 3) otherwise paid for once, and kept.
        While a run is planned, its questions are written down instead, and not asked."""
        if self.planned is not None:
            self.planned.append((messages, shape))
            return PLANNED[shape]
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
            except self.sdk.APIStatusError as error:
                failed = self._status(error.status_code)
                retry_after = error.response.headers.get("retry-after")
            except self.sdk.APIConnectionError as error:
                failed, retry_after = self._connection(error), None
            else:
                with self.lock:
                    self.paid += 1
                return self._text(response)
            if attempt == self.settings.attempts:
                raise failed
            self.sleep(self._wait(attempt, retry_after))
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _post(self, messages: Messages, shape: str) -> Any:
        # The SDK's own request path (auth, errors, timeouts) without its typed models:
        # building those costs more CPU than the whole rest of a call.
        body = {"model": self.model, "messages": messages, **self.reply_settings()}
        body.update(self.form(shape))
        limit = self.settings.time_limit()
        try:
            return self.client.post(
                "/chat/completions", body=body, cast_to=object, options={"timeout": limit}
            )
        except self.sdk.APITimeoutError:
            raise TimeoutError(f"no reply from {self.endpoint} within {limit:g} s") from None

    def _status(self, status: int) -> Exception:
        """What an error status means once the tries run out; a 4xx but 429 stops the run."""
        if status != 429 and status < 500:
            raise CourseInputError(
                f"--judge {self.spec}: HTTP {status} from {self.endpoint}; "
                "check OPENAI_API_KEY, OPENAI_BASE_URL and the model name"
            ) from None
        message = f"HTTP {status} from {self.endpoint} after {self.tries()}"
        return (RateLimited if status == 429 else ConnectionError)(message)

    def _connection(self, error: BaseException) -> Exception:
        """What a lost connection means once the tries run out; one never opened, at once."""
        cause = self.where.never_connected(error)
        if cause is not None:  # no server there: waiting will not bring one
            raise Unreachable(f"cannot connect to {self.endpoint}: {cause}") from None
        return ConnectionError(f"connection to {self.endpoint} lost, {self.tries()}")

    def tries(self) -> str:
        attempts = self.settings.attempts
        return f"{attempts} attempt{'s' * (attempts != 1)}"

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
