"""A wrong argument to the face's functions says what was expected, naming the function."""

from __future__ import annotations

from typing import Any

import pytest

import handoff_codec

EXPECTED = "expected a list of items"


@pytest.mark.parametrize("value", [None, 5, "abc", {"role": "user", "content": "x"}])
@pytest.mark.parametrize("name", ["dumps", "flatten", "nest"])
def test_not_a_list_of_items(name: str, value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as raised:
        getattr(handoff_codec, name)(value)
    message = str(raised.value)
    assert EXPECTED in message
    if name != "dumps":
        assert message.startswith(f"{name}: ")


def test_nest_names_itself_for_a_bad_item() -> None:
    with pytest.raises(TypeError, match=r"^nest: item 0 is a int"):
        handoff_codec.nest([1])
