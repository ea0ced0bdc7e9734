#include "Utils/Sampling/AliasTable.h"
#include "Core/Error.h"
#include <vector>

namespace falcor
{
void buildAliasBins(std::span<const double> weights, std::span<AliasBin> bins)
{
    FALCOR_CHECK(weights.size() == bins.size() && !weights.empty() && weights.size() <= UINT32_MAX, "buildAliasBins: ", weights.size(),
                 " weights for ", bins.size(), " bins.");
    double total = 0.0;
    for (size_t i = 0; i < weights.size(); ++i)
    {
        FALCOR_CHECK(weights[i] >= 0.0 && std::isfinite(weights[i]), "buildAliasBins: weight ", i, " is ", weights[i], ".");
        total += weights[i];
    }
    FALCOR_CHECK(total > 0.0 && std::isfinite(total), "buildAliasBins: the weights sum to ", total, ".");
    // Each bin holds mass 1 (in units of the mean weight): bins under it take the rest of their
    // mass from one bin over it, which then counts as under or over with what it has left.
    const size_t n = weights.size();
    std::vector<double> mass(n);
    std::vector<uint32_t> under, over;
    for (size_t i = 0; i < n; ++i)
    {
        mass[i] = weights[i] * double(n) / total;
        (mass[i] < 1.0 ? under : over).push_back(uint32_t(i));
    }
    while (!under.empty() && !over.empty())
    {
        const uint32_t small = under.back(), large = over.back();
        under.pop_back();
        bins[small] = {float(mass[small]), large};
        mass[large] -= 1.0 - mass[small];
        if (mass[large] < 1.0)
            over.pop_back(), under.push_back(large);
    }
    // What is left holds mass 1 up to rounding.
    for (uint32_t i : under)
        bins[i] = {1.f, i};
    for (uint32_t i : over)
        bins[i] = {1.f, i};
}
} // namespace falcor
