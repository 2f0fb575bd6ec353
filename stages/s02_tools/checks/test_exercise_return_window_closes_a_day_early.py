"""Exercise return-window-closes-a-day-early (write the check): a return still starts on the
last day of the window, 30 days after delivery, and is refused from the day after.

`make exercise ID=return-window-closes-a-day-early` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=return-window-closes-a-day-early` again to prove it.
"""

import pytest

# >>> main
from stages.s01_model.model import ToolCall
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools

# <<<


def test_return_window_closes_a_day_early():
    # >>> main
    call = ToolCall("start_return", {"order_id": "A1002", "reason": "too small"})
    # A1002 was delivered on 2026-11-14: day 30 after it is 2026-12-14, day 31 is 2026-12-15
    last_day = load_shop()
    last_day.today = last_day.today.replace(month=12, day=14)
    started = shop_tools(last_day).call(call)
    assert started.text == "Return R-A1002 started for order A1002 (reason: too small)."
    assert last_day.returns == ["A1002"]
    day_after = load_shop()
    day_after.today = day_after.today.replace(month=12, day=15)
    refused = shop_tools(day_after).call(call)
    assert refused.text == "Order A1002 was delivered 31 days ago; returns close after 30 days."
    assert day_after.returns == []
    return
    # <<<
    pytest.skip(
        "exercise return-window-closes-a-day-early: write this check, "
        "then run `make exercise ID=return-window-closes-a-day-early`"
    )
