# mid: the 18- and 19-stone consistency test solves several large roots (about 10 s of CPU
# each): labelled slow once ctest has discovered it (an include file read after discovery).
set(mid_slow_file ${CMAKE_CURRENT_BINARY_DIR}/midgame_slow.cmake)
file(WRITE ${mid_slow_file} "set_tests_properties(midgame.negamax_consistent_18_19 PROPERTIES LABELS \"mid;slow\")\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${mid_slow_file})
