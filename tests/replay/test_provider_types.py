"""Which types check a request: the provider SDK's when installed, the rule table otherwise.

The SDKs are optional extras (``handoff-codec[anthropic]``, ``[gemini]``,
``[bedrock]``); the core install imports none of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from handoff_codec.replay import validate

SDKS = ("anthropic", "google.genai", "types_boto3_bedrock_runtime", "boto3", "botocore")


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_core_install_imports_no_provider_sdk() -> None:
    code = ("import sys, handoff_codec, handoff_codec.replay\n"
            "from handoff_codec.replay import restore_empty, PLACEHOLDERS, empty\n"
            "import handoff_codec.cli\n"
            f"print(sorted(m for m in {SDKS!r} if m in sys.modules))")
    assert run_python(code) == "[]"


def test_chat_completions_work_needs_no_provider_sdk() -> None:
    code = ("import sys\nfrom handoff_codec.replay import validate, to_provider, sanitize\n"
            "validate([{'role': 'user', 'content': 'hi'}], target='mistral')\n"
            "to_provider([{'role': 'user', 'content': 'hi'}], 'chat_completions')\n"
            f"print(sorted(m for m in {SDKS!r} if m in sys.modules))")
    assert run_python(code) == "[]"


@pytest.mark.parametrize(("target", "schema"), [
    ("anthropic", "anthropic.types.MessageParam"),
    ("gemini", "google.genai.types.Content"),
    ("bedrock", "types_boto3_bedrock_runtime.type_defs.MessageTypeDef"),
    ("chat_completions", "openai.types.chat.ChatCompletionMessageParam"),
    ("mistral", "openai.types.chat.ChatCompletionMessageParam"),
])
def test_validate_says_which_types_it_used(target: str, schema: str) -> None:
    report = validate([{"role": "user", "content": "hi"}], target=target)
    assert report.checked_with == schema
    assert report.model_dump(mode="json")["checked_with"] == schema


@pytest.mark.parametrize(("target", "module"), [
    ("anthropic", "anthropic"), ("gemini", "google.genai"),
    ("bedrock", "types_boto3_bedrock_runtime")])
def test_without_the_sdk_the_rule_table_is_used(target: str, module: str) -> None:
    # Make the SDK unimportable in a child process, as if the extra were not installed.
    code = (f"import sys\nsys.modules[{module!r}] = None\n"
            "from handoff_codec.replay import validate, to_provider\n"
            f"report = validate([{{'role': 'user', 'content': ''}}], target={target!r})\n"
            f"conversion = to_provider([{{'role': 'user', 'content': 'hi'}}], {target!r})\n"
            "import json\n"
            "print(json.dumps([report.checked_with, [p.code for p in report.errors],\n"
            "                  conversion.checked_with]))")
    checked_with, errors, converted_with = json.loads(run_python(code))
    assert checked_with == "rules" and converted_with == "rules"
    assert errors == ["empty-text"]  # the rule table still speaks


def test_validate_reports_what_only_the_native_conversion_finds() -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "[1, 2]"},
        {"type": "function_call_output", "call_id": "a", "output": "ok"}]
    assert validate(items).ok
    report = validate(items, target="anthropic")
    assert [(p.index, p.code) for p in report.errors] == [(1, "native")]
    assert "JSON object" in report.errors[0].message


def test_a_late_tool_answer_is_an_error_everywhere() -> None:
    # "An assistant message with 'tool_calls' must be followed by tool messages responding
    # to each 'tool_call_id'" https://github.com/BerriAI/litellm/issues/10083
    late = [{"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"role": "user", "content": "still there?"},
            {"type": "function_call_output", "call_id": "a", "output": "ok"}]
    on_time = [late[0], late[2], late[1]]
    for target in ("chat_completions", "anthropic", "gemini", "bedrock", "mistral"):
        assert [(p.index, p.code) for p in validate(late, target=target).errors] == [
            (0, "tool-call-answered-late")], target
        assert validate(on_time, target=target).ok, target


def test_duplicate_tool_ids_and_answers_are_errors() -> None:
    # "`tool_use` ids must be unique" https://github.com/anthropics/claude-code/issues/20901
    call = {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "a", "output": "ok"}
    assert [(p.index, p.code) for p in validate([call, call, answer]).errors] == [
        (1, "duplicate-tool-call-id")]
    assert [(p.index, p.code) for p in validate([call, answer, answer]).errors] == [
        (2, "duplicate-tool-output")]
    assert validate([call, answer]).ok
