"""Enum base matching pybind11 enums: members are not ints, but `int(member)` works."""
import enum


class BoundEnum(enum.Enum):
    def __int__(self):
        return self.value

    def __index__(self):
        return self.value
