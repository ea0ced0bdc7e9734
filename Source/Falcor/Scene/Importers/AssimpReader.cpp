// falcor._assimp_reader: reads a scene file with the Open Asset Import Library (Assimp) and returns
// what it holds as plain Python data (dicts, lists, numpy arrays). It only reads: the mapping to
// Falcor's scene is done in Python (falcor/scene/importers/assimp.py). A separate extension module,
// so that `import falcor` never loads libassimp; the Python side imports it when an Assimp format
// is read.
//
// Files are opened through ScopedIOSystem: it opens regular files only, for reading only, below
// the folders the caller allows, and reports every file it opened (the scene cache records them)
// and every path it refused.

#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace py = pybind11;
namespace fs = std::filesystem;

namespace
{

// --- file access ----------------------------------------------------------------------------------

class FileStream final : public Assimp::IOStream
{
public:
    explicit FileStream(std::FILE* file) : mFile(file) {}
    ~FileStream() override { std::fclose(mFile); }

    size_t Read(void* buffer, size_t size, size_t count) override { return std::fread(buffer, size, count, mFile); }
    size_t Write(const void*, size_t, size_t) override { return 0; }
    aiReturn Seek(size_t offset, aiOrigin origin) override
    {
        static const int kWhence[] = {SEEK_SET, SEEK_CUR, SEEK_END};
        if (origin > aiOrigin_END)
            return aiReturn_FAILURE;
        return std::fseek(mFile, long(offset), kWhence[origin]) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
    }
    size_t Tell() const override { return size_t(std::ftell(mFile)); }
    size_t FileSize() const override
    {
        struct stat info{};
        return fstat(fileno(mFile), &info) == 0 ? size_t(info.st_size) : 0;
    }
    void Flush() override {}

private:
    std::FILE* mFile;
};

class ScopedIOSystem final : public Assimp::IOSystem
{
public:
    explicit ScopedIOSystem(std::vector<fs::path> allowedRoots) : mAllowedRoots(std::move(allowedRoots)) {}

    bool Exists(const char* file) const override { return permitted(file); }
    char getOsSeparator() const override { return '/'; }

    Assimp::IOStream* Open(const char* file, const char* mode) override
    {
        bool reading = mode && mode[0] == 'r' && !std::strchr(mode, '+');
        if (!reading || !permitted(file))
            return nullptr;
        std::FILE* handle = std::fopen(file, "rb");
        if (!handle)
            return nullptr;
        mOpened.push_back(absolute(file).string());
        return new FileStream(handle);
    }

    void Close(Assimp::IOStream* stream) override { delete stream; }

    bool ComparePaths(const char* one, const char* second) const override
    {
        return absolute(one) == absolute(second);
    }

    const std::vector<std::string>& opened() const { return mOpened; }
    const std::vector<std::string>& refused() const { return mRefused; }

private:
    static fs::path absolute(const char* file)
    {
        std::error_code ec;
        fs::path path = fs::absolute(fs::path(file), ec);
        return (ec ? fs::path(file) : path).lexically_normal();
    }

    // Regular files only (a FIFO or a device would block or never end), lexically below a root. A
    // file that exists but is refused is reported; a missing one is just missing.
    bool permitted(const char* file) const
    {
        struct stat info{};
        if (!file || !*file || stat(file, &info) != 0)
            return false;
        bool allowed = false;
        fs::path path = absolute(file);
        for (const fs::path& root : mAllowedRoots)
        {
            fs::path relative = path.lexically_relative(root);
            allowed = allowed || (!relative.empty() && *relative.begin() != "..");
        }
        if (allowed && S_ISREG(info.st_mode))
            return true;
        mRefused.push_back(path.string());
        return false;
    }

