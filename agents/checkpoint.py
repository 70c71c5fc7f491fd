"""Checkpoint files, read without trusting them and written so that a kill or a full disk never leaves half a file.

Reading runs no code from the file: arrays load with ``allow_pickle=False``, tensors with ``torch.load(...,
weights_only=True)``, which refuses a pickle that would build any other Python object (:func:`load_tensors`), and
a zip's declared sizes are checked before anything is decompressed, each against what the member may hold (a JSON
file kilobytes, a network's tensors what its declared shapes take), so a zip bomb fails at once
(:func:`check_zip_sizes`, :func:`read_member`; zipfile never unpacks more than a member declares). Every failure is a
:class:`~awale_env.errors.CheckpointError` naming the file and what is wrong. Writing goes through
:func:`atomic_write`: the content made in memory, written to a temporary file beside the target, renamed over it
when complete, removed on any failure.
"""

from __future__ import annotations

import io
import os
import pickle
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

from awale_env.errors import CheckpointError

#: The most a member of a checkpoint zip may unpack to, and all its members together: far above any checkpoint of
#: this project (the shipped ones unpack to 3.4 MB; an AlphaZero state with a 150,000-sample replay buffer to 35 MB).
MAX_MEMBER_BYTES = 1 << 30
MAX_TOTAL_BYTES = 2 << 30
#: The start of the message of torch's ``weights_only`` refusal: a pickle of something other than tensors, or of
#: something its unpickler cannot read (an unknown opcode), which torch does not tell apart.
_WEIGHTS_ONLY_REFUSAL = "Weights only load failed"
#: How every file ``torch.save`` writes starts: a zip (the format since torch 1.6) or a pickle of protocol 2 or more
#: (the legacy format), whose first byte is the PROTO opcode.
_ZIP_MAGIC = b"PK\x03\x04"
_PICKLE_PROTO = b"\x80"


#: The most a JSON member (a configuration, an index) or the pickle of a torch file's structure may unpack to: they
#: hold kilobytes (their tensors are members of their own).
MAX_JSON_BYTES = 1 << 20
MAX_PICKLE_BYTES = 16 << 20


def member_cap(name: str) -> tuple[int, str]:
    """The most the member ``name`` of a checkpoint zip may unpack to, by what it may hold, and who may hold that
    much: kilobytes for a JSON file or the pickle of a torch file's structure, :data:`MAX_MEMBER_BYTES` for arrays and
    tensors (whose loaders bound them closer by the network they declare, :func:`read_member`)."""
    if name.endswith(".json"):
        return MAX_JSON_BYTES, "a checkpoint's JSON member (kilobytes of settings)"
    if name.endswith(".pkl"):
        return MAX_PICKLE_BYTES, "the pickle of a torch file's structure (its tensors are members of their own)"
    return MAX_MEMBER_BYTES, "a checkpoint member"


def check_member_size(info: zipfile.ZipInfo, source: str, cap: int, holder: str) -> None:
    """CheckpointError if the zip member ``info`` would unpack to more than the ``cap`` bytes ``holder`` may hold."""
    if info.file_size > cap:
        raise CheckpointError(
            f"{source}: member {info.filename!r} would unpack to {info.file_size:,} bytes, more than the {cap:,} "
            f"{holder} may hold (a zip bomb?): refused unread"
        )


def read_member(archive: zipfile.ZipFile, name: str, source: str, cap: int | None = None, holder: str = "") -> bytes:
    """The bytes of the member ``name`` of ``archive``, once its declared size is checked against what it may hold
    (:func:`member_cap`, or ``cap`` bytes that ``holder`` may hold when smaller): a member larger than that is
    refused before anything is decompressed. KeyError for a member the zip lacks."""
    info = archive.getinfo(name)
    most, who = member_cap(name)
    if cap is not None and cap < most:
        most, who = cap, holder
    check_member_size(info, source, most, who)
    return archive.read(info)


def check_zip_sizes(archive: zipfile.ZipFile, source: str) -> None:
    """CheckpointError if a member of ``archive`` would unpack to more than what it may hold (:func:`member_cap`:
    kilobytes for a JSON file, at most :data:`MAX_MEMBER_BYTES`), or all of them to more than :data:`MAX_TOTAL_BYTES`
    (read from the zip's directory: nothing is decompressed)."""
    total = 0
    for info in archive.infolist():
        check_member_size(info, source, *member_cap(info.filename))
        total += info.file_size
    if total > MAX_TOTAL_BYTES:
        raise CheckpointError(
            f"{source}: its members would unpack to {total:,} bytes, more than the {MAX_TOTAL_BYTES:,} a checkpoint "
            "may hold (a zip bomb?)"
        )


