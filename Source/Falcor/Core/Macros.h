#pragma once

// Symbols of libfalcor that plugins and the Python module use are exported explicitly; the
// library is built with hidden visibility by default.
#define FALCOR_API __attribute__((visibility("default")))
