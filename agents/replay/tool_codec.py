"""A faithful, pickle-free JSON form of tool results, so a rerun can hand a skill the very result it got before.

Tool results are dataclasses (``vision_tools`` and ``skills``) holding boxes, tuples, dicts with odd keys, numpy
values and PIL images. ``encode`` turns one into plain JSON data whose images are content ids in the image store;
``decode`` rebuilds an equal object of the same class. Every value that JSON would blur carries a tag (``"$t"``):
tuples, sets, dicts (keys of any kind), non-finite floats, numpy arrays and scalars, enums, images, dataclasses.

Decoding builds nothing but plain values, numpy arrays and the dataclasses and enums defined in the project's
tool packages (``TRUSTED_MODULES``); fields are set directly, so no constructor or other code of the stored data's
choosing runs, and a tampered database cannot make a rerun execute anything. A value with no faithful form (an
object of another kind, an image mode PNG cannot hold) raises ``NotEncodable``: that call is simply not stored,
and a rerun runs it live.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import math
import sys
from collections.abc import Callable
from enum import Enum
from typing import Any

import numpy as np
from PIL import Image

#: Modules whose dataclasses and enums ``decode`` may rebuild (and their sub-modules).
TRUSTED_MODULES = ("vision_tools", "skills", "sandbox")
#: Image modes that survive a PNG round trip unchanged.
IMAGE_MODES = frozenset({"1", "L", "LA", "RGB", "RGBA"})
FORMAT = 1
_MAX_DEPTH = 48

ImageSaver = Callable[[Image.Image], str]
ImageLoader = Callable[[str], Image.Image]


class NotEncodable(TypeError):
    """The value has no faithful JSON form; its call is run live on a rerun instead."""


class NotDecodable(ValueError):
    """Stored data that does not decode to a trusted value (wrong format, unknown or untrusted class)."""


def encode(value: Any, save_image: ImageSaver) -> dict[str, Any]:
    """``value`` as JSON data (``{"format": 1, "value": ...}``); images go through ``save_image`` (-> content id)."""
    return {"format": FORMAT, "value": _encode(value, save_image, 0)}


def decode(data: dict[str, Any], load_image: ImageLoader) -> Any:
    """The value ``encode`` stored in ``data``; images come back through ``load_image`` (content id -> image)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or "value" not in data:
        raise NotDecodable("not a stored tool output of a known format")
    return _decode(data["value"], load_image, 0)


def _encode(value: Any, save_image: ImageSaver, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise NotEncodable("nested too deeply")
    down = depth + 1
    if isinstance(value, Enum):  # before str/int: StrEnum and IntEnum are both
        return {"$t": "enum", "cls": _class_path(type(value)), "v": _encode(value.value, save_image, down)}
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.generic):  # before int/float: np.float64 is a float, and must stay a numpy scalar
        if value.dtype.kind not in "biuf":
            raise NotEncodable(f"numpy scalar of dtype {value.dtype}")
        return {"$t": "npscalar", "dtype": value.dtype.str, "v": _encode(value.item(), save_image, down)}
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$t": "float", "v": repr(value)}  # NaN is not JSON
    if isinstance(value, list):
        return [_encode(v, save_image, down) for v in value]
    if isinstance(value, tuple):
        return {"$t": "tuple", "v": [_encode(v, save_image, down) for v in value]}
    if isinstance(value, set | frozenset):
        return {"$t": type(value).__name__, "v": [_encode(v, save_image, down) for v in value]}
    if isinstance(value, dict):
        return {"$t": "dict", "v": [[_encode(k, save_image, down), _encode(v, save_image, down)]
                                    for k, v in value.items()]}
    if isinstance(value, Image.Image):
        if value.mode not in IMAGE_MODES:
            raise NotEncodable(f"image mode {value.mode} does not survive PNG")
        return {"$t": "image", "id": save_image(value), "mode": value.mode}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise NotEncodable(f"numpy array of dtype {value.dtype}")
        raw = np.ascontiguousarray(value).tobytes()
        return {"$t": "ndarray", "dtype": value.dtype.str, "shape": list(value.shape),
                "b64": base64.b64encode(raw).decode("ascii")}
    if isinstance(value, bytes):
        return {"$t": "bytes", "b64": base64.b64encode(value).decode("ascii")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"$t": "dataclass", "cls": _class_path(type(value)),
                "f": {f.name: _encode(getattr(value, f.name), save_image, down) for f in dataclasses.fields(value)}}
    raise NotEncodable(f"a {type(value).__qualname__} has no stored form")


