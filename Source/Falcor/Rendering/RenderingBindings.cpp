// falcor.rendering: the BSDF lobes and mixtures of Rendering/Materials, callable on numpy arrays
// of local-frame directions (z = shading normal, wi towards the viewer, wo towards the light),
// so their eval/pdf/sample can be checked (chi-square, furnace, reciprocity) and plotted; and the
// material texture filters, so they can be checked against brute-force footprint averages.
#include "Core/PythonHelpers.h"
#include "Rendering/Materials/BSDFs/ClothBRDF.h"
#include "Rendering/Materials/BSDFs/CoatedBSDF.h"
#include "Rendering/Materials/BSDFs/HairChiang16.h"
#include "Rendering/Materials/BSDFs/LambertDiffuseBRDF.h"
#include "Rendering/Materials/BSDFs/MERLMeasuredBRDF.h"
#include "Rendering/Materials/BSDFs/PBRTConductorBSDF.h"
#include "Rendering/Materials/BSDFs/PBRTDielectricBSDF.h"
#include "Rendering/Materials/BSDFs/PBRTDiffuseTransmissionBSDF.h"
#include "Rendering/Materials/BSDFs/StandardBSDF.h"
#include "Rendering/Materials/MaterialLanesCheck.h"
#include "Rendering/Materials/RGLMaterial.h"
#include "Scene/TextureSampler.h"
#include "Utils/Sampling/AliasTable.h"
#include "Utils/Sampling/TinyUniformSampleGenerator.h"
#include "Utils/Sampling/UniformSampleGenerator.h"
#include <pybind11/numpy.h>
#include <map>
#include <type_traits>
#include <vector>

