"""The summary format: everything that knows the summary's bytes.

    >>> from handoff_codec.format import Codec
    >>> codec = Codec(start="<history>", end="</history>")
    >>> codec.loads(codec.dumps([{"role": "user", "content": "hi"}]))
    [{'role': 'user', 'content': 'hi'}]

``Codec`` (``codec``) holds one envelope, its limits and its signing keys;
``write`` turns items into text; ``read`` turns text into items, with the
report of ``report``; ``flatten`` expands the summary messages of a
conversation; ``errors``, ``limits``, ``signing`` and ``placeholders`` hold
the rest. The module functions of ``handoff_codec`` use ``default_codec``.
"""

from __future__ import annotations

from .codec import (
    DEFAULT_END,
    DEFAULT_PREAMBLE,
    DEFAULT_START,
    LEGACY_PREAMBLE,
    Codec,
    default_codec,
)
from .errors import DecodeError, DecodeReason, EncodeError, LossWarning
from .flattening import FlattenReport, Reason, TrustDecision
from .report import Decoded, Format, Recovery, RecoveryKind

__all__ = [
    "DEFAULT_END",
    "DEFAULT_PREAMBLE",
    "DEFAULT_START",
    "LEGACY_PREAMBLE",
    "Codec",
    "DecodeError",
    "DecodeReason",
    "Decoded",
    "EncodeError",
    "FlattenReport",
    "Format",
    "LossWarning",
    "Reason",
    "Recovery",
    "RecoveryKind",
    "TrustDecision",
    "decode",
    "default_codec",
    "dumps",
    "flatten",
    "flatten_report",
    "loads",
    "nest",
    "summarize",
]

decode = default_codec.decode
dumps = default_codec.dumps
loads = default_codec.loads
summarize = default_codec.summarize
flatten = default_codec.flatten
flatten_report = default_codec.flatten_report
nest = default_codec.nest
