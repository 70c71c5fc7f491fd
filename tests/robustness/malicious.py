"""Hostile checkpoint files for the trainers' and agents' loaders (issue 17, items 1-2), as reusable helpers.

- :func:`sb3_zip_running_code`: a Stable-Baselines3 model zip whose ``data`` holds a ``":serialized:"`` entry:
  SB3's loader (``MaskablePPO.load``, ``load_from_zip_file``) unpickles it, and the payload creates a file.
- :func:`torch_file_running_code`: a ``torch.save`` file holding, beside any tensors, an object whose unpickling
  creates a file (what ``torch.load(weights_only=False)`` runs and ``weights_only=True`` refuses).
- :func:`zip_bomb`: a zip of ~2 MB declaring a 2 GiB member of zeros, written in a second without 2 GiB in memory.
- :func:`replace_member`: a copy of a zip with one member replaced or added (to plant any of these in a checkpoint
  that is a zip of members, such as the PPO trainer's ``last.zip`` holding ``model.zip``).

The payload is harmless: it creates the file ``marker`` (:class:`CreatesFile`), so a test asserts that loading refused
the file *and* that ``marker`` does not exist.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

#: The payload of :func:`zip_bomb`: its member declares this many zero bytes.
BOMB_BYTES = 2 * 1024**3
_CHUNK = 1 << 20  # the bomb's member is this block of zeros, repeated


class CreatesFile:
    """An object whose unpickling creates the (empty) file ``path``: the harmless stand-in for a payload that runs
    code (``os.system``), so that a test sees whether a loader ran it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        return (Path.touch, (self.path,))


def sb3_zip_running_code(marker: str | Path, base: bytes | None = None, key: str = "learning_rate") -> bytes:
    """The bytes of an SB3 model zip whose ``data`` entry ``key`` is serialized as SB3 serializes callables (base64
    of a pickle) and creates ``marker`` when SB3 deserializes it. ``base``: the bytes of a real SB3 zip (e.g. a
    trainer's ``model.zip``), whose members and other ``data`` entries are kept, so that the file looks like a real
    checkpoint; without it, a zip of ``data`` alone (enough for SB3's loader to run the payload)."""
    members: dict[str, bytes] = {"data": b"{}", "_stable_baselines3_version": b"2.0.0"}
    if base is not None:
        with zipfile.ZipFile(io.BytesIO(base)) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    data[key] = {
        ":type:": "<class 'function'>",
        ":serialized:": base64.b64encode(pickle.dumps(CreatesFile(marker))).decode(),
    }
    members["data"] = json.dumps(data).encode()
    return _zip_bytes(members)


def torch_file_running_code(path: str | Path, marker: str | Path, base: dict[str, Any] | None = None) -> Path:
    """Write to ``path`` a ``torch.save`` file of ``base`` (e.g. a real checkpoint's dict, loaded with
    ``weights_only=True``; default a small state dict) plus the entry ``"payload"``, an object whose unpickling
    creates ``marker``. Return ``path``."""
    import torch  # here: only the checkpoint tests need torch

    content = dict(base) if base is not None else {"state_dict": {"weight": torch.zeros(2, 2)}}
    content["payload"] = CreatesFile(marker)
    torch.save(content, path)
    return Path(path)


def zip_bomb(path: str | Path, name: str = "data", size: int = BOMB_BYTES) -> Path:
    """Write to ``path`` a valid zip whose one member ``name`` holds ``size`` zero bytes (a multiple of 1 MiB),
    deflated to about 1/1000: 2 GiB in ~2 MB, written in about a second with 1 MiB in memory. Return ``path``.

    Each MiB of zeros is deflated alone (a full flush resets the compressor), so its compressed bytes are the same
    every time and are written ``size / 1 MiB`` times; the zip's headers are written here, with the ZIP64 fields
    that a member over 4 GiB or a reader's size checks need."""
    if size <= 0 or size % _CHUNK:
        raise ValueError(f"size must be a positive multiple of {_CHUNK}, got {size}")
    zeros = bytes(_CHUNK)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()
    count = size // _CHUNK
    crc = 0
    for _ in range(count):
        crc = zlib.crc32(zeros, crc)
    compressed = len(block) * count + len(end)
    encoded = name.encode()
    sizes = struct.pack("<HHQQ", 0x0001, 16, size, compressed)  # the ZIP64 extra field: both sizes
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                              len(encoded), len(sizes)))  # fmt: skip
        out.write(encoded + sizes)
        for _ in range(count):
            out.write(block)
        out.write(end)
        directory_offset = out.tell()
        out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                              len(encoded), len(sizes), 0, 0, 0, 0, 0))  # fmt: skip
        out.write(encoded + sizes)
        directory_size = out.tell() - directory_offset
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, directory_size, directory_offset, 0))
    return Path(path)


def replace_member(source: str | Path, destination: str | Path, name: str, data: bytes | Path) -> Path:
    """Copy the zip ``source`` to ``destination`` with its member ``name`` replaced by (or added as) ``data`` (bytes,
    or a file copied in 1 MiB pieces: a bomb is not unpacked on the way). Return ``destination``."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(destination, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in original.infolist():
            if info.filename != name:
                copy.writestr(info, original.read(info))
        if isinstance(data, Path):
            with open(data, "rb") as piece, copy.open(name, "w", force_zip64=True) as member:
                while chunk := piece.read(_CHUNK):
                    member.write(chunk)
        else:
            copy.writestr(name, data)
    return Path(destination)


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()
