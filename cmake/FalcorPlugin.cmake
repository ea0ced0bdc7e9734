# falcor_add_render_pass(<library> <sources...>)
#
# Builds a render pass plugin library. In this repository it links the in-tree libfalcor and is
# staged next to the other plugins; in an out-of-tree project (after find_package(Falcor)) it
# links the installed Falcor::falcor. Load the result with `falcor.loadPlugin(name)` or by putting
# its folder on FALCOR_PLUGIN_PATH.
function(falcor_add_render_pass name)
    add_library(${name} MODULE ${ARGN})
    set_target_properties(${name} PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
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
