"""Use handoff_codec inside the OpenAI Agents SDK (``pip install 'handoff-codec[openai-agents]'``).

Two integrations, each a one-line switch:

``history_mapper``
    A ready ``HandoffHistoryMapper``::

        RunConfig(nest_handoff_history=True, handoff_history_mapper=history_mapper)

    The SDK keeps its own nesting pipeline and calls the mapper for the summary
    text. Our summaries are wire-compatible with the SDK's reader: it flattens
    them back exactly on the next handoff, so content ``None``, names, multi-line
    text and U+2028 injection attempts survive any number of hops. But the SDK
    flattens *earlier* summaries with its own reader before the mapper sees the
    transcript, so summaries the SDK reads lossily (ones written by openai-agents
    0.6 to 0.19, or by its current writer from adversarial content) are already
    damaged when they reach the mapper. Use it for new conversations that only
    ever pass through this codec.

``nest_input_filter()``
    A handoff ``input_filter``::

        RunConfig(handoff_input_filter=nest_input_filter())
        # or, for one handoff: handoff(agent, input_filter=nest_input_filter())

    An input filter takes precedence over the SDK's nesting, so the SDK's reader
    is never involved: earlier summaries are flattened with our reader (legacy
    forms included) and the new summary is written by our encoder. It mirrors the
    SDK's split between summary and verbatim items. Use it when sessions or
    inputs may hold summaries written by older SDK versions or by the SDK's own
    writer, or may carry adversarial content.

Both never raise in the handoff path: a value that is not JSON is written as
``str(value)``, media and items over a limit are forwarded as input items at
their place, and each such fallback is logged once per handoff and reported
in a :class:`HandoffReport` to an ``on_report`` callback (see docs/agents.md).
With no explicit codec, both follow the SDK's
``set_conversation_history_wrappers`` at each handoff, wrappers that span
lines included. With a codec that has a key, both expand only earlier
summaries whose signature verifies (``trust="signed"``) and forward any other
summary message unexpanded; docs/security.md has the threat model.

This module imports ``agents`` when it is imported. The core package
(``import handoff_codec``) never does.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from ._extras import missing

try:
    import agents as _agents  # noqa: F401  (the check that the extra is installed)
    from agents.handoffs import (
        HandoffHistoryMapper,
        HandoffInputData,
        get_conversation_history_wrappers,
        nest_handoff_history,
    )
    from agents.handoffs.history import default_handoff_history_mapper
    from agents.items import RunItem, ToolApprovalItem, TResponseInputItem
    from agents.memory import SessionABC as _SessionABC
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise missing("openai_agents", "the OpenAI Agents SDK (the 'agents' package, from "
                  "openai-agents)", "openai-agents", exc) from exc

from ..format import DEFAULT_PREAMBLE, Codec, default_codec

if TYPE_CHECKING:
    from ..format.flattening import Trust
from ._common_items import Notes, ResponsesReader
from ._history import (
    Fallback,
    FallbackKind,
    HandoffReport,
    HistoryWriter,
    ReportCallback,
    deliver,
    read_history,
    warn_if_degraded,
)
from .openai_agents_internals import declare_owned_items, redis_list, sqlalchemy_tables
from .report import Encoded, Omission, ReadBack, _dumped, _loaded, is_plain_json

__all__ = [
    "Fallback",
    "FallbackKind",
    "HandoffReport",
    "dumps",
    "encode",
    "history_mapper",
    "loads",
    "make_history_mapper",
    "nest_input_filter",
    "read",
]

Item = dict[str, Any]

# What the SDK (agents.handoffs.history, 0.24) treats as summary-only: these
# item types are never forwarded verbatim, since the summary already holds them.
_SUMMARY_ONLY_TYPES = frozenset({"function_call", "function_call_output", "reasoning"})
# SDK-internal keys that session storage may leave on items. The SDK removes
# them from the flattened history before summarizing; so do we.
_INTERNAL_KEYS = ("_agents_tool_description", "_agents_tool_title", "created_by")


@functools.lru_cache(maxsize=16)
def _codec_for(start: str, end: str) -> tuple[Codec, str | None]:
    """The codec for the SDK's preamble and one pair of wrappers (cached per pair).

    Markers may span lines, as the SDK's may. Wrappers that a ``Codec`` refuses
    give the default codec and the reason, for a ``wrappers`` fallback.
    """
    try:
        return Codec(preamble=DEFAULT_PREAMBLE, start=start, end=end), None
    except ValueError as exc:
        return Codec(), (f"the SDK's wrappers {start!r}, {end!r} cannot be markers ({exc}); "
                         "the default markers were written")


def _active(codec: Codec | None) -> tuple[Codec, str | None]:
    """``codec``, or the one for the SDK's wrappers as they are set right now, and the
    reason when those wrappers could not be followed."""
    if codec is not None:
        return codec, None
    return _codec_for(*get_conversation_history_wrappers())


def _active_codec(codec: Codec | None) -> Codec:
    """``codec``, or the one for the SDK's wrappers as they are set right now."""
    return _active(codec)[0]


