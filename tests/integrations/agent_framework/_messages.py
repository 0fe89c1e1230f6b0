"""Hypothesis strategies for Agent Framework messages: every kind of content a message holds."""

from __future__ import annotations

from typing import Any

from agent_framework import Content, Message
from hypothesis import strategies as st

from tests.support.strategies import json_values, texts

__all__ = ["MARKER", "any_content", "any_message", "ids"]

# What Content.to_dict() writes for a failed tool's exception.
MARKER = Content.from_function_result("x", exception="any").to_dict()["exception"]

ids = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=8)
small_dicts = st.dictionaries(texts, json_values, max_size=3)
media_types = st.sampled_from(["image/png", "image/jpeg", "application/pdf", "audio/wav"])


@st.composite
def media(draw: st.DrawFn) -> Content:
    media_type = draw(media_types)
    if draw(st.booleans()):
        return Content.from_data(draw(st.binary(max_size=24)), media_type)
    return Content.from_uri(f"https://example.com/{draw(ids)}", media_type=draw(
        st.none() | st.just(media_type)))


def arguments() -> st.SearchStrategy[Any]:
    return st.none() | small_dicts | texts


@st.composite
def results(draw: st.DrawFn) -> Content:
    result: Any = draw(st.one_of(texts, st.lists(st.one_of(
        texts.map(Content.from_text), media()), max_size=3), json_values))
    return Content.from_function_result(
        draw(ids), result=result, exception=draw(st.none() | texts),
        status=draw(st.none() | st.just("completed")), id=draw(st.none() | ids))


@st.composite
def any_content(draw: st.DrawFn) -> Content:
    kind = draw(st.sampled_from(["text", "text", "blank", "reasoning", "call", "result",
                                 "media", "error", "hosted"]))
    props = draw(st.none() | small_dicts)
    if kind == "text":
        return Content.from_text(draw(texts), additional_properties=props)
    if kind == "blank":
        return Content.from_text(draw(st.sampled_from(["", " ", "\n", "\u2028", "\t "])))
    if kind == "reasoning":
        return Content.from_text_reasoning(text=draw(st.none() | texts), id=draw(st.none() | ids),
                                           protected_data=draw(st.none() | texts))
    if kind == "call":
        return Content.from_function_call(draw(ids), draw(texts), arguments=draw(arguments()),
                                          id=draw(st.none() | ids), additional_properties=props)
    if kind == "result":
        return draw(results())
    if kind == "media":
        return draw(media())
    if kind == "error":
        return Content.from_error(message=draw(texts), error_code=draw(st.none() | ids))
    return Content.from_hosted_file(draw(ids), media_type=draw(st.none() | media_types))


@st.composite
def any_message(draw: st.DrawFn) -> Message:
    return Message(
        draw(st.sampled_from(["user", "assistant", "tool", "system", "developer"]) | texts),
        draw(st.lists(any_content(), max_size=5)),
        author_name=draw(st.none() | texts),
        message_id=draw(st.none() | ids),
        additional_properties=draw(st.none() | small_dicts),
    )


