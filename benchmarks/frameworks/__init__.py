"""What each framework's default handoff hands the next agent, against ours, on one transcript.

    python -m benchmarks.frameworks [--repeat N]

One module a framework (``langgraph``, ``google_adk``, ``agent_framework``),
each with ``measure(repeat)``: the same transcript (described in each
module's docstring) built in that framework's objects, handed over by the
framework's own handoff and by ours, counted, and the cost of our rendering
beside the framework's own as the median ratio of interleaved timed pairs.
The output is the table of docs/frameworks.md. Times are the CPU time of this
process (``time.process_time``), which other processes on a shared machine do
not add to as they add to wall-clock time.
"""
