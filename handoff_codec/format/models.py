"""Plain slotted classes with pydantic at the edges: dumps, JSON and validation.

A report is built on every read, so it must be cheap to build and to import:
the report types are plain slotted classes (no ``dataclasses``, whose import
costs a first read more than the read), built without validation. pydantic is
imported only when a report is dumped or validated; its schema is made once
per class from the ``TypedDict`` the class describes itself with.
"""

from __future__ import annotations

# typing is not imported at run time: the format's modules are on every first
# read's import path, and typing alone costs a few milliseconds there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    from pydantic import TypeAdapter

    M = TypeVar("M", bound="Model")

__all__ = ["Model"]

_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(cls: type[Model]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[cls] = TypeAdapter(cls._typed_dict())
    return adapter


def _plain(value: Any) -> Any:
    """``value`` with every Model in it turned into a dict of its fields."""
    if isinstance(value, Model):
        return {name: _plain(getattr(value, name)) for name in value._fields}
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if isinstance(value, list) or (
            not isinstance(value, (str, bytes, dict)) and hasattr(value, "__len__")
            and hasattr(value, "__getitem__")):
        return [_plain(item) for item in value]
    return value


def _restore(cls: type[M], values: tuple[Any, ...]) -> M:
    """Unpickle: an instance of the fields as they were."""
    return cls(**dict(zip(cls._fields, values, strict=True)))


class Model:
    """A report class: fields in ``_fields``, defaults in ``_defaults``; immutable.

    ``model_construct`` builds without validation (the readers' path);
    ``model_validate`` and ``model_validate_json`` validate as pydantic does;
    ``model_dump`` and ``model_dump_json`` dump as pydantic does.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **fields: Any) -> None:
        for name in self._fields:
            if name in fields:
                value = fields.pop(name)
            elif name in self._defaults:
                value = self._defaults[name]
                value = value() if callable(value) else value
            else:
                raise TypeError(f"{type(self).__name__}() missing field {name!r}")
            object.__setattr__(self, name, value)
        if fields:
            raise TypeError(f"{type(self).__name__}() got unknown fields {sorted(fields)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return _restore, (type(self), tuple(getattr(self, name) for name in self._fields))

    @classmethod
    def _typed_dict(cls) -> Any:
        """The ``TypedDict`` pydantic validates and dumps this class as."""
        raise NotImplementedError

    @classmethod
    def _from_dict(cls: type[M], values: dict[str, Any]) -> M:
        """An instance from validated values (nested reports already dicts)."""
        return cls(**values)

    @classmethod
    def model_construct(cls: type[M], **fields: Any) -> M:
        """An instance from trusted values, not validated."""
        return cls(**fields)

    @classmethod
    def model_validate(cls: type[M], obj: Any, **options: Any) -> M:
        """An instance from a mapping (or an instance), validated; ValueError if it is not."""
        return cls._from_dict(_adapter(cls).validate_python(_plain(obj), **options))

    @classmethod
    def model_validate_json(cls: type[M], data: str | bytes, **options: Any) -> M:
        """An instance from JSON text, validated; ValueError if it is not valid."""
        return cls._from_dict(_adapter(cls).validate_json(data, **options))

    @classmethod
    def model_json_schema(cls, **options: Any) -> dict[str, Any]:
        """The JSON Schema of the class."""
        return _adapter(cls).json_schema(**options)

    def model_dump(self, **options: Any) -> dict[str, Any]:
        """The fields as a dict, as pydantic dumps them (``mode="json"`` for JSON values)."""
        result: dict[str, Any] = _adapter(type(self)).dump_python(_plain(self), **options)
        return result

    def model_dump_json(self, **options: Any) -> str:
        """The fields as JSON text, as pydantic writes it."""
        return _adapter(type(self)).dump_json(_plain(self), **options).decode()
