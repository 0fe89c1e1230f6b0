"""Summary size and estimated tokens for a transcript with three 1 MB images.

    python benchmarks/media_summary_size.py

Ours (``handoff_codec.integrations.openai_agents.history_mapper``) against the Agents SDK's
default writer. Each image is 1 MB (1,048,576 bytes) of random data sent as a
``data:image/png;base64,...`` URL in an ``input_image`` part. Tokens are
counted with tiktoken (o200k_base) when it is installed, else estimated as
characters / 4.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from agents.handoffs.history import default_handoff_history_mapper

from handoff_codec.integrations.openai_agents import history_mapper

MB = 1024 * 1024


def transcript() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for n in range(3):
        url = "data:image/png;base64," + base64.b64encode(os.urandom(MB)).decode()
        items.append({"role": "user", "content": [
            {"type": "input_text", "text": f"what is in photo {n + 1}?"},
            {"type": "input_image", "image_url": url, "detail": "auto"}]})
        items.append({"role": "assistant", "content": f"photo {n + 1} shows a cat"})
    return items


def tokens(text: str) -> tuple[int, str]:
    try:
        import tiktoken  # type: ignore[import-not-found]
    except ImportError:
        return len(text) // 4, "chars/4"
    return len(tiktoken.get_encoding("o200k_base").encode(text)), "tiktoken o200k_base"


def summary_text(items: list[Any]) -> str:
    return "\n".join(i["content"] for i in items
                     if i.get("role") == "assistant" and isinstance(i.get("content"), str))


def main() -> None:
    items = transcript()
    for name, mapper in (("handoff_codec", history_mapper), ("openai-agents 0.24.0",
                                                              default_handoff_history_mapper)):
        out = mapper(items)  # type: ignore[arg-type]
        text = summary_text(out)
        count, how = tokens(text)
        forwarded = sum(1 for i in out if not (i.get("role") == "assistant"
                                               and isinstance(i.get("content"), str)))
        print(f"{name}: {len(out)} items ({forwarded} forwarded as input items), summary "
              f"text {len(text.encode()):,} bytes, ~{count:,} tokens ({how})")


if __name__ == "__main__":
    main()
