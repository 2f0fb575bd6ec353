"""What may be shown of an endpoint: its scheme, host, port and path, never the rest of its URL.

A base URL can carry a user and a password (for a proxy in front of the judge) and a token in
its query. None of them appears in any output or file of a run, and none of them is part of
what names the endpoint: a rotated password is the same endpoint, whose journal still holds
every reply. Nothing is sent anywhere but loopback.
"""

import json
import socket
from urllib.parse import quote

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fakes.chat_server import ChatServer
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import Unreachable
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.endpoint import locate, safe_url
from stages.s12_real_judge.settings import Settings

USER, PASSWORD, TOKEN = "judge-user-Q7", "PASSWORD-Q7-one", "SECRET-Q7-one"
ROTATED = "PASSWORD-Q7-two", "SECRET-Q7-two"  # the same endpoint, after a rotation


def with_secrets(url, user=USER, password=PASSWORD, token=TOKEN):
    """`url` (scheme://host:port/path) with a user and a password, and a query token."""
    scheme, rest = url.split("://", 1)
    userinfo = f"{quote(user, safe='')}:{quote(password, safe='')}"
    return f"{scheme}://{userinfo}@{rest}?token={quote(token, safe='')}"


def closed_port():
    """A loopback port where nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def everything(results, folder):
    """What a person could read after the runs: their stdout and stderr, and every file."""
    texts = [text for result in results for text in (result.stdout, result.stderr)]
    return texts + [p.read_bytes().decode("latin-1") for p in folder.rglob("*") if p.is_file()]


def shows_no_secret(texts, *secrets):
    return not [secret for secret in secrets for text in texts if secret in text]


def judge_config(folder):
    config = folder / "judge.toml"
    config.write_text(f'journal = "{folder / "journal.sqlite"}"\nbackoff_s = 0.01\n')
    return ["--judge", "openai:some-model", "--judge-config", str(config)]


@pytest.mark.failure_mode
def test_a_password_and_a_query_token_are_in_no_output_and_no_file_of_a_run(
    cli, monkeypatch, tmp_path
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # loopback: no key needed
    wire = judge_config(tmp_path)
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(server.url))
        evaluated = cli("stages.s12_real_judge", "eval", *wire, "--json",
                        "--out", str(tmp_path / "eval.json"))  # fmt: skip
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(dead))
    refused = cli("stages.s12_real_judge", "eval", *wire, "--json",
                  "--out", str(tmp_path / "refused.json"))  # fmt: skip
    assert (evaluated.returncode, refused.returncode) == (0, 1), evaluated.stderr
    for result, shown in ((evaluated, server.url), (refused, dead)):
        assert json.loads(result.stdout)["judge"]["instrument"]["endpoint"] == shown
    # the dead endpoint is named as it may be shown, in the one error line and in the report
    assert f"cannot connect to {dead}: [Errno 111] Connection refused" in refused.stderr
    assert f"; endpoint {dead} (OPENAI_BASE_URL), model some-model," in refused.stderr
    texts = everything([evaluated, refused], tmp_path)
    written = {path.name for path in tmp_path.iterdir()}
    assert {"eval.json", "refused.json", "journal.sqlite", "judge.toml"} <= written
    assert shows_no_secret(texts, USER, PASSWORD, TOKEN)


@pytest.mark.failure_mode
def test_a_rotated_password_and_token_find_every_reply_in_the_journal(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    wire = [*judge_config(tmp_path), "--json", "--out", str(tmp_path / "eval.json")]
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(server.url))
        first = cli("stages.s12_real_judge", "eval", *wire)
        paid = len(server.requests)
        password, token = ROTATED
        monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(server.url, USER, password, token))
        again = cli("stages.s12_real_judge", "eval", *wire)
        assert len(server.requests) == paid  # the second run asked the server nothing
    assert first.returncode == again.returncode == 0, again.stderr
    # stage 8's report asks 32 questions (test_client.py counts them): all of them from the
    # journal the second time, none sent
    instrument = json.loads(again.stdout)["judge"]["instrument"]
    assert paid == 32 and (instrument["requests"], instrument["from_cache"]) == (0, 32)


# Secrets as people choose them, any printable text, percent-encoded in the URL; the names in
# a query are not secret, its values are.
SECRET = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x24F), min_size=6, max_size=16)
QUERY = st.lists(st.tuples(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), SECRET), max_size=3)
BASE = "http://127.0.0.1:8080/v1"  # what the URLs below name; nothing is sent to it


def url_of(host, user, password, query):
    """BASE's URL (on `host`) with a user, a password and a query, each percent-encoded."""
    token = "&".join(f"{name}={quote(value, safe='')}" for name, value in query)
    userinfo = f"{quote(user, safe='')}:{quote(password, safe='')}"
    return f"http://{userinfo}@{host}:8080/v1" + (f"?{token}" if token else "")


