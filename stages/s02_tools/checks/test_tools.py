"""Stage 2: a call reaches a tool only with a known name and well-formed arguments."""

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.scripted_model import HANGING_ORDER
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import read_jsonl
from stages.s01_model.model import ToolCall
from stages.s02_tools.shop import SHOP_FILE, load_shop
from stages.s02_tools.tools import Outcome, argument_problems, shop_tools


@pytest.fixture
def shop():
    return load_shop()


def test_a_known_tool_with_good_arguments_runs(shop):
    observation = shop_tools(shop).call(ToolCall("order_status", {"order_id": "A1001"}))
    assert observation.kind == Outcome.RESULT
    assert observation.text.startswith("Order A1001: shipped")


@pytest.mark.failure_mode
def test_an_unknown_tool_is_an_observation_naming_the_known_ones(shop):
    observation = shop_tools(shop).call(ToolCall("refund_everything", {}))
    assert observation.kind == Outcome.UNKNOWN_TOOL
    assert "'refund_everything'" in observation.text
    assert "delivery_estimate, order_status, start_return" in observation.text


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "missing argument 'order_id'"),
        ({"order_id": "A1002"}, "missing argument 'reason'"),
        ({"order_id": "A1002", "reason": "small", "refund": True}, "unexpected argument 'refund'"),
        ({"order_id": 1002, "reason": "small"}, "argument 'order_id' must be str, got int 1002"),
        ({"order_id": "A1002", "reason": None}, "argument 'reason' must be str, got NoneType"),
    ],
)
def test_bad_arguments_never_reach_the_tool(shop, arguments, problem):
    observation = shop_tools(shop).call(ToolCall("start_return", arguments))
    assert observation.kind == Outcome.BAD_ARGUMENTS
    assert problem in observation.text
    assert shop.returns == []  # start_return changes the shop; it did not run


def test_a_bool_is_not_accepted_where_an_int_is_expected():
    # bool is a subclass of int in Python; `True` as a quantity is still a mistake
    assert argument_problems({"count": True}, {"count": int}) == [
        "argument 'count' must be int, got bool True"
    ]
    assert argument_problems({"count": 2}, {"count": int}) == []


@given(st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), st.lists(st.text())))
def test_any_non_text_order_id_is_refused(value):
    observation = shop_tools(load_shop()).call(ToolCall("order_status", {"order_id": value}))
    assert observation.kind == Outcome.BAD_ARGUMENTS


def test_a_return_starts_only_for_a_delivered_order_inside_the_window(shop):
    tools = shop_tools(shop)
    started = tools.call(ToolCall("start_return", {"order_id": "A1002", "reason": "too small"}))
    assert started.text.startswith("Return R-A1002 started")
    # A1004 was delivered 2026-09-04; the shop's today is 2026-11-29: 86 days, past 30
    late = tools.call(ToolCall("start_return", {"order_id": "A1004", "reason": "too small"}))
    assert "delivered 86 days ago" in late.text
    shipped = tools.call(ToolCall("start_return", {"order_id": "A1001", "reason": "gift"}))
    assert "once it is delivered" in shipped.text
    again = tools.call(ToolCall("start_return", {"order_id": "A1002", "reason": "too small"}))
    assert again.text == "A return for order A1002 is already open (R-A1002)."
    assert shop.returns == ["A1002"]


def test_a_flaky_carrier_refuses_first_and_answers_after(shop):
    tools = shop_tools(shop)
    call = ToolCall("delivery_estimate", {"order_id": "A1005"})  # QuickShip, fails_first 1
    with pytest.raises(ConnectionError, match="QuickShip"):
        tools.invoke(call)
    assert "within 1 business day " in tools.invoke(call)


def test_the_hanging_carrier_is_the_one_the_timeout_fault_asks_about(shop):
    # fakes/scripted_model.py promises that HANGING_ORDER's carrier never answers
    carrier = shop.carriers[shop.orders[HANGING_ORDER].carrier]
    assert carrier.behaviour == "hangs"
    quick = replace(shop, carriers={carrier.name: replace(carrier, hang_seconds=0.01)})
    with pytest.raises(TimeoutError, match="did not answer"):
        shop_tools(quick).invoke(ToolCall("delivery_estimate", {"order_id": HANGING_ORDER}))


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda d: d["orders"]["A1001"].update(status="shiped"), "orders.A1001.status: 'shiped'"),
        (lambda d: d["orders"]["A1001"].pop("carrier"), "orders.A1001: missing 'carrier'"),
        (lambda d: d["orders"]["A1002"].update(delivered="14/11"), "A1002.delivered: '14/11'"),
        (lambda d: d["orders"]["A1001"].update(carrier="Owl"), "A1001.carrier: 'Owl' is not"),
        (lambda d: d["carriers"]["ParcelCo"].update(days="2"), "ParcelCo.days: expected int"),
        (lambda d: d.pop("today"), "missing 'today'"),
    ],
)
def test_a_malformed_shop_fixture_names_file_key_and_value(tmp_path, edit, fragment):
    data = json.loads(SHOP_FILE.read_text())
    edit(data)
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CourseInputError) as raised:
        load_shop(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert fragment in str(raised.value)


def test_the_demo_traces_tool_calls_without_a_run_key(cli, tmp_path):
    trace = tmp_path / "s02.jsonl"
    result = cli("stages.s02_tools", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    records = read_jsonl(trace)
    assert {key for record in records for key in record} == {"tool", "args", "outcome"}
    assert [r["outcome"] for r in records][-2:] == ["unknown_tool", "bad_arguments"]


@pytest.mark.failure_mode
def test_a_bad_argument_on_the_command_line_is_one_line_and_exit_2(cli, one_line_error):
    bad = cli("stages.s02_tools", "--call", "order_status", "--args", '{"order_id": 5}')
    one_line_error(bad, "argument 'order_id' must be str, got int 5")
    one_line_error(cli("stages.s02_tools", "--call", "order_status", "--args", "{5"), "'{5'")
    good = cli("stages.s02_tools", "--call", "order_status", "--args", '{"order_id": "A1003"}')
    assert good.returncode == 0 and "A1003: processing" in good.stdout


@pytest.mark.failure_mode
def test_a_malformed_shop_on_the_command_line_is_one_line_and_exit_2(cli, one_line_error, tmp_path):
    data = json.loads(SHOP_FILE.read_text())
    data["orders"]["A1003"]["placed"] = "yesterday"
    shop = tmp_path / "shop.json"
    shop.write_text(json.dumps(data))
    one_line_error(cli("stages.s02_tools", "--shop", str(shop)), "A1003.placed: 'yesterday'")
