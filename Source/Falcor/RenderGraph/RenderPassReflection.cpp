#include "RenderGraph/RenderPassReflection.h"

namespace falcor
{
RenderPassReflection::Field& RenderPassReflection::addField(const std::string& name, const std::string& desc, Field::Visibility v)
{
    return addField(Field(name, desc, v));
}

RenderPassReflection::Field& RenderPassReflection::addField(const Field& field)
{
    for (auto& f : mFields)
        if (f.getName() == field.getName())
            return f = field;
    return mFields.emplace_back(field);
}

const RenderPassReflection::Field* RenderPassReflection::getField(const std::string& name) const
{
    for (const auto& f : mFields)
        if (f.getName() == name)
            return &f;
    return nullptr;
}

void RenderPassReflection::Field::merge(const Field& other, const std::string& where)
{
    auto mergeValue = [&](auto& mine, auto theirs, auto undetermined, const char* what)
    {
        if (mine == undetermined)
            mine = theirs;
        else if (theirs != undetermined && theirs != mine)
            throwError("Can't merge ", where, ": the ", what, " is already specified with a mismatching value.");
    };
    mergeValue(mWidth, other.mWidth, 0u, "width");
    mergeValue(mHeight, other.mHeight, 0u, "height");
    mergeValue(mFormat, other.mFormat, ResourceFormat::Unknown, "format");
    mArraySize = std::max(mArraySize, other.mArraySize);
    mMipLevels = std::max(mMipLevels, other.mMipLevels);
}
} // namespace falcor
