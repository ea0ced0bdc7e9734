"""A small reader and writer of binary FBX files for the Assimp importer's tests: tests read the
shared FBX assets' own values (transforms, pivots, vertices) to check the import against, and write
small or hostile files (huge array counts, deep nesting) the assets do not contain.

Binary FBX: a 27-byte header ("Kaydara FBX Binary  \\0\\x1a\\0" + uint32 version), then node records:
end offset, property count, property bytes (uint32 each below version 7500, uint64 from it), a name
(uint8 length), the properties, the nested records and a null record closing them."""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

MAGIC = b"Kaydara FBX Binary  \x00\x1a\x00"
_SCALARS = {b"Y": "<h", b"C": "<?", b"I": "<i", b"F": "<f", b"D": "<d", b"L": "<q"}
_ARRAYS = {b"f": "f", b"d": "d", b"l": "q", b"i": "i", b"b": "?"}


@dataclass
class Record:
    name: str
    props: list = field(default_factory=list)  # (type code, value); arrays as lists
    children: list = field(default_factory=list)
    offset: int = 0  # where the record starts in the file read
    prop_offsets: list = field(default_factory=list)  # where each property's type code is

    def find(self, name: str) -> list:
        return [c for c in self.children if c.name == name]


def read(data: bytes) -> list[Record]:
    assert data.startswith(MAGIC)
    version = struct.unpack_from("<I", data, 23)[0]
    records, _ = _read_list(data, 27, version, len(data))
    return records


def _read_list(data, pos, version, end):
    wide = version >= 7500
    head = "<QQQB" if wide else "<IIIB"
    size = struct.calcsize(head)
    records = []
    while pos + size <= end:
        end_offset, count, _, name_len = struct.unpack_from(head, data, pos)
        if end_offset == 0:
            return records, pos + size
        record = Record(data[pos + size:pos + size + name_len].decode("latin-1"), offset=pos)
        p = pos + size + name_len
        for _ in range(count):
            record.prop_offsets.append(p)
            value, p = _read_property(data, p)
            record.props.append(value)
        if p < end_offset:
            record.children, _ = _read_list(data, p, version, end_offset)
        records.append(record)
        pos = end_offset
    return records, pos


def _read_property(data, p):
    code = data[p:p + 1]
    p += 1
    if code in _SCALARS:
        fmt = _SCALARS[code]
        return (code.decode(), struct.unpack_from(fmt, data, p)[0]), p + struct.calcsize(fmt)
    if code in _ARRAYS:
        length, encoding, compressed = struct.unpack_from("<III", data, p)
        raw = data[p + 12:p + 12 + compressed]
        raw = zlib.decompress(raw) if encoding == 1 else raw
        return (code.decode(), list(struct.unpack(f"<{length}{_ARRAYS[code]}", raw))), p + 12 + compressed
    if code in (b"S", b"R"):
        length = struct.unpack_from("<I", data, p)[0]
        return (code.decode(), data[p + 4:p + 4 + length]), p + 4 + length
    raise ValueError(f"unknown FBX property type {code!r} at {p - 1}")


def write(records: list[Record], version: int = 7400, nesting: int = 0) -> bytes:
    """The file's bytes; `nesting` > 0 appends a chain of that many records nested in one another."""
    out = bytearray(MAGIC + struct.pack("<I", version))
    _write_list(out, records, version)
    if nesting:
        _write_chain(out, nesting, version)
    out += b"\0" * (25 if version >= 7500 else 13)  # the top level's closing null record
    out += b"\0" * 160  # footer padding Assimp does not read
    return bytes(out)


def _write_list(out, records, version):
    wide = version >= 7500
    head = "<QQQB" if wide else "<IIIB"
    for r in records:
        start = len(out)
        name = r.name.encode("latin-1")
        props = b"".join(_property_bytes(code, value) for code, value in r.props)
        out += struct.pack(head, 0, len(r.props), len(props), len(name)) + name + props
        if r.children:
            _write_list(out, r.children, version)
            out += b"\0" * struct.calcsize(head)
        struct.pack_into("<Q" if wide else "<I", out, start, len(out))


def _write_chain(out, depth, version):
    """Records "N" nested `depth` deep around an empty one (written without recursion)."""
    head = "<QQQB" if version >= 7500 else "<IIIB"
    null = struct.calcsize(head)
    prop = _property_bytes("I", 7)
    size = null + 1 + len(prop)  # one record's header, name "N" and its property
    start = len(out)
    leaf_end = start + depth * size + size
    for i in range(depth + 1):
        nested = i < depth
        end = leaf_end + (depth - i) * null if nested else leaf_end
        out += struct.pack(head, end, 1, len(prop), 1) + b"N" + prop
    out += b"\0" * (null * depth)


def _property_bytes(code: str, value) -> bytes:
    c = code.encode()
    if c in _SCALARS:
        return c + struct.pack(_SCALARS[c], value)
    if c in _ARRAYS:
        raw = struct.pack(f"<{len(value)}{_ARRAYS[c]}", *value)
        return c + struct.pack("<III", len(value), 0, len(raw)) + raw
    data = value.encode() if isinstance(value, str) else value
    return c + struct.pack("<I", len(data)) + data


def properties70(record: Record) -> dict:
    """A record's Properties70 entries: name -> the values after the name, type, label and flags."""
    table = {}
    for p70 in record.find("Properties70"):
        for p in p70.find("P"):
            table[p.props[0][1].decode()] = [v for _, v in p.props[4:]]
    return table
