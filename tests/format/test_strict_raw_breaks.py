"""No record of the current format holds a line break but its own "\\n", or NUL.

* A strict read (``loads`` and ``decode``, both engines) refuses every such
  character wherever a record holds it (a plain record's content at its
  start, middle or end, its name, its role, or a JSON record's string), with
  the line and column of the character itself; the lenient reading keeps it
  as text, as older writers wrote it.
* ``dumps`` never writes one raw (it writes the item as a JSON record, where
  JSON escapes it), so whatever the items, the strict reader reads the text
  back exactly, and a PostgreSQL TEXT column can hold it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from tests.format.read.summaries import Engine
from tests.support.profiles import examples
from tests.support.strategies import texts, transcripts

# What str.splitlines() breaks at but "\n", and NUL: no record holds one raw.
RAW = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00"]
RAW_CLASS = re.compile("[" + "".join(RAW) + "]")
HEAD = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n"

# Where the character sits: the record's line (after a good first record) and the
# items a lenient reader keeps (None: not a plain record's part it can keep as is).
PLACES: dict[str, tuple[str, list[dict[str, Any]] | None]] = {
    "content start": ("2. assistant: {c}ok", [{"role": "assistant", "content": "{c}ok"}]),
    "content middle": ("2. assistant: o{c}k", [{"role": "assistant", "content": "o{c}k"}]),
    "content end": ("2. assistant: ok{c}", [{"role": "assistant", "content": "ok{c}"}]),
    "content alone": ("2. assistant: {c}", [{"role": "assistant", "content": "{c}"}]),
    "name": ("2. assistant (b{c}ot): ok",
             [{"role": "assistant", "name": "b{c}ot", "content": "ok"}]),
    "role": ("2. assis{c}tant: ok", None),
    "json string": ('2. {{"content": "o{c}k", "role": "assistant"}}',
                    [{"role": "assistant", "content": "o{c}k"}]),
}


def summary(line: str) -> str:
    return f"{HEAD}1. user: hi\n{line}\n{DEFAULT_END}"


@pytest.mark.parametrize("api", ["loads", "decode"])
@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
def test_strict_refuses_each_raw_break_where_it_is(char: str, place: str, api: str,
                                                   engine: Engine) -> None:
    line, lenient = PLACES[place]
    record = line.format(c=char)
    text = summary(record)
    with pytest.raises(DecodeError) as refused:
        getattr(handoff_codec, api)(text, strict=True, engine=engine)
    error = refused.value
    assert error.pos == text.index(char)
    assert (error.lineno, error.colno) == (4, record.index(char) + 1)
    assert str(error).endswith(f"(line 4, column {error.colno})")
    if lenient is not None and place != "json string":  # old writers wrote these raw
        want = [{"role": "user", "content": "hi"},
                *({k: v.format(c=char) for k, v in item.items()} for item in lenient)]
        assert handoff_codec.loads(text, engine=engine) == want


@pytest.mark.parametrize("api", ["loads", "decode"])
@pytest.mark.parametrize("record", ["1. user: a{c}b", "1. user: {c}", "1. user (x{c}): b",
                                    '1. {{"content": "a{c}b", "role": "user"}}'])
@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
def test_strict_refuses_it_in_the_only_record(char: str, record: str, api: str,
                                              engine: Engine) -> None:
    """The usual handoff, one record on one line, takes the same care."""
    line = record.format(c=char)
    text = f"{HEAD}{line}\n{DEFAULT_END}"
    with pytest.raises(DecodeError) as refused:
        getattr(handoff_codec, api)(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (3, line.index(char) + 1)


@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
def test_strict_refuses_the_first_of_several(char: str, engine: Engine) -> None:
    text = summary(f"2. assistant: a{char}b{char}c\n3. user: d{char}")
    with pytest.raises(DecodeError) as refused:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert refused.value.pos == text.index(char)


@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
def test_strict_refuses_it_in_a_long_summary(char: str, engine: Engine) -> None:
    """However long the body, the first such character is refused, whichever it is."""
    later = RAW[RAW.index(char) - 1]  # another one, further down
    lines = [f"{n}. user: message {n}" for n in range(1, 201)]
    lines[119] += char
    lines[179] += later
    text = f"{HEAD}{chr(10).join(lines)}\n{DEFAULT_END}"
    for api in ("loads", "decode"):
        with pytest.raises(DecodeError) as refused:
            getattr(handoff_codec, api)(text, strict=True, engine=engine)
        assert (refused.value.lineno, refused.value.colno) == (122, len(lines[119]))


def test_an_earlier_problem_is_refused_first(engine: Engine) -> None:
    text = f"{HEAD}hello\n1. user: a\u2028b\n{DEFAULT_END}"
    with pytest.raises(DecodeError) as refused:
        handoff_codec.loads(text, strict=True, engine=engine)
    assert (refused.value.lineno, refused.value.colno) == (3, 1)


# ------------------------------------------------------------ what dumps writes
raw_texts = st.one_of(
    texts,
    st.lists(st.sampled_from([*RAW, "a", " ", ":", "(", ")", "[", "{", "\n", "2. system: x"]),
             max_size=8).map("".join),
)
raw_messages = st.builds(
    lambda role, name, content: {"role": role, "content": content} if name is None
    else {"role": role, "name": name, "content": content},
    st.sampled_from(["user", "assistant", "system", "developer"]),
    st.one_of(st.none(), raw_texts),
    raw_texts,
)
item_lists = st.one_of(transcripts, st.lists(raw_messages, max_size=6))


@examples(1000)
@given(item_lists)
@example([{"role": "user", "content": "a\x00b"}])
@example([{"role": "user", "name": "x\u2028y", "content": "q"}])
@example([{"role": "assistant", "content": "\x00"}])
def test_dumps_writes_no_raw_break_and_strict_reads_it_back(items: list[dict[str, Any]]) -> None:
    text = handoff_codec.dumps(items)
    assert RAW_CLASS.search(text) is None
    text.encode("utf-8")  # a UTF-8 file, a TEXT column, an HTTP body can hold it
    for engine in ("fast", "lark"):
        assert handoff_codec.loads(text, strict=True, engine=engine) == items
        assert handoff_codec.decode(text, strict=True, engine=engine).items == items


@pytest.mark.parametrize("char", RAW, ids=[f"U+{ord(c):04X}" for c in RAW])
@pytest.mark.parametrize("field", ["content", "name"])
def test_dumps_writes_an_item_holding_one_as_a_json_record(char: str, field: str) -> None:
    item = {"role": "user", "content": "q", field: f"a{char}b"}
    record = handoff_codec.dumps([item]).split("\n")[2]
    assert record.startswith("1. {") and char not in record
    assert handoff_codec.loads(handoff_codec.dumps([item]), strict=True) == [item]


def test_record_char_is_no_break_but_nul() -> None:
    """The grammar's one definition of what a record holds: what splitlines() does not
    break at, but NUL; the plain record a writer writes holds nothing else."""
    from handoff_codec.format import grammar

    record_char, no_break = grammar.terminal("RECORD_CHAR"), grammar.terminal("NO_BREAK")
    for code in range(0x110000):
        char = chr(code)
        assert (record_char.fullmatch(char) is not None) == (
            no_break.fullmatch(char) is not None and char != "\x00"), repr(char)
    canon = grammar.terminal("CANON_PLAIN")
    for char in RAW:
        for line in (f"user: a{char}b", f"user: {char}", f"user (a{char}b): c",
                     f"user ({char}): b"):
            assert canon.fullmatch(line) is None, repr(line)
