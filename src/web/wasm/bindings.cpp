// The explorer's WebAssembly module (embind): parse a position, answer it from slice data the
// page fetched or from the midgame solver, and take the fetched bytes. Run in a Web Worker:
// a midgame solve blocks the thread it runs on.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "pentago/util/error.h"
#include "pentago/web/explore.h"

namespace {

using emscripten::val;
using namespace pentago;

std::vector<uint8_t> bytes_of(const val& array) {
  std::vector<uint8_t> bytes(array["length"].as<size_t>());
  val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", array);
  return bytes;
}

val failure(const std::exception& e) {
  val r = val::object();
  r.set("error", std::string(e.what()));
  r.set("usage", dynamic_cast<const usage_error_t*>(&e) != nullptr);
  return r;
}

// {code} for a position the page accepts, or {error}.
val parse(const std::string& text) {
  try {
    val r = val::object();
    r.set("code", position_code(parse_position(text)));
    return r;
  } catch (const std::exception& e) {
    return failure(e);
  }
}

class explorer_t {
 public:
  explorer_t(int midgame_min_stones, int threads)
      : web_(midgame_min_stones, uint64_t(64) << 20, threads) {}

  // {json} (the answer), {needs: [{kind, slice, record, offset, size}]}, or {error}.
  // `progress` is called before every layer of a midgame solve.
  val answer(const std::string& code, val progress) {
    try {
      const auto r = web_.answer(parse_position(code), [&progress] {
        if (!progress.isUndefined()) progress();
        return false;
      });
      val out = val::object();
      if (r.needs.empty()) {
        out.set("json", r.json);
        return out;
      }
      val needs = val::array();
      for (const auto& n : r.needs) {
        val need = val::object();
        need.set("kind", std::string(n.kind == web_request_t::sidecar_header   ? "header"
                                     : n.kind == web_request_t::sidecar_record ? "record"
                                                                               : "block"));
        need.set("slice", n.slice);
        need.set("record", double(n.record));
        need.set("offset", double(n.offset));
        need.set("size", n.size);
        needs.call<void>("push", need);
      }
      out.set("needs", needs);
      return out;
    } catch (const std::exception& e) {
      return failure(e);
    }
  }

  val set_slice_absent(int slice) {
    web_.set_slice_absent(slice);
    return val::object();
  }
  val set_sidecar_header(int slice, val header, double total_size) {
    return guarded([&] { web_.set_sidecar_header(slice, bytes_of(header), uint64_t(total_size)); });
  }
  val set_sidecar_records(int slice, double record, val bytes) {
    return guarded([&] { web_.set_sidecar_records(slice, uint64_t(record), bytes_of(bytes)); });
  }
  val set_block(int slice, double record, val compressed) {
    return guarded([&] { web_.set_block(slice, uint64_t(record), bytes_of(compressed)); });
  }

 private:
  template <class F>
  val guarded(F&& f) {
    try {
      f();
      return val::object();
    } catch (const std::exception& e) {
      return failure(e);
    }
  }
  web_explorer_t web_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(pentago) {
  emscripten::function("parse", &parse);
  emscripten::class_<explorer_t>("Explorer")
      .constructor<int, int>()
      .function("answer", &explorer_t::answer)
      .function("setSliceAbsent", &explorer_t::set_slice_absent)
      .function("setSidecarHeader", &explorer_t::set_sidecar_header)
      .function("setSidecarRecords", &explorer_t::set_sidecar_records)
      .function("setBlock", &explorer_t::set_block);
}
