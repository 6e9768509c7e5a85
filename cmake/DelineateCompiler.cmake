# Compiler launcher, warnings and the helper every layer uses to declare its target.

find_program(DELINEATE_CCACHE ccache)
if(DELINEATE_CCACHE)
  # Sloppiness is what lets ccache hit on translation units built with precompiled headers.
  set(_ccache_launcher "${CMAKE_COMMAND}" -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      "${DELINEATE_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_ccache_launcher})
  message(STATUS "Delineate: compiling through ccache (${DELINEATE_CCACHE})")
endif()

add_compile_definitions(QT_NO_KEYWORDS)

function(delineate_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wconversion -Wno-sign-conversion)
endfunction()

# delineate_layer(<target> <folder> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Every layer is a static library whose headers are included as "<folder>/<file>.h" from the source root.
function(delineate_layer target)
  cmake_parse_arguments(L "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${target} STATIC ${L_SOURCES})
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
  if(L_PUBLIC_DEPS)
    target_link_libraries(${target} PUBLIC ${L_PUBLIC_DEPS})
  endif()
  if(L_PRIVATE_DEPS)
    target_link_libraries(${target} PRIVATE ${L_PRIVATE_DEPS})
  endif()
  delineate_warnings(${target})
endfunction()
