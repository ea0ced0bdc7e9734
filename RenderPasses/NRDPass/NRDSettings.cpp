#include "NRDSettings.h"
#include <cmath>
#include <limits>

using namespace falcor;

namespace
{
enum class Kind
{
    Float,
    UInt,
    Bool,
};

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN(); ///< Not a RelaxDiffuse key.

struct Key
{
    const char* name;
    Kind kind;
    double diffuseSpecular; ///< Default for Group::DiffuseSpecular.
    double diffuse;         ///< Default for Group::Diffuse, or kAbsent.
};

// Falcor's getProperties order; defaults are NRD 3.1's with the values Falcor's constructor overrides.
const Key kKeys[] = {
    {"diffusePrepassBlurRadius", Kind::Float, 16.0, 16.0},
    {"specularPrepassBlurRadius", Kind::Float, 16.0, kAbsent},
    {"diffuseMaxAccumulatedFrameNum", Kind::UInt, 31, 31},
    {"specularMaxAccumulatedFrameNum", Kind::UInt, 31, kAbsent},
    {"diffuseMaxFastAccumulatedFrameNum", Kind::UInt, 2, 2},
    {"specularMaxFastAccumulatedFrameNum", Kind::UInt, 2, kAbsent},
    {"diffusePhiLuminance", Kind::Float, 2.0, 2.0},
    {"specularPhiLuminance", Kind::Float, 1.0, kAbsent},
    {"diffuseLobeAngleFraction", Kind::Float, 0.8f, 0.8f},
    {"specularLobeAngleFraction", Kind::Float, 0.9f, kAbsent},
    {"roughnessFraction", Kind::Float, 0.5, kAbsent},
    {"diffuseHistoryRejectionNormalThreshold", Kind::Float, 0.0, 0.0},
    {"specularVarianceBoost", Kind::Float, 1.0, kAbsent},
    {"specularLobeAngleSlack", Kind::Float, 10.0, kAbsent},
    {"disocclusionFixEdgeStoppingNormalPower", Kind::Float, 8.0, 8.0},
    {"disocclusionFixMaxRadius", Kind::Float, 32.0, 32.0},
    {"disocclusionFixNumFramesToFix", Kind::UInt, 4, 4},
    {"historyClampingColorBoxSigmaScale", Kind::Float, 2.0, 2.0},
    {"spatialVarianceEstimationHistoryThreshold", Kind::UInt, 4, 4},
    {"atrousIterationNum", Kind::UInt, 6, 6},
    {"minLuminanceWeight", Kind::Float, 0.0, 0.0},
    {"depthThreshold", Kind::Float, 0.02f, 0.02f},
    {"luminanceEdgeStoppingRelaxation", Kind::Float, 0.5, kAbsent},
    {"normalEdgeStoppingRelaxation", Kind::Float, 0.3f, kAbsent},
    {"roughnessEdgeStoppingRelaxation", Kind::Float, 0.3f, kAbsent},
    {"enableAntiFirefly", Kind::Bool, 0, 0},
    {"enableReprojectionTestSkippingWithoutMotion", Kind::Bool, 0, 0},
    {"enableSpecularVirtualHistoryClamping", Kind::Bool, 0, kAbsent},
    {"enableRoughnessEdgeStopping", Kind::Bool, 1, kAbsent},
    {"enableMaterialTestForDiffuse", Kind::Bool, 0, 0},
    {"enableMaterialTestForSpecular", Kind::Bool, 0, kAbsent},
};
static_assert(std::size(kKeys) == 31);

/// The value converted as the option's type would be (errors name the key).
double convert(const Key& key, const PropertyValue& value)
{
    switch (key.kind)
    {
    case Kind::Float:
        return value.as<float>(key.name);
    case Kind::UInt:
        return value.as<uint32_t>(key.name);
    default:
        return value.as<bool>(key.name) ? 1.0 : 0.0;
    }
}

PropertyValue toValue(Kind kind, double v)
{
    switch (kind)
    {
    case Kind::Float:
        return PropertyValue(float(v));
    case Kind::UInt:
        return PropertyValue(uint32_t(v));
    default:
        return PropertyValue(v != 0.0);
    }
}
} // namespace

NRDSettings::NRDSettings()
{
    for (size_t i = 0; i < kKeyCount; ++i)
    {
        mValues[0][i] = kKeys[i].diffuseSpecular;
        mValues[1][i] = kKeys[i].diffuse;
    }
}

bool NRDSettings::set(Group group, const std::string& key, const PropertyValue& value)
{
    const size_t g = size_t(group);
    for (size_t i = 0; i < kKeyCount; ++i)
    {
        if (key != kKeys[i].name)
            continue;
        if (std::isnan(mValues[g][i])) // A diffuse/specular key that RelaxDiffuse lacks.
            return false;
        mValues[g][i] = convert(kKeys[i], value);
        return true;
    }
    return false;
}

void NRDSettings::write(Group group, Properties& props) const
{
    const size_t g = size_t(group);
    for (size_t i = 0; i < kKeyCount; ++i)
        if (!std::isnan(mValues[g][i]))
            props.setValue(kKeys[i].name, toValue(kKeys[i].kind, mValues[g][i]));
}
