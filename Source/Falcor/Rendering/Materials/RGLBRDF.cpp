#include "Rendering/Materials/RGLBRDF.h"
#include "Core/Error.h"
#include "Core/Logger.h"
#include "Rendering/Materials/MeasuredBRDFHelpers.h"
#include <cstring>
#include <fstream>
#include <map>

namespace falcor
{
namespace
{
constexpr uint32_t kMaxResolution = 4096; ///< Per table dimension.

// ---- Angles and the unit square --------------------------------------------------------------

/// Inclination of a unit vector, accurate near the pole.
float acosStable(const float3& w)
{
    return 2.f * std::asin(0.5f * std::sqrt(w.x() * w.x() + w.y() * w.y() + (w.z() - 1.f) * (w.z() - 1.f)));
}

float2 toSpherical(const float3& w)
{
    return float2(acosStable(w), std::atan2(w.y(), w.x()));
}

float3 fromSpherical(float2 s)
{
    return float3(std::cos(s.y()) * std::sin(s.x()), std::sin(s.y()) * std::sin(s.x()), std::cos(s.x()));
}

/// (θ, φ) to the tables' unit square: √(2θ/π) (denser near the pole) and (φ + π) / 2π.
float2 sphericalToUnit(float2 a)
{
    return float2(std::sqrt(a.x() * 2.f * kInvPi), (a.y() + kPi) * 0.5f * kInvPi);
}

float2 unitToSpherical(float2 uv)
{
    return float2(uv.x() * uv.x() * 0.5f * kPi, 2.f * uv.y() * kPi - kPi);
}

float lerp1(float a, float b, float t)
{
    return a + (b - a) * t;
}

/// Integer and fractional part of a slice coordinate in [0, size - 1], the last cell included.
void splitSlice(float x, uint32_t size, int& index, float& frac)
{
    if (size == 1)
    {
        index = 0, frac = 0.f;
        return;
    }
    index = std::clamp(int(x), 0, int(size) - 2);
    frac = std::clamp(x - float(index), 0.f, 1.f);
}

// ---- Tables ------------------------------------------------------------------------------------

/// Bilinear lookup of a row-major (height, width) table over [0, 1]², samples at cell corners.
float brick2D(const std::vector<float>& data, uint2 size, float2 uv)
{
    int pos[2];
    float t[2];
    for (int a = 0; a < 2; ++a)
        splitSlice(uv[a] * float(size[a] - 1), size[a], pos[a], t[a]);
    const size_t i = size_t(pos[0]) + size_t(pos[1]) * size.x();
    return lerp1(lerp1(data[i], data[i + 1], t[0]), lerp1(data[i + size.x()], data[i + 1 + size.x()], t[0]), t[1]);
}

/// Fractional index of x in an increasing table (0 before the first entry, size - 1 after the last).
float warpCoordinate(const std::vector<float>& xs, float x)
{
    int a = 0, b = int(xs.size()) - 1;
    while (b - a > 1)
    {
        const int mid = (a + b) / 2;
        (xs[mid] <= x ? a : b) = mid;
    }
    if (a == int(xs.size()) - 1)
        return float(a);
    const float x0 = xs[a], x1 = xs[a + 1];
    return float(a) + (x0 == x1 ? 0.f : (x - x0) / (x1 - x0));
}

// ---- The tensor file --------------------------------------------------------------------------

struct Field
{
    uint8_t type = 0; ///< 1 uint8, 5 uint32, 10 float32 (others are skipped).
    std::vector<uint64_t> shape;
    std::vector<uint8_t> data;

