"""The format's words, from the grammar: roles, item types, content part types."""

from __future__ import annotations

import re
from types import MappingProxyType

from ..grammar import alternatives

__all__ = ["CALL_OUTPUTS", "CONTENT_PART_TYPES", "ITEM_TYPES", "KNOWN_ROLES", "OUTPUT_CALLS",
           "PRIVILEGED_ROLES", "RAW_ROLES", "SHARED_ROLES", "TYPED_WORDS", "WORD", "call_id"]

# grammar/summary.lark's KNOWN_ROLE: the roles every reader knows.
KNOWN_ROLES = frozenset(alternatives("KNOWN_ROLE"))
# Each known role as one str object, for every item to share (``.get(role, role)``)
# rather than hold a copy that the regex made: 50 bytes an item.
SHARED_ROLES = MappingProxyType({role: role for role in KNOWN_ROLES})
# grammar/legacy.lark's ITEM_TYPE and CONTENT_PART_TYPE.
ITEM_TYPES = frozenset(alternatives("ITEM_TYPE", "legacy"))
CONTENT_PART_TYPES = frozenset(alternatives("CONTENT_PART_TYPE", "legacy"))
# A word that may be an item's type: what a `type: {json}` record starts with.
WORD = re.compile("[A-Za-z_][A-Za-z0-9_]*")
# The roles a writer that wrote content raw (openai-agents 0.6.0 to 0.17.0) wrote
# before `: `: the message roles of the Responses and Chat Completions APIs.
RAW_ROLES = KNOWN_ROLES | {"tool"}
# The words it wrote before `: {json}` for an item without a role: its type, or
# "item" for an item that had none.
TYPED_WORDS = ITEM_TYPES | {"item"}
# Roles that instruct the model: a turn of one is never taken from a raw writer's text.
PRIVILEGED_ROLES = frozenset({"system", "developer"})
# Each tool call type whose output is an item of its own, and that output's type
# (``X_call`` and ``X_call_output``, ``X_call`` and ``X_output``, ``X`` and ``X_output``);
# the two answer each other by ``call_id``.
CALL_OUTPUTS = MappingProxyType({
    call: output
    for call in sorted(ITEM_TYPES)
    for output in (call + "_output", call.removesuffix("_call") + "_output")
    if output in ITEM_TYPES and output != call
})
OUTPUT_CALLS = MappingProxyType({output: call for call, output in CALL_OUTPUTS.items()})


def call_id(item: dict[str, object]) -> object:
    """What pairs a tool call and its output: a non-empty str ``call_id``; anything else
    pairs nothing (a new object, equal to none)."""
    value = item.get("call_id")
    return value if isinstance(value, str) and value else object()