def _writer(codec: Codec | None, out: list[Item]) -> HistoryWriter:
    """A writer for this handoff's codec, with a ``wrappers`` fallback noted if any."""
    active, fallback = _active(codec)
    writer = HistoryWriter(active, out)
    if fallback is not None:
        writer.note(FallbackKind.WRAPPERS, fallback, -1)
    return writer


def _check_trust(codec: Codec | None, trust: Trust | None) -> None:
    """ValueError, when the integration is made, for a ``trust`` it could not apply."""
    if trust not in (None, "any", "signed"):
        raise ValueError(f"trust must be 'any' or 'signed', not {trust!r}")
    if trust == "signed" and (codec is None or (codec.key is None and not codec.verify_keys)):
        raise ValueError("trust='signed' needs a codec with key or verify_keys")


def _trust(codec: Codec, trust: Trust | None) -> Trust:
    """``trust``, or its default: ``"signed"`` when the codec signs what it writes."""
    if trust is not None:
        return trust
    return "signed" if codec.key is not None else "any"


def _internal_error(transcript_items: int, exc: Exception) -> HandoffReport:
    report = HandoffReport(transcript_items, (Fallback(
        FallbackKind.INTERNAL_ERROR, -1, f"{type(exc).__name__}: {exc}; the SDK's nesting "
        "was used instead"),))
    warn_if_degraded(report)
    return report


