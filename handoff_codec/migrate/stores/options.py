"""The options of a store migration, in one frozen dataclass every store and the CLI share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..rule import RowRule
from .row_access import Shard

if TYPE_CHECKING:
    from ...format.codec import Codec
    from .report import ProgressFactory

__all__ = ["MigrateOptions"]

DEFAULT_BATCH = 1000


@dataclass(frozen=True)
class MigrateOptions:
    """How to migrate a store; each store reads the options that apply to it.

    Shared by every store: ``codec``, ``dry_run``, ``backup`` (keep a backup;
    ``backup_file`` names it for server stores), ``legacy_only``,
    ``restore_empty``, ``accept_ambiguous``, ``list_changes``, ``batch_size``,
    ``progress``. Files: ``force`` (JSONL), ``format``, the table names,
    ``timeout`` and ``workers`` (SQLite: processes that read the summaries).
    Server stores: ``pause``, ``resume``, ``shard``, ``workers``, the table
    names, ``key_prefix``, ``lock_ttl`` and ``job_id`` (Redis: a shard lock left by a
    killed pod of the same Job is taken over) and ``encryption_key_env``
    (``EncryptedSession`` rows; a SQLite file too).
    """

    codec: Codec | None = None
    dry_run: bool = False
    backup: bool = True
    backup_file: str | None = None
    legacy_only: bool = False
    restore_empty: bool = False
    accept_ambiguous: bool = False
    list_changes: bool = False
    batch_size: int = DEFAULT_BATCH
    progress: ProgressFactory | None = None
    force: bool = False
    format: str = "auto"
    sessions_table: str = "agent_sessions"
    messages_table: str = "agent_messages"
    timeout: float = 5.0
    pause: float = 0.0
    resume: bool = False
    shard: Shard = field(default_factory=Shard)
    workers: int = 1
    key_prefix: str = "agents:session"
    lock_ttl: float = 60.0
    job_id: str | None = None  # a Kubernetes Job's uid: its retried pod takes over its lock
    encryption_key_env: str | None = None

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.format not in ("auto", "jsonl", "sqlite"):
            raise ValueError(f"format must be auto, jsonl or sqlite, not {self.format!r}")

    @classmethod
    def given(cls, options: MigrateOptions | None, keywords: dict[str, Any],
              caller: str) -> MigrateOptions:
        """``options``, or the options named one by one in ``keywords`` (0.1's calls)."""
        if options is None:
            return cls(**keywords)
        if keywords:
            raise TypeError(f"{caller}() takes options= or keywords, not both")
        return options

    def rule(self) -> RowRule:
        """The per-row rule these options ask for."""
        return RowRule(self.codec, restore_empty=self.restore_empty,
                       legacy_only=self.legacy_only, accept_ambiguous=self.accept_ambiguous)
