#pragma once
#include <cstdint>

namespace falcor
{
/// Falcor's LobeType bits: the kinds of scattering a BSDF has.
enum LobeType : uint32_t
{
    kLobeDiffuseReflection = 0x01,
    kLobeSpecularReflection = 0x02,
    kLobeDeltaReflection = 0x04,
    kLobeDiffuseTransmission = 0x10,
    kLobeSpecularTransmission = 0x20,
    kLobeDeltaTransmission = 0x40,
    kLobeAll = 0xff,

    kLobeReflection = kLobeDiffuseReflection | kLobeSpecularReflection | kLobeDeltaReflection,
    kLobeTransmission = kLobeDiffuseTransmission | kLobeSpecularTransmission | kLobeDeltaTransmission,
    kLobeDiffuse = kLobeDiffuseReflection | kLobeDiffuseTransmission,
    kLobeSpecular = kLobeSpecularReflection | kLobeSpecularTransmission,
    kLobeDelta = kLobeDeltaReflection | kLobeDeltaTransmission,
    kLobeNonDelta = kLobeDiffuse | kLobeSpecular,
    kLobeNonDeltaReflection = kLobeDiffuseReflection | kLobeSpecularReflection,
    kLobeNonDeltaTransmission = kLobeDiffuseTransmission | kLobeSpecularTransmission,
};
} // namespace falcor