def forms_of(secrets):
    """Each secret as written into the URL and as it reads decoded."""
    return {form for secret in secrets if secret for form in (secret, quote(secret, safe=""))}


class ConnectError(Exception):
    """Named as the SDK's HTTP library names a connection never made."""


def refusal(url, secrets):
    """The SDK's error for a connection never made, from an HTTP library that quotes the URL."""
    failure = RuntimeError("Connection error.")
    failure.__cause__ = ConnectError(f"cannot reach {url} ({' '.join(secrets)}): refused")
    return failure


def shown_by(url, secrets):
    """What the endpoint module shows of a URL: its form, its repr, why it was never connected
    to, and the error for it off this machine without a key."""
    where = locate("m", "", url)
    with pytest.raises(CourseInputError) as refused:
        locate("m", "", url.replace("127.0.0.1", "judge.example"))
    texts = [safe_url(url), repr(where), str(where.never_connected(refusal(url, secrets)))]
    return [*texts, str(refused.value)]


@pytest.mark.failure_mode
@given(user=SECRET, password=SECRET, query=QUERY)
def test_no_user_password_or_query_of_a_url_is_shown_or_names_the_endpoint(user, password, query):
    secrets = [user, password, *(value for _, value in query)]
    forms = forms_of(secrets)
    assume(shows_no_secret(shown_by(BASE, []), *forms))  # one the texts hold anyway proves nothing
    url = url_of("127.0.0.1", user, password, query)
    assert shows_no_secret(shown_by(url, secrets), *forms)
    # what every message, report, journal key and fingerprint holds: the same for any of them
    assert safe_url(url) == BASE


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("user", "password", "query"),
    [("judge-user-Q7", "p@ss:w/rd?#%-Q7", [("token", "SECRET-Q7-one")]),
     ("üser-Q7", "pässwörd-Q7", [("api_key", "ä&b=c-Q7"), ("sig", "a+b c-Q7")]),
     ("", "only-a-password-Q7", []), ("only-a-user-Q7", "", [])],
)  # fmt: skip
def test_the_client_shows_and_journals_an_endpoint_as_the_url_without_its_secrets(
    user, password, query
):
    url = url_of("127.0.0.1", user, password, query)
    secrets = [user, password, *(value for _, value in query)]
    judge = OpenAIJudge("m", Settings(journal=""), base_url=url)
    plain = OpenAIJudge("m", Settings(journal=""), base_url=BASE)
    texts = [json.dumps(judge.describe().to_json()), judge.breaker.instrument]
    texts += [str(judge._status(503)), str(judge._status(429)), str(judge._connection(OSError()))]
    with pytest.raises(CourseInputError) as refused:
        judge._status(401)
    with pytest.raises(Unreachable) as unreachable:
        judge._connection(refusal(url, secrets))
    texts += [str(refused.value), str(unreachable.value)]
    assert shows_no_secret(texts, *forms_of(secrets))
    assert f"cannot connect to {BASE}: cannot reach http://" in str(unreachable.value)
    # named, journalled and fingerprinted (a fingerprint reads `identity`) as the plain URL is
    assert judge.endpoint == judge.identity == plain.identity == BASE
    assert judge.key("a prompt", 0) == plain.key("a prompt", 0)