    std::vector<fs::path> mAllowedRoots;
    std::vector<std::string> mOpened;
    mutable std::vector<std::string> mRefused; // Exists() is const
};

// --- binary FBX check -------------------------------------------------------------------------------

// Assimp sizes an FBX array by its declared element count before decompressing it (and reserves
// that many vectors), whatever the compressed data holds: a 200-byte file declaring 2^31 doubles
// makes it allocate gigabytes. zlib can't expand more than 1032:1, so an array declaring more than
// that of its compressed size is refused before Assimp reads the file. A Layer record without its
// index property is refused too (Assimp dereferences the missing token). Returns the problem or "".
std::string checkBinaryFbxArrays(const char* data, size_t size)
{
    static const char kMagic[] = "Kaydara FBX Binary  ";
    if (size < 27 || std::memcmp(data, kMagic, sizeof kMagic - 1) != 0)
        return {};
    uint32_t version;
    std::memcpy(&version, data + 23, 4);
    const bool wide = version >= 7500;
    const size_t head = wide ? 25 : 13;
    auto word = [&](size_t at) -> uint64_t
    {
        uint64_t v = 0;
        std::memcpy(&v, data + at, wide ? 8 : 4);
        return v;
    };
    size_t pos = 27;
    std::vector<uint64_t> ends{size}; // end of each open list of records
    while (!ends.empty() && pos + head <= ends.back())
    {
        uint64_t end = word(pos), count = word(pos + (wide ? 8 : 4)), bytes = word(pos + (wide ? 16 : 8));
        uint8_t nameLength = uint8_t(data[pos + head - 1]);
        if (end == 0) // the null record closing a nested list
        {
            pos += head;
            ends.pop_back();
            continue;
        }
        size_t p = pos + head + nameLength;
        if (end > ends.back() || end < p || bytes > end - p)
            return {}; // malformed: Assimp's tokenizer refuses it
        // Assimp reads a geometry Layer's index without checking that it is there (SIGSEGV).
        if (count == 0 && nameLength == 5 && std::memcmp(data + pos + head, "Layer", 5) == 0)
            return "a Layer record at byte " + std::to_string(pos) + " has no index";
        const size_t propsEnd = p + bytes;
        for (uint64_t i = 0; i < count && p < propsEnd; i++)
        {
            char type = data[p];
            size_t scalar = type == 'Y' ? 2 : type == 'C' ? 1 : (type == 'I' || type == 'F') ? 4 : (type == 'D' || type == 'L') ? 8 : 0;
            size_t element = (type == 'f' || type == 'i') ? 4 : (type == 'd' || type == 'l') ? 8 : type == 'b' ? 1 : 0;
            if (scalar)
                p += 1 + scalar;
            else if ((type == 'S' || type == 'R') && p + 5 <= propsEnd)
            {
                uint32_t length;
                std::memcpy(&length, data + p + 1, 4);
                p += 5 + size_t(length);
            }
            else if (element && p + 13 <= propsEnd)
            {
                uint32_t length, encoding, compressed;
                std::memcpy(&length, data + p + 1, 4);
                std::memcpy(&encoding, data + p + 5, 4);
                std::memcpy(&compressed, data + p + 9, 4);
                uint64_t declared = uint64_t(length) * element;
                if (declared > 1032 * uint64_t(compressed) + 4096)
                    return "an FBX array at byte " + std::to_string(p) + " declares " + std::to_string(length) +
                           " elements in " + std::to_string(compressed) + " bytes, more than any zlib data expands to";
                p += 13 + size_t(compressed);
            }
            else
                return {}; // an unknown property type: Assimp's tokenizer refuses it
        }
        if (end > propsEnd) // nested records follow the properties
        {
            ends.push_back(end);
            pos = propsEnd;
        }
        else
        {
            pos = end;
        }
        while (ends.size() > 1 && pos >= ends.back()) // a nested list without its null record
            ends.pop_back();
    }
    return {};
}

std::string checkBinaryFbxFile(const std::string& path)
{
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return {};
    struct stat info{};
    std::string problem;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0)
    {
        void* map = mmap(nullptr, size_t(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED)
        {
            problem = checkBinaryFbxArrays(static_cast<const char*>(map), size_t(info.st_size));
            munmap(map, size_t(info.st_size));
        }
    }
    ::close(fd);
    return problem;
}

// --- conversions ----------------------------------------------------------------------------------

// Names in files are not always UTF-8 (old exporters write Latin-1): undecodable bytes become U+FFFD
// instead of failing the whole read. File paths decode as os.fsdecode does.
py::str text(const char* data, size_t size)
{
    return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(data, Py_ssize_t(size), "replace"));
}

py::str text(const aiString& s)
{
    return text(s.data, std::min<size_t>(s.length, sizeof s.data - 1));
}

py::list paths(const std::vector<std::string>& files)
{
    py::list out;
    for (const std::string& f : files)
        out.append(py::reinterpret_steal<py::object>(PyUnicode_DecodeFSDefaultAndSize(f.data(), Py_ssize_t(f.size()))));
    return out;
}

py::array_t<double> matrixArray(const aiMatrix4x4& m)
{
    py::array_t<double> out({4, 4});
    auto r = out.mutable_unchecked<2>();
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r(i, j) = m[i][j];
    return out;
}

py::tuple vec3(const aiVector3D& v)
{
    return py::make_tuple(v.x, v.y, v.z);
}

