# Extra registrations for the end layer: the concurrent stores and the input cache also run
# under ThreadSanitizer.
foreach(test compacting_store_test block_store_test input_cache_test)
  add_dependencies(pentago_tsan_tests ${test})
  add_test(NAME ${test}_tsan COMMAND ${test})
  set_tests_properties(${test}_tsan PROPERTIES LABELS tsan)
endforeach()
