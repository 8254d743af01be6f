# pentago-serve with real clients: the API test (GoogleTest, over HTTP on a free loopback port),
# the command line, and the browser test (headless Chromium driven over the DevTools protocol).
set(serve_exe $<TARGET_FILE:pentago-serve>)
add_dependencies(serve_api_test pentago-serve)
target_link_libraries(serve_api_test PRIVATE pentago_query PkgConfig::HTTPLIB)
target_compile_definitions(serve_api_test PRIVATE PENTAGO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# The command line (tests/serve/scripts/serve_cli.sh).
add_test(NAME serve_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/serve/scripts/serve_cli.sh ${serve_exe}
  ${PENTAGO_SHARED_DATA} $<BOOL:${PENTAGO_CUDA}>)

# nginx in front as a cache (tests/serve/scripts/nginx_cache.sh): repeated queries never reach
# pentago-serve.
add_test(NAME serve_nginx_cache
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/serve/scripts/nginx_cache.sh ${serve_exe}
          ${PENTAGO_SHARED_DATA} ${CMAKE_BINARY_DIR}/test-runs/serve-nginx-cache)
set_tests_properties(serve_nginx_cache PROPERTIES LABELS serve TIMEOUT 120)

# The browser test needs Node (Debian nodejs) to drive Chromium; it reports SKIPPED (exit 77)
# only when no Chromium is installed.
find_program(PENTAGO_NODE NAMES node nodejs)
if(PENTAGO_NODE)
  add_test(NAME serve_browser
    COMMAND ${PENTAGO_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/serve/browser_test.mjs
            ${serve_exe} ${PENTAGO_SHARED_DATA} ${CMAKE_BINARY_DIR}/test-runs/serve-browser)
else()
  add_test(NAME serve_browser COMMAND sh -c "echo 'node not found: install Debian nodejs'; exit 1")
endif()
set_tests_properties(serve_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)
set_tests_properties(serve_cli serve_browser PROPERTIES LABELS serve)

# The standing hostile probe (scripts/probe-serve) in its quick form: malformed requests,
# ambiguous framing, lookup edge cases, slow clients, chunked bodies, pipelining, log bytes,
# floods (idle sockets, never-reading clients, half-sent bodies, no file descriptors), a client
# that leaves its solves, the per-client limit, ETag revalidation and a mismatched sidecar.
find_package(Python3 COMPONENTS Interpreter)
add_test(NAME probe_serve_quick
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/probe-serve --quick
          --bin ${CMAKE_BINARY_DIR}/bin --data ${PENTAGO_SHARED_DATA}
          --work ${CMAKE_BINARY_DIR}/test-runs/probe-serve)
add_dependencies(serve_api_test pentago-lookup)
set_tests_properties(probe_serve_quick PROPERTIES LABELS serve TIMEOUT 120)
