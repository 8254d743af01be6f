# Install rules: the executables (src/apps adds them), the public headers, one static library per
# layer and the CMake package, so that other projects can write
#   find_package(pentago REQUIRED)
#   target_link_libraries(app PRIVATE pentago::query)
# with each imported pentago::<layer> carrying the layers and libraries it links to.
include(CMakePackageConfigHelpers)
set(PENTAGO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pentago CACHE STRING
  "Where the CMake package of pentago is installed (relative to the prefix)")

list(TRANSFORM PENTAGO_LAYERS PREPEND pentago_ OUTPUT_VARIABLE pentago_layer_targets)
install(TARGETS ${pentago_layer_targets} EXPORT pentagoTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pentago DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pentagoTargets NAMESPACE pentago:: DESTINATION ${PENTAGO_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pentagoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pentagoConfig.cmake INSTALL_DESTINATION ${PENTAGO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pentagoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pentagoConfig.cmake
  ${PROJECT_BINARY_DIR}/pentagoConfigVersion.cmake ${PROJECT_SOURCE_DIR}/cmake/FindRandom123.cmake
  DESTINATION ${PENTAGO_INSTALL_CMAKEDIR})

# The job scripts, which find the installed executables beside them (jobs/README.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs DESTINATION ${CMAKE_INSTALL_DATADIR}/pentago
  USE_SOURCE_PERMISSIONS)
