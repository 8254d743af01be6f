# search: the concurrent tests also run under ThreadSanitizer (build-tsan/, ctest -L tsan): the
# lockless table stress test, and the parallel search tests except the slow serial comparison.
add_dependencies(pentago_tsan_tests lockless_stress_test parallel_search_test)
add_test(NAME lockless_stress_tsan COMMAND lockless_stress_test)
add_test(NAME parallel_search_tsan COMMAND parallel_search_test
  --gtest_filter=parallel_search.aggressive_splitting_and_cancellation:parallel_search.pseudo_random_leaves:parallel_search.leaf_errors_propagate)
set_tests_properties(lockless_stress_tsan parallel_search_tsan PROPERTIES LABELS "search;tsan")