def make_history_mapper(
    codec: Codec | None = None,
    *,
    trust: Trust | None = None,
    on_report: ReportCallback | None = None,
) -> HandoffHistoryMapper:
    """A ``HandoffHistoryMapper`` that writes the summary with ``codec``.

    Pass it as ``RunConfig(nest_handoff_history=True, handoff_history_mapper=...)``.
    With no ``codec``, each handoff uses the SDK's preamble and the wrappers
    that ``agents.handoffs.get_conversation_history_wrappers()`` returns at
    that moment, so ``set_conversation_history_wrappers`` is followed (wrappers
    that cannot be markers give the default ones, and a ``wrappers`` fallback).

    A signing ``codec`` (one with a key or ``verify_keys``) is refused with
    ValueError unless ``trust="any"``: the SDK expands every earlier summary,
    signed or not, before it calls a mapper, so a signed mapper would sign
    the turns of an unsigned lookalike summary. :func:`nest_input_filter`
    checks signatures itself; ``trust="any"`` says the caller signs what it
    writes and trusts whatever it reads.

    The mapper returns the summary message (more than one when a limit
    splits it), with media messages and unwritable items forwarded at their
    place. It never raises: see :mod:`handoff_codec.integrations._history` for each
    fallback. ``on_report`` is called with a :class:`HandoffReport` after
    every handoff.

    Limitation: the SDK runs its own reader over earlier summaries before it
    calls the mapper. Summaries it reads lossily (legacy ones, or ones its own
    writer produced from adversarial content) are damaged before the mapper can
    help, and it expands every message with its envelope, signed or not, so
    ``trust`` applies only to the summary messages the SDK leaves to the mapper
    (see docs/security.md); use :func:`nest_input_filter` for those.
    """
    _check_trust(codec, trust)
    if codec is not None and (codec.key is not None or codec.verify_keys) and trust != "any":
        raise ValueError(
            "a history mapper cannot check signatures: the Agents SDK expands every earlier "
            "summary, signed or not, before it calls the mapper, so it would sign the turns "
            "of an unsigned lookalike; use nest_input_filter(codec=...) instead, or pass "
            "trust='any' to sign what is written without checking what is read")

    def handoff_codec_history_mapper(
        transcript: list[TResponseInputItem],
    ) -> list[TResponseInputItem]:
        items = cast(list[Mapping[str, Any]], transcript)
        try:
            out: list[Item] = []
            writer = _writer(codec, out)
            # the SDK's reader expanded our summaries before the mapper: any item may be one
            for item, untrusted in read_history(writer, items, _trust(writer.codec, trust),
                                                expanded_before=True):
                if untrusted:
                    writer.forward(item)
                else:
                    writer.add(item)
            writer.flush(force=not out)
            report = writer.report()
        except Exception as exc:  # the handoff must go on: the SDK's own mapper
            deliver(_internal_error(len(items), exc), on_report)
            return default_handoff_history_mapper(transcript)
        deliver(report, on_report)
        return cast(list[TResponseInputItem], out)

    return handoff_codec_history_mapper


history_mapper: HandoffHistoryMapper = make_history_mapper()
"""A ready ``HandoffHistoryMapper``: the SDK's envelope and wrappers, no report callback."""


def _plain_input(run_item: RunItem) -> Item:
    """The Responses input item of a run item, as the SDK converts it."""
    item = cast(Item, copy.deepcopy(run_item.to_input_item()))
    if item.get("status", "") is None:  # the SDK drops a null status too
        del item["status"]
    return item


def _strip_internal(item: Item) -> Item:
    for key in _INTERNAL_KEYS:
        item.pop(key, None)
    return item


def _is_programmatic(item: Mapping[str, Any]) -> bool:
    """An item of a hosted-program transcript, which the SDK never splits off."""
    if item.get("type") in {"program", "program_output"}:
        return True
    caller = item.get("caller")
    if isinstance(caller, Mapping):
        return caller.get("type") == "program"
    return getattr(caller, "type", None) == "program"


def _forward_pre_item(item: Mapping[str, Any]) -> bool:
    """The SDK's rule for items from before the handoff turn: only non-assistant turns."""
    if _is_programmatic(item) or item.get("role") == "assistant":
        return False
    return item.get("type") not in _SUMMARY_ONLY_TYPES


def _forward_new_item(item: Mapping[str, Any]) -> bool:
    """The SDK's rule for items of the handoff turn: every message, no tool item."""
    if _is_programmatic(item):
        return False
    role = item.get("role")
    if isinstance(role, str) and role:
        return True
    return item.get("type") not in _SUMMARY_ONLY_TYPES


def _declare_owned(data: HandoffInputData, owned: list[tuple[RunItem, int]]) -> None:
    """Tell the SDK which input items are its run items, forwarded verbatim.

    openai-agents 0.24 has no public API for this: a resumed run matches
    forwarded items to session items by a private attribute of the filter's
    result, set by :func:`.openai_agents_internals.declare_owned_items`.
    Without it a resumed run sends the forwarded items twice.
    ``tests/integration/test_runstate_resume.py`` pins this hook.
    """
    declare_owned_items(data, owned)


