"""Exercise only-sixteen-digit-cards-refused (write the check): a payment card number is
refused whatever its length, 13 to 19 digits, not only the 16 of a Visa or a Mastercard.

`make exercise ID=only-sixteen-digit-cards-refused` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=only-sixteen-digit-cards-refused` again to prove it.
"""

import pytest

# >>> main
from stages.s05_memory.memory import Memory

# <<<


def test_only_sixteen_digit_cards_refused():
    # >>> main
    # published test numbers, each valid under Luhn: American Express (15 digits), Diners
    # Club (14) and the short Visa (13)
    for card in ["3782 822463 10005", "3056 930902 5904", "4222222222222"]:
        memory = Memory()
        assert memory.store("card", card) == "it looks like a payment card number", card
        assert memory.facts == {}
    return
    # <<<
    pytest.skip(
        "exercise only-sixteen-digit-cards-refused: write this check, then run "
        "`make exercise ID=only-sixteen-digit-cards-refused`"
    )
