"""Tests of the framework integrations in ``handoff_codec.integrations``."""
