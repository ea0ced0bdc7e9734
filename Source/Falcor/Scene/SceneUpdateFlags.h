#pragma once
#include <cstdint>

namespace falcor
{
/// What changed in a scene update (Falcor's IScene::UpdateFlags bit values). Also reachable as
/// `Scene::UpdateFlags`; this header exists so the render graph can name it without the scene.
enum class SceneUpdateFlags : uint32_t
{
    None = 0x0,
    GeometryMoved = 0x1,
    CameraMoved = 0x2,
    CameraPropertiesChanged = 0x4, ///< Camera changes other than position (incl. jitter).
    CameraSwitched = 0x8,
    LightsMoved = 0x10,
    LightIntensityChanged = 0x20,
    LightPropertiesChanged = 0x40,
    SceneGraphChanged = 0x80,
    LightCollectionChanged = 0x100,
    MaterialsChanged = 0x200,
    EnvMapChanged = 0x400,
    EnvMapPropertiesChanged = 0x800,
    LightCountChanged = 0x1000,
    RenderSettingsChanged = 0x2000,
    GeometryChanged = 0x100000,
    MeshesChanged = 0x1000000,
    EmissiveMaterialsChanged = 0x10000000,
    All = 0xffffffff,
};

inline SceneUpdateFlags operator|(SceneUpdateFlags a, SceneUpdateFlags b) { return SceneUpdateFlags(uint32_t(a) | uint32_t(b)); }
inline SceneUpdateFlags operator&(SceneUpdateFlags a, SceneUpdateFlags b) { return SceneUpdateFlags(uint32_t(a) & uint32_t(b)); }
inline SceneUpdateFlags operator~(SceneUpdateFlags a) { return SceneUpdateFlags(~uint32_t(a)); }
inline SceneUpdateFlags& operator|=(SceneUpdateFlags& a, SceneUpdateFlags b) { return a = a | b; }
inline bool isSet(SceneUpdateFlags flags, SceneUpdateFlags bits) { return (uint32_t(flags) & uint32_t(bits)) != 0; }
} // namespace falcor
