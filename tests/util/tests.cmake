# util: the LRU cache's concurrent paths (one computation shared by waiters, failures reaching
# every waiter) also run under ThreadSanitizer (build-tsan/, ctest -L tsan).
add_dependencies(pentago_tsan_tests lru_cache_test)
add_test(NAME lru_cache_tsan COMMAND lru_cache_test)
set_tests_properties(lru_cache_tsan PROPERTIES LABELS "util;tsan")
# The thread pool and parallel_for also run under ThreadSanitizer.
add_dependencies(pentago_tsan_tests worker_pool_test)
add_test(NAME worker_pool_tsan COMMAND worker_pool_test)
set_tests_properties(worker_pool_tsan PROPERTIES LABELS "util;tsan")
# The element lock's contended paths (spin, then sleep on the word) also run under TSAN.
add_dependencies(pentago_tsan_tests element_lock_test)
add_test(NAME element_lock_tsan COMMAND element_lock_test)
set_tests_properties(element_lock_tsan PROPERTIES LABELS "util;tsan")