def nest_input_filter(
    codec: Codec | None = None,
    *,
    keep_verbatim: bool = True,
    trust: Trust | None = None,
    on_report: ReportCallback | None = None,
) -> Callable[[HandoffInputData], HandoffInputData]:
    """A handoff ``input_filter`` that nests the history with ``codec`` only.

    Use it as ``RunConfig(handoff_input_filter=nest_input_filter())`` or
    ``handoff(agent, input_filter=nest_input_filter())``. An input filter takes
    precedence over ``nest_handoff_history``, so the SDK's own reader never
    runs:

    * ``input_history`` is flattened with ``codec.flatten(on_loss="keep")``,
      which also reads summaries written by openai-agents 0.6 to 0.19 and
      keeps a message that has the envelope but cannot be read without losing
      a line (nothing dropped, nothing invented). SDK-internal keys
      (``_agents_tool_description``, ``_agents_tool_title``, ``created_by``)
      are removed, as the SDK does.
    * With ``keep_verbatim=True`` (the default) the items of the run are split
      as the SDK's ``nest_handoff_history`` splits them: messages of the handoff
      turn and non-assistant messages from before it (the user's new turns) are
      forwarded verbatim, in order; assistant turns from before the handoff
      turn, tool calls and outputs, reasoning items and hosted-program items go
      into the summary. Each run of summarized items becomes one summary
      message placed where it occurred, so the order of the conversation is
      kept. With ``keep_verbatim=False`` everything goes into one summary, as a
      history mapper would write it.
    * Media messages and items that cannot be written are forwarded at their
      place; the filter never raises (see :mod:`handoff_codec.integrations._history`), and
      ``on_report`` receives a :class:`HandoffReport` after every handoff.
    * ``new_items`` are left as they are, so the session records the full turn;
      the next agent's input is exactly the returned ``input_history``. The
      forwarded run items are declared to the SDK as its nesting declares them,
      so a run resumed from a ``RunState`` sends each exactly once.
    * With no ``codec``, the wrappers are the SDK's current ones
      (``get_conversation_history_wrappers()``) at each handoff; wrappers
      that cannot be markers give the default ones and a ``wrappers`` fallback.
    * ``trust`` is ``flatten``'s: ``"signed"`` (the default when ``codec`` has a
      key) expands only the summaries of ``input_history`` whose signature
      verifies; any other is forwarded verbatim at its place, never expanded
      and never written into a (signed) summary, and counted as ``untrusted``
      in the report. ``"signed"`` without a key or ``verify_keys`` raises
      ValueError here, never in the handoff.
    * The media references that an earlier handoff wrote are left out, the
      media following them; a user's message with the same words is kept.

    One difference from the SDK's nesting: the summary keeps every key of an
    item (``provider_data`` included), where the SDK's writer drops
    ``provider_data``.
    """

    _check_trust(codec, trust)

    def handoff_codec_nest_input_filter(data: HandoffInputData) -> HandoffInputData:
        try:
            nested, report = _nest(data, codec, keep_verbatim, trust)
        except Exception as exc:  # the handoff must go on: the SDK's own nesting
            deliver(_internal_error(-1, exc), on_report)
            return nest_handoff_history(data)
        deliver(report, on_report)
        return nested

    return handoff_codec_nest_input_filter


def _nest(
    data: HandoffInputData, codec: Codec | None, keep_verbatim: bool, trust: Trust | None
) -> tuple[HandoffInputData, HandoffReport]:
    raw_history = data.input_history
    history: list[Mapping[str, Any]] = (
        [{"role": "user", "content": raw_history}]
        if isinstance(raw_history, str)
        else [cast(Mapping[str, Any], item) for item in raw_history]
    )
    nested: list[Item] = []
    writer = _writer(codec, nested)
    for item, untrusted in read_history(writer, history, _trust(writer.codec, trust)):
        if untrusted:
            writer.forward(item)
        else:
            writer.add(_strip_internal(item))

    owned: list[tuple[RunItem, int]] = []
    for run_items, forward in ((data.pre_handoff_items, _forward_pre_item),
                               (data.new_items, _forward_new_item)):
        for run_item in run_items:
            if isinstance(run_item, ToolApprovalItem):
                continue
            item = _plain_input(run_item)
            if keep_verbatim and forward(item):
                owned.append((run_item, writer.forward(item)))
            else:
                writer.add(item)
    writer.flush(force=not nested)
    report = writer.report()
    result = data.clone(
        input_history=tuple(cast(list[TResponseInputItem], nested)),
        pre_handoff_items=(),
        input_items=(),
    )
    _declare_owned(result, owned)
    return result, report




