// The web explorer's files (web/), embedded into the binary at build time by
// cmake/EmbedFiles.cmake so that pentago-serve is self-contained.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace pentago {

struct web_asset_t {
  std::string path;  // "/index.html", "/app.js", ...
  const unsigned char* data;
  size_t size;
};

// Every embedded file, by URL path.
const std::vector<web_asset_t>& web_assets();
// "text/html; charset=utf-8" and the like, from a path's extension.
const char* content_type_of(const std::string& path);

}  // namespace pentago
