# Command-line behaviour shared by every app (apps/cli.h), in tests/apps/scripts/: a table of
# bad options and bad inputs, each of which must exit 2 with exactly one line on stderr (and,
# where given, a line matching a pattern); finished positions answered at once; pentago-check
# on a run that reaches slice 0, after files are deleted, and on a small corpus of corrupted
# files; the plan's note on meaningless slices; a thread count past the task limit.
set(apps_tmp ${CMAKE_BINARY_DIR}/test-runs/apps)
set(apps_scripts ${CMAKE_CURRENT_SOURCE_DIR}/apps/scripts)
set(apps_bin $<TARGET_FILE_DIR:pentago-search>)
add_test(NAME apps_bad_options COMMAND sh ${apps_scripts}/bad_options.sh ${apps_bin}
  ${apps_tmp}/bad-options ${PENTAGO_SHARED_DATA})
add_test(NAME apps_search_finished_position
  COMMAND sh ${apps_scripts}/search_finished_position.sh ${apps_bin})
add_test(NAME apps_check_run_to_slice_0 COMMAND sh ${apps_scripts}/check_run_to_slice_0.sh
  ${apps_bin} ${apps_tmp}/check-run ${PENTAGO_SHARED_DATA})
add_test(NAME apps_meaningless_plan_note COMMAND sh ${apps_scripts}/meaningless_plan_note.sh
  $<TARGET_FILE:pentago-endgame-local> ${apps_tmp}/meaningless-note)
add_test(NAME apps_thread_limit COMMAND sh ${apps_scripts}/thread_limit.sh ${apps_bin})
set_tests_properties(apps_bad_options apps_search_finished_position apps_check_run_to_slice_0
  apps_meaningless_plan_note apps_thread_limit PROPERTIES LABELS apps)
