"""A chat-completions endpoint on 127.0.0.1 that answers from a script: a stand-in for a real
judge's server, for tests and benchmarks. Nothing is sent anywhere but loopback.

Each request takes the next scripted behaviour (then `default` once the script runs out):

    Reply(text)              200 with that text as the assistant's message
    Status(code, headers)    an error status, e.g. Status(429, {"Retry-After": "1"}) or 500
    Malformed(body)          200 whose body is not a chat completion
    Hang(seconds)            say nothing for that long (past the client's timeout)
    Drop()                   close the connection without a reply

With `one_at_a_time`, requests are answered in turn, as llama.cpp's server answers them.

Every request body is logged (`requests`), so a test can count what was paid for.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    text: str


@dataclass(frozen=True)
class Status:
    code: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Malformed:
    body: str = '{"choices": []}'


@dataclass(frozen=True)
class Hang:
    seconds: float


@dataclass(frozen=True)
class Drop:
    pass


Behaviour = Reply | Status | Malformed | Hang | Drop


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients connect at once; the default of 5 drops SYNs

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # not a client that gave up
            super().handle_error(request, client_address)


def judge_like(request: dict[str, Any]) -> Behaviour:
    """The default: a bare score for a scoring prompt, `tie` for a comparison."""
    prompt = json.dumps(request.get("messages", []))
    return Reply("tie" if "Answer A" in prompt else "7")


def answering_as(judge: Any) -> Callable[[dict[str, Any]], Behaviour]:
    """A default that reads the texts back out of the course's prompts and replies as `judge`
    (any object with score and compare) would: a fake judge, served over the wire."""
    from stages.s12_real_judge import prompts

    def pattern(template: str) -> re.Pattern[str]:
        # every {field} of the template matches any text; the rest must match as written
        parts = re.split(r"\{(\w+)\}", template)
        return re.compile(
            "".join(
                f"(?P<{part}>.*)" if n % 2 else re.escape(part) for n, part in enumerate(parts)
            ),
            re.DOTALL,
        )

    score, compare = pattern(prompts.SCORE), pattern(prompts.COMPARE)

    def reply(request: dict[str, Any]) -> Behaviour:
        content = str(request["messages"][-1]["content"])
        if found := score.fullmatch(content):
            return Reply(str(judge.score(found["task"], found["answer"], found["reference"])))
        if found := compare.fullmatch(content):
            return Reply(str(judge.compare(found["task"], found["first"], found["second"])))
        return Status(400, {})  # not a prompt of this course: a client error, as a server says

    return reply


class ChatServer:
    """Start with `with ChatServer(...) as server:`; `server.url` is the base URL (…/v1)."""

    def __init__(
        self,
        script: list[Behaviour] | None = None,
        default: Callable[[dict[str, Any]], Behaviour] = judge_like,
        latency: float = 0.0,
        port: int = 0,
        one_at_a_time: bool = False,
    ) -> None:
        self.script = list(script or [])
        self.default = default
        self.latency = latency
        # as llama.cpp's server: one request is answered at a time, the others wait their turn
        self.turn: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if one_at_a_time else contextlib.nullcontext()
        )
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", port), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def next_behaviour(self, request: dict[str, Any]) -> Behaviour:
        with self.lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else self.default(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep connections open, as real servers do
            disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # GET /count or /v1/models: how many requests so far
                self._send(200, json.dumps({"requests": len(server.requests)}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                with server.turn:
                    self._answer(request)

            def _answer(self, request: dict[str, Any]) -> None:
                behaviour = server.next_behaviour(request)
                time.sleep(server.latency)
                if isinstance(behaviour, Hang):
                    time.sleep(behaviour.seconds)
                    return
                if isinstance(behaviour, Drop):
                    self.close_connection = True
                    self.connection.close()
                    return
                if isinstance(behaviour, Status):
                    self._send(
                        behaviour.code, '{"error": {"message": "scripted"}}', behaviour.headers
                    )
                elif isinstance(behaviour, Malformed):
                    self._send(200, behaviour.body)
                else:
                    self._send(200, json.dumps(completion(request, behaviour.text)))

            def _send(self, code: int, body: str, headers: dict[str, str] | None = None) -> None:
                data = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def completion(request: dict[str, Any], text: str) -> dict[str, Any]:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "loopback"),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 1,
            "total_tokens": prompt_tokens + 1,
        },
    }


def main() -> None:
    """Serve in a process of its own (for benchmarks, and in place of a local model's server):
    prints the base URL, runs until stopped."""
    import argparse

    parser = argparse.ArgumentParser(description="A loopback chat-completions server.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--port", type=int, default=0, help="the port (default: any free one)")
    args = parser.parse_args()
    with ChatServer(latency=args.latency, port=args.port) as server:
        print(server.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