py::tuple color3(const aiColor3D& c)
{
    return py::make_tuple(c.r, c.g, c.b);
}

// --- scene parts ----------------------------------------------------------------------------------

py::list nodeList(const aiScene* scene)
{
    // Depth-first, parents before children, without recursion (deep hierarchies in hostile files).
    py::list nodes;
    std::vector<std::pair<const aiNode*, long>> stack;
    if (scene->mRootNode)
        stack.emplace_back(scene->mRootNode, -1);
    while (!stack.empty())
    {
        auto [node, parent] = stack.back();
        stack.pop_back();
        long index = long(py::len(nodes));
        py::list meshes;
        for (unsigned i = 0; i < node->mNumMeshes; i++)
            meshes.append(node->mMeshes[i]);
        py::dict d;
        d["name"] = text(node->mName);
        d["parent"] = parent < 0 ? py::object(py::none()) : py::object(py::int_(parent));
        d["matrix"] = matrixArray(node->mTransformation);
        d["meshes"] = meshes;
        nodes.append(d);
        for (unsigned i = node->mNumChildren; i-- > 0;)
            if (node->mChildren[i])
                stack.emplace_back(node->mChildren[i], index);
    }
    return nodes;
}

// The bone influences of a mesh's vertices: per source vertex, its non-zero (bone, weight) pairs in
// bone order, stored as one list with offsets (a vertex's pairs are first[v] .. first[v + 1]).
struct BoneInfluences
{
    std::vector<const aiBone*> bones; // the mesh's bones, null entries left out
    std::vector<uint32_t> first;      // source vertex count + 1 offsets
    std::vector<uint32_t> bone;       // index into `bones`
    std::vector<float> weight;
    uint32_t maxCount = 0; // the most pairs any vertex has
};

// Padded (N, K) arrays cost N x K entries whatever the file holds; a file whose one vertex has
// thousands of influences would make that vertex count times larger than its weights. Refused
// beyond this many entries per weight (or vertex) the mesh holds.
constexpr uint64_t kMaxPaddingRatio = 16;

BoneInfluences boneInfluences(const aiMesh* mesh)
{
    BoneInfluences in;
    const uint32_t n = mesh->mNumVertices;
    for (unsigned b = 0; mesh->mBones && b < mesh->mNumBones; b++)
        if (mesh->mBones[b])
            in.bones.push_back(mesh->mBones[b]);
    if (in.bones.empty())
        return in; // maxCount 0: a rigid mesh
    std::vector<uint32_t> count(size_t(n) + 1, 0);
    uint64_t total = 0;
    for (const aiBone* bone : in.bones)
        for (unsigned w = 0; bone->mWeights && w < bone->mNumWeights; w++)
        {
            const aiVertexWeight& vw = bone->mWeights[w];
            if (vw.mVertexId >= n)
                throw std::runtime_error("mesh '" + std::string(mesh->mName.C_Str()) + "': bone '" + bone->mName.C_Str() +
                                         "' weights vertex " + std::to_string(vw.mVertexId) + " of " + std::to_string(n));
            if (vw.mWeight != 0.0f) // Falcor skips zero weights too: they move nothing
                count[vw.mVertexId + 1]++, total++;
        }
    if (total >= UINT32_MAX)
        throw std::runtime_error("mesh '" + std::string(mesh->mName.C_Str()) + "' has more than 2^32 bone weights");
    for (uint32_t v = 0; v < n; v++)
        in.maxCount = std::max(in.maxCount, count[v + 1]);
    if (uint64_t(n) * in.maxCount > kMaxPaddingRatio * (total + n))
        throw std::runtime_error("mesh '" + std::string(mesh->mName.C_Str()) + "': a vertex has " +
                                 std::to_string(in.maxCount) + " bone influences, too many for its " + std::to_string(total) +
                                 " weights to be padded to that count per vertex");
    for (uint32_t v = 0; v < n; v++)
        count[v + 1] += count[v];
    in.first = count; // now offsets; `count` becomes each vertex's fill position
    in.bone.resize(total);
    in.weight.resize(total);
    for (uint32_t b = 0; b < in.bones.size(); b++)
        for (unsigned w = 0; in.bones[b]->mWeights && w < in.bones[b]->mNumWeights; w++)
        {
            const aiVertexWeight& vw = in.bones[b]->mWeights[w];
            if (vw.mWeight != 0.0f)
            {
                uint32_t at = count[vw.mVertexId]++;
                in.bone[at] = b;
                in.weight[at] = vw.mWeight;
            }
        }
    return in;
}

