"""A common mistake (one item where a list is expected, a string, a list of strings) gets an
error that says what was expected, from every function that takes a list of items."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import handoff_codec
from handoff_codec import Codec, EncodeError
from handoff_codec.format import summarize

ITEM = {"role": "user", "content": "hi"}
TAKE_ITEMS: dict[str, tuple[Callable[[Any], Any], type[Exception]]] = {
    "dumps": (handoff_codec.dumps, EncodeError),
    "Codec.dumps": (Codec().dumps, EncodeError),
    "summarize": (summarize, EncodeError),
    "flatten": (handoff_codec.flatten, TypeError),
    "nest": (handoff_codec.nest, TypeError),
    "Codec.flatten_report": (Codec().flatten_report, TypeError),
}


@pytest.mark.parametrize("name", TAKE_ITEMS)
def test_one_item_instead_of_a_list(name: str) -> None:
    function, error = TAKE_ITEMS[name]
    with pytest.raises(error, match=r"expected a list of items, got one item \(a mapping\)"):
        function(ITEM)


@pytest.mark.parametrize("name", TAKE_ITEMS)
@pytest.mark.parametrize("value", ["abc", b"abc"])
def test_a_string_instead_of_a_list(name: str, value: Any) -> None:
    function, error = TAKE_ITEMS[name]
    with pytest.raises(error, match=rf"expected a list of items .*got a {type(value).__name__}"):
        function(value)


@pytest.mark.parametrize("name", TAKE_ITEMS)
@pytest.mark.parametrize("value", ["abc", 3, None, ["role", "content"]])
def test_an_item_that_is_not_a_mapping(name: str, value: Any) -> None:
    function, error = TAKE_ITEMS[name]
    kind = type(value).__name__
    with pytest.raises(error, match=rf"item 1 is a {kind}, not a mapping \(an item is a dict "):
        function([ITEM, value])


@pytest.mark.parametrize("name", TAKE_ITEMS)
def test_a_list_of_items_is_taken(name: str) -> None:
    function, _ = TAKE_ITEMS[name]
    assert function([ITEM])
