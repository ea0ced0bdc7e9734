#pragma once
#include "Scene/Scene.h"
#include <vector>

namespace falcor
{
/// Whether the material model has a lane form (its BSDF over F and a lane set-up in
/// LaneShading.h): PBRT diffuse, PBRT conductor and the standard material. None draws random
/// numbers when evaluated.
inline bool isLaneModel(MaterialType type)
{
    return type == MaterialType::PBRTDiffuse || type == MaterialType::PBRTConductor || type == MaterialType::Standard;
}

/// The lane model of every instance's material: its MaterialType when it has a lane form
/// (isLaneModel), else Unknown. A shade stage then classifies a hit by one lookup instead of
/// reading its instance's and its material's records. Built per frame, as materials may change
/// between frames.
class InstanceLaneModels
{
public:
    explicit InstanceLaneModels(const Scene& scene)
    {
        mTypes.reserve(scene.getInstances().size());
        for (const Scene::Instance& instance : scene.getInstances())
        {
            const MaterialType type = scene.getMaterial(instance.materialID).type;
            mTypes.push_back(isLaneModel(type) ? type : MaterialType::Unknown);
        }
    }

    /// The lane model of the material of a valid hit's instance; Unknown for one path at a time.
    MaterialType of(const TriangleHit& hit) const { return mTypes[hit.instanceID]; }

private:
    std::vector<MaterialType> mTypes;
};
} // namespace falcor
