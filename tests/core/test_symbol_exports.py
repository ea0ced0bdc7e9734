"""The shared libraries export only our API.

Anything else in the dynamic symbol table (most dangerously the C++ standard library's template
code instantiated in our objects) can interpose on another extension's copy of libstdc++, which
crashed `import falcor` for an engine built with a statically linked libstdc++ once scipy had
loaded the system one. The symbol tables are read straight from the ELF files, so the test needs
no binutils.
"""
import re
import struct
from pathlib import Path

import falcor
import pytest

PACKAGE = Path(falcor.__file__).parent
LIBRARIES = sorted([PACKAGE / "libfalcor.so", *PACKAGE.glob("falcor_ext*.so"), *(PACKAGE / "plugins").glob("*.so")])

# Mangled names of entities in namespace falcor: functions (N/NK), vtables, typeinfo objects and
# their names (TV, TI, TS), also of classes local to a falcor function (Z), and guard variables.
FALCOR_SYMBOL = re.compile(r"_Z(?:T[VIS]|GV)?Z?NK?6falcor")
C_ENTRY_POINTS = {"registerPlugin"}

SHT_DYNSYM, SHN_UNDEF = 11, 0
STB_GLOBAL, STB_WEAK, STV_DEFAULT = 1, 2, 0


def exported_symbols(path: Path) -> list[str]:
    """Names a dynamic linker can bind to: defined, global or weak, default visibility."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2, f"{path} is not a 64-bit ELF file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != SHT_DYNSYM:
            continue
        strtab_offset = sections[link][4]
        for pos in range(offset, offset + size, entsize):
            st_name, st_info, st_other, st_shndx = struct.unpack_from("<IBBH", data, pos)
            if st_shndx == SHN_UNDEF or st_info >> 4 not in (STB_GLOBAL, STB_WEAK) or st_other & 3 != STV_DEFAULT:
                continue
            end = data.index(b"\0", strtab_offset + st_name)
            names.append(data[strtab_offset + st_name:end].decode())
    return names


def test_every_library_is_checked():
    assert (PACKAGE / "libfalcor.so") in LIBRARIES and len(LIBRARIES) >= 3


@pytest.mark.parametrize("path", LIBRARIES, ids=lambda p: p.name)
def test_library_exports_only_its_api(path):
    symbols = [s for s in exported_symbols(path) if s]
    assert symbols, f"{path.name} exports nothing: the symbol reader is broken"
    if path.name == "libfalcor.so":
        foreign = [s for s in symbols if not FALCOR_SYMBOL.match(s)]
    elif path.name.startswith("falcor_ext"):
        foreign = [s for s in symbols if not s.startswith("PyInit_")]
    else:
        foreign = [s for s in symbols if s not in C_ENTRY_POINTS]
    assert not foreign, f"{path.name} exports {len(foreign)} symbol(s) that are not its API, e.g. {foreign[:5]}"


def test_libfalcor_exports_no_standard_library_code():
    std = [s for s in exported_symbols(PACKAGE / "libfalcor.so") if re.match(r"_Z(?:T[VIS]|GV)?N?K?(?:St|9__gnu_cxx)", s)]
    assert not std, f"libfalcor exports std:: symbols, e.g. {std[:5]}"
