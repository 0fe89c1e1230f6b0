"""The router's one look at a summary changes no reading, only which reader reads it.

``decode`` (and ``loads``) in lenient mode must give what trying the strict
reader's single pass on every text, then the lenient reader, gives: the same
items, format, candidates and recoveries, or the same DecodeError. The look
may send to the lenient reader only text that the strict pass gives up on,
and sends there at once the texts that show a legacy form.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START, LEGACY_PREAMBLE
from handoff_codec.format.read.lenient import parse_lenient
from handoff_codec.format.read.router import _LOOK
from handoff_codec.format.read.strict import read_current
from tests.format.test_engines import SIGNATURE, arbitrary, bodies
from tests.support.strategies import TEXT_PIECES, characters, spliced

CODEC = handoff_codec.format.default_codec
LITERALS = CODEC._literals


def looks_current(text: str, _literals: object = None) -> bool:
    return CODEC._router.looks_current(text)

HEAD = f"{DEFAULT_PREAMBLE}\n{DEFAULT_START}\n"
LEGACY_HEAD = f"{LEGACY_PREAMBLE}\n{DEFAULT_START}\n"
EXAMPLES = settings(max_examples=2000, deadline=None)

# Record lines that each reader reads its own way, or that the look must not misjudge.
LINES = [
    "1. user: a\n", "1. user:a\n", "1. user: [a\n", "1. user:[a\n", "1. user\n", "2. user \n",
    "1. user (bob): x\n", "1. user (bob): [x\n", "1. user (a:b): x\n", "2. function_call: {}\n",
    "1. {}\n", '2. {"role": "user", "content": "[1]"}\n', "1. tool: x\n", "1. : x\n",
    "x\n", "\n", "1.user: a\n", "01. user: a\n", "1. assistant: \n", "1. users: a\n",
    "(no previous turns recorded)\n", "1. user (bob)\n", "2. assistant (a b) \t\n",
    "1. user (a:b)\n", "1. user ( )\n", "1. user (bob)x\n", "1. user (bob\n", "1. users\n",
    "1. user (a(b)\n", "1. user (a)(b)\n",
    "1. user\t \n", "1. user \u2028\n",
    # content spilled over lines, and `type: {json}` records
    "1. user: a\nmore\n", "1. user:\n\n", "1. user: [a\nb\n", "1. function_call: {}\nx\n",
    "1. user: a\n<CONVERSATION HISTORY>\n", "3.5 x\n", "1. tool: [1]\n", "1. tool:\n",
    '1. message: {"role": "user", "content": "[1]"}\n', '1. tool: {"type": "x"}\n',
    "1. tool (x): {}\n", "1. my tool: {}\n", "1. user (bob): a\nb\n",
]
heads = st.sampled_from([HEAD, HEAD + SIGNATURE, LEGACY_HEAD, LEGACY_HEAD + SIGNATURE])
record_soup = spliced([*LINES, *TEXT_PIECES], st.text(characters, min_size=14, max_size=120),
                      min_size=0, max_size=12, max_run=4)
envelopes = st.builds(lambda head, body, end: head + body + end, heads, record_soup,
                      st.sampled_from([DEFAULT_END, DEFAULT_END + "\n", "", DEFAULT_END[1:]]))
in_order = st.builds(
    lambda head, lines: head + "".join(f"{n}. {line}" for n, line in enumerate(lines, 1))
    + DEFAULT_END,
    heads, st.lists(st.sampled_from([line.partition(". ")[2] or line for line in LINES]),
                    min_size=1, max_size=6))
any_text = st.one_of(arbitrary, bodies(), envelopes, in_order,
                     bodies().map(lambda text: LEGACY_HEAD + text[len(HEAD):]))


def _outcome(read: Any) -> tuple[Any, ...]:
    try:
        decoded = read()
    except DecodeError as exc:
        return ("error", exc.msg, exc.pos, exc.lineno, exc.colno, exc.expected, exc.reason)
    return ("decoded", decoded.items, decoded.format, decoded.candidates,
            decoded.model_dump()["recoveries"])


def unrouted(text: str, engine: Any = "fast") -> Any:
    """The reading without the router's look: the strict pass on every text, then the
    lenient reader."""
    items = read_current(text, LITERALS, CODEC.max_depth, engine, max_records=CODEC.max_records)
    if items is not None:
        return handoff_codec.Decoded(items=items, format=handoff_codec.Format.CURRENT,
                                     recoveries=[])
    return parse_lenient(text, LITERALS, CODEC.start, CODEC.end, CODEC.max_depth,
                         max_records=CODEC.max_records)


def assert_routed_as_unrouted(text: str) -> None:
    # Sound: the look never turns away text that the strict pass reads.
    if read_current(text, LITERALS, CODEC.max_depth, max_records=CODEC.max_records) is not None:
        assert looks_current(text, LITERALS), text
    for engine in ("fast", "lark"):
        expected = _outcome(lambda: unrouted(text, engine))  # noqa: B023
        assert _outcome(lambda: handoff_codec.decode(text, engine=engine)) == expected  # noqa: B023
        if expected[0] == "decoded":
            assert handoff_codec.loads(text, engine=engine) == expected[1]


@EXAMPLES
@given(any_text)
@example(HEAD + "1. user:a\n" + DEFAULT_END)
@example(HEAD + "1. user (bob): x\n" + DEFAULT_END)
@example(HEAD + SIGNATURE + "1. user: a\n" + DEFAULT_END)
@example(HEAD + "(no previous turns recorded)\n" + DEFAULT_END)
def test_the_routed_reading_is_the_unrouted_one(text: str) -> None:
    assert_routed_as_unrouted(text)


@pytest.mark.parametrize("text", [
    HEAD + "1. user: a\n2. assistant:b\n3. {}\n" + DEFAULT_END,
    HEAD + SIGNATURE + "1. user (bob): x\n" + DEFAULT_END,
    HEAD + "(no previous turns recorded)\n" + DEFAULT_END,
    handoff_codec.dumps([{"role": "user", "content": "a\nb"}, {"type": "function_call"}]),
])
def test_current_text_goes_to_the_strict_pass(text: str) -> None:
    assert looks_current(text, LITERALS)
    assert handoff_codec.decode(text).format is handoff_codec.Format.CURRENT


@pytest.mark.parametrize("body", [
    "1. user\n",  # a bare role
    "1. user: a\nmore of it\n",  # a line that is not numbered
    "1. function_call: {}\n",  # a typed record
    "1. user: [1]\n",  # list content
    "1. user:[1]\n",
    "1. tool: a\n",  # a role that is not known
])
def test_legacy_text_goes_to_the_lenient_reader_at_once(body: str) -> None:
    assert not looks_current(HEAD + body + DEFAULT_END, LITERALS)
    assert not looks_current(LEGACY_HEAD + "1. user: a\n" + DEFAULT_END, LITERALS)
    assert_routed_as_unrouted(HEAD + body + DEFAULT_END)


@pytest.mark.parametrize("body", [
    "1. user\n",
    "1. user: a\n2. assistant\n3. user (bob) \t\n4. {}\n",
    "1. assistant (bot)\n",
    # content spilled over lines, as 0.6 to 0.17.0 wrote it
    "1. user: a\nb\n2. assistant: c\n",
    "1. user: What is 2+2?\n\n2. assistant: 4\n\n",
    "1. user:\nx\n",
    "1. user: a\n" + "x\n" * 300 + "2. assistant: b\n",  # past the look, and a run
    "1. user: a\n</CONVERSATION HISTORY>\n2. assistant: b\n",  # an end marker: content
    # `type: {json}` records
    '1. user: q\n2. function_call: {"call_id": "c1", "name": "f", "arguments": "{}"}\n'
    '3. function_call_output: {"call_id": "c1", "output": "42"}\n4. assistant: 42\n',
    '1. message: {"role": "user", "content": "hi", "type": "x"}\n',
    '1. user: a\nb\n2. function_call: {}\n3. user\n',
    "1. user (alice): Yes.\nAlso a window seat.\n2. assistant (bot): Booked.\n\nXK42Q\n",
    '1. {"role": "user", "content": "[1]"}\n2. user\n',  # without the old writer's sign
])
def test_loads_reads_legacy_forms_in_the_single_pass(body: str) -> None:
    # loads needs no report: its pass reads a bare role as the lenient reader
    # does, an empty turn, content spilled over lines, and `type: {json}`;
    # decode reads the text leniently, for the report.
    text = HEAD + body + DEFAULT_END
    assert CODEC._router.fast_items(text) == handoff_codec.decode(text).items
    assert handoff_codec.decode(text).format is not handoff_codec.Format.CURRENT
    assert_routed_as_unrouted(text)


@pytest.mark.parametrize("body", ["1. tool: x\n", "1. tool:\n", "1. tool: [\n"])
def test_loads_reads_a_type_word_without_json_as_a_turn_of_that_role(body: str) -> None:
    # The lenient reader reads `tool: x` as the strict one does, a turn of role
    # "tool" (current text); loads' pass reads it in place, not as a typed item.
    text = HEAD + body + DEFAULT_END
    assert CODEC._router.fast_items(text) == handoff_codec.decode(text).items == [
        {"role": "tool", "content": body.partition(":")[2].strip(" \n")}]
    assert_routed_as_unrouted(text)


PARTS = '[{"type": "input_text", "text": "hi"}]'


@pytest.mark.parametrize(("body", "is_list"), [
    # no sign of the writer: an array of content parts is list content, another stays text
    (f"1. user: {PARTS}\n2. assistant: Hello\n", True),
    ("1. user: [1]\n", False),
    ("1. user: [not json\n", False),
    (f"1. user (bob): {PARTS}\n2. assistant\n", True),  # a bare role is no sign
    # the old writer's sign (spilled content, `type: {json}`): any array is a list
    ("1. user: [1]\n2. assistant: a\nb\n", True),
    ("1. user: [1]\n2. function_call: {}\n", True),
    ('1. {"role": "user", "content": "[1]"}\n2. user: a\nmore\n', True),
    ('1. user: a\nmore\n2. {"role": "user", "content": "[1]"}\n', True),
    ('1. message: {"role": "user", "content": "[1]"}\n', True),
    ("1. tool: [1]\n2. function_call: {}\n", True),
    # a later writer's sign (a JSON record, an empty `N. role: `): it stays text
    (f"1. user: {PARTS}\n2. {{}}\n", False),
    (f"1. user: {PARTS}\n2. assistant: \n", False),
    (f"1. user: {PARTS}\n2. assistant: \n3. assistant\n", False),
    ('1. {"role": "user", "content": "[1]"}\n2. function_call: {}\n', True),
])
def test_loads_reads_list_content_as_the_lenient_reader(body: str, is_list: bool) -> None:
    # openai-agents 0.6 to 0.17.0 wrote list content as a JSON array; whether
    # content that starts with "[" is one depends on the signs in the whole text.
    text = HEAD + body + DEFAULT_END
    items = CODEC._router.fast_items(text)
    assert items == handoff_codec.decode(text).items
    assert items is not None
    assert any(isinstance(item.get("content"), list) for item in items) is is_list
    assert_routed_as_unrouted(text)


@pytest.mark.parametrize("body", [
    "1. user (a:b)\n",  # not LEGACY_BARE's name: the lenient reader reads it otherwise
    "1. user\nmore\n",  # a line that is not numbered, after a bare role
    "1. {}\nmore\n",  # or after JSON
    '1. function_call: {}\nmore\n',  # or after `type: {json}`
    "1. tool (bob): a\nmore\n",  # or after a turn of a role that is not known
    # a summary spilled into the content: its lines are read by the general rule
    "1. user: see\n<CONVERSATION HISTORY>\n(no previous turns recorded)\n"
    "</CONVERSATION HISTORY>\n2. assistant: b\n",
    "1. user: log:\n<CONVERSATION HISTORY>\nx\n",
    "1. user (bob): log:\n<CONVERSATION HISTORY>\nx\n",
    "1. user: a\n2. user (bob): log:\n<CONVERSATION HISTORY>\nx\n",
    "1. user: a\n3.5 is more\n",  # a numbered line out of sequence
    "1. tool (x): {}\n",  # a typed record has no name
    "1. my tool: {}\n",  # nor a space in its type
])
def test_loads_leaves_other_legacy_text_to_the_lenient_reader(body: str) -> None:
    text = HEAD + body + DEFAULT_END
    assert CODEC._router.fast_items(text) is None
    assert_routed_as_unrouted(text)


@pytest.mark.parametrize("key", [None, b"k"])
@pytest.mark.parametrize("pad", range(_LOOK - 56, _LOOK + 24, 3))
def test_the_look_ends_on_a_whole_line(pad: int, key: bytes | None) -> None:
    # The look covers the first lines of a long body: a line that its end cuts
    # is not judged by what the cut leaves of it.
    codec = handoff_codec.Codec(key=key)
    items = [{"role": "user", "content": "x" * pad}, {"type": "a"},
             {"role": "user", "content": "y"}, {"role": "assistant", "content": "z" * pad}]
    text = codec.dumps(items)
    assert codec._router.looks_current(text)
    assert codec.decode(text).format is handoff_codec.Format.CURRENT
    # A legacy line near the end of the look or past it: the look or the strict
    # pass gives up on it, and the lenient reader reads it.
    legacy = text.replace("\n4. assistant:", "\n4. assistant\n5. assistant:")
    if key is None:
        assert_routed_as_unrouted(legacy)
    assert codec.decode(legacy).items[3] == {"role": "assistant", "content": ""}