class UpgradingSession(_SessionABC):
    """Read-repair: a ``Session`` that wraps any SDK session and upgrades legacy summaries.

    ``get_items()`` and ``pop_item()`` return canonical items (each legacy summary
    read and rewritten on the way out by :func:`handoff_codec.migrate.migrate_item`);
    writes pass through unchanged. With ``write_back=True``, a read that found a
    legacy summary also rewrites the session's stored rows, each by compare-and-swap
    (a row changed meanwhile is left alone), for ``SQLAlchemySession``,
    ``SQLiteSession`` (file databases), ``RedisSession``, and ``EncryptedSession``
    around one of those. ``backup_file=PATH`` is required with it: each row is
    appended to PATH (the migration's backup format: key, old and new bytes) and
    fsynced before it changes, so ``handoff-codec migrate --restore PATH STORE``
    undoes the write-back; sessions (and processes) may share one file. Write-back
    needs the store's extra (``[postgres]``, ``[mysql]``, ``[redis]``) and runs in a
    worker thread; a ``RedisSession``'s rows are written through the session's own
    client (its TLS, socket and credentials). A row too long for its MySQL/MariaDB
    column is not written back (a ``RuntimeWarning`` says so); the canonical items
    are returned all the same.

        session = UpgradingSession(SQLAlchemySession.from_url("s1", url=...), write_back=True,
                                   backup_file="/backups/read-repair.jsonl")
        await Runner.run(agent, "Hello", session=session)
    """

    def __init__(self, inner: Any, *, codec: Codec | None = None,
                 write_back: bool = False, backup_file: str | os.PathLike[str] | None = None
                 ) -> None:
        if write_back and backup_file is None:
            raise ValueError("UpgradingSession(write_back=True) needs backup_file=PATH: each "
                             "row is appended there before it is rewritten, so that "
                             "`handoff-codec migrate --restore PATH STORE` can undo it")
        if backup_file is not None and not write_back:
            raise ValueError("backup_file= goes with write_back=True")
        self.inner = inner
        self.session_id: str = inner.session_id
        self._codec = _active_codec(codec)
        self._write_back = write_back
        self._backup_file = backup_file
        self._backup: Any = None
        self._store: Any = None
        if write_back:
            self._store_factory()  # fail now, not at the first read, when unsupported

    @property
    def session_settings(self) -> Any:
        return getattr(self.inner, "session_settings", None)

    @session_settings.setter
    def session_settings(self, value: Any) -> None:
        self.inner.session_settings = value

    def _upgrade(self, items: list[TResponseInputItem]) -> tuple[list[TResponseInputItem], bool]:
        from ..migrate import migrate_item

        results = [migrate_item(item, codec=self._codec) for item in items]
        return [cast(TResponseInputItem, r.item) for r in results], any(r.changed for r in results)

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        items, changed = self._upgrade(await self.inner.get_items(limit))
        if changed and self._write_back:
            import asyncio

            holder = self._holder()
            kind = type(holder).__name__
            if kind == "RedisSession":
                await self._rewrite_redis_rows(holder)
            elif kind == "SQLAlchemySession":  # its own async engine, on this event loop
                from sqlalchemy.util import greenlet_spawn

                await greenlet_spawn(self._rewrite_stored_rows)
            else:
                await asyncio.to_thread(self._rewrite_stored_rows)
        return items

    def _holder(self) -> Any:
        """The session that holds the rows (the one inside an ``EncryptedSession``)."""
        session = self.inner
        if hasattr(session, "underlying_session") and hasattr(session, "cipher"):
            session = session.underlying_session
        return session

    async def _rewrite_redis_rows(self, session: Any) -> None:
        """Write back through the session's own async client: its TLS, socket and credentials
        are the application's, never rebuilt from host and port."""
        import asyncio

        from ..migrate.stores import rewrite_redis_session

        _, rule = self._store_factory()
        client, key = redis_list(session)
        kwargs = client.connection_pool.connection_kwargs
        where = (f"unix://{kwargs['path']}?db={kwargs.get('db', 0)}" if "path" in kwargs else
                 f"redis://{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/"
                 f"{kwargs.get('db', 0)}")
        backup = self._backup_writer(where, "redis")
        await rewrite_redis_session(client, key, self.session_id, rule,
                                    before=lambda changes: asyncio.to_thread(
                                        backup.write_changes, changes))

    def _backup_writer(self, where: str, kind: str) -> Any:
        """The writer of ``backup_file`` (opened at its first write)."""
        if self._backup is None:
            from ..migrate.stores import BackupWriter

            assert self._backup_file is not None
            self._backup = BackupWriter.for_read_repair(self._backup_file, where, kind)
        return self._backup

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await self.inner.add_items(items)

    async def pop_item(self) -> TResponseInputItem | None:
        item = await self.inner.pop_item()
        return None if item is None else self._upgrade([item])[0][0]

    async def clear_session(self) -> None:
        await self.inner.clear_session()

    def _store_factory(self) -> tuple[Any, Any]:
        """The store holding the inner session's rows, and the per-row rule."""
        from ..migrate import RowRule
        from ..migrate.stores import MigrateOptions, open_store

        session, codec = self.inner, self._codec
        row_rule = RowRule(codec)
        rule: Any = lambda row: row_rule(row.value)  # noqa: E731
        if hasattr(session, "underlying_session") and hasattr(session, "cipher"):
            from ..migrate import EncryptedRule

            rule = EncryptedRule.for_cipher(session.cipher, codec)
            session = session.underlying_session
        kind = type(session).__name__
        if kind == "SQLAlchemySession":
            # The session's own engine (its pool, TLS and connect_args), never rebuilt
            # from its URL; used inside greenlet_spawn (see get_items).
            engine = session.engine.sync_engine
            messages, sessions = sqlalchemy_tables(session)
            tables = MigrateOptions(messages_table=messages, sessions_table=sessions)
            where = engine.url.render_as_string(hide_password=True)
            return (lambda: open_store(where, tables, engine=engine).connect()), rule
        if kind in ("SQLiteSession", "AdvancedSQLiteSession") and \
                str(session.db_path) != ":memory:":
            url = f"sqlite:///{session.db_path}"
            tables = MigrateOptions(messages_table=session.messages_table,
                                    sessions_table=session.sessions_table)
            return (lambda: open_store(url, tables).connect()), rule
        if kind == "RedisSession":  # written through its own client (_rewrite_redis_rows)
            return (lambda: None), rule
        raise TypeError(f"write_back is not supported for {kind}; use write_back=False")

    def _rewrite_stored_rows(self) -> None:
        from ..migrate.stores import Change

        factory, rule = self._store_factory()
        if self._store is None:
            self._store = factory()
        changes = []
        for row in self._store.session_rows(self.session_id):
            new = rule(row).new
            if new is not None and not self._too_long(row, new):
                changes.append(Change(row, new))
        if changes:
            # Backed up and fsynced before any row changes: --restore undoes it.
            self._backup_writer(self._store.where, self._store.kind).write_changes(changes)
            self._store.commit(changes, None)

    def _too_long(self, row: Any, new: bytes) -> bool:
        """Whether the store's column cannot hold ``new``: warn, and keep the stored row
        (the caller still gets the canonical items)."""
        import warnings

        capacity = getattr(self._store, "capacity", None)  # a MySQL/MariaDB column's limit
        reason = None if capacity is None else capacity.refusal(new)
        if reason is not None:
            warnings.warn(f"UpgradingSession: session {self.session_id!r}, row {list(row.key)}: "
                          f"{reason}; write-back skipped for this row", RuntimeWarning,
                          stacklevel=2)
        return reason is not None

    def close_write_back(self) -> None:
        """Close the write-back connection and backup file (the inner session is the
        caller's to close)."""
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._backup is not None:
            self._backup.close()
            self._backup = None