    uint64_t count() const
    {
        uint64_t n = 1;
        for (uint64_t s : shape)
            n *= s;
        return n;
    }
    std::vector<float> floats() const
    {
        std::vector<float> v(data.size() / 4);
        std::memcpy(v.data(), data.data(), v.size() * 4);
        return v;
    }
};

uint32_t elementSize(uint8_t type)
{
    return type == 1 ? 1 : (type == 5 || type == 10) ? 4 : 0;
}

std::map<std::string, Field> readTensorFile(const std::filesystem::path& path)
{
    const std::string name = path.string();
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    FALCOR_CHECK(in.good(), "RGL BRDF '", name, "': cannot open the file.");
    const uint64_t fileSize = uint64_t(in.tellg());
    in.seekg(0);
    auto read = [&](void* dst, size_t size, const char* what) {
        in.read(reinterpret_cast<char*>(dst), std::streamsize(size));
        FALCOR_CHECK(in.good(), "RGL BRDF '", name, "': the file ends inside ", what, ".");
    };
    char header[12] = {};
    uint8_t version[2] = {};
    uint32_t fieldCount = 0;
    read(header, 12, "the header");
    FALCOR_CHECK(std::memcmp(header, "tensor_file", 12) == 0, "RGL BRDF '", name, "': not a tensor file (bad header).");
    read(version, 2, "the header");
    FALCOR_CHECK(version[0] == 1 && version[1] == 0, "RGL BRDF '", name, "': unsupported tensor file version ", int(version[0]), ".",
                 int(version[1]), ".");
    read(&fieldCount, 4, "the header");
    FALCOR_CHECK(fieldCount <= 1024, "RGL BRDF '", name, "': implausible field count ", fieldCount, ".");

    std::map<std::string, Field> fields;
    for (uint32_t f = 0; f < fieldCount; ++f)
    {
        uint16_t nameLength = 0, dim = 0;
        read(&nameLength, 2, "a field description");
        std::string fieldName(nameLength, '\0');
        read(fieldName.data(), nameLength, "a field description");
        read(&dim, 2, "a field description");
        Field field;
        uint64_t offset = 0;
        read(&field.type, 1, "a field description");
        read(&offset, 8, "a field description");
        FALCOR_CHECK(dim <= 8, "RGL BRDF '", name, "': field '", fieldName, "' has ", dim, " dimensions.");
        field.shape.resize(dim);
        read(field.shape.data(), 8 * size_t(dim), "a field description");
        const uint32_t elem = elementSize(field.type);
        if (elem == 0)
            continue; // A type Falcor does not use either.
        uint64_t count = 1;
        for (uint64_t s : field.shape)
        {
            FALCOR_CHECK(s <= fileSize, "RGL BRDF '", name, "': field '", fieldName, "' is larger than the file.");
            count *= std::max<uint64_t>(s, 1);
            FALCOR_CHECK(count <= fileSize, "RGL BRDF '", name, "': field '", fieldName, "' is larger than the file.");
        }
        const uint64_t bytes = field.count() * elem;
        FALCOR_CHECK(offset <= fileSize && bytes <= fileSize - offset, "RGL BRDF '", name, "': the data of field '", fieldName,
                     "' lies beyond the end of the file.");
        const std::streampos next = in.tellg();
        field.data.resize(bytes);
        in.seekg(std::streamoff(offset));
        read(field.data.data(), bytes, "field data");
        in.seekg(next);
        fields[fieldName] = std::move(field);
    }
    return fields;
}

/// The named float32 field with `dims` dimensions, or an error naming the file and field.
const Field& floatField(const std::map<std::string, Field>& fields, const std::string& file, const char* field, size_t dims)
{
    auto it = fields.find(field);
    FALCOR_CHECK(it != fields.end(), "RGL BRDF '", file, "': field '", field, "' is missing.");
    FALCOR_CHECK(it->second.type == 10 && it->second.shape.size() == dims, "RGL BRDF '", file, "': field '", field, "' must be a ", dims,
                 "-dimensional float32 array.");
    for (uint64_t s : it->second.shape)
        FALCOR_CHECK(s >= 1 && s <= kMaxResolution, "RGL BRDF '", file, "': field '", field, "' has a dimension of ", s, " (1 to ",
                     kMaxResolution, " supported).");
    return it->second;
}
} // namespace

// ---- Interpolated 2D distributions ------------------------------------------------------------

/// Per measured view (phi, theta) an n x n piecewise-bilinear density over [0, 1]² with its
/// marginal and conditional CDFs (Falcor's SamplableDistribution4D and
/// InterpolatedDistribution2D); sampling, inversion and the density interpolate between views.
class RGLBRDF::Distribution
{
public:
    Distribution(std::vector<float> pdf, uint32_t phiSize, uint32_t thetaSize, uint32_t n)
        : mPdf(std::move(pdf)), mSize{phiSize, thetaSize}, mN(n)
    {
        const size_t slice = size_t(n) * n, slices = mPdf.size() / slice;
        mConditional.resize(mPdf.size());
        mMarginal.resize(slices * n);
        for (size_t s = 0; s < slices; ++s)
            buildSlice(&mPdf[s * slice], &mMarginal[s * n], &mConditional[s * slice]);
    }

