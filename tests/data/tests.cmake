# data: the concurrent paths (threaded slice writer, shared reader with lazily loaded block
# indexes) also run under ThreadSanitizer (build-tsan/, ctest -L tsan).
add_dependencies(pentago_tsan_tests supertensor_test compress_test)
add_test(NAME supertensor_tsan COMMAND supertensor_test
  --gtest_filter=supertensor.random_round_trip:supertensor.partial_and_empty_files)
add_test(NAME fast_compress_tsan COMMAND compress_test --gtest_filter=fast_compress.*)
set_tests_properties(supertensor_tsan fast_compress_tsan PROPERTIES LABELS "data;tsan")