__all__ += ["UpgradingSession"]


# ---------------------------------------------------------------- the SDK's input items

FRAMEWORK = "OpenAI Agents SDK"


def _json_items(value: Any, index: int, field: str, omitted: list[Omission]) -> Any:
    """``value`` as JSON: each value JSON cannot hold written as ``str(value)`` and reported."""
    if is_plain_json(value):
        return value
    if isinstance(value, Mapping):
        out: Item = {}
        for key, sub in value.items():
            if not isinstance(key, str):
                omitted.append(Omission(index, f"{field}[{key!r}]", "a key that is not a "
                                        "string; written as str(key)"))
            out[str(key)] = _json_items(sub, index, f"{field}.{key}" if field else str(key),
                                        omitted)
        return out
    if isinstance(value, list | tuple):
        if isinstance(value, tuple):
            omitted.append(Omission(index, field, "a tuple; written as a JSON array"))
        return [_json_items(sub, index, f"{field}[{n}]", omitted) for n, sub in enumerate(value)]
    omitted.append(Omission(index, field, f"a {type(value).__name__} is not JSON; written as "
                            "str(value)"))
    return str(value)


def encode(items: Sequence[TResponseInputItem] | Sequence[Mapping[str, Any]], *,
           codec: Codec | None = None) -> Encoded:
    """The summary text of the SDK's input items (``result.to_input_list()``), and what it
    could not keep.

    Each item is written as it is. Left out and reported: the SDK's internal
    keys (``_agents_tool_description``, ``_agents_tool_title``, ``created_by``),
    which it strips itself before summarizing; a value that is not JSON is
    written as ``str(value)``. Raises TypeError for an item that is not a
    mapping, and the codec's EncodeError for a summary over its limits.
    """
    omitted: list[Omission] = []
    written: list[Item] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TypeError(f"item {index} is a {type(item).__name__}, not a Responses API "
                            "input item (a dict)")
        plain: Item = {}
        for key, value in item.items():
            if key in _INTERNAL_KEYS:
                omitted.append(Omission(index, str(key), "the SDK's internal key; left out"))
                continue
            plain[str(key)] = value
        written.append(_json_items(plain, index, "", omitted))
    return Encoded((codec or default_codec).dumps(written), tuple(omitted))


