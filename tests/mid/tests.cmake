# pentago-midgame-gpu's comparison with the CPU solver (values and distances, batched): on the
# CPU reference device in every build, and on the GPU in a CUDA build (where one is present).
add_test(NAME midgame_gpu_cli_check COMMAND pentago-midgame-gpu --reference --threads 2 --check 6
  --stones 24-30 --distance)
set_tests_properties(midgame_gpu_cli_check PROPERTIES LABELS mid)
if(PENTAGO_CUDA)
  add_test(NAME midgame_gpu_check COMMAND pentago-midgame-gpu --check 200 --distance)
  set_tests_properties(midgame_gpu_check PROPERTIES LABELS "mid;gpu")
endif()
