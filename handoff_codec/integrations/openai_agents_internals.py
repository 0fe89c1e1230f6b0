"""Every private openai-agents name the package uses, in one module, checked at import.

openai-agents has no public API for four things the package does:

- telling a resumed run which forwarded items are its own run items: the
  SDK reads the attribute ``_nested_history_owned_items`` of a handoff input
  filter's result (``agents.handoffs.history._get_nested_history_owned_items``),
  built from ``agents.run_internal.items`` (:func:`declare_owned_items`);
- writing a ``RedisSession``'s rows through the application's own client
  (``session._redis``, ``session._messages_key``: :func:`redis_list`);
- the table names of a ``SQLAlchemySession`` (``session._messages``,
  ``session._sessions``: :func:`sqlalchemy_tables`);
- an ``EncryptedSession``'s key derivation and envelope test
  (``_ensure_fernet_key_bytes``, ``_derive_session_fernet_key``,
  ``_is_encrypted_envelope`` in ``agents.extensions.memory.encrypt_session``:
  :func:`encryption`).

:mod:`handoff_codec.integrations.openai_agents` and the migration of
encrypted stores (``handoff_codec.migrate``) reach them only through here.
What can be checked without a session is checked when this module is
imported: an openai-agents without one of these names raises ImportError
naming the versions tested (:data:`TESTED`, the range the ``openai-agents``
extra pins). A session's own attributes are checked when a session is given,
with the same message. The encryption helpers need the SDK's ``encrypt``
extra (cryptography); without it, :func:`encryption` raises ImportError
saying so.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._extras import missing

try:
    import agents.handoffs.history as _history
    import agents.run_internal.items as _run_items
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing("openai_agents", "the OpenAI Agents SDK (the 'agents' package, from "
                  "openai-agents)", "openai-agents", exc) from exc

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

__all__ = [
    "TESTED",
    "Encryption",
    "declare_owned_items",
    "encryption",
    "redis_list",
    "sqlalchemy_tables",
]

TESTED = "openai-agents>=0.24,<0.25"
"""The openai-agents versions this module was tested with (the extra's pin)."""

_OWNED = "_nested_history_owned_items"
_ENCRYPT_MODULE = "agents.extensions.memory.encrypt_session"
_ENCRYPT_NAMES = ("_ensure_fernet_key_bytes", "_derive_session_fernet_key",
                  "_is_encrypted_envelope")


def _installed() -> str:
    try:
        return metadata.version("openai-agents")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout of the SDK
        return "unknown"


def unsupported(what: str) -> ImportError:
    """The error for an openai-agents that lacks ``what``: it names the versions tested."""
    return ImportError(
        f"handoff_codec needs {what} from openai-agents, which this version does not have "
        f"(openai-agents {_installed()} is installed; tested with {TESTED}). "
        "Install a tested version: pip install 'handoff-codec[openai-agents]'")


def _need(module: ModuleType, names: Sequence[str]) -> None:
    missing = [name for name in names if not hasattr(module, name)]
    if missing:
        raise unsupported(", ".join(f"{module.__name__}.{name}" for name in missing))


# What a resumed run reads back: the owned-item records and the reader of the attribute.
_need(_run_items, ("NestedHistoryOwnedItem", "digest_input_item",
                   "ensure_nested_history_run_item_occurrence_key"))
_need(_history, (f"_get{_OWNED}",))


def declare_owned_items(data: Any, owned: Sequence[tuple[Any, int]]) -> None:
    """Tell the SDK which items of ``data.input_history`` are its run items, forwarded
    verbatim: ``owned`` holds ``(run_item, index)`` pairs. Without it a run resumed from a
    ``RunState`` sends the forwarded items twice."""
    history = data.input_history
    declared = []
    for run_item, index in owned:
        item = history[index]
        digest = _run_items.digest_input_item(item)
        if digest is None:
            continue
        _run_items.ensure_nested_history_run_item_occurrence_key(run_item)
        declared.append(_run_items.NestedHistoryOwnedItem(
            run_item=run_item, input_index=index, digest=digest, input_item=item))
    object.__setattr__(data, _OWNED, tuple(declared))


def _attribute(session: Any, name: str) -> Any:
    try:
        return getattr(session, name)
    except AttributeError:
        raise unsupported(f"{type(session).__name__}.{name}") from None


def redis_list(session: Any) -> tuple[Any, str]:
    """A ``RedisSession``'s own async client and the key of its list of items."""
    return _attribute(session, "_redis"), str(_attribute(session, "_messages_key"))


def sqlalchemy_tables(session: Any) -> tuple[str, str]:
    """A ``SQLAlchemySession``'s table names: ``(messages, sessions)``."""
    return (str(_attribute(session, "_messages").name),
            str(_attribute(session, "_sessions").name))


@dataclass(frozen=True)
class Encryption:
    """``EncryptedSession``'s key derivation and envelope test, as the SDK does them."""

    master_key: Callable[[str], bytes]
    """The HKDF input for the user's key (a Fernet key, or any string)."""
    session_cipher: Callable[[bytes, str], Fernet]
    """The Fernet cipher of one session, derived from the master key and the session id."""
    is_envelope: Callable[[object], bool]
    """Whether a stored JSON value is an ``EncryptedSession`` envelope."""


def encryption() -> Encryption:
    """The SDK's encryption helpers; ImportError without its ``encrypt`` extra."""
    try:
        module = importlib.import_module(_ENCRYPT_MODULE)
    except ImportError as exc:
        raise ImportError("encrypted sessions need openai-agents with its 'encrypt' extra "
                          f"(cryptography): {exc}") from exc
    _need(module, _ENCRYPT_NAMES)
    master, derive, envelope = (getattr(module, name) for name in _ENCRYPT_NAMES)
    return Encryption(master, derive, envelope)


# The encryption helpers are checked now when the SDK's encrypt extra is installed.
if importlib.util.find_spec("cryptography") is not None:
    encryption()
