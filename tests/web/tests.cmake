# The explorer without a server: the WebAssembly build (scripts/build-wasm, a fixture the
# other two need), the module alone under node, and the page in headless Chromium against nginx
# serving only static files. Both node scripts compare with pentago-lookup.
add_test(NAME web_wasm_build
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/build-wasm ${CMAKE_BINARY_DIR}/wasm)
set_tests_properties(web_wasm_build PROPERTIES FIXTURES_SETUP wasm LABELS web TIMEOUT 900)
find_program(PENTAGO_NODE NAMES node nodejs)
if(PENTAGO_NODE)
  # --no-experimental-fetch: emscripten 3.1.6's loader reads the .wasm with fetch when node has
  # one (node 20), which cannot read a file path.
  add_test(NAME web_wasm_node
    COMMAND ${PENTAGO_NODE} --no-experimental-fetch ${CMAKE_CURRENT_SOURCE_DIR}/web/wasm_test.mjs
            ${CMAKE_BINARY_DIR}/wasm $<TARGET_FILE:pentago-lookup> ${PENTAGO_SHARED_DATA})
  add_test(NAME web_static_browser
    COMMAND ${PENTAGO_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/web/static_browser_test.mjs
            $<TARGET_FILE:pentago-lookup> ${CMAKE_BINARY_DIR}/wasm ${PENTAGO_SHARED_DATA}
            ${CMAKE_BINARY_DIR}/test-runs/web-static-browser)
else()
  add_test(NAME web_wasm_node COMMAND sh -c "echo 'node not found: install Debian nodejs'; exit 1")
  add_test(NAME web_static_browser COMMAND sh -c "echo 'node not found: install Debian nodejs'; exit 1")
endif()
set_tests_properties(web_wasm_node web_static_browser PROPERTIES FIXTURES_REQUIRED wasm
  LABELS web SKIP_RETURN_CODE 77)
set_tests_properties(web_wasm_node PROPERTIES TIMEOUT 120)
set_tests_properties(web_static_browser PROPERTIES TIMEOUT 480)
