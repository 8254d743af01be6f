# pentago-serve with real clients: the API test (GoogleTest, over HTTP on a free loopback port),
# the command line, and the browser test (headless Chromium driven over the DevTools protocol).
set(serve_exe $<TARGET_FILE:pentago-serve>)
add_dependencies(serve_api_test pentago-serve)
target_link_libraries(serve_api_test PRIVATE pentago_query PkgConfig::HTTPLIB)
target_compile_definitions(serve_api_test PRIVATE PENTAGO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

# Usage errors exit 2 and runtime errors 1, each with one line on stderr; --help exits 0.
set(serve_cli_script [[
expect() {
  want=$1; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq $want ] || { echo "$*: exit $rc, expected $want"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "$*: stderr not one line: $err"; exit 1; }
}
"$0" --help | grep -q '^usage: pentago-serve' || exit 1
expect 2 "$0"
expect 2 "$0" --db "$1" --bogus
expect 2 "$0" --db "$1" --port 70000
expect 2 "$0" --db "$1" --port
expect 2 "$0" --db "$1" --timeout 0
expect 2 "$0" --db "$1" --cache lots
expect 2 "$0" --db "$1" extra
"$0" --db "$1/no-such-dir" --port 0 >/dev/null 2>&1 && { echo "missing database accepted"; exit 1; }
expect 1 "$0" --db "$1" --bind 203.0.113.1 --port 0
exit 0
]])
add_test(NAME serve_cli COMMAND sh -c "${serve_cli_script}" ${serve_exe} ${PENTAGO_SHARED_DATA})

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

# The standing hostile probe (scripts/probe-serve) in its quick form: malformed requests, lookup
# edge cases, slow clients, chunked bodies, pipelining, log bytes and a mismatched sidecar.
find_package(Python3 COMPONENTS Interpreter)
add_test(NAME probe_serve_quick
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/probe-serve --quick
          --bin ${CMAKE_BINARY_DIR}/bin --data ${PENTAGO_SHARED_DATA}
          --work ${CMAKE_BINARY_DIR}/test-runs/probe-serve)
add_dependencies(serve_api_test pentago-lookup)
set_tests_properties(probe_serve_quick PROPERTIES LABELS serve TIMEOUT 120)