// Vertices that are bit-for-bit equal in position, normal, first UV set and bone influences are
// joined, by hashing. This replaces Assimp's JoinIdenticalVertices, which compares within an
// epsilon through a spatial sort: on a 1M-triangle FBX it took 1.1 s of a 1.7 s read, this takes a
// few hundredths (the DCC tools that write per-corner data write exact copies).
struct JoinedVertices
{
    std::vector<uint32_t> unique; // source index of each joined vertex
    std::vector<uint32_t> remap;  // source index -> joined index
};

// Whether source vertices a and b have the same influences, bit for bit (always, without bones).
bool sameInfluences(const BoneInfluences& skin, uint32_t a, uint32_t b)
{
    if (skin.maxCount == 0)
        return true;
    const uint32_t count = skin.first[a + 1] - skin.first[a];
    return count == skin.first[b + 1] - skin.first[b] &&
           std::memcmp(skin.bone.data() + skin.first[a], skin.bone.data() + skin.first[b], count * sizeof(uint32_t)) == 0 &&
           std::memcmp(skin.weight.data() + skin.first[a], skin.weight.data() + skin.first[b], count * sizeof(float)) == 0;
}

JoinedVertices joinIdenticalVertices(const aiMesh* mesh, const aiVector3D* normals, const BoneInfluences& skin)
{
    const uint32_t n = mesh->mNumVertices;
    auto key = [mesh, normals](uint32_t i, float out[8])
    {
        std::memset(out, 0, 8 * sizeof(float));
        std::memcpy(out, &mesh->mVertices[i], 3 * sizeof(float));
        std::memcpy(out + 3, &normals[i], 3 * sizeof(float));
        if (mesh->mTextureCoords[0])
            std::memcpy(out + 6, &mesh->mTextureCoords[0][i], 2 * sizeof(float));
    };
    auto mix = [](uint64_t h, const void* word) // FNV-1a over 32-bit words
    {
        uint32_t bits;
        std::memcpy(&bits, word, sizeof bits);
        return (h ^ bits) * 1099511628211ull;
    };
    size_t capacity = 16;
    while (capacity < 2 * size_t(n))
        capacity *= 2;
    std::vector<uint32_t> table(capacity, UINT32_MAX); // open addressing: joined index, or empty
    JoinedVertices joined;
    joined.remap.resize(n);
    std::vector<float> keys; // the key of each joined vertex, 8 floats (its influences are the source vertex's)
    float k[8];
    for (uint32_t i = 0; i < n; i++)
    {
        key(i, k);
        uint64_t h = 1469598103934665603ull;
        for (const float& f : k)
            h = mix(h, &f);
        for (uint32_t at = skin.maxCount ? skin.first[i] : 0, end = skin.maxCount ? skin.first[i + 1] : 0; at < end; at++)
            h = mix(mix(h, &skin.bone[at]), &skin.weight[at]);
        size_t slot = size_t(h ^ (h >> 29)) & (capacity - 1);
        while (table[slot] != UINT32_MAX && (std::memcmp(&keys[8 * size_t(table[slot])], k, sizeof k) != 0 ||
                                             !sameInfluences(skin, joined.unique[table[slot]], i)))
            slot = (slot + 1) & (capacity - 1);
        if (table[slot] == UINT32_MAX)
        {
            table[slot] = uint32_t(joined.unique.size());
            joined.unique.push_back(i);
            keys.insert(keys.end(), k, k + 8);
        }
        joined.remap[i] = table[slot];
    }
    return joined;
}

