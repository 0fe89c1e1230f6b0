"""Agent A delegates to agent B in PydanticAI, offline, and B's model is sent ONE summary.

    python examples/pydantic_ai_delegation.py

A triage agent calls two tools in parallel: ``lookup`` and ``ask_billing``,
whose body runs the billing agent with :func:`delegate`. Both agents run on
PydanticAI's ``FunctionModel`` (scripted, no network). The billing agent's
model is sent its own system prompt, then one user message (a framing text,
the summary of the triage conversation, the user's image), then the question.
Passing ``message_history=ctx.messages`` instead is refused by ``Agent.run``
(the ``ask_billing`` call has no result yet), and once repaired it sends the
triage agent's system prompt in place of the billing agent's.
"""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import handoff_codec
from handoff_codec.integrations.pydantic_ai import DelegationReport, delegate

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(16))


def triage_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Thinks, calls ``lookup`` and ``ask_billing`` at once, then passes billing's answer on."""
    results = {part.tool_name: part.content for part in messages[-1].parts
               if isinstance(part, ToolReturnPart)}
    if "ask_billing" in results:
        return ModelResponse([TextPart(f"Billing says: {results['ask_billing']}")])
    return ModelResponse([
        ThinkingPart("A refund question with a photo: billing decides."),
        ToolCallPart("lookup", {"order": 42}, "call_lookup"),
        ToolCallPart("ask_billing", {"question": "Can order 42 be refunded?"}, "call_billing"),
    ])


sent_to_billing: list[list[ModelMessage]] = []


def billing_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    sent_to_billing.append(messages)
    return ModelResponse([TextPart("Yes: damaged on delivery, refund approved.")])


triage = Agent(FunctionModel(triage_model), system_prompt="You are triage.", name="triage")
billing = Agent(FunctionModel(billing_model), system_prompt="You are billing.", name="billing")
reports: list[DelegationReport] = []


@triage.tool_plain
def lookup(order: int) -> dict[str, object]:
    """The order's record."""
    return {"order": order, "status": "delivered"}


@triage.tool
async def ask_billing(ctx: RunContext[None], question: str) -> str:
    """Ask the billing agent."""
    result = await delegate(billing, ctx, question, on_report=reports.append)
    return result.output


async def main() -> None:
    result = await triage.run(["My parcel arrived broken, refund?",
                               BinaryContent(PNG, media_type="image/png")])
    print("triage answered:", result.output)

    (request,) = sent_to_billing[0]
    assert isinstance(request, ModelRequest)
    print("\nbilling's model was sent one request:")
    for part in request.parts:
        if isinstance(part, SystemPromptPart):
            print("  system:", part.content)
        elif isinstance(part, UserPromptPart) and isinstance(part.content, list):
            framing, summary, *media = part.content
            print("  user (framing):", framing)
            print("  user (summary):")
            print("\n".join("    " + line for line in str(summary).splitlines()))
            print("  user (attached):", [type(m).__name__ for m in media])
        elif isinstance(part, UserPromptPart):
            print("  user:", part.content)

    items = handoff_codec.loads(str(request.parts[1].content[1]))  # type: ignore[index]
    calls = {i["call_id"] for i in items if i.get("type") == "function_call"}
    answered = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
    assert calls == answered, "every call in the summary has a result"
    assert not any(i.get("role") == "system" for i in items), "none of triage's system prompt"
    report = reports[0]
    print(f"\nleft out: {report.instructions} system prompt(s) of triage; "
          f"placeholder results for {list(report.pending)}; "
          f"{report.attachments} attachment(s)")


if __name__ == "__main__":
    asyncio.run(main())
