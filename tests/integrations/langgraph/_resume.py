"""One phase of a swarm run on a SQLite checkpoint, in a process of its own.

    python -m tests.integrations.langgraph._resume DATABASE start|resume

``start``: agent a asks the user (``interrupt()``) in parallel with its handoff to
b; the run pauses. ``resume``: a new process builds the graph, tools,
middleware and models anew and resumes the thread with the user's answer; a
hands off alone and b answers. The last line printed is JSON: the pending
interrupts, what b's model was sent (``messages_to_dict``) and the types of
the state's messages.
"""

from __future__ import annotations

import json
import sys

from langchain_core.messages import messages_to_dict
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command, interrupt

from tests.integrations.langgraph._graphs import ScriptedChatModel, call, reply, swarm


@tool
def ask_user(question: str) -> str:
    """Ask the user a question and wait for the answer."""
    return str(interrupt(question))


def main(database: str, phase: str) -> None:
    if phase == "start":
        scripts = {"a": [reply("Let me ask.", call("ask_user", "q1", question="Refund order 42?"),
                               call("transfer_to_b", "h1"))],
                   "b": []}
        command: object = {"messages": [{"role": "user", "content": "Charged twice."}]}
    else:
        scripts = {"a": [reply("", call("transfer_to_b", "h2"))], "b": [reply("Refunded.")]}
        command = Command(resume="approved")
    models = {name: ScriptedChatModel(script=script) for name, script in scripts.items()}
    with SqliteSaver.from_conn_string(database) as saver:
        app = swarm(models, {"a": [ask_user]}, checkpointer=saver)
        config = {"configurable": {"thread_id": "thread-1"}}
        app.invoke(command, config)
        snapshot = app.get_state(config)
        print(json.dumps({
            "interrupts": [i.value for task in snapshot.tasks for i in task.interrupts],
            "b_requests": [messages_to_dict(r) for r in models["b"].requests],
            "state": [m.type for m in snapshot.values["messages"]],
        }))


if __name__ == "__main__":
    main(*sys.argv[1:3])