    /// (warped point, density) for uniform xi.
    float3 sample(float2 slice, float2 xi) const
    {
        xi = clamp(xi, 1e-6f, 1.f - 1e-6f);
        const Slice s = locate(slice);
        const int n = int(mN);
        const int row = bisect(mMarginal, s.marginalBase, s.marginalStride, n, s.uv, xi.y());
        const int conditionalBase = s.conditionalBase + row * n;
        const float rowBase = interp2(mMarginal, s.marginalBase + row, s.marginalStride, s.uv);
        const float rowA = interp2(mConditional, conditionalBase + n - 1, s.conditionalStride, s.uv);
        const float rowB = interp2(mConditional, conditionalBase + 2 * n - 1, s.conditionalStride, s.uv);
        const float rowF = solveQuadraticInterpolant(rowA, rowB, xi.y() - rowBase);
        const float x = xi.x() * lerp1(rowA, rowB, rowF);
        const int col = bisectRow(conditionalBase, s, rowF, x);
        const float colBase = interp3(mConditional, conditionalBase + col, s, rowF);
        float colA, colB;
        columnDensities(conditionalBase + col, s, rowF, colA, colB);
        const float colF = solveQuadraticInterpolant(colA, colB, x - colBase);
        const float scale = float(n - 1);
        return float3((col + colF) / scale, (row + rowF) / scale, lerp1(colA, colB, colF) * scale * scale);
    }

    /// (xi that sample() maps to rc, density at rc).
    float3 invert(float2 slice, float2 rc) const
    {
        const Slice s = locate(slice);
        const int n = int(mN);
        int col, row;
        float colF, rowF;
        splitSlice(rc.x() * float(n - 1), mN, col, colF);
        splitSlice(rc.y() * float(n - 1), mN, row, rowF);
        const int conditionalBase = s.conditionalBase + row * n;
        const float rowBase = interp2(mMarginal, s.marginalBase + row, s.marginalStride, s.uv);
        const float rowA = interp2(mConditional, conditionalBase + n - 1, s.conditionalStride, s.uv);
        const float rowB = interp2(mConditional, conditionalBase + 2 * n - 1, s.conditionalStride, s.uv);
        const float colBase = interp3(mConditional, conditionalBase + col, s, rowF);
        float colA, colB;
        columnDensities(conditionalBase + col, s, rowF, colA, colB);
        const float scale = float(n - 1);
        return float3((colBase + evalQuadratic(colA, colB, colF)) / lerp1(rowA, rowB, rowF), rowBase + evalQuadratic(rowA, rowB, rowF),
                      lerp1(colA, colB, colF) * scale * scale);
    }

    float evalPdf(float2 slice, float2 xi) const
    {
        const Slice s = locate(slice);
        int col, row;
        float colF, rowF;
        splitSlice(xi.x() * float(mN - 1), mN, col, colF);
        splitSlice(xi.y() * float(mN - 1), mN, row, rowF);
        const int n = int(mN), base = s.conditionalBase + row * n + col;
        auto at = [&](int b) { return interp2(mPdf, b, s.conditionalStride, s.uv); };
        const float v = lerp1(lerp1(at(base), at(base + 1), colF), lerp1(at(base + n), at(base + n + 1), colF), rowF);
        return v * float(n - 1) * float(n - 1);
    }

private:
    /// Where a view's tables start and how to step to the neighbouring measured views.
    struct Slice
    {
        float2 uv;                       ///< Interpolation weights between views.
        int marginalBase, conditionalBase;
        int2 marginalStride, conditionalStride;
    };

    Slice locate(float2 slice) const
    {
        int ix, iy;
        float fx, fy;
        splitSlice(slice.x(), mSize.x(), ix, fx);
        splitSlice(slice.y(), mSize.y(), iy, fy);
        const int n = int(mN);
        const int2 marginalStride(mSize.x() == 1 ? 0 : int(mSize.y()) * n, mSize.y() == 1 ? 0 : n);
        const int2 conditionalStride = marginalStride * n;
        return {float2(fx, fy), ix * marginalStride.x() + iy * marginalStride.y(), ix * conditionalStride.x() + iy * conditionalStride.y(),
                marginalStride, conditionalStride};
    }

    static float interp2(const std::vector<float>& buf, int base, int2 stride, float2 uv)
    {
        const float v00 = buf[base], v10 = buf[base + stride.x()], v01 = buf[base + stride.y()], v11 = buf[base + stride.x() + stride.y()];
        return lerp1(lerp1(v00, v10, uv.x()), lerp1(v01, v11, uv.x()), uv.y());
    }

