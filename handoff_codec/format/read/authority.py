"""Authority: which records a raw writer's line of content must not become unproven.

A writer that wrote content raw (openai-agents 0.6 to 0.17.0) let any line of
a turn's text look like a record. Where the evidence leaves such a writer, a
record that follows a `role: content` record may have been that turn's text.
Read as a record, an ordinary change of role (a user or assistant turn, a
tool call followed by the output that answers it) harms no one; but a line
must never gain more authority than the record it would end:

* a ``system`` or ``developer`` turn after a turn of lower rank;
* a tool call that no output after it answers, or a tool output that answers
  no call before it (after any turn). A call and its output pair only when no
  record content may have spilled from (a `role: content` record) lies between
  them: an output below such a record may be its text.

The reader reads such a line as content of the record above and reports it
``ambiguous``; the writer (``write.py``) never leaves one unproven: it writes
the record above as a JSON object, after which no writer's content spills.
docs/spec.md, "Authority", states the rule.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (see ..models)
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence
    from typing import Any, Final

__all__ = ["CALLS", "OUTPUTS", "RANKS", "RESULTS", "RISING", "Why", "lowered", "may_rise",
           "paired"]

# The rank of a message's role: a line read as a record of a higher rank than
# the one above it would raise that text's authority.
RANKS = {"system": 2, "developer": 1}

# Each tool call that an output item answers, by the key they share.
CALLS = {
    "function_call": "call_id", "custom_tool_call": "call_id", "computer_call": "call_id",
    "local_shell_call": "call_id", "shell_call": "call_id", "apply_patch_call": "call_id",
    "tool_search_call": "call_id", "mcp_approval_request": "id", "program": "call_id",
}
# Each tool output: the call it answers and the key they share.
OUTPUTS = {
    "function_call_output": ("function_call", "call_id"),
    "custom_tool_call_output": ("custom_tool_call", "call_id"),
    "computer_call_output": ("computer_call", "call_id"),
    "local_shell_call_output": ("local_shell_call", "call_id"),
    "shell_call_output": ("shell_call", "call_id"),
    "apply_patch_call_output": ("apply_patch_call", "call_id"),
    "tool_search_output": ("tool_search_call", "call_id"),
    "mcp_approval_response": ("mcp_approval_request", "approval_request_id"),
    "program_output": ("program", "call_id"),
    # openai-agents-js: a function call's result, keyed "callId" (as its call is)
    "function_call_result": ("function_call", "callId"),
}
# The words a record that may rise starts with (a role, or a typed record's type).
# Tool items that carry their own result (a built-in tool's call with its output), or
# tools a model may call: no output item answers them, so none pairs.
RESULTS = frozenset(("code_interpreter_call", "file_search_call", "image_generation_call",
                     "mcp_call", "mcp_list_tools", "web_search_call", "additional_tools",
                     "configuration_update"))
RISING = frozenset((*RANKS, "tool", *CALLS, *OUTPUTS, *RESULTS))

class Why:
    """Why a record was not read from a line (indexes into the note's words)."""

    # Final: constants of the class, as mypyc compiles them (an attribute else).
    SYSTEM: Final = 0
    DEVELOPER: Final = 1
    CALL: Final = 2  # a tool call that no output answers
    OUTPUT: Final = 3  # a tool output that answers no call
    WORD: Final = 4  # a role no raw writer wrote (only a writer that escapes line breaks did)
    RESULT: Final = 5  # a tool item that carries its own result (RESULTS)
    NOT_ITEM: Final = 6  # a typed record's head with no JSON object after it
    WORDS: Final = ("a system turn", "a developer turn", "a tool call that no output answers",
                    "a tool output that answers no call",
                    "a turn of a role that openai-agents 0.6 to 0.17.0 never wrote",
                    "a tool item that carries its own result or tools",
                    "an item written as 'type: {json}' (no JSON object follows the word)")


# Each tool item's type: whether it is a call, the call type it pairs by, and the key.
_LINKS = {**{kind: (True, kind, key) for kind, key in CALLS.items()},
          **{kind: (False, call, key) for kind, (call, key) in OUTPUTS.items()}}


def may_rise(item: Mapping[str, Any]) -> bool:
    """Whether ``item`` is one :func:`lowered` may lower: a system or developer turn, or a
    tool item (:func:`_link` is not None)."""
    kind = item.get("type")
    if type(kind) is str and (kind in _LINKS or kind in RESULTS):
        return True
    role = item.get("role")
    return type(role) is str and (_role_rank(role) > 0 or (
        role == "tool" and item.get("type", "message") == "message"))


def _rank(item: Mapping[str, Any]) -> int:
    role = item.get("role")
    return _role_rank(role) if type(role) is str else 0


def _role_rank(role: str) -> int:
    """The rank of ``role`` (RANKS), also of a role that starts as a ranked one with a name
    left open (`system (note`, `developer (\n)`): no writer writes such a role, and a
    line read so must not gain less scrutiny than the turn it looks like."""
    rank = RANKS.get(role)
    if rank is None:
        head, paren, _ = role.partition(" (")
        rank = RANKS.get(head, 0) if paren else 0
    return rank


def _link(item: Mapping[str, Any]) -> tuple[bool, object] | None:
    """``(True, (call type, key))`` for a tool call, ``(False, (call type, key))`` for a
    tool output (a ``tool`` message has no key a plain record could hold: None), else
    None."""
    kind = item.get("type")
    if type(kind) is str:
        link = _LINKS.get(kind)
        if link is not None:
            is_call, call, name = link
            key = item[name] if name in item else item.get("callId")
            return is_call, (call, key) if type(key) is str else None
        if kind in RESULTS:
            return True, None
    if item.get("role") == "tool" and item.get("type", "message") == "message":
        return False, None
    return None


def paired(items: Sequence[Mapping[str, Any]], among: Iterable[int],
           spilling: Collection[int] = ()) -> set[int]:
    """The tool calls and outputs of ``among`` (indexes of ``items``, in order) paired one
    to one: an output answers the earliest call of its kind and id before it that no
    output answered yet, unless one of ``spilling`` (a record content may have spilled
    from) came between them: that output may be the record's text."""
    waiting: dict[tuple[str, str], list[int]] = {}  # the calls no output answered yet
    found: set[int] = set()
    for index in among:
        if index in spilling:
            waiting.clear()
        item = items[index]
        kind = item.get("type")
        link = _LINKS.get(kind) if type(kind) is str else None
        if link is None:
            continue  # no tool item with a key: it pairs with nothing
        is_call, call, name = link
        key = item[name] if name in item else item.get("callId")
        if type(key) is not str:
            continue
        if is_call:
            waiting.setdefault((call, key), []).append(index)
        else:
            calls = waiting.get((call, key))
            if calls:
                found.add(calls.pop(0))
                found.add(index)
    return found


def lowered(items: Sequence[Mapping[str, Any]], guarded: Sequence[int],
            among: Iterable[int] | None = None,
            spilling: Collection[int] = ()) -> dict[int, int]:
    """The items of ``guarded`` (indexes, each with an item before it) that would gain
    authority from the item before them, with :class:`Why`; ``among`` the indexes of the
    items that may be tool items (None: any), paired only when one of ``guarded`` is a
    tool item; ``spilling`` those of ``among`` no output at or after which answers a call
    before it (a record content may have spilled from came between).

    A turn of a rank no higher than the one above it gains nothing (a developer
    turn after a system turn).
    """
    found: dict[int, int] = {}
    pairs: set[int] | None = None
    for index in guarded:
        item = items[index]
        rank = _rank(item)
        if rank:
            if rank > _rank(items[index - 1]):
                found[index] = Why.SYSTEM if rank == 2 else Why.DEVELOPER
            continue
        if pairs is None:
            pairs = paired(items, range(len(items)) if among is None else among, spilling)
        if index in pairs:
            continue
        link = _link(item)
        if link is not None:
            found[index] = Why.RESULT if item.get("type") in RESULTS else (
                Why.CALL if link[0] else Why.OUTPUT)
    return found
