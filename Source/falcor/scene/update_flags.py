"""`SceneUpdateFlags`: what a scene update changed (Falcor's IScene::UpdateFlags), as an IntFlag
whose members and values come from the native enum (Scene/SceneUpdateFlags.h)."""
import enum

from .. import falcor_ext as _ext

SceneUpdateFlags = enum.IntFlag(
    "SceneUpdateFlags", {name: int(value) for name, value in _ext._SceneUpdateFlags.__members__.items()}, module=__name__)