    /// A CDF entry interpolated between views and between row `base` and the next (weight rowF).
    float interp3(const std::vector<float>& buf, int base, const Slice& s, float rowF) const
    {
        return lerp1(interp2(buf, base, s.conditionalStride, s.uv), interp2(buf, base + int(mN), s.conditionalStride, s.uv), rowF);
    }

    /// The density at columns col and col + 1 (base = row start + col), between the two rows.
    void columnDensities(int base, const Slice& s, float rowF, float& colA, float& colB) const
    {
        const int n = int(mN);
        const float c00 = interp2(mPdf, base, s.conditionalStride, s.uv), c01 = interp2(mPdf, base + n, s.conditionalStride, s.uv);
        const float c10 = interp2(mPdf, base + 1, s.conditionalStride, s.uv), c11 = interp2(mPdf, base + 1 + n, s.conditionalStride, s.uv);
        colA = lerp1(c00, c01, rowF);
        colB = lerp1(c10, c11, rowF);
    }

    static int bisect(const std::vector<float>& buf, int base, int2 stride, int size, float2 uv, float x)
    {
        int a = base, b = base + size - 1;
        while (b - a > 1)
        {
            const int mid = (a + b) / 2;
            (interp2(buf, mid, stride, uv) <= x ? a : b) = mid;
        }
        return a - base;
    }

    int bisectRow(int rowBase, const Slice& s, float rowF, float x) const
    {
        int a = rowBase, b = rowBase + int(mN) - 1;
        while (b - a > 1)
        {
            const int mid = (a + b) / 2;
            (interp3(mConditional, mid, s, rowF) <= x ? a : b) = mid;
        }
        return a - rowBase;
    }

    static float evalQuadratic(float a, float b, float u) { return a * u + (b - a) * u * u * 0.5f; }

    /// u in [0, 1] where the integral of the linear density a..b reaches x.
    static float solveQuadraticInterpolant(float a, float b, float x)
    {
        if (std::abs(a - b) < 1e-4f * (a + b))
            return x * 2.f / (a + b);
        return (-a + std::sqrt(std::max(0.f, a * a + 2.f * (b - a) * x))) / (b - a);
    }

    /// Trapezoid-rule CDFs of one n x n slice, normalized (an all-zero slice becomes uniform).
    void buildSlice(float* pdf, float* marginal, float* conditional) const
    {
        const int n = int(mN);
        double total = 0.0;
        for (int i = 0; i < n * n; ++i)
            total += pdf[i];
        if (total == 0.0)
            std::fill(pdf, pdf + n * n, 1.f / float(n * n));
        for (int y = 0; y < n; ++y)
        {
            double rowSum = 0.0;
            conditional[y * n] = 0.f;
            for (int x = 1; x < n; ++x)
            {
                const int i = x + y * n;
                rowSum += (pdf[i - 1] + pdf[i]) * 0.5f;
                conditional[i] = float(rowSum);
            }
        }
        double marginalSum = 0.0;
        marginal[0] = 0.f;
        for (int y = 1; y < n; ++y)
        {
            marginalSum += (conditional[y * n - 1] + conditional[(y + 1) * n - 1]) * 0.5f;
            marginal[y] = float(marginalSum);
        }
        for (int y = 0; y < n; ++y)
            marginal[y] /= float(marginalSum);
        for (int i = 0; i < n * n; ++i)
            pdf[i] /= float(marginalSum), conditional[i] /= float(marginalSum);
    }

