#pragma once
#include "Core/Macros.h"
#include "Core/Pass/KernelABI.h"
#include "Utils/Math/Vector.h"

namespace falcor
{
/// Most thread groups one dispatch may have in all (65536^3, D3D12's per-dimension limit cubed):
/// a larger grid would not finish, and the product of three 32-bit counts must not wrap.
constexpr uint64_t kMaxKernelGroupCount = uint64_t(1) << 48;

/// Runs every thread group of a `groupCount` grid of a compiled kernel on the thread pool.
///
/// Groups are handed out in x-fastest order in ranges whose bounds depend only on the grid size,
/// so a kernel whose threads write disjoint outputs gives the same bits on any thread count.
/// Each range is passed to the kernel as boxes of one row of groups. Throws when the grid has more
/// than kMaxKernelGroupCount groups.
FALCOR_API void dispatchKernelGroups(FalcorKernelFunc kernel, uint3 groupCount, void* entryPointParams, void* globalParams);
} // namespace falcor
