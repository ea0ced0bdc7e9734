#pragma once
#include "Core/Properties.h"
#include <array>

/// The ReLAX tuning options of Falcor's NRD pass (NRD 3.1's RelaxDiffuseSpecularSettings and
/// RelaxDiffuseSettings with Falcor's overrides of their defaults). The CPU replacement keeps and
/// returns them so scripts round-trip; its per-frame OIDN filter has no use for them.
class NRDSettings
{
public:
    /// Which of NRD's settings structures a method's keys go to.
    enum class Group
    {
        DiffuseSpecular, ///< RelaxDiffuseSpecular and ReblurDiffuseSpecular (Falcor stores both in the ReLAX one).
        Diffuse,         ///< RelaxDiffuse.
    };

    NRDSettings();
    /// Sets `key` of `group`; false if the group has no such key.
    bool set(Group group, const std::string& key, const falcor::PropertyValue& value);
    /// Writes the group's keys in Falcor's order.
    void write(Group group, falcor::Properties& props) const;

private:
    static constexpr size_t kKeyCount = 31;
    std::array<std::array<double, kKeyCount>, 2> mValues;
};
