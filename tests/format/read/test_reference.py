"""The fast engine and the Lark reference (``engine="lark"``) read every text alike.

Both must give the same items and the same report (format, recoveries,
writers, unkept, the candidates' readings and items), or the same DecodeError
(message, position, line, column, expected, reason), strict and lenient. The
texts are built from a pool of body lines of every kind the grammar gives a
line (``KNOWN_LINE``, ``JSON_LINE``, ``PLAIN_LINE``, ``BARE_LINE``,
``NUMBERED_LINE``, ``TEXT_LINE``): known roles, JSON records, bare roles,
typed records, content arrays, names, marker lines, U+2028, numbered in
sequence and out of it; and from arbitrary text and edited summaries.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import handoff_codec
from handoff_codec import Codec, DecodeError
from handoff_codec.format import DEFAULT_END, DEFAULT_PREAMBLE, DEFAULT_START
from tests.format.read.summaries import HEAD, LEGACY_HEAD, SIGNATURE, Engine, outcome
from tests.support.strategies import TEXT_PIECES, characters, spliced, texts, transcripts

EXAMPLES = settings(max_examples=2000, deadline=None)
PARTS = '[{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "u"}]'
# Each line after its number and ". " (``{n}`` where the number goes), by the kind
# the grammar gives it.
KNOWN_LINES = ["user: a", "assistant:b", "system: ", "developer:", "user: see:",
               'user: {"a": 1}', "user:  [x", "assistant: a\u2028b", "user: 2. system: x"]
JSON_LINES = ['{"role": "user", "content": "a\\nb"}', '{"type": "function_call", "call_id": "c"}',
              "{}", '{"a": NaN}', '{"a": -Infinity}', "{bad", '{"a": [[[[[1]]]]]}',
              '{"a": 1} x', '{"role": "user", "content": "[1]"}', "[1, 2]",
              '{"role": "assistant", "content": ""}', '{"content": "x\\ry", "role": "user"}']
PLAIN_LINES = ["tool: x", 'custom: {"a": 1}', 'function_call: {"call_id": "c"}', "message: {}",
               'reasoning: {"summary": []}', "user (bob): hi", "user (team:alice): q",
               "assistant (bot) (0): ", f"user: {PARTS}", "user: [1, 2]",
               'user:[{"type": "refusal", "refusal": "no"}]', ": x", "my tool: {}",
               "reasoning (x): {}", 'function_call: {"a": 1} x', f"user (bob): {PARTS}",
               "assistant (agent (v2)): a", 'tool: [{"type": "output_text", "text": "t"}]',
               "function_call: not json", "x y: z"]
BARE_LINES = ["user", "assistant (bot)", "system \t", "developer "]
NUMBERED_LINES = ["", " hello world", "user: a", "5 x", " (x", " user (a", " user ( )"]
TEXT_LINES = ["", "more", "  indented", DEFAULT_START, DEFAULT_END, "(no previous turns recorded)",
              "a\u2028b", "x: y", "\u0661. system: x", '{"role": "system"}', "user: hi",
              "1 user: a", "- 2. system: x"]
NUMBERED_KINDS = {"known": KNOWN_LINES, "json": JSON_LINES, "plain": PLAIN_LINES,
                  "bare": BARE_LINES}


@st.composite
def pool_bodies(draw: st.DrawFn) -> list[str]:
    """Body lines drawn from the pool, numbered mostly in sequence."""
    lines: list[str] = []
    number = 0
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["known", "json", "plain", "bare", "numbered", "text"]))
        if kind == "text":
            lines.append(draw(st.sampled_from(TEXT_LINES)))
            continue
        how = draw(st.sampled_from(["next"] * 6 + ["same", "skip", "back", "zero", "lead",
                                                   "huge", "one"]))
        number += how != "same"
        label = {"skip": str(number + 1), "back": str(max(number - 2, 0)), "zero": "0",
                 "lead": f"0{number}", "huge": "9" * 20, "one": "1"}.get(how, str(number))
        if kind == "numbered":
            lines.append(label + "." + draw(st.sampled_from(NUMBERED_LINES)))
        else:
            lines.append(f"{label}. " + draw(st.sampled_from(NUMBERED_KINDS[kind])))
    return lines


heads = st.sampled_from([HEAD, HEAD, HEAD, LEGACY_HEAD, HEAD + SIGNATURE, LEGACY_HEAD + SIGNATURE,
                         DEFAULT_PREAMBLE + "\n", ""])
endings = st.sampled_from(["\n" + DEFAULT_END] * 8 + ["", "\n", "\n" + DEFAULT_END + "\n",
                                                      "\n" + DEFAULT_END + "x"])
pool_texts = st.builds(lambda head, body, end: head + "\n".join(body) + end,
                       heads, pool_bodies(), endings)

# Arbitrary text: fragments of the format and any characters run together, and
# summaries as written with a short span replaced.
FRAGMENTS = [HEAD, DEFAULT_PREAMBLE, DEFAULT_START, DEFAULT_END, "\n" + DEFAULT_END, SIGNATURE,
             "(no previous turns recorded)\n", "1. user: a\n", "1. user: [a\n", "2. {}\n",
             '1. {"a": NaN}\n', "1. ", ". ", "\n", ":", "{", "[", "(", ")", "9",
             "2. function_call: {}\n", f"1. user: {PARTS}\n"]
soup = spliced([*FRAGMENTS, *TEXT_PIECES], st.text(characters, min_size=14, max_size=240),
               min_size=1, max_size=36, max_run=6)


@st.composite
def edited_summaries(draw: st.DrawFn) -> str:
    text = handoff_codec.dumps(draw(transcripts))
    start = draw(st.integers(0, len(text)))
    stop = draw(st.integers(start, min(len(text), start + 3)))
    replacement = draw(st.one_of(st.sampled_from(FRAGMENTS), texts, st.just("")))
    return text[:start] + replacement + text[stop:]


any_text = st.one_of(pool_texts, pool_texts, soup, edited_summaries(),
                     transcripts.map(handoff_codec.dumps))
CODECS = {"default": Codec(), "max_depth=3": Codec(max_depth=3),
          "max_records=4": Codec(max_records=4)}
codecs = st.sampled_from(sorted(CODECS))


def assert_engines_agree(text: str, codec: Codec) -> None:
    for strict in (False, True):
        lark = outcome(text, "lark", strict=strict, codec=codec)
        fast = outcome(text, "fast", strict=strict, codec=codec)
        assert fast == lark, (strict, fast, lark)
        for engine in ("fast", "lark"):
            try:
                items = codec.loads(text, strict=strict, engine=engine)
            except DecodeError:
                assert fast[0] == "error"
            else:
                assert ("decoded", items) == fast[:2]


@EXAMPLES
@given(any_text, codecs)
@example(HEAD + "1. user: \n3. system: pwned\n2. assistant: ok\n" + DEFAULT_END, "default")
@example(HEAD + f"1. user: {PARTS}\n2. assistant: a cat\n" + DEFAULT_END, "default")
@example(HEAD + "2. user: a\n3. user: b\n4. user: c\n" + DEFAULT_END, "default")
@example(HEAD + "1. user: a\nb\n2. system: c\n2. assistant: d\n" + DEFAULT_END, "default")
@example(HEAD + '1. custom: {"a": 1}\n2. function_call: {}\n' + DEFAULT_END, "default")
@example(HEAD + '1. user: a\n2. item:{"a": 1}\n3. critic: {}\n' + DEFAULT_END, "default")
@example(HEAD + "1. {bad}\n" + DEFAULT_END + "x", "default")
# a JSON record with Python's separators after spilled content (no writer writes both)
@example(HEAD + '1. user (bob): hi\n\n\n2. {"role": "user", "content": "a\\nb"}\n' + DEFAULT_END,
         "default")
@example(HEAD + '1. user: hi\nmore\n2. {"type": "function_call", "call_id": "c"}\n' + DEFAULT_END,
         "default")
# content that may be a list once its spilled lines are read with it
@example(HEAD + '1. user: [\n{"type": "input_text", "text": "hi"}]\n' + DEFAULT_END, "default")
# a flagged reading with a record right below `N. role: `: both offer it as content
@example(HEAD + "1. system: \n2. user\n" + DEFAULT_END, "default")
@example("", "default")
def test_the_engines_agree_on_any_text(text: str, codec: str) -> None:
    assert_engines_agree(text, CODECS[codec])


def test_the_pool_reaches_every_reading() -> None:
    """The texts above read with every kind of recovery and candidate, and fail for every
    reason: the property is not vacuous."""
    kinds: set[str] = set()
    failures: set[str] = set()
    readings: set[str] = set()

    @settings(max_examples=1500, deadline=None, database=None, derandomize=True)
    @given(pool_texts, codecs)
    def collect(text: str, codec: str) -> None:
        found = outcome(text, "lark", codec=CODECS[codec])
        if found[0] == "error":
            failures.add(str(found[-1]))
            return
        kinds.update(str(recovery.kind) for recovery in found[3])
        readings.update(reading for reading, _ in found[6])

    collect()
    assert kinds == {str(kind) for kind in handoff_codec.RecoveryKind}, kinds
    assert failures >= {"syntax", "numbering", "depth", "limit"}, failures
    assert len(readings) >= 5, readings  # as numbered, lists, lowered, typed words, names


@pytest.mark.parametrize("items", [
    [{"role": "user", "content": "a"}, {"type": "x", "v": [1, 2]}],
    [],
    [{"role": "user", "name": "bob", "content": "a\nb"}, {"role": "tool", "content": None}],
])
def test_codec_reads_with_either_engine(items: list[dict[str, Any]], engine: Engine) -> None:
    text = handoff_codec.dumps(items)
    assert handoff_codec.loads(text, engine=engine) == items
    assert handoff_codec.loads(text, strict=True, engine=engine) == items
    decoded = handoff_codec.decode(text, engine=engine)
    assert decoded.items == items and list(decoded.recoveries) == []
    assert decoded.format is handoff_codec.Format.CURRENT and decoded.writers == ()


@pytest.mark.parametrize("strict", [False, True])
def test_an_unknown_engine_is_refused(strict: bool) -> None:
    text = handoff_codec.dumps([])
    with pytest.raises(ValueError, match="engine"):
        handoff_codec.loads(text, strict=strict, engine="re")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="engine"):
        handoff_codec.decode(text, strict=strict, engine="re")  # type: ignore[arg-type]


def test_the_pool_holds_a_line_of_every_kind() -> None:
    """Each list of the pool holds lines of its own kind, as the grammar's line terminals
    give it (read with the legacy grammar's parser)."""
    from handoff_codec.format import grammar

    order = ["KNOWN_LINE", "JSON_LINE", "PLAIN_LINE", "BARE_LINE", "NUMBERED_LINE", "TEXT_LINE"]
    pools = {"KNOWN_LINE": ["1. " + line for line in KNOWN_LINES],
             "JSON_LINE": ["1. " + line for line in JSON_LINES if line.startswith("{")],
             "PLAIN_LINE": ["1. " + line for line in PLAIN_LINES],
             "BARE_LINE": ["1. " + line for line in BARE_LINES],
             "NUMBERED_LINE": ["1." + line for line in NUMBERED_LINES[1:]] + ["1. [1, 2]"],
             "TEXT_LINE": TEXT_LINES}
    for kind, lines in pools.items():
        for line in lines:
            first = next(name for name in order
                         if grammar.terminal(name, "legacy").fullmatch(line + "\n"))
            assert first == kind, (line, first)



@pytest.mark.parametrize("body", ['0. {"a": NaN}', '1. user: a\n3. {bad',
                                  '2. {"a": ' + "[" * 300 + "]" * 300 + "}"])
def test_a_strict_read_names_the_same_first_error(body: str) -> None:
    text = HEAD + body + "\n" + DEFAULT_END
    assert outcome(text, "fast", strict=True) == outcome(text, "lark", strict=True)


def _long_body(seed: int, count: int) -> str:
    """``count`` lines of the pool, numbered mostly in sequence, from a fixed seed."""
    import random

    rng = random.Random(seed)
    lines, number = ["1. user: start"], 1
    # Marker lines make what follows a quoted summary: half the seeds have none.
    texts = TEXT_LINES if seed % 2 else [t for t in TEXT_LINES
                                         if t not in (DEFAULT_START, DEFAULT_END)]
    for _ in range(count):
        kind = rng.choice(["known", "known", "json", "plain", "bare", "numbered", "text"])
        if kind == "text":
            lines.append(rng.choice(texts))
            continue
        number += rng.random() < 0.995
        label = str(number if rng.random() < 0.995 else rng.choice([number + 1, 1, 0]))
        if kind == "numbered":
            lines.append(label + "." + rng.choice(NUMBERED_LINES))
        else:
            lines.append(f"{label}. " + rng.choice(NUMBERED_KINDS[kind]))
    return HEAD + "\n".join(lines) + "\n" + DEFAULT_END


@pytest.mark.parametrize("seed", range(4))
def test_the_engines_agree_on_long_bodies(seed: int) -> None:
    """Bodies past 4,096 lines, which the fast engine reads without keeping each line."""
    assert_engines_agree(_long_body(seed, 6_000), CODECS["default"])
