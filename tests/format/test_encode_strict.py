"""What dumps writes for text UTF-8 cannot hold, and for keys that are not strings.

Lone surrogates (U+D800 to U+DFFF) fit in a Python str but in no UTF-8 file,
TEXT column or HTTP body: such an item is a JSON record with the surrogate
written as ``\\uXXXX``, which reads back as the same code point. A key that is
not a string would come back as a string, so dumps refuses it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import EncodeError
from tests.format.read.summaries import Engine
from tests.support.profiles import examples
from tests.support.sdk import sdk_read
from tests.support.strategies import json_scalars, transcripts

Item = dict[str, Any]


def _read_everywhere(text: str) -> list[object]:
    """The items as both engines (lenient and strict) and the Agents SDK read them."""
    return [handoff_codec.loads(text), handoff_codec.loads(text, strict=True),
            handoff_codec.loads(text, engine="lark"),
            handoff_codec.loads(text, strict=True, engine="lark"),
            sdk_read({"role": "assistant", "content": text})]


# ------------------------------------------------------------ lone surrogates
@pytest.mark.parametrize(("item", "line"), [
    ({"role": "user", "content": "a\ud800b"}, '1. {"content": "a\\ud800b", "role": "user"}'),
    ({"role": "assistant", "content": "\udc80"}, '1. {"content": "\\udc80", "role": "assistant"}'),
    ({"role": "user", "name": "n\udfff", "content": "x"},
     '1. {"content": "x", "name": "n\\udfff", "role": "user"}'),
    # A low surrogate before a high one is no pair: both stay as they are.
    ({"role": "user", "content": "\udc00\ud800"},
     '1. {"content": "\\udc00\\ud800", "role": "user"}'),
    ({"role": "user", "content": "\u00e9\u2028\ud800"},
     '1. {"content": "\u00e9\\u2028\\ud800", "role": "user"}'),
    ({"type": "function_call_output", "call_id": "c\ud800", "output": ["\udbff", {"k\udc00": 1}]},
     '1. {"call_id": "c\\ud800", "output": ["\\udbff", {"k\\udc00": 1}], '
     '"type": "function_call_output"}'),
    # A backslash before the surrogate stays a backslash.
    ({"role": "user", "content": "\\\ud800"}, '1. {"content": "\\\\\\ud800", "role": "user"}'),
])
def test_a_lone_surrogate_is_written_as_an_escape_in_a_json_record(item: Item, line: str) -> None:
    text = handoff_codec.dumps([item])
    text.encode("utf-8")  # storable
    assert text.split("\n")[2] == line
    assert _read_everywhere(text) == [[item]] * 5


def test_text_without_surrogates_keeps_its_record_form() -> None:
    items = [{"role": "user", "content": "caf\u00e9 \U0001f600"},
             {"role": "user", "content": "\ud7ff\ue000"},
             {"role": "user", "content": "\u00e9", "id": "m\U0001f600"}]
    assert handoff_codec.dumps(items).split("\n")[2:5] == [
        "1. user: caf\u00e9 \U0001f600", "2. user: \ud7ff\ue000",
        '3. {"content": "\u00e9", "id": "m\U0001f600", "role": "user"}']


@pytest.mark.parametrize("item", [
    {"role": "user", "content": "a\ud83d\ude00"},
    {"type": "x", "v": [{"\udbff\udfff": None}]},
])
def test_a_surrogate_pair_as_two_code_points_raises(item: Item) -> None:
    # JSON would write it as the one character it stands for: not lossless.
    with pytest.raises(EncodeError, match=r"^item 1 holds U\+D[89AB][0-9A-F]{2} "
                                          r"U\+D[C-F][0-9A-F]{2}, a surrogate pair"):
        handoff_codec.dumps([{"role": "user", "content": "ok"}, item])


SURROGATES = [chr(c) for c in (0xD800, 0xD83D, 0xDBFF, 0xDC00, 0xDC80, 0xDE00, 0xDFFF)]
surrogate_texts = st.lists(st.one_of(
    st.sampled_from([*SURROGATES, "\n", "\u2028", " ", "[", ":", "("]),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=4)), max_size=8).map("".join)
surrogate_items = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool"]),
                           "content": surrogate_texts}),
    st.fixed_dictionaries({"role": st.just("user"), "name": surrogate_texts,
                           "content": surrogate_texts}),
    st.dictionaries(surrogate_texts, st.one_of(surrogate_texts, st.lists(surrogate_texts)),
                    max_size=3),
)
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _has_pair(value: Any) -> bool:
    if isinstance(value, str):
        return _PAIR.search(value) is not None
    if isinstance(value, dict):
        return any(_has_pair(k) or _has_pair(v) for k, v in value.items())
    return isinstance(value, list) and any(_has_pair(v) for v in value)


@examples(1000)
@given(items=st.lists(surrogate_items, max_size=4))
def test_text_with_surrogates_is_storable_and_round_trips(items: list[Item],
                                                          engine: Engine) -> None:
    try:
        text = handoff_codec.dumps(items)
    except EncodeError as exc:
        assert "a surrogate pair as two code points" in str(exc)
        assert any(_has_pair(item) for item in items)
        return
    assert not any(_has_pair(item) for item in items)
    text.encode("utf-8")
    assert handoff_codec.loads(text, engine=engine) == items
    assert handoff_codec.loads(text, strict=True, engine=engine) == items


# ------------------------------------------------------- keys that are not strings
@pytest.mark.parametrize(("items", "message"), [
    ([{1: "x"}], "item 0: key 1 (int) is not a string"),
    ([{"role": "user", "content": "a"}, {"role": "user", "content": "a", "meta": {1: "x"}}],
     'item 1: key 1 (int) at ["meta"] is not a string'),
    ([{True: "x"}], "item 0: key True (bool) is not a string"),
    ([{"type": "x", "v": {False: 1}}], 'item 0: key False (bool) at ["v"] is not a string'),
    ([{None: "x"}], "item 0: key None (NoneType) is not a string"),
    ([{2.5: "x"}], "item 0: key 2.5 (float) is not a string"),
    ([{-7: "x"}], "item 0: key -7 (int) is not a string"),
    ([{1e100: "x"}], "item 0: key 1e+100 (float) is not a string"),
    ([{float("nan"): "x"}], "item 0: key nan (float) is not a string"),
    # Mixed key types: sorting them failed with "'<' not supported".
    ([{"type": "x", 1: "y"}], "item 0: key 1 (int) is not a string"),
    ([{"role": "user", "content": "x", 3: "y"}], "item 0: key 3 (int) is not a string"),
    ([{"type": "x", "parts": [{"a": 1}, {"b": [{(1, 2): 0}]}]}],
     'item 0: key (1, 2) (tuple) at ["parts"][1]["b"][0] is not a string'),
    # Another problem in the same item: the key is still the one named.
    ([{"type": "x", "n": float("nan"), 4: 1}], "item 0: key 4 (int) is not a string"),
])
def test_a_key_that_is_not_a_string_raises_naming_it(items: list[Item], message: str) -> None:
    with pytest.raises(EncodeError, match=re.escape(message)):
        handoff_codec.dumps(items)


def test_a_cycle_with_a_key_that_is_not_a_string_ends() -> None:
    loop: dict[Any, Any] = {"type": "x"}
    loop["self"] = [loop]
    loop[5] = 1
    with pytest.raises(EncodeError, match=r"item 0: key 5 \(int\) is not a string"):
        handoff_codec.dumps([loop])
    del loop[5]
    with pytest.raises(EncodeError, match="Circular reference"):
        handoff_codec.dumps([loop])


@pytest.mark.parametrize("item", [
    {"1": "x"}, {"true": 1, "false": 2, "null": 3}, {"-2.5e+3": "x", "type": "y"},
    {"role": "user", "content": "a", "meta": {"0": {"nan": [{"1e-05": None}]}}},
    {"tun": 1, "fan": 2},
])
def test_string_keys_that_look_like_literals_round_trip(item: Item) -> None:
    assert _read_everywhere(handoff_codec.dumps([item])) == [[item]] * 5


def _objects(value: Any) -> list[dict[Any, Any]]:
    """Every JSON object in ``value``, itself included."""
    if isinstance(value, dict):
        return [value] + [found for member in value.values() for found in _objects(member)]
    if isinstance(value, list):
        return [found for member in value for found in _objects(member)]
    return []


@examples(500)
@given(transcripts.filter(bool), st.data())
def test_a_key_that_is_not_a_string_anywhere_raises_naming_its_item(
    items: list[Item], data: st.DataObject
) -> None:
    handoff_codec.dumps(items)  # the transcript itself is writable
    index = data.draw(st.integers(0, len(items) - 1))
    target = data.draw(st.sampled_from(_objects(items[index])))
    key = data.draw(st.one_of(st.integers(), st.booleans(), st.none(),
                              st.floats(allow_nan=False), st.tuples(st.integers())))
    target[key] = data.draw(json_scalars)
    with pytest.raises(EncodeError, match=rf"^item {index}: key .+ \({type(key).__name__}\)"
                                          r"( at .+)? is not a string"):
        handoff_codec.dumps(items)