    std::vector<float> mPdf, mConditional, mMarginal;
    uint2 mSize; ///< Measured views: phi, theta.
    uint32_t mN; ///< Each view's table is n x n.
};

// ---- The BRDF ----------------------------------------------------------------------------------

std::shared_ptr<const RGLBRDF> RGLBRDF::load(const std::filesystem::path& path)
{
    return loadShared<RGLBRDF>(path, [](const std::filesystem::path& p) {
        const std::string name = p.string();
        const std::map<std::string, Field> fields = readTensorFile(p);
        std::shared_ptr<RGLBRDF> brdf(new RGLBRDF());
        RGLBRDF& b = *brdf;
        b.mTheta = floatField(fields, name, "theta_i", 1).floats();
        b.mPhi = floatField(fields, name, "phi_i", 1).floats();
        const uint32_t phiSize = uint32_t(b.mPhi.size()), thetaSize = uint32_t(b.mTheta.size());
        const Field& sigma = floatField(fields, name, "sigma", 2);
        const Field& ndf = floatField(fields, name, "ndf", 2);
        const Field& vndf = floatField(fields, name, "vndf", 4);
        const Field& luminance = floatField(fields, name, "luminance", 4);
        const Field& rgb = floatField(fields, name, "rgb", 5);
        auto check = [&](bool ok, const char* field, const char* what) {
            FALCOR_CHECK(ok, "RGL BRDF '", name, "': field '", field, "' ", what, ".");
        };
        check(sigma.shape[0] >= 2 && sigma.shape[1] >= 2, "sigma", "needs at least 2 x 2 samples");
        check(ndf.shape[0] >= 2 && ndf.shape[1] >= 2, "ndf", "needs at least 2 x 2 samples");
        const uint64_t n = luminance.shape[2];
        check(vndf.shape[0] == phiSize && vndf.shape[1] == thetaSize, "vndf", "must have one table per measured view (phi_i x theta_i)");
        check(vndf.shape[2] == vndf.shape[3] && vndf.shape[2] >= 2, "vndf", "tables must be square, at least 2 x 2");
        check(luminance.shape[0] == phiSize && luminance.shape[1] == thetaSize, "luminance", "must have one table per measured view");
        check(luminance.shape[2] == luminance.shape[3] && n >= 2, "luminance", "tables must be square, at least 2 x 2");
        check(rgb.shape[0] == phiSize && rgb.shape[1] == thetaSize && rgb.shape[2] == 3 && rgb.shape[3] == n && rgb.shape[4] == n, "rgb",
              "must be phi_i x theta_i x 3 x the luminance tables' size");
        auto description = fields.find("description");
        FALCOR_CHECK(description != fields.end() && description->second.type == 1, "RGL BRDF '", name, "': field 'description' is missing.");
        b.mDescription.assign(description->second.data.begin(), description->second.data.end());
        b.mSigmaSize = uint2(uint32_t(sigma.shape[1]), uint32_t(sigma.shape[0]));
        b.mNdfSize = uint2(uint32_t(ndf.shape[1]), uint32_t(ndf.shape[0]));
        b.mSigma = sigma.floats();
        b.mNdf = ndf.floats();
        b.mRgb = rgb.floats();
        b.mRgbSize = uint4(phiSize, thetaSize, uint32_t(n), uint32_t(n));
        // Densities must not be negative (sampling would break): clamp, and say so.
        auto density = [&](const Field& field, const char* fieldName) {
            std::vector<float> v = field.floats();
            size_t invalid = 0;
            for (float& x : v)
                if (!(x >= 0.f) || !std::isfinite(x))
                    x = 0.f, ++invalid;
            if (invalid > 0)
                logWarning("RGL BRDF '", name, "': ", invalid, " values of field '", fieldName, "' are negative or not finite; they are taken as 0.");
            return v;
        };
        b.mVndf = std::make_shared<Distribution>(density(vndf, "vndf"), phiSize, thetaSize, uint32_t(vndf.shape[2]));
        b.mLuminance = std::make_shared<Distribution>(density(luminance, "luminance"), phiSize, thetaSize, uint32_t(n));
        b.computeAlbedoLUT();
        return std::shared_ptr<const RGLBRDF>(brdf);
    });
}

RGLBRDF::View RGLBRDF::view(const float3& wi) const
{
    const float2 sphericalI = toSpherical(wi);
    View v;
    v.slice = float2(warpCoordinate(mPhi, sphericalI.y()), warpCoordinate(mTheta, sphericalI.x()));
    v.sigma = brick2D(mSigma, mSigmaSize, sphericalToUnit(sphericalI));
    return v;
}

namespace
{
/// The RGB table of a view at the warped point xi, interpolated in all four dimensions.
float3 evalRgb(const std::vector<float>& data, uint4 size, float2 slice, float2 xi)
{
    int pos[4];
    float t[4];
    splitSlice(slice.x(), size.x(), pos[0], t[0]);
    splitSlice(slice.y(), size.y(), pos[1], t[1]);
    splitSlice(xi.x() * float(size.z() - 1), size.z(), pos[2], t[2]);
    splitSlice(xi.y() * float(size.w() - 1), size.w(), pos[3], t[3]);
    const int plane = int(size.z() * size.w());
    const int stride[4] = {size.x() == 1 ? 0 : int(size.y()) * 3 * plane, size.y() == 1 ? 0 : 3 * plane, 1, int(size.w())};
    const int base = pos[0] * stride[0] + pos[1] * stride[1] + pos[2] * stride[2] + pos[3] * stride[3];
    auto channel = [&](int c) {
        float v[2][2][2][2];
        for (int i = 0; i < 16; ++i)
            v[i & 1][(i >> 1) & 1][(i >> 2) & 1][i >> 3] =
                data[base + c * plane + (i & 1) * stride[0] + ((i >> 1) & 1) * stride[1] + ((i >> 2) & 1) * stride[2] + (i >> 3) * stride[3]];
        auto l2 = [&](int z, int w) { return lerp1(lerp1(v[0][0][z][w], v[1][0][z][w], t[0]), lerp1(v[0][1][z][w], v[1][1][z][w], t[0]), t[1]); };
        return lerp1(lerp1(l2(0, 0), l2(1, 0), t[2]), lerp1(l2(0, 1), l2(1, 1), t[2]), t[3]);
    };
    return float3(channel(0), channel(1), channel(2));
}

/// Density change from the tables' unit square of h to the solid angle of wo.
float unitToSolidAngle(float2 unitH, const float3& h, const float3& wi)
{
    return std::max(2.f * kPi * kPi * unitH.x() * std::sqrt(h.x() * h.x() + h.y() * h.y()), 1e-6f) * 4.f * dot(wi, h);
}
} // namespace

float2 RGLBRDF::unitHalfVector(const float3& wi, const float3& wo, float3& h) const
{
    h = normalize(wi + wo);
    float2 sphericalH = toSpherical(h);
    if (isIsotropic())
        sphericalH.y() -= toSpherical(wi).y(); // Isotropic tables are measured relative to the view's azimuth.
    float2 unitH = sphericalToUnit(sphericalH);
    unitH.y() -= std::floor(unitH.y());
    return unitH;
}

float3 RGLBRDF::eval(const float3& wi, const float3& wo, const View& v) const
{
    if (v.sigma == 0.f || std::min(wi.z(), wo.z()) < kMinCosTheta)
        return float3(0.f);
    float3 h;
    const float2 unitH = unitHalfVector(wi, wo, h);
    const float3 unwarped = mVndf->invert(v.slice, unitH);
    const float3 fr = max(evalRgb(mRgb, mRgbSize, v.slice, float2(unwarped.x(), unwarped.y())), float3(0.f));
    return fr * (brick2D(mNdf, mNdfSize, unitH) / (4.f * v.sigma));
}

float RGLBRDF::evalPdf(const float3& wi, const float3& wo, const View& v) const
{
    if (std::min(wi.z(), wo.z()) < kMinCosTheta)
        return 0.f;
    float3 h;
    const float2 unitH = unitHalfVector(wi, wo, h);
    const float3 unwarped = mVndf->invert(v.slice, unitH);
    const float lumiPdf = mLuminance->evalPdf(v.slice, float2(unwarped.x(), unwarped.y()));
    return unwarped.z() * lumiPdf / unitToSolidAngle(unitH, h, wi);
}

bool RGLBRDF::sample(const float3& wi, float2 u, const View& v, BSDFSample& s) const
{
    if (wi.z() < kMinCosTheta)
        return false;
    const float3 lumi = mLuminance->sample(v.slice, u);
    const float3 vndf = mVndf->sample(v.slice, float2(lumi.x(), lumi.y()));
    const float2 unitH(vndf.x(), vndf.y());
    float2 sphericalH = unitToSpherical(unitH);
    if (isIsotropic())
        sphericalH.y() += toSpherical(wi).y();
    const float3 h = fromSpherical(sphericalH);
    s.wo = h * (2.f * dot(h, wi)) - wi;
    if (s.wo.z() < kMinCosTheta)
        return false;
    const float3 fr = max(evalRgb(mRgb, mRgbSize, v.slice, float2(lumi.x(), lumi.y())), float3(0.f));
    const float3 f = v.sigma == 0.f ? float3(0.f) : fr * (brick2D(mNdf, mNdfSize, unitH) / (4.f * v.sigma));
    s.pdf = vndf.z() * lumi.z() / unitToSolidAngle(unitH, h, wi);
    if (!(s.pdf > 0.f))
        return false;
    s.weight = f / s.pdf;
    s.lobeType = kLobeDiffuseReflection; // As Falcor: the measured lobes are unknown.
    return true;
}

void RGLBRDF::computeAlbedoLUT()
{
    mAlbedoLUT = integrateAlbedoLUT(kAlbedoLUTSize, [this](const float3& wi, const float3& wo) { return eval(wi, wo, view(wi)); });
}

float3 RGLBRDF::albedo(float cosTheta) const
{
    return lookupAlbedo(mAlbedoLUT, cosTheta);
}
} // namespace falcor
