# falcor_add_isa_variants(<target> <sources...>)
#
# Lane kernels (`*.lanes.cpp`, see Source/Falcor/Utils/Simd/IsaKernels.h) are compiled once per
# instruction set: the target's own compile of each source is the baseline (SSE2 on x86-64, NEON on
# arm64: 4 lanes), and on x86-64 this adds an AVX2 (8 lanes) and an AVX-512 (16 lanes) compile of
# the same file, each in its own namespace. The dispatcher picks one at run time (Core/Isa.h), so
# one binary runs on any x86-64 CPU.
#
# The wide objects are appended after the target's other sources: inline functions that several
# objects emit are merged by the linker, which keeps the first copy it meets, so every out-of-line
# copy that baseline code can call comes from a baseline object. No FMA flag is given and
# contraction is off, so every width computes the baseline's bits.
function(falcor_add_isa_variants target)
    if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
        return()
    endif()
    set(isas "avx2" "avx512")
    set(avx2_flags -mavx2 -ffp-contract=off -Wno-psabi)
    set(avx512_flags -mavx512f -mavx512bw -mavx512dq -mavx512vl -mno-fma -ffp-contract=off -Wno-psabi)
    foreach(source ${ARGN})
        get_filename_component(abs "${source}" ABSOLUTE)
        get_filename_component(stem "${source}" NAME_WE)
        foreach(isa ${isas})
            set(wrapper "${CMAKE_CURRENT_BINARY_DIR}/isa/${stem}.${isa}.cpp")
            file(WRITE "${wrapper}.in" "#define FALCOR_ISA_${isa} 1\n#include \"${abs}\"\n")
            configure_file("${wrapper}.in" "${wrapper}" COPYONLY)
            set_source_files_properties("${wrapper}" PROPERTIES
                COMPILE_OPTIONS "${${isa}_flags}"
                OBJECT_DEPENDS "${abs}")
            target_sources(${target} PRIVATE "${wrapper}")
        endforeach()
    endforeach()
    target_compile_definitions(${target} PRIVATE FALCOR_HAS_WIDE_ISAS=1)
endfunction()
