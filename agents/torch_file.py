"""What ``torch.save`` wrote, read into numpy arrays without importing torch (whose import alone takes seconds), so
that an agent plays a network from a fresh process at once (``awale bot``'s engine).

A torch file is a zip: ``<name>/data.pkl``, a pickle of the saved structure whose tensors name their storages by
persistent ids, and ``<name>/data/<key>``, each storage's raw bytes. The pickle is checked opcode by opcode before
it is read (:data:`OPCODES`: containers, numbers, strings and calls, never object construction) and may name only
the few globals a tensor's pickle uses (:data:`GLOBALS`), each mapped to a function or class of this module: nothing
in the file can build any other object or run code, as with torch's ``weights_only=True``. Every storage's size is
checked against the bytes its member declares before it is read, and every tensor's extent against its storage.
"""

from __future__ import annotations

import io
import math
import pickle
import pickletools
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import check_torch_header, open_zip, read_member
from awale_env.errors import CheckpointError

#: The numpy type of each storage class a torch file may name (bfloat16 and complex storages have none we read).
STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}
#: The pickle opcodes a torch file of tensors, numbers, strings and containers uses; any other (object
#: construction, extension codes, ...) refuses the file before a byte of it is unpickled.
OPCODES = frozenset(
    "PROTO FRAME STOP MARK POP POP_MARK DUP NONE NEWTRUE NEWFALSE INT BININT BININT1 BININT2 LONG LONG1 LONG4 FLOAT "
    "BINFLOAT STRING BINSTRING SHORT_BINSTRING UNICODE BINUNICODE SHORT_BINUNICODE BINUNICODE8 BINBYTES "
    "SHORT_BINBYTES BINBYTES8 EMPTY_TUPLE TUPLE TUPLE1 TUPLE2 TUPLE3 EMPTY_LIST LIST APPEND APPENDS EMPTY_DICT DICT "
    "SETITEM SETITEMS GET BINGET LONG_BINGET PUT BINPUT LONG_BINPUT MEMOIZE GLOBAL STACK_GLOBAL REDUCE BUILD "
    "BINPERSID".split()
)


class _Storage:
    """A storage class named by the pickle: only a marker of its dtype inside a persistent id (neither callable nor
    changed by the pickle's BUILD)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: type) -> None:
        self.dtype = np.dtype(dtype)

    def __setstate__(self, state: Any) -> None:
        raise pickle.UnpicklingError("it changes a storage class")


class _StateDict(dict):
    """An ``OrderedDict`` of the pickle (a state dict): a dict, whose attributes the pickle sets (torch's
    ``_metadata``, the modules' versions) are dropped. The only object the pickle's BUILD opcode can change: the
    others refuse it (dicts, lists and arrays have no state to set, and the pickle cannot name a dtype)."""

    def __setstate__(self, state: Any) -> None:
        pass


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple, *_: Any) -> np.ndarray:
    """``torch._utils._rebuild_tensor_v2``: the tensor of ``size`` and ``stride`` (in elements) from ``offset`` of
    ``storage``, as a copy (ValueError for one reaching outside its storage)."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride) or any(not isinstance(n, int) or n < 0 for n in (offset, *size, *stride)):
        raise ValueError(f"a tensor of size {size} and stride {stride} at offset {offset!r}")
    if math.prod(size) > len(storage):
        raise ValueError(f"a tensor of size {size} has more elements than its storage's {len(storage):,}")
    end = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else offset
    if end > len(storage):
        raise ValueError(f"a tensor of size {size} reaches element {end:,} of a storage of {len(storage):,}")
    strides = tuple(s * storage.itemsize for s in stride)
    view = np.lib.stride_tricks.as_strided(storage[offset:], shape=size, strides=strides, writeable=False)
    return np.array(view)


def _parameter(data: np.ndarray, *_: Any) -> np.ndarray:
    """``torch._utils._rebuild_parameter``: a parameter is its tensor."""
    return data


#: The globals a tensor file's pickle may name, and what each one is here.
GLOBALS: dict[tuple[str, str], Callable[..., Any] | _Storage] = {
    ("collections", "OrderedDict"): _StateDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _parameter,
    **{("torch", name): _Storage(dtype) for name, dtype in STORAGE_DTYPES.items()},
}


class _Unpickler(pickle.Unpickler):
    """Reads a checked pickle: :data:`GLOBALS` only, storages from the zip's members."""

    def __init__(self, data: bytes, storage: Callable[[Any], np.ndarray]) -> None:
        super().__init__(io.BytesIO(data))
        self.storage = storage

    def find_class(self, module: str, name: str) -> Any:
        found = GLOBALS.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"it names {module}.{name}, which a file of tensors never does")
        return found

    def persistent_load(self, pid: Any) -> np.ndarray:
        return self.storage(pid)


