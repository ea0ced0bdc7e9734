"""Slang's C++ output made safe to run: integer division, remainder and shifts as on a GPU.

C++ leaves `x / 0`, `INT_MIN / -1` and shifts by the type's width or more undefined (x86 traps on
the first two and kills the process); a GPU returns a value. Slang emits those operations as C++
operators, so in the kernel's own code (after Slang's prelude) every `a / b` and `a % b` becomes
`a / falcor_kernel::divisor(b)` and every `a << b` and `a >> b` becomes
`a << falcor_kernel::shiftCount(b)`: the wrapper's operators (runtime/kernel_prelude.h) apply the
GPU's rules per element, and floats keep C++'s own operators.

Only the right operand is located, which takes C++'s grammar for what Slang writes: a cast
expression (an additive one after a shift), with Slang's spacing (binary operators between spaces).
Anything else raises instead of leaving an operation unguarded.
"""
from __future__ import annotations

import re

from .. import falcor_ext as _ext

_PRELUDE_END = "#ifdef SLANG_PRELUDE_NAMESPACE\nusing namespace SLANG_PRELUDE_NAMESPACE;\n#endif\n"
_GUARDED = {" / ": "falcor_kernel::divisor", " % ": "falcor_kernel::divisor",
            " << ": "falcor_kernel::shiftCount", " >> ": "falcor_kernel::shiftCount"}
_COMPOUND = re.compile(r" (/|%|<<|>>)= ")
_OPERATOR = re.compile(r" (?:/|%|<<|>>) (?!=)")
# What the scan skips: comments, string and character literals, preprocessor lines.
_SKIPPED = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*', re.S | re.M)
_NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\w*")
_MEMBER = re.compile(r"(?:\.|->)[A-Za-z_]\w*")
_ADDITIVE = (" + ", " - ", " * ", " / ", " % ")
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">"}


class _Unrecognized(ValueError):
    pass


def guard_integer_operations(cpp_source: str) -> str:
    """`cpp_source` with every division, remainder and shift in the kernel's code guarded."""
    start = cpp_source.rfind(_PRELUDE_END)
    if start < 0:
        raise _ext.RuntimeError("Slang's C++ output has an unexpected form (the end of its prelude was not found); "
                                "this slangpy release is not supported by the CPU engine")
    start += len(_PRELUDE_END)
    kernel = cpp_source[start:]
    skipped = [m.span() for m in _SKIPPED.finditer(kernel)]
    code = _blank(kernel, skipped)
    compound = _COMPOUND.search(code)
    if compound:
        raise _ext.RuntimeError(f"{_where(cpp_source, start + compound.start())}: Slang wrote a compound assignment "
                                f"'{compound.group(0).strip()}', which the CPU engine cannot guard")
    insertions = []
    for m in _OPERATOR.finditer(code):
        operand = m.end()
        try:
            end = _additive_end(code, operand) if m.group(0) in (" << ", " >> ") else _cast_end(code, operand)
        except (_Unrecognized, IndexError):
            raise _ext.RuntimeError(f"{_where(cpp_source, start + operand)}: the CPU engine cannot guard the operand of "
                                    f"'{m.group(0).strip()}' in Slang's C++ output: "
                                    f"{code[operand:operand + 60]!r}") from None
        insertions += [(operand, _GUARDED[m.group(0)] + "("), (end, ")")]
    pieces, previous = [cpp_source[:start]], 0
    for position, text in sorted(insertions, key=lambda p: p[0]):  # stable: no two openings share a place
        pieces += [kernel[previous:position], text]
        previous = position
    return "".join(pieces) + kernel[previous:]


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans replaced by spaces (newlines kept), so positions stay the same."""
    chars = list(text)
    for begin, end in spans:
        for i in range(begin, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _where(source: str, position: int) -> str:
    return f"line {source.count(chr(10), 0, position) + 1} of Slang's C++ output"


def _additive_end(code: str, i: int) -> int:
    """The end of the additive expression (a shift's right operand) starting at `i`."""
    i = _cast_end(code, i)
    while code.startswith(_ADDITIVE, i):
        i = _cast_end(code, i + 3)
    return i


def _cast_end(code: str, i: int) -> int:
    """The end of the cast expression (a division's right operand) starting at `i`."""
    while code[i] in "-+!~*&":  # prefix operators, Slang writes `- x` for negation
        i += 1
        while code[i] == " ":
            i += 1
    if code[i] == "(":
        i = _group_end(code, i)
        # `(type)operand` (a binary operator would follow a space); also `(f)(args)`, of the same extent.
        postfix = code.startswith(("->", "++", "--"), i)
        if (code[i] in "(-+!~*&" and not postfix) or _NAME.match(code, i) or _NUMBER.match(code, i):
            return _cast_end(code, i)
    elif m := _NAME.match(code, i):
        i = m.end()
        if code[i] == "<":  # a template: `Vector<int32_t, 2> {x, y}`, `slang_bit_cast<T*>(p)`
            i = _group_end(code, i)
            while code[i] == " " and code[i + 1] in " ({":
                i += 1
    elif m := _NUMBER.match(code, i):
        i = m.end()
    else:
        raise _Unrecognized(code[i:i + 20])
    return _postfix_end(code, i)


def _postfix_end(code: str, i: int) -> int:
    """The end of calls, subscripts, member accesses and increments following position `i`."""
    while True:
        if code[i] in "([{":
            i = _group_end(code, i)
        elif m := _MEMBER.match(code, i):
            i = m.end()
        elif code.startswith(("++", "--"), i):
            i += 2
        else:
            return i


def _group_end(code: str, i: int) -> int:
    """The position after the bracket that closes the one at `i` (angle brackets count only
    between themselves, as in template arguments)."""
    stack = [_CLOSING[code[i]]]
    i += 1
    while stack:
        c = code[i]
        if c == stack[-1]:
            stack.pop()
        elif c in "([{" or (c == "<" and stack[-1] == ">"):
            stack.append(_CLOSING[c])
        elif c in ")]}":
            raise _Unrecognized(f"unbalanced '{c}'")
        i += 1
    return i
