"""Bad input, told plainly: which value, from where, and what was expected."""

from __future__ import annotations


class CourseInputError(Exception):
    """A fixture, script or command-line value that cannot be used as it is.

    The message is one line that names the bad value and where it came from, for example
    `broken.json: step 2: needs exactly one of call, answer, fault; got {'cal': 'order_status'}`.
    """
