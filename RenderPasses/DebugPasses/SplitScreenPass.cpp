#include "SplitScreenPass.h"

using namespace falcor;

SplitScreenPass::SplitScreenPass(const Properties& props)
{
    for (const auto& [key, value] : props)
        if (!parseComparisonProperty(key, value))
            warnUnknownProperty(key);
}
