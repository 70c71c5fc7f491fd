"""The hostile checkpoints of :mod:`malicious` are what they claim to be, so that a loader test using them cannot pass
by accident: the payloads run when loaded the unsafe way (and only then create their marker file), the zip bomb
declares 2 GiB in a few MB."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import pytest
from malicious import BOMB_BYTES, replace_member, sb3_zip_running_code, torch_file_running_code, zip_bomb


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_an_sb3_zip_runs_its_payload_in_sb3s_loader(tmp_path):
    save_util = pytest.importorskip("stable_baselines3.common.save_util")
    marker = tmp_path / "ran"
    model = sb3_zip_running_code(marker)
    assert not marker.exists()
    save_util.load_from_zip_file(io.BytesIO(model), device="cpu")
    assert marker.exists(), "SB3's loader did not run the payload"


def test_an_sb3_zip_keeps_the_members_and_data_of_its_base(tmp_path):
    base = zip_of({"data": json.dumps({"gamma": 0.99}).encode(), "policy.pth": b"weights"})
    model = sb3_zip_running_code(tmp_path / "ran", base=base)
    with zipfile.ZipFile(io.BytesIO(model)) as archive:
        assert archive.read("policy.pth") == b"weights"
        data = json.loads(archive.read("data"))
    assert data["gamma"] == 0.99 and ":serialized:" in data["learning_rate"]
    assert not (tmp_path / "ran").exists()


def test_a_torch_file_runs_its_payload_unless_loaded_weights_only(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "ran"
    path = torch_file_running_code(tmp_path / "best.pt", marker, base={"generation": 3, "w": torch.ones(2)})
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    assert not marker.exists()
    loaded = torch.load(path, weights_only=False)
    assert marker.exists() and loaded["generation"] == 3, "torch.load did not run the payload"


def test_a_zip_bomb_declares_2_gib_in_a_few_mb(tmp_path):
    path = zip_bomb(tmp_path / "model.zip")
    assert path.stat().st_size < 5 * 1024**2
    with zipfile.ZipFile(path) as archive:
        (member,) = archive.infolist()
        assert (member.filename, member.file_size) == ("data", BOMB_BYTES)
        with archive.open(member) as unpacked:
            assert unpacked.read(1 << 20) == bytes(1 << 20)


def test_a_member_is_replaced_and_the_others_kept(tmp_path):
    checkpoint = tmp_path / "last.zip"
    checkpoint.write_bytes(zip_of({"config.json": b"{}", "model.zip": b"model"}))
    bomb = zip_bomb(tmp_path / "bomb.zip", size=1 << 20)
    replace_member(checkpoint, tmp_path / "hostile.zip", "model.zip", bomb)
    with zipfile.ZipFile(tmp_path / "hostile.zip") as archive:
        assert archive.read("config.json") == b"{}" and archive.read("model.zip") == bomb.read_bytes()
    replace_member(checkpoint, tmp_path / "other.zip", "model.zip", b"other")
    with zipfile.ZipFile(tmp_path / "other.zip") as archive:
        assert archive.read("model.zip") == b"other"
