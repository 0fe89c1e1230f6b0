"""Plain slotted classes with pydantic at the edges: dumps, JSON and validation.

A report is built on every read, so it must be cheap: the report types are
slotted dataclasses, built without validation, and pydantic (about 20 ms to
import, and more to build a schema) is imported only when one is dumped or
validated. The schema is made, once per class, from the dataclass's own
fields, so a field added to a report is one line there.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["AS_LIST", "Model"]

M = TypeVar("M", bound="Model")


# One schema per class, built on its first dump or validation.
_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(cls: type[Any]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def _restore(cls: type[M], values: tuple[Any, ...]) -> M:
    """Unpickle: the fields set as they were, without ``__init__`` (frozen classes too)."""
    instance = object.__new__(cls)
    for spec, value in zip(dataclasses.fields(cls), values, strict=True):  # type: ignore[arg-type]
        object.__setattr__(instance, spec.name, value)
    return instance


class Model:
    """The base of a report dataclass: pydantic's ``model_*`` methods, pydantic loaded on use.

    ``model_construct`` builds without validation (the readers' path);
    ``model_validate`` and ``model_validate_json`` validate as pydantic does.
    Subclasses are ``@dataclass(slots=True, kw_only=True)``.
    """

    __slots__ = ()

    @classmethod
    def model_construct(cls: type[M], **fields: Any) -> M:
        """An instance from trusted values, not validated."""
        return cls(**fields)

    @classmethod
    def model_validate(cls: type[M], obj: Any, **options: Any) -> M:
        """An instance from a mapping (or an instance), validated; ValueError if it is not valid."""
        result: M = _adapter(cls).validate_python(obj, **options)
        return result

    @classmethod
    def model_validate_json(cls: type[M], data: str | bytes, **options: Any) -> M:
        """An instance from JSON text, validated; ValueError if it is not valid."""
        result: M = _adapter(cls).validate_json(data, **options)
        return result

    @classmethod
    def model_json_schema(cls, **options: Any) -> dict[str, Any]:
        """The JSON Schema of the class."""
        return _adapter(cls).json_schema(**options)

    def model_dump(self, **options: Any) -> dict[str, Any]:
        """The fields as a dict, as pydantic dumps them (``mode="json"`` for JSON values)."""
        result: dict[str, Any] = _adapter(type(self)).dump_python(self, **options)
        return result

    def model_dump_json(self, **options: Any) -> str:
        """The fields as JSON text, as pydantic writes it."""
        return _adapter(type(self)).dump_json(self, **options).decode()

    def model_copy(self: M, *, update: dict[str, Any] | None = None, deep: bool = False) -> M:
        """A copy, with ``update``'s fields replaced (not validated)."""
        copied = copy.deepcopy(self) if deep else self
        return dataclasses.replace(copied, **(update or {}))  # type: ignore[type-var]

    def __reduce__(self) -> tuple[Any, ...]:
        values = tuple(getattr(self, spec.name) for spec in dataclasses.fields(self))  # type: ignore[arg-type]
        return _restore, (type(self), values)


class _AsList:
    """Field metadata for pydantic: a sequence field (any ``Sequence``) is dumped as a list."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        schema = handler(source)
        (item,) = getattr(source, "__args__", (Any,))
        schema["serialization"] = core_schema.plain_serializer_function_ser_schema(
            list, return_schema=core_schema.list_schema(handler.generate_schema(item)))
        return schema

    def __repr__(self) -> str:
        return "AS_LIST"


AS_LIST = _AsList()
