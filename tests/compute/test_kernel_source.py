"""The rewrite of Slang's C++ output that routes division, remainder and shifts to the runtime's
guarded operators (falcor/compute/kernel_source.py): right operands found by C++'s grammar."""
import pytest

import falcor
from falcor.compute.kernel_source import _PRELUDE_END, guard_integer_operations

PRELUDE = "// Slang's prelude: left alone\nint half(int x) { return x / 2; }\n" + _PRELUDE_END


def guarded(code: str) -> str:
    out = guard_integer_operations(PRELUDE + code)
    assert out.startswith(PRELUDE)
    return out[len(PRELUDE):]


@pytest.mark.parametrize("code, expected", [
    ("a / b;", "a / falcor_kernel::divisor(b);"),
    ("a * b / c * d;", "a * b / falcor_kernel::divisor(c) * d;"),
    ("x = a % (b + c) - 1;", "x = a % falcor_kernel::divisor((b + c)) - 1;"),
    ("a / p->q.r[i](k)++ + 1;", "a / falcor_kernel::divisor(p->q.r[i](k)++) + 1;"),
    ("a / - (p)->d;", "a / falcor_kernel::divisor(- (p)->d);"),
    ("a / (Vector<int32_t, 2> )(p)->d + 1;", "a / falcor_kernel::divisor((Vector<int32_t, 2> )(p)->d) + 1;"),
    ("a / (int)-x;", "a / falcor_kernel::divisor((int)-x);"),
    ("v / Vector<float, 4> {x, y, z, w};", "v / falcor_kernel::divisor(Vector<float, 4> {x, y, z, w});"),
    ("a / slang_bit_cast<T*>(p)->n;", "a / falcor_kernel::divisor(slang_bit_cast<T*>(p)->n);"),
    ("a / 1.5e-3f;", "a / falcor_kernel::divisor(1.5e-3f);"),
    ("a / (b / c);", "a / falcor_kernel::divisor((b / falcor_kernel::divisor(c)));"),
    ("a << b + c * d >> e;",
     "a << falcor_kernel::shiftCount(b + c * d) >> falcor_kernel::shiftCount(e);"),
    ("a << b / c;", "a << falcor_kernel::shiftCount(b / falcor_kernel::divisor(c));"),
    ('// a / b\n#line 3 "x / y.slang"\ns = "p / q";', '// a / b\n#line 3 "x / y.slang"\ns = "p / q";'),
    ("RWStructuredBuffer<Vector<float, 4> > b;", "RWStructuredBuffer<Vector<float, 4> > b;"),
])
def test_right_operands_are_wrapped(code, expected):
    assert guarded(code) == expected


def test_what_it_cannot_guard_fails_the_build():
    with pytest.raises(falcor.RuntimeError, match="cannot guard the operand of '/'"):
        guarded("a / ;")
    with pytest.raises(falcor.RuntimeError, match="compound assignment '/='"):
        guarded("a /= b;")
    with pytest.raises(falcor.RuntimeError, match="end of its prelude was not found"):
        guard_integer_operations("a / b;")
