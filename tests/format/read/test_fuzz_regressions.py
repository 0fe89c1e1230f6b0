"""Crashes and super-linear cases found while fuzzing and benchmarking issue 6.

Each was a failure before its fix: an exception other than DecodeError out of
a reader, or a regular expression that backtracked quadratically (a 1 MB input
took hours). The inputs are the minimal ones found.
"""

from __future__ import annotations

import pytest

from handoff_codec import Codec, DecodeError, EncodeError
from tests.format.read.summaries import Engine
from tests.support.sdk import sdk_read, sdk_summarize

HEAD = ("For context, here is the conversation so far between the user and the previous agent:\n"
        "<CONVERSATION HISTORY>\n")
TAIL = "\n</CONVERSATION HISTORY>"
BIG = Codec(max_bytes=64 << 20)
MB = 1 << 20


def read_both(text: str, engine: Engine, codec: Codec = BIG) -> list[object]:
    """The lenient and strict results (items, or the DecodeError's message)."""
    results: list[object] = []
    for strict in (False, True):
        try:
            results.append(codec.loads(text, strict=strict, engine=engine))
        except DecodeError as exc:
            results.append(exc.msg)
    return results


def test_record_number_over_the_int_digit_limit(engine: Engine) -> None:
    # was: ValueError "Exceeds the limit (4300 digits) for integer string conversion"
    lenient, strict = read_both(HEAD + "9" * 5000 + ". user: hi" + TAIL, engine)
    # A record numbered out of sequence, read as a record of its own.
    assert lenient == [{"role": "user", "content": "hi"}]
    assert isinstance(strict, str)


def test_integer_over_the_digit_limit_in_a_json_record(engine: Engine) -> None:
    # was: ValueError out of json.loads (the Agents SDK 0.24 reader still raises it)
    text = HEAD + '1. {"type": "x", "n": ' + "7" * 5000 + "}" + TAIL
    lenient, strict = read_both(text, engine)
    assert isinstance(strict, str) and strict.startswith("invalid JSON record")
    assert isinstance(lenient, list)  # read as a plain record, with a NOT_JSON recovery
    with pytest.raises(ValueError, match="4300"):
        sdk_read({"role": "assistant", "content": text})


@pytest.mark.parametrize("record", [
    "1. x (" + "a" * MB,  # an unclosed "(name": PLAIN_RECORD / LEGACY_PLAIN name group
    "1. x (" + "a " * (MB // 2),
    "1. user (" + "(" * MB,  # LEGACY_NAMED's lazy name group
])
def test_unclosed_names_are_read_in_linear_time(record: str, engine: Engine) -> None:
    # Before the fix each of these took hours (quadratic backtracking);
    # 40,000 characters took 48 to 67 seconds.
    lenient, strict = read_both(HEAD + record + TAIL, engine)
    assert lenient is not None and strict is not None


def test_unclosed_name_still_reads_as_before(engine: Engine) -> None:
    text = HEAD + "1. user (bob: hi\n2. user (al ice): x\n3. user ( b ): y" + TAIL
    assert Codec().loads(text, strict=True, engine=engine) == [
        {"role": "user (bob", "content": "hi"},
        {"role": "user", "name": "al ice", "content": "x"},
        {"role": "user", "name": " b ", "content": "y"},
    ]


@pytest.mark.parametrize("content", ["[):-", "[[<<01):-", "[b): c"])
def test_named_record_whose_content_holds_close_paren_colon(content: str,
                                                           engine: Engine) -> None:
    items = [{"role": "user", "name": "a", "content": content}]
    text = Codec().dumps(items)
    # strict and the SDK read it right
    assert Codec().loads(text, strict=True, engine=engine) == items
    assert sdk_read({"role": "assistant", "content": text}) == items
    # lenient read name 'a): [' before the fix
    assert Codec().loads(text, engine=engine) == items


def test_surrogate_pair_code_points(engine: Engine) -> None:
    items = [{"k\u2029\ud8bc\udf96": None, "user": None}, {"role": "user", "content": None}]
    # JSON can write the two code points only as the one character U+3F396.
    with pytest.raises(EncodeError, match=r"item 0 holds U\+D8BC U\+DF96"):
        Codec().dumps(items)
    # Held raw (as no UTF-8 file can hold them), they still read back exactly.
    text = (HEAD + '1. {"k\\u2029\ud8bc\udf96": null, "user": null}\n'
            '2. {"content": null, "role": "user"}' + TAIL)
    assert read_both(text, engine) == [items, items]


@pytest.mark.parametrize(("items", "line"), [
    # The Agents SDK writes role "assistant (bot)" with name "0" like this, and
    # reads it back so; the lenient reader read role "assistant", name "bot) (0".
    ([{"role": "assistant (bot)", "name": "0", "content": ""}], "1. assistant (bot) (0): "),
    ([{"role": "user (x)", "name": "y", "content": "q"}], "1. user (x) (y): q"),
    # A hypothesis run found a role that closes its parenthesis but does not
    # end with it: the lenient reader read role "assistant", name "bot)0 (x".
    ([{"role": "assistant (bot)0", "name": "x", "content": ""}], "1. assistant (bot)0 (x): "),
    ([{"role": "assistant (bot)0", "name": "<CONVERSATION HISTORY>", "content": ""}],
     "1. assistant (bot)0 (<CONVERSATION HISTORY>): "),
])
def test_sdk_record_whose_role_holds_parentheses(items: list[dict[str, str]], line: str,
                                                engine: Engine) -> None:
    message = sdk_summarize(items)
    assert line in message["content"].splitlines()
    assert sdk_read(message) == items
    assert Codec().loads(message["content"], engine=engine) == items


def test_known_role_with_a_colon_in_its_name_still_reads_as_named(engine: Engine) -> None:
    text = HEAD + "1. user (team:alice): q\n2. assistant (a(b): r" + TAIL
    assert Codec().loads(text, engine=engine) == [
        {"role": "user", "name": "team:alice", "content": "q"},
        {"role": "assistant", "name": "a(b", "content": "r"}]


def test_a_name_holding_close_paren_colon_is_not_written_plain(engine: Engine) -> None:
    # The atheris harness found this: `developer (nt): Hi A): x` matches
    # CANON_PLAIN but reads back as name "nt" and content "Hi A): x".
    items = [{"role": "developer", "name": "nt): Hi A", "content": "x"},
             {"role": "developer", "name": "nt", "content": "Hi A): x"}]
    text = Codec().dumps(items)
    # Both are JSON: a name followed by content that holds "): " has two readings.
    assert "1. {" in text and '2. {"content": "Hi A): x"' in text
    assert Codec().loads(text, engine=engine) == items
    assert Codec().loads(text, strict=True, engine=engine) == items