def check_opcodes(data: bytes) -> None:
    """UnpicklingError naming the first opcode of the pickle ``data`` outside :data:`OPCODES`."""
    for opcode, _, position in pickletools.genops(data):
        if opcode.name not in OPCODES:
            raise pickle.UnpicklingError(f"opcode {opcode.name} at byte {position}, which a file of tensors never uses")


def load_tensor_arrays(file: str | Path | bytes, source: str) -> Any:
    """What ``torch.save`` wrote to ``file`` (a path or the bytes of a zip member), its tensors as numpy arrays:
    tensors, numbers, strings and containers of them, as :func:`agents.checkpoint.load_tensors` gives them with torch.
    CheckpointError naming ``source`` for anything else (a file of another format, the legacy pickle format of torch
    before 1.6, objects other than tensors, a truncated or inconsistent file)."""
    if not check_torch_header(file, source):
        raise CheckpointError(
            f"{source} may hold serialized Python objects other than tensors, which a checkpoint never does (loading "
            "them could run code): refused unread (a raw pickle, not the zip torch.save has written since torch 1.6)"
        )
    archive = open_zip(io.BytesIO(file) if isinstance(file, bytes) else file, source)
    try:
        with archive:
            pickles = [name for name in archive.namelist() if name.endswith("/data.pkl") and name.count("/") == 1]
            if len(pickles) != 1:
                raise CheckpointError(f"{source} is not a torch file of tensors: it holds no single <name>/data.pkl")
            prefix = pickles[0].removesuffix("data.pkl")
            big_endian = prefix + "byteorder" in archive.namelist() and archive.read(prefix + "byteorder") == b"big"
            storages: dict[str, np.ndarray] = {}

            def storage(pid: Any) -> np.ndarray:
                if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
                    raise ValueError(f"a persistent id {str(pid)[:80]!r} that is not a storage's")
                _, kind, key, _, count = pid
                if not isinstance(kind, _Storage) or not isinstance(key, str) or not isinstance(count, int):
                    raise ValueError(f"a storage id {str(pid)[:80]!r}")
                if key not in storages:
                    size = count * kind.dtype.itemsize
                    data = read_member(archive, f"{prefix}data/{key}", source, size, f"a storage of {count:,} elements")
                    if len(data) != size:
                        raise ValueError(f"storage {key} holds {len(data):,} bytes, not the {size:,} it declares")
                    dtype = kind.dtype.newbyteorder(">") if big_endian else kind.dtype
                    storages[key] = np.frombuffer(data, dtype=dtype).astype(kind.dtype)
                return storages[key]

            data = read_member(archive, pickles[0], source)
            check_opcodes(data)
            return _Unpickler(data, storage).load()
    except CheckpointError:
        raise
    except pickle.UnpicklingError as error:
        raise CheckpointError(
            f"{source} holds serialized Python objects other than tensors, which a checkpoint never does (loading them "
            f"could run code): refused unread ({error})"
        ) from None
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        EOFError,
        IndexError,
        zipfile.BadZipFile,
        OSError,
    ) as error:
        raise CheckpointError(f"{source} is not a readable torch file (truncated or corrupted?): {error}") from None
