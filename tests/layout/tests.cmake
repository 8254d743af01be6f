# Command-line tests of pentago-analyze (scripts in tests/layout/scripts/): headline totals in
# the tables and JSON, and one-line usage errors with exit code 2.
set(analyze $<TARGET_FILE:pentago-analyze>)
foreach(table counts sizes ratio branch)
  set(name analyze_${table})
  if(table STREQUAL counts OR table STREQUAL sizes)
    set(name analyze_${table}_total)
  endif()
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/layout/scripts/analyze_tables.sh ${table} ${analyze})
  set_tests_properties(${name} PROPERTIES LABELS layout)
endforeach()
add_test(NAME analyze_usage_errors
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/layout/scripts/analyze_usage_errors.sh ${analyze})
set_tests_properties(analyze_usage_errors PROPERTIES LABELS layout)
