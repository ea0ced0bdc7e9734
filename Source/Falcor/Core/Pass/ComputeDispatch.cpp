#include "Core/Pass/ComputeDispatch.h"
#include "Core/Error.h"
#include "Core/ThreadPool.h"
#include <algorithm>

namespace falcor
{
namespace
{
/// Aim for this many tasks per dispatch: enough to balance uneven groups on any core count.
constexpr size_t kTargetTaskCount = 256;
} // namespace

void dispatchKernelGroups(FalcorKernelFunc kernel, uint3 groupCount, void* entryPointParams, void* globalParams)
{
    const size_t rowLength = groupCount.x();
    // Each factor is below 2^32, so the first product cannot wrap and the second is checked by division.
    const uint64_t rowCount = uint64_t(groupCount.y()) * groupCount.z();
    FALCOR_CHECK(rowCount == 0 || rowLength <= kMaxKernelGroupCount / rowCount, "dispatchKernelGroups: ", groupCount.x(), "x",
                 groupCount.y(), "x", groupCount.z(), " thread groups is more than the limit of ", kMaxKernelGroupCount, " in all.");
    const size_t groupTotal = rowLength * rowCount;
    const size_t grain = std::max<size_t>(1, groupTotal / kTargetTaskCount);
    parallelFor(groupTotal, grain, [&](size_t begin, size_t end) {
        // Split [begin, end) of the flattened grid into pieces of single rows.
        for (size_t g = begin; g < end;)
        {
            const size_t x = g % rowLength, row = g / rowLength;
            const size_t count = std::min(end - g, rowLength - x);
            FalcorKernelGroupRange range = {
                {uint32_t(x), uint32_t(row % groupCount.y()), uint32_t(row / groupCount.y())},
                {uint32_t(x + count), uint32_t(row % groupCount.y() + 1), uint32_t(row / groupCount.y() + 1)},
            };
            kernel(&range, entryPointParams, globalParams);
            g += count;
        }
    });
}
} // namespace falcor
