"""Message content: the text that may hold a summary.

openai-agents writes a summary as ``{"role": "assistant", "content": TEXT}``.
The openai-agents-js writer in development (``handoffHistory.ts``) writes the
same text as ``"content": [{"type": "output_text", "text": TEXT}]``, and
openai-agents 0.24 gives a resumed run's assistant messages that shape too.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing is not imported at run time (see .models)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["as_text_message", "summary_text"]

# The keys an output_text part may carry besides its text. Annotations and
# logprobs must be empty: a part that holds them is model output, not a summary.
_PART_KEYS = frozenset({"type", "text", "annotations", "logprobs"})


def summary_text(content: Any) -> str | None:
    """The text ``content`` holds if it can be a summary's content, else None.

    A str is returned as it is. A non-empty list whose every part is an
    ``output_text`` part (a mapping with a str ``text``, no other keys than
    ``type``, ``text`` and empty ``annotations`` / ``logprobs``) gives its texts
    joined with no separator, as the openai-agents-js writer joins them. Any
    other content (``input_text`` parts, images, refusals, None) gives None.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)) or not content:
        return None
    texts: list[str] = []
    for part in content:
        if (not isinstance(part, Mapping) or part.get("type") != "output_text"
                or not isinstance(part.get("text"), str) or not set(part) <= _PART_KEYS
                or part.get("annotations") or part.get("logprobs")):
            return None
        texts.append(part["text"])
    return "".join(texts)


def as_text_message(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """``item`` with list content of output_text parts given as its text; else ``item`` itself.

    Only the content changes (the role and every other key stay), so
    ``Codec.is_summary`` can then decide on it as on any message.
    """
    content = item.get("content")
    if isinstance(content, str):
        return item
    text = summary_text(content)
    return item if text is None else {**item, "content": text}
