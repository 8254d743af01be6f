# pentago_layer(NAME DEPS... [EXCLUDE FILES...]): a static library from every .cpp in the current
# source folder but FILES, linked publicly to DEPS (an interface library while the folder has no
# sources yet). Files
# named *_portable.cpp, *_sse.cpp, *_avx2.cpp, *_avx512.cpp and *_avx512vbmi.cpp are SIMD instantiations: pentago_simd_sources
# gives them their ISA flags and the PENTAGO_ISA namespace.
function(pentago_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 layer "" "" "EXCLUDE")
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  foreach(skip ${layer_EXCLUDE})
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${skip})
  endforeach()
  if(sources)
    add_library(${name} STATIC ${sources})
    target_link_libraries(${name} PUBLIC ${layer_UNPARSED_ARGUMENTS})
    pentago_simd_sources(${sources})
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE ${layer_UNPARSED_ARGUMENTS})
  endif()
endfunction()

# pentago_simd_sources(FILES...): per-ISA compile flags for the SIMD instantiations among FILES
# (the baseline flags of the top CMakeLists apply to every other file). The CPU is checked at
# run time before any of this code runs.
function(pentago_simd_sources)
  foreach(file ${ARGN})
    if(file MATCHES "_portable\\.cpp$")
      set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "-fno-tree-vectorize"
        COMPILE_DEFINITIONS "PENTAGO_ISA=portable")
    elseif(file MATCHES "_sse\\.cpp$")
      set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "-mssse3"
        COMPILE_DEFINITIONS "PENTAGO_ISA=sse")
    elseif(file MATCHES "_avx2\\.cpp$")
      set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "-mavx2;-mbmi2"
        COMPILE_DEFINITIONS "PENTAGO_ISA=avx2")
    elseif(file MATCHES "_avx512\\.cpp$")
      # GCC 12's own AVX-512 intrinsics trip -Wmaybe-uninitialized (GCC bug 105593).
      set_source_files_properties(${file} PROPERTIES
        COMPILE_OPTIONS "-mavx2;-mbmi2;-mavx512f;-mavx512bw;-mavx512vl;-Wno-maybe-uninitialized"
        COMPILE_DEFINITIONS "PENTAGO_ISA=avx512")
    elseif(file MATCHES "_avx512vbmi\\.cpp$")
      # Its vpermb intrinsic trips -Wuninitialized in the same way.
      set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS
        "-mavx2;-mbmi2;-mavx512f;-mavx512bw;-mavx512vl;-mavx512vbmi;-mavx512vbmi2;-mavx512vpopcntdq;-mgfni;-Wno-maybe-uninitialized;-Wno-uninitialized"
        COMPILE_DEFINITIONS "PENTAGO_ISA=avx512vbmi")
    endif()
  endforeach()
endfunction()
