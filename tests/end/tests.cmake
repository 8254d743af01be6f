# Extra registrations for the end layer: the compacting store also runs under ThreadSanitizer.
if(TARGET compacting_store_test)
  add_dependencies(pentago_tsan_tests compacting_store_test)
  add_test(NAME compacting_store_tsan COMMAND compacting_store_test)
  set_tests_properties(compacting_store_tsan PROPERTIES LABELS tsan)
endif()
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/tools.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/tools.cmake)
endif()