// Normals for a mesh stored without them, as Assimp's GenSmoothNormals makes them (which this
// replaces: its spatial sort took 2.1 s of a 2.4 s read of a 1M-triangle FBX): at every position,
// the mean of the unit normals of the faces with a corner there (corners at bit-equal positions
// are one point; Assimp's epsilon also joins positions a rounding apart). Assimp leaves out faces
// turned more than 175 degrees from the corner's own; that only differs on folded-over sheets.
std::vector<aiVector3D> smoothNormals(const aiMesh* mesh)
{
    const uint32_t n = mesh->mNumVertices;
    size_t capacity = 16;
    while (capacity < 2 * size_t(n))
        capacity *= 2;
    std::vector<uint32_t> table(capacity, UINT32_MAX); // open addressing: a vertex with that position
    std::vector<uint32_t> point(n);                    // vertex -> the first vertex at its position
    for (uint32_t i = 0; i < n; i++)
    {
        const aiVector3D& p = mesh->mVertices[i];
        uint64_t h = 1469598103934665603ull;
        for (float f : {p.x, p.y, p.z})
        {
            uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
        }
        size_t slot = size_t(h ^ (h >> 29)) & (capacity - 1);
        while (table[slot] != UINT32_MAX && std::memcmp(&mesh->mVertices[table[slot]], &p, sizeof p) != 0)
            slot = (slot + 1) & (capacity - 1);
        if (table[slot] == UINT32_MAX)
            table[slot] = i;
        point[i] = table[slot];
    }
    std::vector<aiVector3D> sums(n, aiVector3D(0, 0, 0));
    for (unsigned f = 0; f < mesh->mNumFaces; f++)
    {
        const unsigned* corner = mesh->mFaces[f].mIndices; // triangles with valid indices (checked)
        const aiVector3D &a = mesh->mVertices[corner[0]], &b = mesh->mVertices[corner[1]], &c = mesh->mVertices[corner[2]];
        aiVector3D normal = (b - a) ^ (c - a);
        const float length = normal.Length();
        if (!(length > 0.0f) || !std::isfinite(length))
            continue; // a degenerate face has no direction to give
        normal /= length;
        for (unsigned k = 0; k < 3; k++)
            sums[point[corner[k]]] += normal;
    }
    std::vector<aiVector3D> normals(n);
    for (uint32_t i = 0; i < n; i++)
        normals[i] = aiVector3D(sums[point[i]]).NormalizeSafe();
    return normals;
}

template<typename T>
py::array_t<float> gatherRows(const T* data, const std::vector<uint32_t>& rows, size_t width)
{
    py::array_t<float> out({rows.size(), width});
    float* dst = out.mutable_data();
    for (size_t i = 0; i < rows.size(); i++)
        for (size_t j = 0; j < width; j++)
            dst[i * width + j] = float(data[rows[i]][unsigned(j)]);
    return out;
}

py::object optionalRows(const aiVector3D* data, const std::vector<uint32_t>& rows, size_t width)
{
    return data ? py::object(gatherRows(data, rows, width)) : py::object(py::none());
}

// The skin of the joined vertices: the bones' node names, their offset matrices (mesh space to bone
// space at bind time) and per vertex K = the most influences of any vertex (bone index, weight)
// pairs, padded with bone 0 and weight 0. None for a mesh without weights.
py::object skinDict(const BoneInfluences& in, const std::vector<uint32_t>& rows)
{
    if (in.maxCount == 0)
        return py::none();
    py::list names;
    py::array_t<double> offsets({in.bones.size(), size_t(4), size_t(4)});
    double* m = offsets.mutable_data();
    for (size_t b = 0; b < in.bones.size(); b++)
    {
        names.append(text(in.bones[b]->mName));
        for (unsigned i = 0; i < 4; i++)
            for (unsigned j = 0; j < 4; j++)
                m[16 * b + 4 * i + j] = in.bones[b]->mOffsetMatrix[i][j];
    }
    const size_t width = in.maxCount;
    py::array_t<uint32_t> bones({rows.size(), width});
    py::array_t<float> weights({rows.size(), width});
    uint32_t* bone = bones.mutable_data();
    float* weight = weights.mutable_data();
    std::fill_n(bone, rows.size() * width, 0u);
    std::fill_n(weight, rows.size() * width, 0.0f);
    for (size_t r = 0; r < rows.size(); r++)
    {
        const uint32_t begin = in.first[rows[r]], pairs = in.first[rows[r] + 1] - begin;
        std::copy_n(in.bone.data() + begin, pairs, bone + r * width);
        std::copy_n(in.weight.data() + begin, pairs, weight + r * width);
    }
    py::dict d;
    d["bones"] = names;
    d["offsets"] = offsets;
    d["joint_indices"] = bones;
    d["weights"] = weights;
    return d;
}