def dumps(items: Sequence[TResponseInputItem] | Sequence[Mapping[str, Any]], *,
          codec: Codec | None = None) -> str:
    """The summary text of the SDK's input items; one warning when something was left out."""
    return _dumped(encode(items, codec=codec), FRAMEWORK)


def read(text: str, *, codec: Codec | None = None) -> ReadBack[TResponseInputItem]:
    """The SDK's input items of a summary text, whatever framework module wrote it, and what
    they cannot hold.

    The items of :func:`dumps` come back as they were (an ``input_image``
    without ``detail``, which the ``openai`` types require, with the API's
    default ``"auto"``). Items another module
    wrote come back as Responses API input items: a message's ``name`` (the
    Responses API holds none), a typed tool result (held as its JSON text),
    and the other writer's own keys and item types are left out, each
    reported. ``DecodeError`` for text that is not a summary.
    """
    notes = Notes(FRAMEWORK)
    items = ResponsesReader(notes).items((codec or default_codec).loads(text))
    return ReadBack(cast(list[TResponseInputItem], items), notes.omitted)


def loads(text: str, *, codec: Codec | None = None) -> list[TResponseInputItem]:
    """The SDK's input items of a summary text (:func:`read`; one warning when something
    was left out): ``loads(dumps(items)) == items``."""
    return _loaded(read(text, codec=codec), FRAMEWORK)