def open_zip(file: str | Path | IO[bytes], source: str) -> zipfile.ZipFile:
    """The zip ``file``, its sizes checked (:func:`check_zip_sizes`); CheckpointError if it is not a readable zip."""
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
        raise CheckpointError(f"{source} is not a readable zip file (truncated or corrupted?): {error}") from None
    try:
        check_zip_sizes(archive, source)
    except CheckpointError:
        archive.close()
        raise
    return archive


def check_torch_header(file: str | Path | bytes, source: str) -> bool:
    """Whether ``file`` (a path or bytes) is a zip, as every file ``torch.save`` writes since torch 1.6 (else a pickle
    of the legacy format); CheckpointError for any other start: an empty file or one of another format is not a
    checkpoint at all."""
    if isinstance(file, bytes):
        header = file[: len(_ZIP_MAGIC)]
    else:
        try:
            with open(file, "rb") as opened:
                header = opened.read(len(_ZIP_MAGIC))
        except OSError as error:
            raise CheckpointError(f"{source} cannot be read: {error.strerror or error}") from None
    if not header.startswith((_ZIP_MAGIC, _PICKLE_PROTO)):
        what = "it is empty" if not header else f"it starts with {header!r}"
        raise CheckpointError(
            f"{source} is not a readable torch file, not a checkpoint at all: {what}, and a file written by "
            f"torch.save starts with a zip header {_ZIP_MAGIC!r} or a pickle protocol byte {_PICKLE_PROTO!r}"
        )
    return header.startswith(_ZIP_MAGIC)


def load_tensors(file: str | Path | bytes, source: str) -> Any:
    """What ``torch.save`` wrote to ``file`` (a path or the bytes of a zip member), loaded on the CPU with
    ``weights_only=True``: tensors, numbers, strings and containers of them. CheckpointError for anything else (a
    pickle of other Python objects is refused before it can run), for a file that does not start as a torch file does
    and for a truncated or corrupted one. Torch's warnings about the file are silenced: the error says it all."""
    import torch  # only the trainers read tensors (the agents read arrays: agents.torch_file)

    check_torch_header(file, source)
    data = io.BytesIO(file) if isinstance(file, bytes) else file
    if zipfile.is_zipfile(data):  # torch's format is a zip: check what it declares before torch unpacks it
        open_zip(data, source).close()
    if isinstance(data, io.BytesIO):
        data.seek(0)
    try:
        with warnings.catch_warnings():  # e.g. "Detected pickle protocol 4" before the refusal: one error, no noise
            warnings.simplefilter("ignore")
            return torch.load(data, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        message = str(error)
        if not message.startswith(_WEIGHTS_ONLY_REFUSAL):
            raise CheckpointError(f"{source} is not a readable torch file (truncated or corrupted?): {error}") from None
        blocked = next((line.strip() for line in message.splitlines() if "GLOBAL" in line), None)
        if blocked:  # torch names the Python object the pickle would build
            raise CheckpointError(
                f"{source} holds serialized Python objects other than tensors, which a checkpoint never does "
                f"(loading them could run code): refused ({blocked})"
            ) from None
        raise CheckpointError(
            f"{source} is not a readable torch file, or it holds serialized Python objects other than tensors, "
            "which a checkpoint never does (loading them could run code): refused"
        ) from None
    except Exception as error:  # torch raises RuntimeError, EOFError, ... depending on the damage
        detail = f": {error}" if str(error) else f" ({type(error).__name__})"
        raise CheckpointError(f"{source} is not a readable torch file (truncated or corrupted?){detail}") from None


def load_arrays(data: bytes, source: str) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file's bytes (``allow_pickle=False``: an object array is refused);
    CheckpointError for a file that is not one."""
    open_zip(io.BytesIO(data), source).close()
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except Exception as error:  # numpy raises ValueError, KeyError, BadZipFile, ... depending on the damage
        raise CheckpointError(f"{source} is not a readable array file: {error}") from None


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], object]) -> None:
    """Call ``write(file)`` to produce the new content of ``path`` (in memory, so that a writer such as
    ``torch.save`` never sees a failing file), write it to a temporary file beside ``path``, sync it and rename it
    over ``path``: ``path`` is the old file or the new one, never half of one. On any failure (a full disk, Ctrl-C)
    the temporary file is removed and the error raised (an OSError naming ``path``)."""
    path = Path(path)
    content = io.BytesIO()
    write(content)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as file:
            file.write(content.getbuffer())
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None:
            error.filename = str(path)  # a failed write (a full disk) names no file of its own
        raise
