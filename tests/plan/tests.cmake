# Command-line test of pentago-predict (tests/plan/scripts/predict_cli.sh): exit codes and
# one-line errors, the plan of known roots.
add_test(NAME predict_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/plan/scripts/predict_cli.sh
  $<TARGET_FILE:pentago-predict>)
set_tests_properties(predict_cli PROPERTIES LABELS plan)
