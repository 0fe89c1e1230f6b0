"""Benchmarks, each run as ``python -m benchmarks.<name>`` (see docs/performance.md).

``codec``: encode, decode and flatten against openai-agents in one process,
and the json floor. ``scaling``: decoding time from 1 MB to 100 MB, and on
hostile input. ``migrate``: store migration throughput.
"""