py::dict meshDict(const aiMesh* mesh)
{
    py::dict d;
    d["name"] = text(mesh->mName);
    d["material"] = mesh->mMaterialIndex;
    d["primitive_types"] = mesh->mPrimitiveTypes;
    d["face_count"] = mesh->mNumFaces;
    d["morph_targets"] = mesh->mNumAnimMeshes;

    bool triangles = mesh->mNumFaces > 0 && mesh->mFaces && mesh->mVertices;
    for (unsigned i = 0; triangles && i < mesh->mNumFaces; i++)
    {
        const aiFace& face = mesh->mFaces[i];
        triangles = face.mNumIndices == 3 && face.mIndices && face.mIndices[0] < mesh->mNumVertices &&
                    face.mIndices[1] < mesh->mNumVertices && face.mIndices[2] < mesh->mNumVertices;
    }
    if (!triangles) // points, lines, polygons left over or broken indices: Python skips the mesh
    {
        for (const char* key : {"faces", "positions", "normals", "texcoords", "skin"})
            d[key] = py::none();
        return d;
    }
    std::vector<aiVector3D> generated;
    const aiVector3D* normals = mesh->mNormals;
    if (!normals)
    {
        generated = smoothNormals(mesh);
        normals = generated.data();
    }
    BoneInfluences influences = boneInfluences(mesh);
    JoinedVertices joined = joinIdenticalVertices(mesh, normals, influences);
    d["skin"] = skinDict(influences, joined.unique);
    d["positions"] = gatherRows(mesh->mVertices, joined.unique, 3);
    d["normals"] = gatherRows(normals, joined.unique, 3);
    d["texcoords"] = optionalRows(mesh->mTextureCoords[0], joined.unique, 2);
    d["source_vertex_count"] = mesh->mNumVertices;
    py::array_t<uint32_t> faces({size_t(mesh->mNumFaces), size_t(3)});
    uint32_t* dst = faces.mutable_data();
    for (unsigned i = 0; i < mesh->mNumFaces; i++)
        for (unsigned j = 0; j < 3; j++)
            dst[3 * size_t(i) + j] = joined.remap[mesh->mFaces[i].mIndices[j]];
    d["faces"] = faces;
    return d;
}

// The values of a material property's raw bytes read as an array of T (a partial last value is dropped).
template<typename T>
py::list valuesOf(const char* data, size_t size)
{
    py::list values;
    for (size_t i = 0; i + sizeof(T) <= size; i += sizeof(T))
    {
        T v;
        std::memcpy(&v, data + i, sizeof v);
        values.append(v);
    }
    return values;
}

py::object propertyValue(const aiMaterialProperty* p)
{
    const char* data = p->mData;
    const size_t size = p->mDataLength;
    switch (p->mType)
    {
    case aiPTI_Float:
        return valuesOf<float>(data, size);
    case aiPTI_Double:
        return valuesOf<double>(data, size);
    case aiPTI_Integer:
        return valuesOf<int32_t>(data, size);
    case aiPTI_String:
    {
        // An aiString as stored in a material: 32-bit length, characters, terminating zero.
        uint32_t length = 0;
        if (size < sizeof length)
            return py::str("");
        std::memcpy(&length, data, sizeof length);
        length = uint32_t(std::min<size_t>(length, size - sizeof length));
        return text(data + sizeof length, length);
    }
    default:
        return py::bytes(data, size);
    }
}

py::list materialProperties(const aiMaterial* material)
{
    py::list properties;
    for (unsigned i = 0; i < material->mNumProperties; i++)
    {
        const aiMaterialProperty* p = material->mProperties[i];
        if (!p)
            continue;
        properties.append(py::make_tuple(text(p->mKey), p->mSemantic, p->mIndex, propertyValue(p)));
    }
    return properties;
}

py::dict textureDict(const aiTexture* texture)
{
    py::dict d;
    d["filename"] = text(texture->mFilename);
    d["hint"] = text(texture->achFormatHint, strnlen(texture->achFormatHint, sizeof texture->achFormatHint));
    d["width"] = texture->mWidth;
    d["height"] = texture->mHeight;
    if (texture->mHeight == 0) // an image file's bytes (PNG, JPEG, ...), mWidth of them
    {
        d["data"] = py::bytes(reinterpret_cast<const char*>(texture->pcData), texture->pcData ? texture->mWidth : 0);
    }
    else // texels, BGRA 8 bits each
    {
        py::array_t<uint8_t> texels({size_t(texture->mHeight), size_t(texture->mWidth), size_t(4)});
        if (texture->pcData)
            std::memcpy(texels.mutable_data(), texture->pcData, size_t(texture->mWidth) * texture->mHeight * 4);
        else
            std::memset(texels.mutable_data(), 0, size_t(texture->mWidth) * texture->mHeight * 4);
        d["data"] = texels;
    }
    return d;
}

py::dict cameraDict(const aiCamera* c)
{
    py::dict d;
    d["name"] = text(c->mName);
    d["position"] = vec3(c->mPosition);
    d["up"] = vec3(c->mUp);
    d["look_at"] = vec3(c->mLookAt);
    d["horizontal_fov"] = c->mHorizontalFOV;
    d["near"] = c->mClipPlaneNear;
    d["far"] = c->mClipPlaneFar;
    d["aspect"] = c->mAspect;
    d["orthographic_width"] = c->mOrthographicWidth;
    return d;
}

