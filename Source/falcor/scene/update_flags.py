"""`SceneUpdateFlags`: what a scene update changed (Falcor's IScene::UpdateFlags), as an IntFlag.
Members are written out for type checkers and editors; their values come from the native enum
(Scene/SceneUpdateFlags.h), and the import fails if the two lists of names ever differ."""
import enum

from .. import falcor_ext as _ext

_NATIVE = {name: int(value) for name, value in _ext._SceneUpdateFlags.__members__.items()}


class SceneUpdateFlags(enum.IntFlag):
    None_ = _NATIVE["None_"]
    GeometryMoved = _NATIVE["GeometryMoved"]
    CameraMoved = _NATIVE["CameraMoved"]
    CameraPropertiesChanged = _NATIVE["CameraPropertiesChanged"]
    CameraSwitched = _NATIVE["CameraSwitched"]
    LightsMoved = _NATIVE["LightsMoved"]
    LightIntensityChanged = _NATIVE["LightIntensityChanged"]
    LightPropertiesChanged = _NATIVE["LightPropertiesChanged"]
    SceneGraphChanged = _NATIVE["SceneGraphChanged"]
    LightCollectionChanged = _NATIVE["LightCollectionChanged"]
    MaterialsChanged = _NATIVE["MaterialsChanged"]
    EnvMapChanged = _NATIVE["EnvMapChanged"]
    EnvMapPropertiesChanged = _NATIVE["EnvMapPropertiesChanged"]
    LightCountChanged = _NATIVE["LightCountChanged"]
    RenderSettingsChanged = _NATIVE["RenderSettingsChanged"]
    GeometryChanged = _NATIVE["GeometryChanged"]
    MeshesChanged = _NATIVE["MeshesChanged"]
    EmissiveMaterialsChanged = _NATIVE["EmissiveMaterialsChanged"]
    All = _NATIVE["All"]


if set(SceneUpdateFlags.__members__) != set(_NATIVE):
    raise ImportError(f"SceneUpdateFlags differs from the native flags: {sorted(set(SceneUpdateFlags.__members__) ^ set(_NATIVE))}")
