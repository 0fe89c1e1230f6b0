"""handoff-codec: a lossless, grammar-defined codec for nested handoff-history summaries.

    >>> import handoff_codec
    >>> text = handoff_codec.dumps([{"role": "user", "content": "hello"}])
    >>> handoff_codec.loads(text)
    [{'role': 'user', 'content': 'hello'}]

``dumps``/``loads`` (json-style), ``decode`` (items plus a report of what a
lenient read recovered), ``flatten``/``nest`` (whole conversations), and
``Codec`` for other preambles, markers, limits or signing keys.

Elsewhere: ``handoff_codec.format`` (the format's other names: ``summarize``,
``default_codec``, the flattening report, limits, signing), ``handoff_codec.replay``
(replay to a model), ``handoff_codec.migrate`` (migrate stores) and
``handoff_codec.integrations`` (one module a framework).
"""

from ._version import __version__ as __version__
from .format import (
    Codec,
    Decoded,
    DecodeError,
    EncodeError,
    Format,
    Recovery,
    RecoveryKind,
    decode,
    dumps,
    flatten,
    loads,
    nest,
)

__all__ = [
    "Codec",
    "DecodeError",
    "Decoded",
    "EncodeError",
    "Format",
    "Recovery",
    "RecoveryKind",
    "decode",
    "dumps",
    "flatten",
    "loads",
    "nest",
]
