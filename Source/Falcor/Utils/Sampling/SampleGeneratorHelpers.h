#pragma once
#include "Utils/Math/Vector.h"
#include "Utils/Simd/Lane.h"
#include <cstdint>

// What Falcor's sample generators share: the pixel key they are seeded with and the mapping of
// 32 random bits to floats. A generator is any type whose `next()` returns 32 random bits: a
// uint32_t, or UintLanes<W> for a generator of W independent streams (one per lane), which also
// has `next(mask)` advancing only the lanes of the mask. The floats come as float or
// FloatLanes<W> accordingly.
namespace falcor
{
/// Bits of x at even positions, bits of y at odd positions (low 16 bits of each).
inline uint32_t interleave16(uint2 v)
{
    auto spread = [](uint32_t a) {
        a &= 0xffffu;
        a = (a | (a << 8)) & 0x00ff00ffu;
        a = (a | (a << 4)) & 0x0f0f0f0fu;
        a = (a | (a << 2)) & 0x33333333u;
        return (a | (a << 1)) & 0x55555555u;
    };
    return spread(v.x()) | (spread(v.y()) << 1);
}

namespace detail
{
/// Uniform in [0, 1) from the upper 24 bits of 32 random bits (exact: 24 bits fit a float).
template<typename Bits>
auto unitFloat(const Bits& bits)
{
    return convertLanes<float>(bits >> 8) * (1.f / 16777216.f);
}
} // namespace detail

/// Uniform in [0, 1) from the next number (per lane for a lane generator).
template<typename SampleGenerator>
auto sampleNext1D(SampleGenerator& sg)
{
    return detail::unitFloat(sg.next());
}

/// As above, drawing only in the lanes of `active` (the others keep their state and get an
/// unspecified number). A bool mask draws or not.
template<typename SampleGenerator, typename Mask>
auto sampleNext1D(SampleGenerator& sg, const Mask& active)
{
    return detail::unitFloat(sg.next(active));
}

template<typename SampleGenerator>
auto sampleNext2D(SampleGenerator& sg)
{
    auto x = sampleNext1D(sg);
    return vector<decltype(x), 2>(x, sampleNext1D(sg));
}

template<typename SampleGenerator, typename Mask>
auto sampleNext2D(SampleGenerator& sg, const Mask& active)
{
    auto x = sampleNext1D(sg, active);
    return vector<decltype(x), 2>(x, sampleNext1D(sg, active));
}

namespace detail
{
/// A uniform number in [0, 1) drawn in the lanes of `active` only (the others keep their
/// generator state; their number is unspecified). One path: a draw if active, else 0.
template<typename F, typename SampleGenerator>
FALCOR_LANE_INLINE F sampleNext1DWhere(SampleGenerator& sg, const MaskOf<F>& active)
{
    if constexpr (kLaneWidth<F> == 1)
        return active ? sampleNext1D(sg) : 0.f;
    else
        return sampleNext1D(sg, active);
}

template<typename F, typename SampleGenerator>
FALCOR_LANE_INLINE vector<F, 2> sampleNext2DWhere(SampleGenerator& sg, const MaskOf<F>& active)
{
    const F x = sampleNext1DWhere<F>(sg, active);
    return vector<F, 2>(x, sampleNext1DWhere<F>(sg, active));
}
} // namespace detail

/// What lane generators share: moving one lane's stream to and from the scalar generator of the
/// same kind (a path leaving the lanes for scalar code, and back), and gathering the streams of
/// W paths from an array of scalar generators. `Derived` and `Scalar` (whose friend this is) hold
/// their state in `mState[kWords]`; Derived has a private default constructor.
template<typename Derived, typename Scalar>
struct SampleGeneratorLanes
{
    /// Lane i's stream as a scalar generator.
    Scalar lane(int i) const
    {
        Scalar s;
        for (int k = 0; k < Derived::kWords; ++k)
            s.mState[k] = self().mState[k][i];
        return s;
    }

    /// Makes lane i continue the stream of `s`.
    void setLane(int i, const Scalar& s)
    {
        for (int k = 0; k < Derived::kWords; ++k)
            self().mState[k].set(i, s.mState[k]);
    }

    /// The streams of gens[index[i]] in lanes i < count (the other lanes: a zero state).
    static Derived gather(const Scalar* gens, const uint32_t* index, int count)
    {
        Derived sg;
        for (int i = 0; i < count; ++i)
            sg.setLane(i, gens[index[i]]);
        return sg;
    }

    /// Writes lanes 0..count-1 back to gens[index[i]].
    void scatter(Scalar* gens, const uint32_t* index, int count) const
    {
        for (int i = 0; i < count; ++i)
            gens[index[i]] = lane(i);
    }

private:
    const Derived& self() const { return static_cast<const Derived&>(*this); }
    Derived& self() { return static_cast<Derived&>(*this); }
};
} // namespace falcor
