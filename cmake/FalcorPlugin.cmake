# falcor_add_render_pass(<library> <sources...>)
#
# Builds a render pass plugin library. In this repository it links the in-tree libfalcor and is
# staged next to the other plugins; in an out-of-tree project (after find_package(Falcor)) it
# links the installed Falcor::falcor. Load the result with `falcor.loadPlugin(name)` or by putting
# its folder on FALCOR_PLUGIN_PATH.
# falcor_export_only(<target> <version script>)
#
# Exports from a shared library only the symbols the script lists. Everything else, including
# the C++ standard library's template code instantiated in it, stays local (and `--exclude-libs`
# keeps symbols of statically linked archives, such as a static libstdc++, local too).
function(falcor_export_only target map)
    target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--exclude-libs,ALL")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()

set(FALCOR_PLUGIN_EXPORT_MAP ${CMAKE_CURRENT_LIST_DIR}/exports/plugin.map)

function(falcor_add_render_pass name)
    add_library(${name} MODULE ${ARGN})
    set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
    falcor_export_only(${name} ${FALCOR_PLUGIN_EXPORT_MAP})
    if(TARGET falcor)
        target_link_libraries(${name} PRIVATE falcor)
        set_target_properties(${name} PROPERTIES
            LIBRARY_OUTPUT_DIRECTORY ${FALCOR_PLUGIN_STAGE_DIR}
            INSTALL_RPATH "$ORIGIN/..")
        install(TARGETS ${name} LIBRARY DESTINATION plugins)
    else()
        target_link_libraries(${name} PRIVATE Falcor::falcor)
    endif()
endfunction()