py::dict lightDict(const aiLight* l)
{
    py::dict d;
    d["name"] = text(l->mName);
    d["type"] = int(l->mType);
    d["position"] = vec3(l->mPosition);
    d["direction"] = vec3(l->mDirection);
    d["up"] = vec3(l->mUp);
    d["diffuse"] = color3(l->mColorDiffuse);
    d["specular"] = color3(l->mColorSpecular);
    d["inner_cone"] = l->mAngleInnerCone;
    d["outer_cone"] = l->mAngleOuterCone;
    return d;
}

template<typename Key>
std::pair<py::array_t<double>, py::array_t<double>> keyArrays(const Key* keys, unsigned count, size_t width)
{
    py::array_t<double> times(size_t{count});
    py::array_t<double> values({size_t(count), width});
    double* t = times.mutable_data();
    double* v = values.mutable_data();
    for (unsigned i = 0; i < count; i++)
    {
        t[i] = keys[i].mTime;
        if constexpr (std::is_same_v<Key, aiQuatKey>)
        {
            const aiQuaternion& q = keys[i].mValue; // stored w, x, y, z; returned x, y, z, w
            v[4 * size_t(i) + 0] = q.x, v[4 * size_t(i) + 1] = q.y, v[4 * size_t(i) + 2] = q.z, v[4 * size_t(i) + 3] = q.w;
        }
        else
        {
            for (size_t j = 0; j < 3; j++)
                v[3 * size_t(i) + j] = keys[i].mValue[unsigned(j)];
        }
    }
    return {times, values};
}

py::dict animationDict(const aiAnimation* a)
{
    py::dict d;
    d["name"] = text(a->mName);
    d["duration"] = a->mDuration;
    d["ticks_per_second"] = a->mTicksPerSecond;
    d["mesh_channels"] = a->mNumMeshChannels + a->mNumMorphMeshChannels;
    py::list channels;
    for (unsigned i = 0; i < a->mNumChannels; i++)
    {
        const aiNodeAnim* c = a->mChannels[i];
        if (!c)
            continue;
        py::dict channel;
        channel["node"] = text(c->mNodeName);
        auto [pt, pv] = keyArrays(c->mPositionKeys, c->mPositionKeys ? c->mNumPositionKeys : 0, 3);
        auto [rt, rv] = keyArrays(c->mRotationKeys, c->mRotationKeys ? c->mNumRotationKeys : 0, 4);
        auto [st, sv] = keyArrays(c->mScalingKeys, c->mScalingKeys ? c->mNumScalingKeys : 0, 3);
        channel["translation"] = py::make_tuple(pt, pv);
        channel["rotation"] = py::make_tuple(rt, rv);
        channel["scale"] = py::make_tuple(st, sv);
        channels.append(channel);
    }
    d["channels"] = channels;
    return d;
}

template<typename T, typename F>
py::list listOf(T* const* items, unsigned count, F convert)
{
    py::list out;
    for (unsigned i = 0; i < count; i++)
        out.append(items[i] ? py::object(convert(items[i])) : py::object(py::none()));
    return out;
}

py::dict sceneDict(const aiScene* s)
{
    py::dict d;
    d["nodes"] = nodeList(s);
    d["meshes"] = listOf(s->mMeshes, s->mNumMeshes, meshDict);
    d["materials"] = listOf(s->mMaterials, s->mNumMaterials, materialProperties);
    d["textures"] = listOf(s->mTextures, s->mNumTextures, textureDict);
    d["cameras"] = listOf(s->mCameras, s->mNumCameras, cameraDict);
    d["lights"] = listOf(s->mLights, s->mNumLights, lightDict);
    d["animations"] = listOf(s->mAnimations, s->mNumAnimations, animationDict);
    return d;
}

// --- the entry point ------------------------------------------------------------------------------

// Falcor 8's post-processing: the "max quality real-time" preset with UVs flipped (origin at the
// image's top-left) and unused components removed, less the steps Falcor turns off (its own
// tangents, no degenerate-to-line conversion, no graph optimization (it mishandles negative
// determinants), no material merging, no splitting of large meshes). Also without
// JoinIdenticalVertices and GenSmoothNormals, done faster by joinIdenticalVertices and smoothNormals
// above when the meshes are converted, and without LimitBoneWeights: every bone influence is kept
// (Falcor keeps Assimp's 4 largest, renormalized).
unsigned postProcessSteps(bool mergeMeshes)
{
    unsigned steps = aiProcessPreset_TargetRealtime_MaxQuality | aiProcess_FlipUVs | aiProcess_RemoveComponent;
    steps &= ~unsigned(aiProcess_CalcTangentSpace | aiProcess_FindDegenerates | aiProcess_OptimizeGraph |
                       aiProcess_RemoveRedundantMaterials | aiProcess_SplitLargeMeshes | aiProcess_JoinIdenticalVertices |
                       aiProcess_GenSmoothNormals | aiProcess_LimitBoneWeights);
    if (!mergeMeshes)
        steps &= ~unsigned(aiProcess_OptimizeMeshes);
    return steps;
}

