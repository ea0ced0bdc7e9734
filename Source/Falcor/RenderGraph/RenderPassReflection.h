#pragma once
#include "Core/Error.h"
#include "Utils/Image/ResourceFormat.h"
#include "Utils/Math/Vector.h"
#include <deque>
#include <string>

namespace falcor
{
/// What a render pass declares about its resources: named input, output and internal texture
/// fields with their (possibly undetermined) size and format. Zero sizes and `Unknown` format
/// mean "let the graph decide" (default frame-buffer size/format or what the other end of an
/// edge asks for).
class FALCOR_API RenderPassReflection
{
public:
    class FALCOR_API Field
    {
    public:
        enum class Visibility : uint32_t
        {
            Undefined = 0x0,
            Input = 0x1,
            Output = 0x2,
            InputOutput = 0x3,
            Internal = 0x4, ///< Pass-private, persistent across frames.
        };
        enum class Flags : uint32_t
        {
            None = 0x0,
            Optional = 0x1, ///< The pass runs without it (inputs) / it is only allocated if used (outputs).
            /// The content must survive between frames (the pass may skip writing it, or reads
            /// back what it wrote last frame): the graph never lends its memory to other resources.
            Persistent = 0x2,
        };

        Field() = default;
        Field(std::string name, std::string desc, Visibility v) : mName(std::move(name)), mDesc(std::move(desc)), mVisibility(v) {}

        Field& format(ResourceFormat f) { mFormat = f; return *this; }
        Field& texture2D(uint32_t width = 0, uint32_t height = 0, uint32_t arraySize = 1, uint32_t mipLevels = 1)
        {
            mWidth = width, mHeight = height, mArraySize = arraySize, mMipLevels = mipLevels;
            return *this;
        }
        Field& texture2D(uint2 dims) { return texture2D(dims.x(), dims.y()); }
        Field& flags(Flags f) { mFlags = f; return *this; }
        /// Accepted for Falcor source compatibility; bind flags mean nothing on the CPU.
        template<typename T>
        Field& bindFlags(T) { return *this; }

        const std::string& getName() const { return mName; }
        const std::string& getDesc() const { return mDesc; }
        Visibility getVisibility() const { return mVisibility; }
        bool isInput() const { return (uint32_t(mVisibility) & uint32_t(Visibility::Input)) != 0; }
        bool isOutput() const { return (uint32_t(mVisibility) & uint32_t(Visibility::Output)) != 0; }
        bool isInternal() const { return mVisibility == Visibility::Internal; }
        bool isOptional() const { return (uint32_t(mFlags) & uint32_t(Flags::Optional)) != 0; }
        bool isPersistent() const { return (uint32_t(mFlags) & uint32_t(Flags::Persistent)) != 0; }
        ResourceFormat getFormat() const { return mFormat; }
        uint32_t getWidth() const { return mWidth; }
        uint32_t getHeight() const { return mHeight; }
        uint32_t getArraySize() const { return mArraySize; }
        uint32_t getMipCount() const { return mMipLevels; }

        /// Joins the requirements of two fields that share a resource; throws on conflicts.
        /// `where` names the edge for the error message.
        void merge(const Field& other, const std::string& where);

    private:
        std::string mName, mDesc;
        Visibility mVisibility = Visibility::Undefined;
        Flags mFlags = Flags::None;
        ResourceFormat mFormat = ResourceFormat::Unknown;
        uint32_t mWidth = 0, mHeight = 0, mArraySize = 1, mMipLevels = 1;
    };

    Field& addInput(const std::string& name, const std::string& desc) { return addField(name, desc, Field::Visibility::Input); }
    Field& addOutput(const std::string& name, const std::string& desc) { return addField(name, desc, Field::Visibility::Output); }
    Field& addInputOutput(const std::string& name, const std::string& desc) { return addField(name, desc, Field::Visibility::InputOutput); }
    Field& addInternal(const std::string& name, const std::string& desc) { return addField(name, desc, Field::Visibility::Internal); }
    /// Adds (or replaces) a complete field, e.g. to mirror a connected resource.
    Field& addField(const Field& field);

    const Field* getField(const std::string& name) const;
    const std::deque<Field>& getFields() const { return mFields; }
    size_t getFieldCount() const { return mFields.size(); }

private:
    Field& addField(const std::string& name, const std::string& desc, Field::Visibility v);
    /// A deque: adding a field never moves the others, so the `Field&` that `addInput` and
    /// friends return stays valid while more fields are added (pass code sets flags that way).
    std::deque<Field> mFields;
};
} // namespace falcor
