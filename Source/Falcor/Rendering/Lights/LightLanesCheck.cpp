#include "Rendering/Lights/LightLanesCheck.h"
#include "Utils/Simd/IsaKernels.h"

FALCOR_DECLARE_ISA_KERNEL(int, lightLanesCheck,
                          (const falcor::EmissiveLightSampler& emissive, const falcor::EnvMapSampler& env, const falcor::LightLanesCheckIO& io))

namespace falcor
{
int lightLanesCheck(const EmissiveLightSampler& emissive, const EnvMapSampler& env, const LightLanesCheckIO& io)
{
    return FALCOR_PICK_ISA_KERNEL(lightLanesCheck)(emissive, env, io);
}
} // namespace falcor