def _class_path(cls: type) -> str:
    """``module:QualName`` of a class that ``decode`` will be able to find again, or ``NotEncodable``."""
    path = f"{cls.__module__}:{cls.__qualname__}"
    try:
        found = _trusted_class(path)
    except NotDecodable as exc:
        raise NotEncodable(str(exc)) from exc
    if found is not cls:
        raise NotEncodable(f"{path} is not importable under its own name")
    return path


def _trusted_class(path: str) -> type:
    module_name, _, qualname = path.partition(":")
    if not any(module_name == root or module_name.startswith(root + ".") for root in TRUSTED_MODULES):
        raise NotDecodable(f"{module_name!r} is not a tool package")
    module = sys.modules.get(module_name)
    if module is None:
        try:  # only the project's own tool packages can be imported here (checked above)
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise NotDecodable(f"cannot import {module_name!r}") from exc
    found: Any = module
    for part in qualname.split("."):
        if part.startswith("_"):
            raise NotDecodable(f"{path!r} names a private attribute")
        found = getattr(found, part, None)
    if not isinstance(found, type) or not (dataclasses.is_dataclass(found) or issubclass(found, Enum)):
        raise NotDecodable(f"{path!r} is not a result dataclass or enum")
    return found


def _decode(data: Any, load_image: ImageLoader, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise NotDecodable("nested too deeply")
    down = depth + 1
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [_decode(v, load_image, down) for v in data]
    if not isinstance(data, dict):
        raise NotDecodable(f"unexpected {type(data).__name__} in a stored output")
    tag = data.get("$t")
    if tag == "tuple":
        return tuple(_decode(v, load_image, down) for v in data["v"])
    if tag in ("set", "frozenset"):
        items = (_decode(v, load_image, down) for v in data["v"])
        return set(items) if tag == "set" else frozenset(items)
    if tag == "dict":
        return {_decode(k, load_image, down): _decode(v, load_image, down) for k, v in data["v"]}
    if tag == "float":
        return float(str(data["v"]))  # only 'nan', 'inf' and '-inf' are ever written here
    if tag == "npscalar":
        return np.dtype(_numeric_dtype(data["dtype"])).type(_decode(data["v"], load_image, down))
    if tag == "ndarray":
        raw = base64.b64decode(str(data["b64"]), validate=True)
        shape = tuple(int(n) for n in data["shape"])
        return np.frombuffer(raw, dtype=_numeric_dtype(data["dtype"])).reshape(shape).copy()
    if tag == "bytes":
        return base64.b64decode(str(data["b64"]), validate=True)
    if tag == "image":
        image = load_image(str(data["id"]))
        if image.mode != data.get("mode"):
            raise NotDecodable(f"stored image {data['id']} is {image.mode}, not {data.get('mode')}")
        return image
    if tag == "enum":
        return _trusted_class(str(data["cls"]))(_decode(data["v"], load_image, down))
    if tag == "dataclass":
        return _dataclass(data, load_image, down)
    raise NotDecodable(f"unknown tag {tag!r} in a stored output")


def _dataclass(data: dict[str, Any], load_image: ImageLoader, depth: int) -> Any:
    cls = _trusted_class(str(data["cls"]))
    stored = data.get("f")
    names = [f.name for f in dataclasses.fields(cls)]
    if not isinstance(stored, dict) or sorted(stored) != sorted(names):
        raise NotDecodable(f"stored fields of {data['cls']} do not match the class (was it changed?)")
    obj: Any = object.__new__(cls)
    for name in names:  # set directly: frozen classes too, and no constructor code runs
        object.__setattr__(obj, name, _decode(stored[name], load_image, depth))
    return obj


def _numeric_dtype(text: Any) -> np.dtype[Any]:
    dtype = np.dtype(str(text))
    if dtype.kind not in "biuf":
        raise NotDecodable(f"dtype {text!r} is not numeric")
    return dtype
