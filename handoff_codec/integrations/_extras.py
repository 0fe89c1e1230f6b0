"""The error an integration raises when its framework cannot be imported: it names the
extra that installs a tested version."""

from __future__ import annotations

__all__ = ["missing"]


def missing(module: str, needs: str, extra: str, cause: ImportError,
            tested: str = "") -> ImportError:
    """The ImportError of ``handoff_codec.integrations.<module>``, which needs ``needs`` (the
    framework, in words) and could not import it (``cause``); ``tested``, the versions the
    module was tested with, when the extra's pin does not say them."""
    also = f" (tested with {tested})" if tested else ""
    return ImportError(f"handoff_codec.integrations.{module} needs {needs}, which could not "
                       f"be imported: {cause}. Install it with: pip install "
                       f"'handoff-codec[{extra}]'{also}", name=cause.name)
