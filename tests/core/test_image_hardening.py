"""Regression tests for image reading defects found in review (issue: hardening)."""
import numpy as np
import pytest

import falcor


def write_hdr(path, header_size: str, body: bytes = b""):
    path.write_bytes(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + header_size.encode() + b"\n" + body)
    return path


@pytest.mark.parametrize("size", ["-Y 100000000 +X 100000000", "-Y 16385 +X 8", "-Y 4 +X 2147483647"])
def test_hdr_declaring_a_huge_size_is_refused(tmp_path, size):
    path = write_hdr(tmp_path / "huge.hdr", size)
    with pytest.raises(falcor.ImporterError, match=r"huge\.hdr.*exceeds the limit of 16384"):
        falcor.read_image(path)


def test_hdr_declaring_more_rows_than_it_holds_fails_without_allocating_them(tmp_path):
    row = bytes([128, 128, 128, 129]) * 16384
    path = write_hdr(tmp_path / "short.hdr", "-Y 16384 +X 16384", row * 2)  # 2 of 16384 rows
    with pytest.raises(falcor.ImporterError, match=r"short\.hdr.*unexpected end of file"):
        falcor.read_image(path)


def test_hdr_still_reads(tmp_path):
    path = write_hdr(tmp_path / "ok.hdr", "-Y 2 +X 3", bytes([128, 64, 32, 129]) * 6)
    pixels = np.asarray(falcor.read_image(path))
    assert pixels.shape[:2] == (2, 3) and np.allclose(pixels[..., :3], [1.0, 0.5, 0.25])


def test_failing_image_read_names_file_and_cause_only(tmp_path):
    path = tmp_path / "bad.png"
    path.write_bytes(b"garbage")
    with pytest.raises(falcor.ImporterError) as info:
        falcor.read_image(path)
    message = str(info.value)
    assert message.startswith(f"Failed to read image '{path}': UnidentifiedImageError: cannot identify image file")
    assert "At:" not in message and ".py(" not in message