namespace falcor::python
{
namespace
{
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

/// A lobe used as is, whatever wi is.
template<typename Lobe>
struct Fixed
{
    Lobe lobe;
    const Lobe& make(const float3&) const { return lobe; }
};

/// The standard BSDF's lobe probabilities depend on wi: set it up per query.
struct Standard
{
    StandardBSDFData data;
    StandardBSDF make(const float3& wi) const { return StandardBSDF(wi, data); }
};

py::tuple toTuple3(const float3& v)
{
    return py::make_tuple(v.x(), v.y(), v.z());
}

std::vector<float3> directions(const py::handle& obj, const char* what)
{
    FloatArray a = FloatArray::ensure(obj);
    if (!a || a.ndim() != 2 || a.shape(1) != 3)
        throw py::value_error(std::string(what) + " must be an (N, 3) float array of directions");
    std::vector<float3> v(size_t(a.shape(0)));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float3(a.at(i, 0), a.at(i, 1), a.at(i, 2));
    return v;
}

template<typename Factory>
void bindBSDF(const char* doc, py::class_<Factory>& cls)
{
    cls.doc() = doc;
    cls.def(
        "eval",
        [](const Factory& f, const py::object& wi, const py::object& wo, uint32_t seed) {
            const float3 i = toVector<float, 3>(wi);
            const std::vector<float3> o = directions(wo, "wo");
            py::array_t<float> out({py::ssize_t(o.size()), py::ssize_t(3)});
            const auto bsdf = f.make(i);
            for (size_t k = 0; k < o.size(); ++k)
            {
                UniformSampleGenerator sg(uint2(uint32_t(k) & 0xffffu, uint32_t(k) >> 16), seed);
                float3 v;
                if constexpr (requires { bsdf.eval(i, o[k], sg); })
                    v = bsdf.eval(i, o[k], sg);
                else
                    v = bsdf.eval(i, o[k]);
                for (int c = 0; c < 3; ++c)
                    out.mutable_at(k, c) = v[c];
            }
            return out;
        },
        "wi"_a, "wo"_a, "seed"_a = 0,
        "f(wi, wo) · |cos θo| for each row of wo: (N, 3). Layered BSDFs return one random-walk estimate per row, "
        "each from its own generator (row, seed).");
    cls.def(
        "pdf",
        [](const Factory& f, const py::object& wi, const py::object& wo) {
            const float3 i = toVector<float, 3>(wi);
            const std::vector<float3> o = directions(wo, "wo");
            py::array_t<float> out(py::ssize_t(o.size()));
            const auto bsdf = f.make(i);
            for (size_t k = 0; k < o.size(); ++k)
                out.mutable_at(k) = bsdf.evalPdf(i, o[k]);
            return out;
        },
        "wi"_a, "wo"_a, "Solid-angle density of sample() at each row of wo: (N,).");
    cls.def(
        "sample",
        [](const Factory& f, const py::object& wi, uint32_t count, uint32_t seed) {
            const float3 i = toVector<float, 3>(wi);
            py::array_t<float> wo({py::ssize_t(count), py::ssize_t(3)}), weight({py::ssize_t(count), py::ssize_t(3)}), pdf(count);
            py::array_t<uint32_t> lobe(count);
            py::array_t<bool> valid(count);
            const auto bsdf = f.make(i);
            for (uint32_t k = 0; k < count; ++k)
            {
                UniformSampleGenerator sg(uint2(k & 0xffffu, k >> 16), seed);
                BSDFSample s;
                valid.mutable_at(k) = bsdf.sample(i, s, sg);
                for (int c = 0; c < 3; ++c)
                    wo.mutable_at(k, c) = s.wo[c], weight.mutable_at(k, c) = s.weight[c];
                pdf.mutable_at(k) = s.pdf;
                lobe.mutable_at(k) = s.lobeType;
            }
            return py::dict("wo"_a = wo, "pdf"_a = pdf, "weight"_a = weight, "lobe"_a = lobe, "valid"_a = valid);
        },
        "wi"_a, "count"_a, "seed"_a = 0,
        "`count` samples for view wi, each from its own generator: dict of wo (N, 3), pdf (N,), "
        "weight = f·cos/pdf of the chosen lobe (N, 3), lobe (LobeType bits) and valid (N,).");
}
/// The first `count` numbers of each generator, a row per generator.
template<typename SampleGenerator>
py::array_t<uint32_t> firstNumbers(std::vector<SampleGenerator>& generators, size_t count)
{
    py::array_t<uint32_t> out({generators.size(), count});
    auto o = out.mutable_unchecked<2>();
    for (size_t i = 0; i < generators.size(); ++i)
        for (size_t k = 0; k < count; ++k)
            o(i, k) = generators[i].next();
    return out;
}

/// Calls `numbers` with the generator type named `type` (as a std::type_identity).
template<typename Numbers>
py::array_t<uint32_t> withGeneratorType(const std::string& type, const char* function, Numbers&& numbers)
{
    if (type == "TinyUniform")
        return numbers(std::type_identity<TinyUniformSampleGenerator>{});
    FALCOR_CHECK(type == "Uniform", function, ": unknown generator '", type, "' (TinyUniform or Uniform).");
    return numbers(std::type_identity<UniformSampleGenerator>{});
}
} // namespace

void registerRenderingBindings(py::module_& root)
{
    py::module_ m = root.def_submodule("rendering", "BSDFs of the renderer, evaluated on numpy arrays (for tests and research).");
    m.def("sample_generator_numbers", [](const std::string& type, const py::array_t<uint32_t, py::array::c_style | py::array::forcecast>& pixels,
                                         uint32_t sampleNumber, size_t count) {
        FALCOR_CHECK(pixels.ndim() == 2 && pixels.shape(1) == 2, "sample_generator_numbers: pixels must be an (N, 2) array.");
        return withGeneratorType(type, "sample_generator_numbers", [&]<typename SG>(std::type_identity<SG>) {
            auto px = pixels.unchecked<2>();
            std::vector<SG> generators;
            for (py::ssize_t i = 0; i < px.shape(0); ++i)
                generators.emplace_back(uint2(px(i, 0), px(i, 1)), sampleNumber);
            return firstNumbers(generators, count);
        });
    }, "type"_a, "pixels"_a, "sample_number"_a, "count"_a,
       "The first `count` 32-bit numbers of Falcor's sample generator ('TinyUniform' or 'Uniform') for each pixel.");
    m.def("sample_generator_row_numbers", [](const std::string& type, uint32_t y, uint32_t width, uint32_t sampleNumber, size_t count) {
        return withGeneratorType(type, "sample_generator_row_numbers", [&]<typename SG>(std::type_identity<SG>) {
            std::vector<SG> generators(width, SG(uint2(0u), 0u));
            SG::createRow(0, y, width, sampleNumber, generators.data());
            return firstNumbers(generators, count);
        });
    }, "type"_a, "y"_a, "width"_a, "sample_number"_a, "count"_a,
       "sample_generator_numbers for the pixels (0..width-1, y), from the generators made a row at a time (as the PathTracer does).");
    m.def("alias_sample", [](const py::array_t<double, py::array::c_style | py::array::forcecast>& weights, const FloatArray& u) {
        FALCOR_CHECK(weights.ndim() == 1 && u.ndim() == 1, "alias_sample: weights and u must be 1D arrays.");
        std::vector<AliasBin> bins(size_t(weights.size()));
        buildAliasBins(std::span(weights.data(), size_t(weights.size())), bins);
        py::array_t<uint32_t> index(u.size());
        py::array_t<float> remapped(u.size());
        for (py::ssize_t k = 0; k < u.size(); ++k)
        {
            float x = u.at(k);
            FALCOR_CHECK(x >= 0.f && x < 1.f, "alias_sample: u[", k, "] = ", x, " is not in [0, 1).");
            index.mutable_at(k) = sampleAlias(bins, x);
            remapped.mutable_at(k) = x;
        }
        return py::dict("index"_a = index, "u"_a = remapped);
    }, "weights"_a, "u"_a,
       "Walker's alias method (Utils/Sampling/AliasTable.h) over `weights`: for each u in [0, 1), the index it draws and "
       "the unused part of u, as a number in [0, 1).");
    using Lambert = Fixed<LambertDiffuseBRDF>;
    py::class_<Lambert> lambert(m, "LambertDiffuseBRDF");
    lambert.def(py::init([](const py::object& albedo) { return Lambert{{toVector<float, 3>(albedo)}}; }), "albedo"_a);
    bindBSDF("Lambertian reflection (PBRTDiffuseMaterial).", lambert);

    using LambertT = Fixed<LambertDiffuseBTDF>;
    py::class_<LambertT> lambertT(m, "LambertDiffuseBTDF");
    lambertT.def(py::init([](const py::object& albedo) { return LambertT{{toVector<float, 3>(albedo)}}; }), "albedo"_a);
    bindBSDF("Lambertian transmission.", lambertT);

    using Frostbite = Fixed<FrostbiteDiffuseBRDF>;
    py::class_<Frostbite> frostbite(m, "FrostbiteDiffuseBRDF");
    frostbite.def(py::init([](const py::object& albedo, float roughness) { return Frostbite{{toVector<float, 3>(albedo), roughness}}; }),
                  "albedo"_a, "roughness"_a);
    bindBSDF("The standard material's diffuse lobe.", frostbite);

    using GGXR = Fixed<SpecularMicrofacetBRDF>;
    py::class_<GGXR> ggxr(m, "SpecularMicrofacetBRDF");
    ggxr.def(py::init([](const py::object& albedo, float alpha) { return GGXR{{toVector<float, 3>(albedo), alpha}}; }), "albedo"_a,
             "alpha"_a);
    bindBSDF("GGX reflection with Schlick Fresnel (alpha 0: mirror).", ggxr);

    using GGXT = Fixed<SpecularMicrofacetBSDF>;
    py::class_<GGXT> ggxt(m, "SpecularMicrofacetBSDF");
    ggxt.def(py::init([](const py::object& transmissionAlbedo, float alpha, float eta) {
                 return GGXT{{toVector<float, 3>(transmissionAlbedo), alpha, eta}};
             }),
             "transmission_albedo"_a, "alpha"_a, "eta"_a);
    ggxt.def_property_readonly("eta", [](const GGXT& b) { return b.lobe.eta; });
    bindBSDF("GGX dielectric interface, eta = etaI / etaT (alpha 0: smooth).", ggxt);

    using Conductor = Fixed<PBRTConductorBSDF>;
    py::class_<Conductor> conductor(m, "PBRTConductorBSDF");
    conductor.def(py::init([](const py::object& eta, const py::object& k, float ax, float ay) {
                      return Conductor{{AnisotropicGGX{float2(ax, ay)}, toVector<float, 3>(eta), toVector<float, 3>(k)}};
                  }),
                  "eta"_a, "k"_a, "alpha_x"_a, "alpha_y"_a);
    bindBSDF("pbrt's conductor: anisotropic GGX with the complex Fresnel term of eta + i k.", conductor);

    using Dielectric = Fixed<PBRTDielectricBSDF>;
    py::class_<Dielectric> dielectric(m, "PBRTDielectricBSDF");
    dielectric.def(py::init([](float iorI, float iorT, float ax, float ay) { return Dielectric{{AnisotropicGGX{float2(ax, ay)}, iorI, iorT}}; }),
                   "ior_i"_a, "ior_t"_a, "alpha_x"_a, "alpha_y"_a);
    bindBSDF("pbrt's dielectric between index ior_i (wi's side) and ior_t; wi on either side.", dielectric);

    using DiffuseT = Fixed<PBRTDiffuseTransmissionBSDF>;
    py::class_<DiffuseT> diffuseT(m, "PBRTDiffuseTransmissionBSDF");
    diffuseT.def(py::init([](const py::object& r, const py::object& t) { return DiffuseT{{toVector<float, 3>(r), toVector<float, 3>(t)}}; }),
                 "reflectance"_a, "transmittance"_a);
    bindBSDF("pbrt's diffuse transmission: Lambertian reflection and transmission, wi on either side.", diffuseT);

    using CoatedConductor = Fixed<CoatedBSDF<PBRTConductorBSDF>>;
    py::class_<CoatedConductor> coatedConductor(m, "PBRTCoatedConductorBSDF");
    coatedConductor.def(py::init([](float coatIoR, float ax, float ay, const py::object& eta, const py::object& k, float cx, float cy) {
                            const PBRTConductorBSDF conductor{AnisotropicGGX{float2(cx, cy)}, toVector<float, 3>(eta), toVector<float, 3>(k)};
                            return CoatedConductor{{AnisotropicGGX{float2(ax, ay)}, coatIoR, 1.f, conductor}};
                        }),
                        "coat_ior"_a, "alpha_x"_a, "alpha_y"_a, "eta"_a, "k"_a, "conductor_alpha_x"_a, "conductor_alpha_y"_a);
    bindBSDF("A dielectric coat over a conductor (PBRTCoatedConductorMaterial), by random walk; viewer in vacuum.", coatedConductor);

    using CoatedDiffuse = Fixed<CoatedBSDF<LambertDiffuseBRDF>>;
    py::class_<CoatedDiffuse> coatedDiffuse(m, "PBRTCoatedDiffuseBSDF");
    coatedDiffuse.def(py::init([](float coatIoR, float ax, float ay, const py::object& albedo) {
                          return CoatedDiffuse{{AnisotropicGGX{float2(ax, ay)}, coatIoR, 1.f, LambertDiffuseBRDF{toVector<float, 3>(albedo)}}};
                      }),
                      "coat_ior"_a, "alpha_x"_a, "alpha_y"_a, "albedo"_a);
    bindBSDF("A dielectric coat over a Lambertian base (PBRTCoatedDiffuseMaterial), by random walk; viewer in vacuum.", coatedDiffuse);

    using Hair = Fixed<HairChiang16>;
    py::class_<Hair> hair(m, "HairChiang16");
    hair.def(py::init([](const py::object& baseColor, float betaM, float betaN, float alpha, float ior, float eta, float h) {
                 return Hair{HairChiang16(toVector<float, 3>(baseColor), betaM, betaN, alpha, ior, eta, h)};
             }),
             "base_color"_a, "beta_m"_a, "beta_n"_a, "alpha"_a = 2.f, "ior"_a = 1.55f, "eta"_a = 1.f / 1.55f, "h"_a = 0.f);
    hair.def_static("sigma_a_from_color", [](const py::object& color, float betaN) { return toTuple3(HairChiang16::sigmaAFromColor(toVector<float, 3>(color), betaN)); },
                    "color"_a, "beta_n"_a);
    bindBSDF("Chiang et al.'s hair BCSDF (HairMaterial): x along the fiber, h the offset across it in [-1, 1].", hair);

    /// A MERL table and the BSDF over it (the BSDF points into the table), sampled with its fitted lobe.
    struct MERL
    {
        std::shared_ptr<const MERLBRDF> table;
        DiffuseSpecularData fit;
        MERLMeasuredBRDF make(const float3& wi) const { return {table.get(), table->albedo(wi.z()), DiffuseSpecularBRDF(fit)}; }
    };
    py::class_<MERL> merl(m, "MERLBSDF");
    merl.def(py::init([](const std::filesystem::path& path, const py::object& fit) {
                 // The lobe from the JSON file beside the table unless given (as falcor.scene.material.merl_fit returns it).
                 const py::dict lobe = fit.is_none() ? py::module_::import("falcor.scene.material").attr("merl_fit")(path.string()).cast<py::dict>()
                                                     : fit.cast<py::dict>();
                 return MERL{MERLBRDF::load(path), toDiffuseSpecularData(lobe)};
             }),
             "path"_a, "fit"_a = py::none());
    merl.def("albedo", [](const MERL& b, float cosTheta) { return toTuple3(b.table->albedo(cosTheta)); }, "cos_theta"_a,
             "Directional albedo for a view at cos θ (the table precomputed at load).");
    bindBSDF("A MERL measured BRDF (.binary), importance sampled with its fitted diffuse + GGX lobe (fit: dict of baseColor, roughness, specular, metallic).", merl);

    /// An RGL file's tables and the BRDF seen from wi.
    struct RGL
    {
        std::shared_ptr<const RGLBRDF> table;
        RGLMeasuredBRDF make(const float3& wi) const { return {table.get(), table->view(wi), table->albedo(wi.z())}; }
    };
    py::class_<RGL> rgl(m, "RGLBSDF");
    rgl.def(py::init([](const std::filesystem::path& path) { return RGL{RGLBRDF::load(path)}; }), "path"_a);
    rgl.def("albedo", [](const RGL& b, float cosTheta) { return toTuple3(b.table->albedo(cosTheta)); }, "cos_theta"_a,
            "Directional albedo for a view at cos θ (integrated at load).");
    rgl.def_property_readonly("description", [](const RGL& b) { return b.table->getDescription(); });
    bindBSDF("An RGL measured BRDF (.bsdf tensor file), sampled through its luminance and VNDF tables.", rgl);

    using Cloth = Fixed<ClothBRDF>;
    py::class_<Cloth> cloth(m, "ClothBRDF");
    cloth.def(py::init([](const py::object& diffuse, float roughness, const py::object& f0) {
                  return Cloth{{roughness, toVector<float, 3>(f0), toVector<float, 3>(diffuse)}};
              }),
              "diffuse"_a, "roughness"_a, "f0"_a = py::make_tuple(0.04f, 0.04f, 0.04f));
    bindBSDF("Falcor's cloth BRDF: Lambertian base plus a sheen lobe.", cloth);

    py::class_<Standard> standard(m, "StandardBSDF");
    standard.def(py::init([](const py::object& diffuse, const py::object& specular, float roughness, float metallic, float eta,
                             const py::object& transmission, float diffuseTransmission, float specularTransmission, bool thinSurface) {
                     Standard s;
                     s.data.diffuse = toVector<float, 3>(diffuse), s.data.specular = toVector<float, 3>(specular);
                     s.data.roughness = roughness, s.data.metallic = metallic, s.data.eta = eta;
                     s.data.transmission = toVector<float, 3>(transmission);
                     s.data.diffuseTransmission = diffuseTransmission, s.data.specularTransmission = specularTransmission;
                     s.data.thinSurface = thinSurface;
                     return s;
                 }),
                 "diffuse"_a, "specular"_a, "roughness"_a, "metallic"_a = 0.f, "eta"_a = 1.f / 1.5f,
                 "transmission"_a = py::make_tuple(1.f, 1.f, 1.f), "diffuse_transmission"_a = 0.f, "specular_transmission"_a = 0.f,
                 "thin_surface"_a = false);
    standard.def_property_readonly("lobe_types", [](const Standard& s) { return s.data.getLobeTypes(); });
    bindBSDF("Falcor's standard BSDF (StandardMaterial), from its BSDF parameters.", standard);

    auto toTuple4 = [](const float4& v) { return py::make_tuple(v.x(), v.y(), v.z(), v.w()); };
    m.def(
        "sample_trilinear",
        [=](const Texture& texture, const py::object& uv, float lod) { return toTuple4(sampleTrilinear(texture, toVector<float, 2>(uv), lod)); },
        "texture"_a, "uv"_a, "lod"_a, "Trilinear lookup at a mip level (wrap addressing), as material textures are sampled at a level.");
    m.def(
        "sample_anisotropic",
        [=](const Texture& texture, const py::object& uv, const py::object& ddx, const py::object& ddy, uint32_t maxAnisotropy) {
            return toTuple4(sampleAnisotropic(texture, toVector<float, 2>(uv), toVector<float, 2>(ddx), toVector<float, 2>(ddy), maxAnisotropy));
        },
        "texture"_a, "uv"_a, "ddx"_a, "ddy"_a, "max_anisotropy"_a = 8,
        "Anisotropic lookup of a footprint given by its uv gradients (wrap addressing), as material textures are sampled with gradients.");

    // Test hooks (MaterialLanesCheck.h): the lane code at the active ISA's width (lanes=True) or the scalar code, on the same rows.
    using MaskArray = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;
    m.def("_lanes_bsdf_sample_generator", [](const std::string& type, const MaskArray& active, uint32_t seed, bool lanes) {
        FALCOR_CHECK(type == "TinyUniform" || type == "Uniform", "_lanes_bsdf_sample_generator: unknown generator '", type, "'.");
        FALCOR_CHECK(active.ndim() == 2, "_lanes_bsdf_sample_generator: active must be a (steps, N) array.");
        SampleGeneratorLanesCheck io;
        io.uniform = type == "Uniform", io.steps = size_t(active.shape(0)), io.count = size_t(active.shape(1)), io.seed = seed;
        py::array_t<float> numbers({io.steps, io.count, size_t(2)});
        py::array_t<uint32_t> finalNext(io.count);
        std::fill_n(numbers.mutable_data(), numbers.size(), 0.f);
        io.active = active.data(), io.numbers = numbers.mutable_data(), io.finalNext = finalNext.mutable_data();
        {
            py::gil_scoped_release release;
            lanes ? sampleGeneratorLanesCheck(io) : sampleGeneratorScalarCheck(io);
        }
        return py::dict("numbers"_a = numbers, "final_next"_a = finalNext);
    }, "type"_a, "active"_a, "seed"_a, "lanes"_a);
    m.def("_lanes_bsdf_material", [](const std::string& kind, const py::dict& rows, uint32_t seed, bool lanes, bool importanceSampling) {
        MaterialLanesCheck io;
        const std::map<std::string, MaterialLanesCheck::Kind> kinds = {{"PBRTDiffuse", MaterialLanesCheck::Kind::PBRTDiffuse},
                                                                       {"PBRTConductor", MaterialLanesCheck::Kind::PBRTConductor},
                                                                       {"Standard", MaterialLanesCheck::Kind::Standard}};
        FALCOR_CHECK(kinds.count(kind), "_lanes_bsdf_material: unknown kind '", kind, "'.");
        io.kind = kinds.at(kind), io.importanceSampling = importanceSampling;
        io.count = size_t(FloatArray::ensure(rows["V"]).shape(0)), io.seed = seed;
        std::vector<py::object> keep; // The converted inputs live until the check returns.
        auto input = [&]<typename T>(const char* name, size_t columns, const T*& to) {
            auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(rows[name]);
            FALCOR_CHECK(a && size_t(a.size()) == io.count * columns, "_lanes_bsdf_material: '", name, "' must have ", io.count, " rows of ",
                         columns);
            to = a.data(), keep.push_back(a);
        };
        input("V", 3, io.V), input("wo", 3, io.wo), input("T", 3, io.T), input("B", 3, io.B), input("N", 3, io.N);
        input("faceN", 3, io.faceN), input("frontFacing", 1, io.frontFacing), input("active", 1, io.active);
        input("params", MaterialLanesCheck::kParams, io.params);
        const py::ssize_t n = py::ssize_t(io.count);
        py::array_t<float> eval({n, py::ssize_t(3)}), pdf(n), wo({n, py::ssize_t(3)}), weight({n, py::ssize_t(3)}), samplePdf(n);
        py::array_t<uint32_t> lobe(n), lobeTypes(n), finalNext(n);
        py::array_t<uint8_t> valid(n);
        io.eval = eval.mutable_data(), io.pdf = pdf.mutable_data(), io.sampleWo = wo.mutable_data(), io.sampleWeight = weight.mutable_data();
        io.samplePdf = samplePdf.mutable_data(), io.sampleLobe = lobe.mutable_data(), io.sampleValid = valid.mutable_data();
        io.lobeTypes = lobeTypes.mutable_data(), io.finalNext = finalNext.mutable_data();
        {
            py::gil_scoped_release release;
            lanes ? materialLanesCheck(io) : materialScalarCheck(io);
        }
        return py::dict("eval"_a = eval, "pdf"_a = pdf, "wo"_a = wo, "weight"_a = weight, "sample_pdf"_a = samplePdf, "lobe"_a = lobe,
                        "valid"_a = valid, "lobe_types"_a = lobeTypes, "final_next"_a = finalNext);
    }, "kind"_a, "rows"_a, "seed"_a, "lanes"_a, "importance_sampling"_a = true);
}
} // namespace falcor::python
