#include "Core/PythonHelpers.h"
#include "Utils/Image/Texture.h"
#include "Core/Pass/KernelABI.h"
#include <pybind11/numpy.h>
#include <cstring>

namespace falcor::python
{
namespace
{
/// Element type of a format whose channels are whole, equal-sized, addressable numbers.
struct ElementType
{
    char code;      ///< numpy kind: 'f', 'u', 'i'
    uint32_t bytes; ///< per channel
};

/// Natural element type of a format for views: floats, unsigned (unorm, srgb, uint) or signed
/// (snorm, sint) integers; packed formats view as one unsigned word per texel.
ElementType viewElementType(ResourceFormat f)
{
    const FormatDesc& d = getFormatDesc(f);
    if (!hasUniformChannels(f))
        return {'u', d.bytesPerTexel};
    uint32_t bytes = d.bitsPerChannel[0] / 8;
    switch (d.type)
    {
    case FormatType::Float: return {'f', bytes};
    case FormatType::Snorm:
    case FormatType::Sint: return {'i', bytes};
    default: return {'u', bytes};
    }
}

uint32_t viewChannels(ResourceFormat f) { return hasUniformChannels(f) ? getFormatChannelCount(f) : 1; }

std::string bufferFormat(ElementType e)
{
    switch (e.code)
    {
    case 'f': return e.bytes == 2 ? "e" : e.bytes == 4 ? "f" : "d";
    case 'i': return e.bytes == 1 ? "b" : e.bytes == 2 ? "h" : e.bytes == 4 ? "i" : "q";
    default: return e.bytes == 1 ? "B" : e.bytes == 2 ? "H" : e.bytes == 4 ? "I" : "Q";
    }
}

/// Shape as Falcor's to_numpy gives it: [depth?, height?, width, channels?] with size-1 dims dropped.
std::vector<py::ssize_t> falcorShape(const Texture& t, uint32_t mip, uint32_t channels)
{
    std::vector<py::ssize_t> shape;
    if (t.getDepth(mip) > 1)
        shape.push_back(t.getDepth(mip));
    if (t.getHeight(mip) > 1)
        shape.push_back(t.getHeight(mip));
    shape.push_back(t.getWidth(mip));
    if (channels > 1)
        shape.push_back(channels);
    return shape;
}

void checkSubresource(const Texture& t, uint32_t mip, uint32_t slice)
{
    FALCOR_CHECK(mip < t.getMipCount(), "Mip level ", mip, " is out of range (texture has ", t.getMipCount(), ").");
    FALCOR_CHECK(slice < t.getArraySize(), "Array slice ", slice, " is out of range (texture has ", t.getArraySize(), ").");
}

/// Falcor's rule: typed only for Float/Uint/Sint formats with equal 8/16/32/64-bit channels;
/// every other format reads back as a flat array of raw bytes.
bool falcorTypedReadback(ResourceFormat f)
{
    FormatType t = getFormatType(f);
    return hasUniformChannels(f) && (t == FormatType::Float || t == FormatType::Uint || t == FormatType::Sint);
}

py::array toNumpy(const std::shared_ptr<Texture>& t, uint32_t mip, uint32_t slice)
{
    checkSubresource(*t, mip, slice);
    const uint8_t* src = t->data(mip, slice);
    size_t size = t->getSubresourceSize(mip);
    if (!falcorTypedReadback(t->getFormat()))
    {
        py::array_t<uint8_t> a{py::ssize_t(size)};
        std::memcpy(a.mutable_data(), src, size);
        return a;
    }
    ElementType e = viewElementType(t->getFormat());
    py::array a(py::dtype(bufferFormat(e)), falcorShape(*t, mip, getFormatChannelCount(t->getFormat())));
    std::memcpy(a.mutable_data(), src, size);
    return a;
}

void fromNumpy(const std::shared_ptr<Texture>& t, const py::buffer& data, uint32_t mip, uint32_t slice)
{
    checkSubresource(*t, mip, slice);
    py::buffer_info info = data.request();
    size_t bytes = size_t(info.size) * size_t(info.itemsize);
    FALCOR_CHECK(bytes == t->getSubresourceSize(mip), "from_numpy: data has ", bytes, " bytes but the subresource of texture '",
                 t->getName(), "' (", to_string(t->getFormat()), ", ", t->getWidth(mip), "x", t->getHeight(mip), ") needs ",
                 t->getSubresourceSize(mip), ".");
    py::array contiguous = py::array::ensure(data, py::array::c_style);
    FALCOR_CHECK(contiguous, "from_numpy: data must be convertible to a C-contiguous array.");
    std::memcpy(t->data(mip, slice), contiguous.data(), bytes);
}

/// Zero-copy view of mip 0 / slice 0 with its natural shape (H, W, C) and element type.
py::buffer_info bufferView(Texture& t)
{
    ElementType e = viewElementType(t.getFormat());
    uint32_t channels = viewChannels(t.getFormat());
    std::vector<py::ssize_t> shape, strides;
    if (t.getDepth() > 1)
        shape.push_back(t.getDepth()), strides.push_back(py::ssize_t(t.getRowPitch() * t.getHeight()));
    shape.push_back(t.getHeight()), strides.push_back(py::ssize_t(t.getRowPitch()));
    shape.push_back(t.getWidth()), strides.push_back(t.getBytesPerTexel());
    if (channels > 1)
        shape.push_back(channels), strides.push_back(e.bytes);
    return py::buffer_info(t.data(), e.bytes, bufferFormat(e), py::ssize_t(shape.size()), shape, strides);
}

// ---- DLPack (the ABI of dlpack.h v0.8; we declare the structs ourselves) -------------------
struct DLDevice
{
    int32_t device_type; // kDLCPU = 1
    int32_t device_id;
};
struct DLDataType
{
    uint8_t code; // kDLInt = 0, kDLUInt = 1, kDLFloat = 2
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor
{
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor
{
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};

struct DLPackVersion
{
    uint32_t major, minor;
};
struct DLManagedTensorVersioned
{
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags; // bit 0: read-only; bit 1: is a copy
    DLTensor dl_tensor;
};

struct DLPackContext
{
    std::shared_ptr<Texture> texture; // Keeps the memory alive while the consumer uses it.
    std::vector<int64_t> shape, strides;
    DLManagedTensor managed;
    DLManagedTensorVersioned versioned;
};

template<typename Managed>
py::capsule makeCapsule(Managed* managed, const char* name)
{
    // A consumer renames the capsule to "used_..." and takes over the deleter; otherwise we free.
    return py::capsule(managed, name, [](PyObject* cap) {
        const char* capName = PyCapsule_GetName(cap);
        if (PyCapsule_IsValid(cap, capName) && std::string_view(capName).rfind("used_", 0) != 0)
        {
            auto* m = static_cast<Managed*>(PyCapsule_GetPointer(cap, capName));
            m->deleter(m);
        }
    });
}

py::bytes kernelTextureDesc(Texture& t, bool rawAccess)
{
    static_assert(sizeof(float4) == 4 * sizeof(float));
    const uint32_t dimensions = t.getType() == Texture::Type::Texture1D ? 1 : t.getType() == Texture::Type::Texture2D ? 2 : 3;
    FalcorKernelTextureDesc desc = {
        t.data(), t.getSubresourceOffsets(), t.getWidth(), t.getHeight(), t.getDepth(), t.getArraySize(), t.getMipCount(),
        t.getBytesPerTexel(), dimensions, rawAccess ? 1u : 0u,
        // float4 is four packed floats: the codec's signature is the ABI's.
        reinterpret_cast<void (*)(const uint8_t*, float*, uint32_t)>(Texture::getCodec(t.getFormat()).decode),
    };
    return py::bytes(reinterpret_cast<const char*>(&desc), sizeof(desc));
}

/// DLPack export of mip 0 / slice 0. Consumers that ask for DLPack >= 1.0 get a versioned,
/// writable tensor; older ones the legacy capsule.
py::capsule toDLPack(const std::shared_ptr<Texture>& t, bool versioned)
{
    auto* ctx = new DLPackContext{t, {}, {}, {}, {}};
    py::buffer_info view = bufferView(*t);
    ElementType e = viewElementType(t->getFormat());
    for (size_t i = 0; i < view.shape.size(); ++i)
    {
        ctx->shape.push_back(view.shape[i]);
        ctx->strides.push_back(view.strides[i] / int64_t(e.bytes)); // DLPack strides count elements
    }
    uint8_t code = e.code == 'f' ? 2 : e.code == 'i' ? 0 : 1;
    DLTensor tensor{t->data(), {1, 0}, int32_t(ctx->shape.size()), {code, uint8_t(e.bytes * 8), 1}, ctx->shape.data(), ctx->strides.data(), 0};
    if (versioned)
    {
        ctx->versioned = {{1, 0}, ctx, [](DLManagedTensorVersioned* m) { delete static_cast<DLPackContext*>(m->manager_ctx); }, 0, tensor};
        return makeCapsule(&ctx->versioned, "dltensor_versioned");
    }
    ctx->managed = {tensor, ctx, [](DLManagedTensor* m) { delete static_cast<DLPackContext*>(m->manager_ctx); }};
    return makeCapsule(&ctx->managed, "dltensor");
}
} // namespace

void registerTextureBindings(py::module_& m)
{
    py::enum_<ResourceFormat> format(m, "ResourceFormat");
    for (const auto& [value, name] : enumItems(ResourceFormat{}))
        format.value(name.c_str(), value);

    m.def("get_format_desc", [](ResourceFormat f) {
        const FormatDesc& d = getFormatDesc(f);
        static const char* types[] = {"Unknown", "Float", "Unorm", "UnormSrgb", "Snorm", "Uint", "Sint"};
        py::dict r;
        r["name"] = d.name;
        r["bytes_per_texel"] = d.bytesPerTexel;
        r["channel_count"] = d.channelCount;
        r["type"] = types[int(d.type)];
        r["bits_per_channel"] = std::vector<uint32_t>(d.bitsPerChannel, d.bitsPerChannel + d.channelCount);
        r["bgr"] = d.bgr;
        return r;
    }, "format"_a, "Layout facts of a ResourceFormat: type ('Float', 'Unorm', 'UnormSrgb', 'Snorm', 'Uint', 'Sint'), channels, bits.");

    py::enum_<TextureChannelFlags>(m, "TextureChannelFlags")
        .value("None_", TextureChannelFlags::None)
        .value("Red", TextureChannelFlags::Red)
        .value("Green", TextureChannelFlags::Green)
        .value("Blue", TextureChannelFlags::Blue)
        .value("Alpha", TextureChannelFlags::Alpha)
        .value("RGB", TextureChannelFlags::RGB)
        .value("RGBA", TextureChannelFlags::RGBA);

    py::classh<Texture> texture(m, "Texture", py::buffer_protocol(),
                                "A texture in CPU memory. `np.asarray(tex)` is a zero-copy (H, W, C) view of mip 0; "
                                "`to_numpy()` copies with Falcor's shapes; `torch.from_dlpack(tex)` shares memory.");
    texture.def(py::init([](uint32_t width, uint32_t height, ResourceFormat format, uint32_t arraySize, uint32_t mipLevels, uint32_t depth) {
                    return Texture::create(width, height, format, arraySize, mipLevels, depth,
                                           depth > 1 ? Texture::Type::Texture3D : Texture::Type::Texture2D);
                }),
                "width"_a, "height"_a, "format"_a = ResourceFormat::RGBA32Float, "array_size"_a = 1, "mip_levels"_a = 1,
                "depth"_a = 1);
    // Read by code that validates sizes before creating textures (batch job resolutions).
    texture.attr("MAX_DIMENSION") = Texture::kMaxDimension;
    texture.def_property_readonly("format", &Texture::getFormat, "The ResourceFormat of the texels.");
    texture.def_property_readonly("width", [](const Texture& t) { return t.getWidth(); }, "Width of mip 0 in texels.");
    texture.def_property_readonly("height", [](const Texture& t) { return t.getHeight(); }, "Height of mip 0 in texels.");
    texture.def_property_readonly("depth", [](const Texture& t) { return t.getDepth(); }, "Depth of mip 0 (1 unless 3D).");
    texture.def_property_readonly("mip_count", &Texture::getMipCount, "Number of mip levels.");
    texture.def_property_readonly("array_size", &Texture::getArraySize, "Number of array slices.");
    texture.def_property_readonly("sample_count", [](const Texture&) { return 1; }, "Always 1 (no multisampling on the CPU).");
    texture.def_property_readonly("name", &Texture::getName, "Debug name (a graph names its textures 'Pass.field').");
    texture.def_property_readonly("size_in_bytes", &Texture::getSizeInBytes, "Bytes of all subresources.");
    texture.def("to_numpy", &toNumpy, "mip_level"_a = 0, "array_slice"_a = 0,
                "A copy of one subresource with Falcor's shapes: (H, W) or (H, W, C) in the element type for formats "
                "Falcor reads back typed (float, integer), else the raw bytes as a flat uint8 array (use np.asarray(tex) "
                "or to_float32() for a (H, W, C) view). Raises falcor.RuntimeError for a mip level or slice out of range.");
    texture.def("from_numpy", &fromNumpy, "data"_a, "mip_level"_a = 0, "array_slice"_a = 0,
                "Copies raw texel data (any buffer of exactly the subresource's size, e.g. what to_numpy gives) into one "
                "subresource. Raises falcor.RuntimeError naming the expected size when the sizes differ.");
    texture.def("generate_mips", &Texture::generateMips, "Fills mips 1.. from mip 0, each texel the average of 2x2 texels above.");
    texture.def("to_float32", [](const Texture& t, uint32_t mip, uint32_t slice) {
        checkSubresource(t, mip, slice);
        py::array_t<float> a({py::ssize_t(t.getHeight(mip)), py::ssize_t(t.getWidth(mip)), py::ssize_t(4)});
        auto* out = reinterpret_cast<float4*>(a.mutable_data());
        for (uint32_t y = 0; y < t.getHeight(mip); ++y)
            t.loadRow(y, out + size_t(y) * t.getWidth(mip), mip, slice);
        return a;
    }, "mip_level"_a = 0, "array_slice"_a = 0,
                "Decoded texels as float32 (H, W, 4): unorm scaled to [0,1], sRGB linearized, missing channels 0, alpha 1.");
    texture.def_buffer(&bufferView);
    texture.def("_kernel_desc", &kernelTextureDesc, "raw_access"_a,
                "The texture as a compute kernel sees it (FalcorKernelTextureDesc bytes); valid while the texture lives.");
    texture.def("__dlpack__", [](const std::shared_ptr<Texture>& t, py::kwargs kwargs) {
        bool versioned = false;
        if (kwargs.contains("max_version") && !kwargs["max_version"].is_none())
            versioned = py::cast<py::tuple>(kwargs["max_version"])[0].cast<int>() >= 1;
        return toDLPack(t, versioned);
    });
    // Pickling (the scene cache, worker processes): shape, format, name and every subresource's bytes.
    texture.def(py::pickle(
        [](const Texture& t) {
            return py::make_tuple(uint32_t(t.getType()), t.getWidth(), t.getHeight(), t.getDepth(), t.getFormat(), t.getArraySize(),
                                  t.getMipCount(), t.getName(), py::bytes(reinterpret_cast<const char*>(t.data()), t.getSizeInBytes()));
        },
        [](const py::tuple& state) {
            FALCOR_CHECK(state.size() == 9 && state[0].cast<uint32_t>() <= uint32_t(Texture::Type::Texture3D),
                         "Texture: unpickling needs (type, width, height, depth, format, array size, mips, name, bytes).");
            const uint32_t width = state[1].cast<uint32_t>(), height = state[2].cast<uint32_t>(), depth = state[3].cast<uint32_t>();
            const uint32_t arraySize = state[5].cast<uint32_t>();
            const auto format = state[4].cast<ResourceFormat>();
            const auto type = Texture::Type(state[0].cast<uint32_t>());
            const std::string_view bytes = state[8].cast<std::string_view>();
            // The bytes must hold at least mip 0 of every slice before anything is allocated: a forged
            // state (a scene cache file is data) can't make us allocate more than ~2x what it carries.
            Texture::checkSize(width, height, depth, arraySize, type, "Texture: unpickling");
            FALCOR_CHECK(getFormatBytesPerTexel(format) > 0, "Texture: unpickling got a compressed format."); // raises for unknown ones
            const uint64_t mip0Bytes = uint64_t(width) * height * depth * arraySize * getFormatBytesPerTexel(format);
            FALCOR_CHECK(bytes.size() >= mip0Bytes, "Texture: unpickling got ", bytes.size(), " bytes for a texture of at least ", mip0Bytes, ".");
            auto texture = Texture::create(width, height, format, arraySize, state[6].cast<uint32_t>(), depth, type);
            FALCOR_CHECK(bytes.size() == texture->getSizeInBytes(), "Texture: unpickling got ", bytes.size(), " bytes for a texture of ",
                         texture->getSizeInBytes(), ".");
            std::memcpy(texture->data(), bytes.data(), bytes.size());
            texture->setName(state[7].cast<std::string>());
            return texture;
        }));
    texture.def("__dlpack_device__", [](const Texture&) { return py::make_tuple(1, 0); });
    // Torch and display conversions live in the package's Python modules (torch is optional).
    texture.def("to_torch", [](const py::object& self, uint32_t mip, uint32_t slice) {
        return callPackage("falcor.torch_interop", "texture_to_torch", self, mip, slice);
    }, "mip_level"_a = 0, "array_slice"_a = 0,
                "A torch tensor of the texels: mip 0 of slice 0 shares the texture's memory (DLPack, no copy); other "
                "subresources are copied. Raises ImportError without PyTorch.");
    texture.def("from_torch", [](const py::object& self, const py::object& tensor, uint32_t mip, uint32_t slice) {
        callPackage("falcor.torch_interop", "texture_from_torch", self, tensor, mip, slice);
    }, "tensor"_a, "mip_level"_a = 0, "array_slice"_a = 0,
                "Copies a CPU tensor (shaped and typed as to_numpy returns) into a subresource; CUDA tensors raise.");
    texture.def("_repr_png_", [](const py::object& self) -> py::bytes {
        return callPackage("falcor.display", "texture_png", self);
    }, "PNG bytes for Jupyter's inline display (float formats tone-mapped or normalized as falcor.show does).");
    texture.def("__repr__", [](const Texture& t) {
        return concat("Texture(name='", t.getName(), "', width=", t.getWidth(), ", height=", t.getHeight(), ", format=",
                      to_string(t.getFormat()), ")");
    });
}
} // namespace falcor::python
