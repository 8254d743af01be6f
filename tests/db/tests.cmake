# Command-line tests of the database tools (pentago-check, pentago-lookup), in
# tests/db/scripts/: exit codes (0 ok, 1 failure or mismatch, 2 usage), one-line errors on
# stderr, and results on the published slices 0-2.
set(tools_tmp ${CMAKE_BINARY_DIR}/test-runs)
set(db_scripts ${CMAKE_CURRENT_SOURCE_DIR}/db/scripts)
add_test(NAME check_cli_published COMMAND sh ${db_scripts}/check_cli_published.sh
  $<TARGET_FILE:pentago-check> ${PENTAGO_SHARED_DATA} ${tools_tmp})
add_test(NAME check_cli_failures COMMAND sh ${db_scripts}/check_cli_failures.sh
  $<TARGET_FILE:pentago-check> ${PENTAGO_SHARED_DATA} ${tools_tmp})
add_test(NAME lookup_cli COMMAND sh ${db_scripts}/lookup_cli.sh
  $<TARGET_FILE:pentago-lookup> ${PENTAGO_SHARED_DATA} ${tools_tmp}/lookup-cli-out
  $<BOOL:${PENTAGO_CUDA}>)
set_tests_properties(check_cli_published check_cli_failures lookup_cli PROPERTIES LABELS db)

# The midgame solver against slices saved by the backward engine (mid is not below db).
target_link_libraries(midgame_vs_engine_test PRIVATE pentago_mid)
