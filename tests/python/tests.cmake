# Tests of the Python module pentago (pytest with Debian's python3, PYTHONPATH=build/python) and
# of the installed package: install into a temporary prefix, build and run a consumer against
# find_package(pentago) out of tree, and import the installed module.
if(PENTAGO_PYTHON)
  set(pentago_python_env
    PYTHONPATH=${PENTAGO_PYTHON_DIR}
    PYTHONDONTWRITEBYTECODE=1
    PENTAGO_BIN=${CMAKE_BINARY_DIR}/bin
    PENTAGO_BINARY_DIR=${CMAKE_BINARY_DIR}
    PENTAGO_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    PENTAGO_SHARED_DATA=${PENTAGO_SHARED_DATA}
    PENTAGO_CMAKE=${CMAKE_COMMAND}
    PENTAGO_CXX=${CMAKE_CXX_COMPILER})
  foreach(name board query files sample examples install)
    add_test(NAME python_${name}
      COMMAND ${PENTAGO_PYTHON_EXECUTABLE} -m pytest -q -p no:cacheprovider
        ${CMAKE_CURRENT_SOURCE_DIR}/python/test_${name}.py)
    set_tests_properties(python_${name} PROPERTIES LABELS python ENVIRONMENT "${pentago_python_env}"
      TIMEOUT 600)
  endforeach()
  set_tests_properties(python_install PROPERTIES LABELS "python;install")
endif()