// Assimp's parsers and post-processing recurse over node hierarchies (and some file structures), a
// frame or more per level: run them on a thread with a stack of their own, large enough for deep
// but legitimate hierarchies whatever thread (and stack size) the caller has. Cycles and absurd
// depths are refused before this by the Python side's checks of the file.
constexpr size_t kReaderStackBytes = size_t(256) << 20;

template<typename F>
auto onLargeStack(F&& work) -> decltype(work())
{
    using Result = decltype(work());
    struct Job
    {
        F* work;
        Result result{};
        std::exception_ptr error;
    } job{&work, {}, nullptr};
    auto run = [](void* arg) -> void*
    {
        auto* j = static_cast<Job*>(arg);
        try
        {
            j->result = (*j->work)();
        }
        catch (...)
        {
            j->error = std::current_exception();
        }
        return nullptr;
    };
    pthread_attr_t attr;
    pthread_t thread;
    bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kReaderStackBytes) == 0 &&
                   pthread_create(&thread, &attr, run, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started)
        return work(); // no thread to be had (address space limit): read on this one
    pthread_join(thread, nullptr);
    if (job.error)
        std::rethrow_exception(job.error);
    return job.result;
}

py::dict readScene(const std::string& path, const std::vector<std::string>& allowedRoots, bool mergeMeshes, unsigned dropSteps)
{
    std::vector<fs::path> roots;
    for (const std::string& root : allowedRoots)
        roots.push_back(fs::absolute(fs::path(root)).lexically_normal());

    Assimp::Importer importer;
    auto* io = new ScopedIOSystem(roots); // owned by the importer
    importer.SetIOHandler(io);
    // Vertex colours, texture coordinate sets beyond the first, tangents: Falcor uses none of them,
    // and dropping them lets the vertex join join more. The flag of set n is bit 25 + n: sets 1..6
    // have one (the macro shifts past 32 bits for set 7, undefined behaviour that Falcor's loop hits).
    int removed = aiComponent_COLORS | aiComponent_TANGENTS_AND_BITANGENTS;
    for (unsigned set = 1; set < AI_MAX_NUMBER_OF_TEXTURECOORDS && set + 25 < 32; set++)
        removed |= int(aiComponent_TEXCOORDSn(set));
    importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS, removed);

    const aiScene* scene = nullptr;
    {
        py::gil_scoped_release release;
        std::string problem = checkBinaryFbxFile(path);
        if (!problem.empty())
        {
            py::gil_scoped_acquire acquire;
            py::dict refused;
            refused["files"] = std::vector<std::string>{};
            refused["refused"] = std::vector<std::string>{};
            refused["error"] = problem;
            return refused;
        }
        unsigned steps = postProcessSteps(mergeMeshes) & ~dropSteps;
        scene = onLargeStack([&] { return importer.ReadFile(path, steps); });
    }
    py::dict result;
    result["files"] = paths(io->opened());
    result["refused"] = paths(io->refused());
    if (!scene)
    {
        result["error"] = std::string(importer.GetErrorString());
        return result;
    }
    result["error"] = py::none();
    result["scene"] = sceneDict(scene);
    return result;
}

} // namespace

PYBIND11_MODULE(_assimp_reader, m)
{
    m.doc() = "Reads scene files with Assimp into plain Python data (see falcor.scene.importers.assimp).";
    m.def("read_scene", &readScene, py::arg("path"), py::arg("allowed_roots"), py::arg("merge_meshes") = true,
          py::arg("drop_steps") = 0u,
          "Reads `path` with Falcor's post-processing (`drop_steps`: aiPostProcessSteps bits to leave out). "
          "Returns {'files', 'refused', 'error', 'scene'}.");
    m.def("post_process_steps", &postProcessSteps, py::arg("merge_meshes") = true);
    m.attr("version") = py::str(std::to_string(aiGetVersionMajor()) + "." + std::to_string(aiGetVersionMinor()) + "." +
                                std::to_string(aiGetVersionPatch()));
}
