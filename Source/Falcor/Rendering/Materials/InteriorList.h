#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>

namespace falcor
{
/// The dielectric volumes a path is inside, for nested dielectrics (Falcor's InteriorList): up
/// to 4 (material, nested priority) slots, kept sorted by priority, highest first. A surface of
/// lower priority than the volume the path is in is a false intersection (the overlap of, say,
/// ice cubes and the water around them belongs to the higher-priority material).
class InteriorList
{
public:
    static constexpr uint32_t kMaxSlots = 4;
    static constexpr uint32_t kNoMaterial = 0xffffffffu;

    explicit InteriorList(uint32_t slotCount = 2) : mSlotCount(std::clamp(slotCount, 1u, kMaxSlots)) {}

    bool isEmpty() const { return mSlots[0] == 0; }
    uint32_t getTopMaterialID() const { return mSlots[0] ? materialOf(mSlots[0]) : kNoMaterial; }
    uint32_t getNextMaterialID() const { return mSlots[1] ? materialOf(mSlots[1]) : kNoMaterial; }

    /// Priority 0 is the highest of all; otherwise at least the current top's.
    bool isTrueIntersection(uint32_t nestedPriority) const { return nestedPriority == 0 || nestedPriority >= (mSlots[0] >> kPriorityShift); }

    /// Enters (adds) or leaves (removes) a material's volume. Entering with every slot taken is ignored.
    void handleIntersection(uint32_t materialID, uint32_t nestedPriority, bool entering)
    {
        const uint32_t priority = nestedPriority == 0 ? kMaxPriority : std::min(nestedPriority, kMaxPriority);
        for (uint32_t i = 0; i < mSlotCount; ++i)
        {
            if (entering && mSlots[i] == 0)
            {
                mSlots[i] = (priority << kPriorityShift) | (materialID & kMaterialMask);
                break;
            }
            if (!entering && mSlots[i] != 0 && materialOf(mSlots[i]) == materialID)
            {
                mSlots[i] = 0;
                break;
            }
        }
        std::sort(mSlots, mSlots + mSlotCount, std::greater<uint32_t>());
    }

private:
    static constexpr uint32_t kPriorityShift = 28;
    static constexpr uint32_t kMaterialMask = (1u << kPriorityShift) - 1;
    static constexpr uint32_t kMaxPriority = 15;

    static uint32_t materialOf(uint32_t slot) { return slot & kMaterialMask; }

    uint32_t mSlotCount;
    uint32_t mSlots[kMaxSlots] = {0, 0, 0, 0}; ///< priority << 28 | materialID; 0 = empty.
};
} // namespace falcor
