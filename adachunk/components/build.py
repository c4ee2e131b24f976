"""One way to build a registered component, and one translator of validation errors.

Every registry (detectors, splitters, metrics, embedders, coref backends, ...) holds classes
that declare their fields as a pydantic ``Params`` model. :func:`component_params` looks the
``type`` of a spec up in a registry ("did you mean" on a miss), validates the other fields with
that class's ``Params`` and turns a pydantic ``ValidationError`` into coded ``ADA2xx`` errors
with the key path, and the file and line when the caller can locate a key
(:func:`validation_errors`, also used for the profile schema itself). :func:`build_component`
instantiates the class too.

This module imports neither ``profile/`` nor the CLI, so the stages may use it: the profile
layer passes a ``locate`` function that finds a key's source mark in its YAML data.
"""

from __future__ import annotations

import typing
from typing import Any, Callable, Iterable, Sequence

from pydantic import BaseModel, ValidationError

from ..errors import AdachunkError, Location, ProfileError, ProfileErrors, did_you_mean

#: Finds the source of the key at a path (``(file, line, column)``), or None when unknown.
Locate = Callable[[tuple], "tuple | None"]

_CODE_BY_TYPE = {"extra_forbidden": "ADA202", "missing": "ADA204", "api_key_env_not_allowed": "ADA218"}


def dotted(path: Iterable[Any]) -> str:
    """``("candidates", 0, "max_size")`` → ``candidates.0.max_size``."""
    return ".".join(str(p) for p in path)


def located(err: AdachunkError, path: tuple, locate: Locate | None = None,
            location: Location | None = None) -> AdachunkError:
    """Give ``err`` the key path ``path`` and a location, unless it already has them.

    The location is the source mark of ``path`` when ``locate`` finds one, else ``location``.
    """
    if err.location.file is None:
        mark = locate(path) if locate is not None else None
        if mark:
            err.location = Location(*mark)
        elif location is not None:
            err.location = location
    if not err.key_path and path:
        err.key_path = dotted(path)
    return err


def one_error(errors: Sequence[ProfileError]) -> ProfileError:
    """The error to raise for ``errors``: itself when alone, else :class:`ProfileErrors`."""
    return errors[0] if len(errors) == 1 else ProfileErrors(errors)


def errors_of(exc: ProfileError) -> list[ProfileError]:
    """The single errors inside ``exc`` (several for :class:`ProfileErrors`)."""
    return list(exc.errors) if isinstance(exc, ProfileErrors) else [exc]


# -- the translator -----------------------------------------------------------------------------
def _unwrap(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        return models[0] if models else (args[0] if args else tp)
    return tp


def model_at(model: type, path: tuple) -> type | None:
    """The pydantic model class that validates the mapping at ``path`` (for allowed keys)."""
    current: Any = model
    for key in path:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(key))
            if field is None:
                return None
            current = field.annotation
        elif typing.get_origin(current) in (dict, list):
            args = typing.get_args(current)
            current = args[-1] if args else None
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def node_at(data: Any, path: tuple) -> Any:
    """The value at ``path`` in nested mappings (None where a key is missing)."""
    node: Any = data
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _data_loc(node: Any, loc: tuple) -> tuple:
    """A pydantic error location without its union/validator tags (``function-after[...]``).

    A part is kept when it is a key or index of the data at that point; other parts containing
    ``[`` are pydantic's tags. (Filtering on ``[`` alone would also drop a user's key ``a[b``.)
    """
    out = []
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out.append(part)
            node = node[part]
        elif not (isinstance(part, str) and "[" in part):
            out.append(part)
            node = None
    return tuple(out) or tuple(loc[-1:])


