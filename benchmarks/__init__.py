"""Benchmarks: each compares handoff_codec against openai-agents in one process."""