def validation_errors(exc: ValidationError, data: Any, model: type, prefix: tuple = (), *,
                      locate: Locate | None = None, location: Location | None = None,
                      subject: str | None = None, reserved: Sequence[str] = (),
                      code: str | None = None) -> list[ProfileError]:
    """Turn pydantic errors into coded ``ADA2xx`` errors with key paths, allowed values and hints.

    Args:
        exc: the validation error of ``model`` on ``data``.
        data: the validated data itself (``prefix`` says where it sits in its document).
        model: the pydantic model that was validated.
        prefix: the path of ``data`` in the document the key paths are written for.
        locate: finds a key's source mark (file, line, column) from its full path.
        location: the location to use where ``locate`` finds none (e.g. a case file's entry).
        subject: what the fields belong to, appended to messages (``for sentence.v1``).
        reserved: keys of the spec the model does not see (``type``, ``name``): listed as allowed.
        code: report every problem under this code (callers whose users expect one code).

    Returns:
        One error per pydantic error, in pydantic's order.
    """
    out = []
    suffix = f" for {subject}" if subject else ""
    for err in exc.errors():
        loc = _data_loc(data, err["loc"])
        kind = _CODE_BY_TYPE.get(err["type"], "ADA203")
        if err["type"] == "value_error" and loc[-1:] == ("solver",):
            kind = "ADA211"  # cross-field solver check (min_size > max_size, overlap >= max_size)
        allowed, hint = None, None
        if err["type"] == "extra_forbidden":
            owner = model_at(model, loc[:-1])
            if owner is not None:
                allowed = sorted(owner.model_fields)
                hint = did_you_mean(str(loc[-1]), allowed)
                if reserved:
                    allowed = sorted(set(allowed) | set(reserved))
            message = f"unknown key '{loc[-1]}'"
        elif err["type"] == "missing":
            message = f"missing required key '{loc[-1]}'"
        else:
            message = err["msg"]
            ctx = err.get("ctx") or {}
            if "expected" in ctx:
                allowed = [s.strip(" '") for s in str(ctx["expected"]).replace(" or ", ",").split(",") if s.strip()]
                hint = did_you_mean(str(err.get("input")), allowed)
        e = ProfileError(code=code or kind, message=message + suffix, allowed=allowed, hint=hint)
        out.append(located(e, prefix + loc, locate, location))
    return out


def validate(model: type[BaseModel], data: Any, prefix: tuple = (), **opts: Any) -> Any:
    """``model.model_validate(data)``, raising the translated errors (see :func:`validation_errors`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise one_error(validation_errors(exc, data, model, prefix, **opts)) from None


# -- registries ---------------------------------------------------------------------------------
def component_params(registry: Any, spec: dict, key_path: tuple = (), *, reserved: Sequence[str] = ("type",),
                     locate: Locate | None = None, location: Location | None = None,
                     subject: str | None = None, code: str | None = None) -> tuple[type, Any]:
    """The registered class named by ``spec["type"]`` and its validated ``Params``.

    Args:
        registry: a :class:`~adachunk.components.registry.Registry`.
        spec: ``{type: name, **fields}``; keys in ``reserved`` are not fields.
        key_path: where ``spec`` sits (``("candidates", 0)``), for key paths and locations.
        reserved: keys of ``spec`` that are not the component's fields.
        locate: maps a key path to a file location (see :func:`validation_errors`).
        location: a fixed location, when there is no ``locate``.
        subject: names the component in messages; defaults to the type name when no key can be
            located.
        code: forces one error code for every problem (see :func:`validation_errors`).

    Returns:
        ``(class, params)``: params is the ``Params`` instance, or the fields as a dict for a
        class without ``Params``.

    Raises:
        ProfileError: ``ADA203`` when ``type`` is not a string, ``ADA205`` for an unknown name
            (listing the known ones, with "did you mean"), ``ADA202``/``ADA203``/``ADA204``
            for the fields (:class:`ProfileErrors` when there are several).
    """
    type_name = spec.get("type")
    if not isinstance(type_name, str):
        raise located(ProfileError(code="ADA203", message="'type' must be a component name (a string)",
                                   allowed=registry.names()), key_path + ("type",), locate, location)
    try:
        cls = registry.get(type_name)
    except ProfileError as exc:
        raise located(exc, key_path + ("type",), locate, location)
    fields = {k: v for k, v in spec.items() if k not in reserved}
    model = getattr(cls, "Params", None)
    if model is None:
        return cls, fields
    if subject is None and locate is None and location is None:
        subject = type_name  # no file to point at: say whose field it is
    return cls, validate(model, fields, key_path, locate=locate, location=location, subject=subject,
                         reserved=reserved, code=code)


def build_component(registry: Any, spec: dict, key_path: tuple = (), *,
                    factory: Callable[[type, Any], Any] | None = None, **opts: Any) -> Any:
    """Look up, validate (see :func:`component_params`) and instantiate a component.

    Args:
        registry: a :class:`~adachunk.components.registry.Registry`.
        spec: ``{type: name, **fields}``.
        key_path: where ``spec`` sits, for key paths and locations.
        factory: ``(class, params) → instance``; default ``class(params)``.
        **opts: ``reserved``, ``locate``, ``location``, ``subject``, ``code`` as for
            :func:`component_params`.

    Returns:
        The component instance.
    """
    cls, params = component_params(registry, spec, key_path, **opts)
    return factory(cls, params) if factory is not None else cls(params)
