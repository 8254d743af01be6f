// The communication flow of one slice on one rank (see flow.h).
#include "pentago/mpi/flow.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <list>
#include <mutex>
#include <thread>

#include "pentago/data/compress.h"
#include "pentago/end/line_compute.h"
#include "pentago/end/line_order.h"
#include "pentago/end/run_plan.h"
#include "pentago/util/error.h"

namespace pentago {
namespace {

constexpr int posted_receives = 8;      // wildcard receives kept posted per kind
constexpr int first_response_tag = 64;  // response tags are recycled from a pool
constexpr int header_nodes = 1;         // output messages start with one node-sized header
// An output block left in a shared memory slot (node_staging.h) is announced by a note of its
// header's four words and the slot.
constexpr int staged_note_words = 5;
constexpr int staged_note_bytes = staged_note_words * int(sizeof(int32_t));
// Notes go on the output communicator with this plus the slice as their tag (output blocks use
// the slice alone, 0 to 35).
constexpr int first_staged_note_tag = 64;

int32_t pack_block(const block_t& b) { return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24; }
block_t unpack_block(int32_t p) {
  return {uint8_t(p), uint8_t(p >> 8), uint8_t(p >> 16), uint8_t(p >> 24)};
}

// A line being gathered or computed on this rank. Its buffers come from the line buffer pool.
struct line_state_t {
  line_t line;
  line_dependency_t dep;
  int section_index = 0;
  std::vector<std::shared_ptr<superinfo_t>> inputs;
  std::vector<const superinfo_t*> input_pointers;
  std::vector<std::shared_ptr<superinfo_t>> received;    // compressed responses
  std::vector<input_pin_t> pins;                         // input cache copies read in place
  std::vector<std::array<int32_t, 4>> request_payloads;  // kept alive until sent
  // Input b written by its owner into this rank's shared memory slot staged[b] (-1: none),
  // staged_bytes[b] bytes long; the slot is freed once the block is decoded or copied out.
  node_staging_t* staging = nullptr;
  std::vector<int> staged;
  std::vector<int32_t> staged_bytes;
  std::atomic<int> missing_inputs{0};
  std::atomic<int> unfinished_outputs{0};
  uint64_t memory = 0;
  uint32_t place = 0;  // in this rank's line order

  // Input b is read where it lies (an input cache copy, or the receive buffer of an
  // uncompressed block): the buffer kept for its decoded form goes back to the pool.
  void read_in_place(int b, const superinfo_t* nodes) {
    input_pointers[size_t(b)] = nodes;
    inputs[size_t(b)].reset();
  }
  // Input b's receive buffer or slot is no longer needed (decoded, or the line is done).
  void drop_received(int b) {
    received[size_t(b)].reset();
    if (staged.empty() || staged[size_t(b)] < 0) return;
    staging->release(staging->rank(), staged[size_t(b)]);
    staged[size_t(b)] = -1;
  }
  ~line_state_t() {
    for (size_t b = 0; b < staged.size(); b++) drop_received(int(b));
  }
};

class flow_t {
 public:
  flow_t(int slice, const partition_t& partition, block_store_t& store,
         const partition_t* prev_partition, block_store_t* prev, const endgame_comms_t& comms,
         node_staging_t& staging, worker_pool_t& pool, buffer_pool_t& buffers,
         const flow_limits_t& limits, trace_recorder_t* trace)
      : slice_(slice),
        rank_(mpi_rank()),
        partition_(partition),
        store_(store),
        prev_partition_(prev_partition),
        prev_(prev),
        comms_(comms),
        staging_(staging),
        pool_(pool),
        buffers_(buffers),
        limits_(limits),
        trace_(trace),
        lines_(partition.rank_lines(rank_)) {
    // Every buffer of the previous slice is back (its flow has ended).
    buffers_.set_buffer_nodes(
        line_buffer_nodes(partition.sections(), prev_partition ? prev_partition->sections()
                                                               : std::span<const section_t>()));
    buffer_bytes_ = buffers_.buffer_bytes();
    staging_.set_slot_bytes(buffer_bytes_);
    sort_lines_for_completion(lines_, partition.lines());
    for (const auto& l : lines_) total_outputs_ += uint64_t(l.length());
    if (prev_ && (!inputs_recomputed() || prev_->computed_again_by_readers()))
      plan_own_input_reads();
    int tag_ub = 32767, flag = 0;
    int* value = nullptr;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    if (flag && value) tag_ub = *value;
    const int tags = std::min(tag_ub - first_response_tag, 1 << 16);
    PENTAGO_CHECK(tags >= 64, "MPI_TAG_UB too small");
    for (int t = 0; t < tags; t++) free_tags_.push_back(first_response_tag + t);
  }

  flow_stats_t run() {
    if (prev_ && !inputs_recomputed())
      for (int i = 0; i < posted_receives; i++) post_request_receive();
    top_up_output_receives();
    if (staging_.any_shared())
      for (int i = 0; i < posted_receives; i++) post_staged_output_receive();
    bool barrier_started = false, barrier_done = false;
    MPI_Request barrier = MPI_REQUEST_NULL;
    int idle_rounds = 0;
    while (!barrier_done) {
      bool progress = drain_immediates();
      progress |= test_requests();
      progress |= schedule_lines();
      if (pool_.failed()) throw pentago_error_t(pool_.failure());
      if (!barrier_started && outputs_done_ == total_outputs_ && active_.empty() &&
          store_.missing_contributions() == 0) {
        PENTAGO_MPI(MPI_Ibarrier(comms_.barrier, &barrier));
        barrier_started = true;
        progress = true;
      }
      if (barrier_started) {
        int done = 0;
        PENTAGO_MPI(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
        barrier_done = done;
      }
      if (progress) {
        idle_rounds = 0;
      } else if (++idle_rounds > 16) {
        // Nothing to do: sleep briefly so the communication thread does not steal a core
        // from the workers on oversubscribed nodes. 250 us rather than 50: on 2 ranks x 3
        // threads on 2 cores it halves the context switches and saves about a tenth of the
        // CPU, without a longer run (scripts/bench-efficiency).
        std::this_thread::sleep_for(std::chrono::microseconds(idle_rounds > 256 ? 500 : 250));
      }
    }
    // Every rank has sent and received everything: cancel the wildcard receives, those the
    // last handlers posted too (left posted, MPI would hold them past the end of the run).
    adopt_new_requests();
    for (size_t i = 0; i < requests_.size(); i++)
      if (handlers_[i].cancel) MPI_Cancel(&requests_[i]);
    for (size_t i = 0; i < requests_.size(); i++) MPI_Wait(&requests_[i], MPI_STATUS_IGNORE);
    pool_.wait_idle();
    if (pool_.failed()) throw pentago_error_t(pool_.failure());
    stats_.shared_memory_blocks += staged_outputs_.load();
    return stats_;
  }

 private:
  struct handler_t {
    std::function<void(const MPI_Status&)> done;
    bool cancel = false;  // a wildcard receive, cancelled at the end
  };

  // ---- Request list ---------------------------------------------------------------------
  void add_request(MPI_Request r, std::function<void(const MPI_Status&)> done,
                   bool cancel = false) {
    new_requests_.push_back(r);
    new_handlers_.push_back({std::move(done), cancel});
  }

  // Requests posted since the last test (handlers post while requests_ is walked) join the list.
  void adopt_new_requests() {
    requests_.insert(requests_.end(), new_requests_.begin(), new_requests_.end());
    handlers_.insert(handlers_.end(), new_handlers_.begin(), new_handlers_.end());
    new_requests_.clear();
    new_handlers_.clear();
  }

  bool test_requests() {
    adopt_new_requests();
    if (requests_.empty()) return false;
    int count = 0;
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    PENTAGO_MPI(MPI_Testsome(int(requests_.size()), requests_.data(), &count, indices_.data(),
                             statuses_.data()));
    if (count == MPI_UNDEFINED || count == 0) return false;
    for (int i = 0; i < count; i++) {
      auto h = std::move(handlers_[indices_[i]]);
      if (h.done) h.done(statuses_[i]);
    }
    // Drop completed requests (MPI_Testsome set them to MPI_REQUEST_NULL).
    size_t j = 0;
    for (size_t i = 0; i < requests_.size(); i++)
      if (requests_[i] != MPI_REQUEST_NULL) {
        requests_[j] = requests_[i];
        handlers_[j] = std::move(handlers_[i]);
        j++;
      }
    requests_.resize(j);
    handlers_.resize(j);
    return true;
  }

  // ---- Immediates: work that worker threads hand to the communication thread -------------
  void immediate(std::function<void()> f) {
    std::lock_guard<std::mutex> lock(immediates_mutex_);
    immediates_.push_back(std::move(f));
  }

  bool drain_immediates() {
    std::vector<std::function<void()>> todo;
    {
      std::lock_guard<std::mutex> lock(immediates_mutex_);
      todo.swap(immediates_);
    }
    for (auto& f : todo) f();
    return !todo.empty();
  }

  // ---- Serving requests for our blocks of the previous slice ------------------------------
  void post_request_receive() {
    auto payload = std::make_shared<std::array<int32_t, 4>>();
    MPI_Request r;
    PENTAGO_MPI(MPI_Irecv(payload->data(), 4, MPI_INT, MPI_ANY_SOURCE, slice_, comms_.request, &r));
    add_request(
        r,
        [this, payload](const MPI_Status& status) {
          serve_request(*payload, status.MPI_SOURCE);
          post_request_receive();
        },
        true);
  }

  void serve_request(const std::array<int32_t, 4>& payload, int source) {
    trace_scope_t t(trace_, "response send");
    const int flat = prev_->flat_id(payload[0], unpack_block(payload[1]));
    if (flat < 0)
      throw pentago_error_t("rank " + std::to_string(source) +
                            " requested a block this rank does not own");
    if (payload[3] >= 0) {  // into the requester's shared memory slot, then its size alone
      uint8_t* slot = staging_.slot(source, payload[3]);
      auto size = std::make_shared<int32_t>(
          int32_t(prev_->read_compressed(flat, std::span<uint8_t>(slot, staging_.slot_bytes()))));
      if (!prev_->read_done(flat)) store_.forget_input(flat);
      node_staging_t::publish();
      MPI_Request r;
      PENTAGO_MPI(MPI_Isend(size.get(), 1, MPI_INT32_T, source, payload[2], comms_.response, &r));
      add_request(r, [size](const MPI_Status&) {});
      return;
    }
    // A copy, so that the block can be released (and its neighbours moved) during the send,
    // into a buffer of an earlier response where one is back (fresh pages cost a fault each).
    std::shared_ptr<std::vector<uint8_t>> bytes;
    if (spare_responses_.empty()) {
      bytes = std::make_shared<std::vector<uint8_t>>();
    } else {
      bytes = std::move(spare_responses_.back());
      spare_responses_.pop_back();
    }
    prev_->read_compressed(flat, *bytes);
    if (!prev_->read_done(flat)) store_.forget_input(flat);
    MPI_Request r;
    PENTAGO_MPI(MPI_Isend(bytes->data(), int(bytes->size()), MPI_BYTE, source, payload[2],
                          comms_.response, &r));
    add_request(r, [this, bytes](const MPI_Status&) {
      if (spare_responses_.size() < spare_response_limit) spare_responses_.push_back(bytes);
    });
  }

  // ---- Receiving output contributions for our blocks --------------------------------------
  // Other ranks' output blocks wait here, uncompressed, until they are merged into the store:
  // the plan gives them as much memory as this rank's own lines (flow_limits_t::line_memory
  // holds both halves), so receives are posted only while their buffers fit in that half.
  uint64_t incoming_budget() const { return std::max(limits_.line_memory / 2, buffer_bytes_); }
  void top_up_output_receives() {
    while (posted_outputs_ < posted_receives &&
           incoming_bytes_ + buffer_bytes_ <= incoming_budget())
      post_output_receive();
  }
  void post_output_receive() {
    auto buffer = buffers_.take_shared();
    incoming_bytes_ += buffer_bytes_;
    posted_outputs_++;
    note_line_bytes();
    MPI_Request r;
    PENTAGO_MPI(MPI_Irecv(buffer.get(), int(buffer_bytes_), MPI_BYTE, MPI_ANY_SOURCE, slice_,
                          comms_.output, &r));
    add_request(
        r,
        [this, buffer](const MPI_Status& status) {
          int bytes = 0;
          MPI_Get_count(&status, MPI_BYTE, &bytes);
          posted_outputs_--;
          pool_.push_front([this, buffer, bytes] {
            if (limits_.test_merge_delay_ms)
              std::this_thread::sleep_for(std::chrono::milliseconds(limits_.test_merge_delay_ms));
            accumulate_message(buffer.get(), bytes);
            immediate([this] {
              incoming_bytes_ -= buffer_bytes_;
              top_up_output_receives();
            });
          });
          top_up_output_receives();
        },
        true);
  }

  void accumulate_message(superinfo_t* buffer, int bytes) {
    int32_t header[4];
    std::memcpy(header, static_cast<const void*>(buffer), sizeof header);
    const int flat = store_.flat_id(header[0], unpack_block(header[1]));
    const int nodes = bytes / int(sizeof(superinfo_t)) - header_nodes;
    if (flat < 0 || nodes != store_.nodes(flat) || header[3] != nodes)
      throw pentago_error_t("received an output block this rank does not own or of the wrong size");
    accumulate(flat, header[2], std::span<superinfo_t>(buffer + header_nodes, nodes));
  }

  // Notes of other ranks' output blocks left in their shared memory slots, on a tag of their
  // own: the slots hold the blocks until merged, so the notes take no buffers here, and what
  // waits to be merged is bounded by the senders' slots.
  void post_staged_output_receive() {
    auto note = std::make_shared<std::array<int32_t, staged_note_words>>();
    MPI_Request r;
    PENTAGO_MPI(MPI_Irecv(note->data(), staged_note_words, MPI_INT32_T, MPI_ANY_SOURCE,
                          staged_note_tag(), comms_.output, &r));
    add_request(
        r,
        [this, note](const MPI_Status& status) {
          const int source = status.MPI_SOURCE;
          pool_.push_front([this, note, source] { accumulate_staged(*note, source); });
          post_staged_output_receive();
        },
        true);
  }
  int staged_note_tag() const { return first_staged_note_tag + slice_; }

  // Another rank's output block left in its shared memory slot: merged from there, then freed.
  void accumulate_staged(const std::array<int32_t, staged_note_words>& note, int source) {
    if (limits_.test_merge_delay_ms)
      std::this_thread::sleep_for(std::chrono::milliseconds(limits_.test_merge_delay_ms));
    node_staging_t::acquire();
    auto* slot = reinterpret_cast<superinfo_t*>(staging_.slot(source, note[4]));
    int32_t header[4];
    std::memcpy(header, static_cast<const void*>(slot), sizeof header);
    const int flat = store_.flat_id(note[0], unpack_block(note[1]));
    if (flat < 0 || note[3] != store_.nodes(flat) || !std::equal(header, header + 4, note.data()))
      throw pentago_error_t("received an output block this rank does not own or of the wrong size");
    accumulate(flat, note[2], std::span<superinfo_t>(slot + header_nodes, size_t(note[3])));
    staging_.release(source, note[4]);
  }

  void accumulate(int flat, int dimension, std::span<superinfo_t> values) {
    activity_timer_t timer(pool_, activity_t::accumulate);
    trace_scope_t t(trace_, "accumulate");
    store_.accumulate(flat, dimension, values);
  }

  // ---- Lines: allocate, gather inputs, compute, send outputs ------------------------------
  // Decompressed inputs with their receive buffers, and the output blocks until delivered.
  uint64_t line_memory(const line_dependency_t& dep) const {
    return buffer_bytes_ * uint64_t(line_buffers(dep, prev_ != nullptr));
  }

  void note_line_bytes() {
    stats_.line_bytes_high_water =
        std::max(stats_.line_bytes_high_water, line_memory_used_ + incoming_bytes_);
  }

  bool schedule_lines() {
    bool any = false;
    while (next_line_ < lines_.size() && int(active_.size()) < limits_.line_limit &&
           gathering_ < limits_.gather_limit) {
      const line_t& line = lines_[next_line_];
      auto state = std::make_unique<line_state_t>();
      state->line = line;
      state->dep = line_dependency_of(line);
      state->memory = line_memory(state->dep);
      state->place = uint32_t(next_line_);
      // This rank's lines get half of the line memory, other ranks' outputs the other half.
      const uint64_t own_budget = limits_.line_memory / 2;
      if (state->memory > own_budget)
        throw pentago_error_t("one block line needs " + std::to_string(state->memory) +
                              " bytes but only " + std::to_string(own_budget) +
                              " are left for lines: raise --memory");
      if (line_memory_used_ + state->memory > own_budget) break;
      line_memory_used_ += state->memory;
      note_line_bytes();
      next_line_++;
      state->section_index = partition_.lines().section_index(line.section);
      line_state_t* s = state.get();
      active_.push_back(std::move(state));
      gather(s);
      any = true;
    }
    return any;
  }

  void gather(line_state_t* s) {
    s->unfinished_outputs = s->line.length();
    if (!prev_) {  // slice 35: no inputs
      start_compute(s);
      return;
    }
    gathering_++;
    const int length = s->dep.input.length();
    const bool recompute = inputs_recomputed();
    const int child_index = prev_partition_->lines().section_index(s->dep.child);
    PENTAGO_CHECK(child_index >= 0, "child section missing from the previous slice");
    s->inputs.resize(length);
    s->input_pointers.resize(length);
    s->received.resize(length);
    s->pins.resize(length);
    s->request_payloads.resize(length);
    s->staging = &staging_;
    s->staged.assign(size_t(length), -1);
    s->staged_bytes.resize(size_t(length));
    s->missing_inputs = length;
    for (int b = 0; b < length; b++) {
      const block_t block = s->dep.input.block(b);
      const int nodes = block_nodes(s->dep.child, block);
      s->inputs[b] = buffers_.take_shared();
      s->input_pointers[b] = s->inputs[b].get();
      if (recompute) {
        // Every rank computes any block of a recomputed slice (35 or 34) itself, with no
        // messages; its own blocks of slice 34 through read_input, which keeps copies for its
        // next readers.
        const int flat = prev_->computed_again_by_readers() &&
                                 prev_partition_->find_block(s->dep.child, block).rank == rank_
                             ? prev_->flat_id(child_index, block)
                             : -1;
        pool_.push_back([this, s, b, block, nodes, flat] {
          {
            activity_timer_t timer(pool_, activity_t::compute);
            trace_scope_t t(trace_, "recompute input");
            const std::span<superinfo_t> out(s->inputs[b].get(), size_t(nodes));
            if (flat < 0) {
              compute_block_again(s->dep.child, block, out);
            } else {
              const superinfo_t* in = store_.read_input(*prev_, flat, out, s->place, s->pins[b]);
              if (in != out.data()) s->read_in_place(b, in);
            }
          }
          input_arrived(s);
        });
        continue;
      }
      const block_owner_t owner = prev_partition_->find_block(s->dep.child, block);
      if (owner.rank == rank_) {
        const int flat = prev_->flat_id(child_index, block);
        PENTAGO_CHECK(flat >= 0, "own input block missing");
        pool_.push_back([this, s, b, flat, nodes] {
          {
            activity_timer_t timer(pool_, activity_t::decompress);
            trace_scope_t t(trace_, "decompress");
            const superinfo_t* in =
                store_.read_input(*prev_, flat, std::span<superinfo_t>(s->inputs[b].get(), nodes),
                                  s->place, s->pins[b]);
            if (in != s->inputs[b].get()) s->read_in_place(b, in);
          }
          input_arrived(s);
        });
        continue;
      }
      PENTAGO_CHECK(!free_tags_.empty(), "out of response tags");
      const int tag = free_tags_.back();
      free_tags_.pop_back();
      // On this node the owner writes the block into a shared memory slot of this rank and
      // answers with its size; elsewhere the block is the answer.
      const int slot = staging_.shared_with(owner.rank) ? staging_.take() : -1;
      MPI_Request r;
      if (slot >= 0) {
        s->staged[b] = slot;
        PENTAGO_MPI(
            MPI_Irecv(&s->staged_bytes[b], 1, MPI_INT32_T, owner.rank, tag, comms_.response, &r));
        add_request(r, [this, s, b, tag, nodes, from = owner.rank](const MPI_Status&) {
          free_tags_.push_back(tag);
          node_staging_t::acquire();
          const auto bytes = size_t(s->staged_bytes[b]);
          if (s->staged_bytes[b] < 0 || bytes > staging_.slot_bytes())
            throw pentago_error_t("rank " + std::to_string(from) + " announced " +
                                  std::to_string(s->staged_bytes[b]) +
                                  " bytes in a shared memory slot of " +
                                  std::to_string(staging_.slot_bytes()));
          stats_.shared_memory_blocks++;
          input_received(s, b, {staging_.slot(rank_, s->staged[b]), bytes}, nodes, false);
        });
      } else {
        // A compressed block is at most one node larger than the block (line_buffer_nodes).
        s->received[b] = buffers_.take_shared();
        PENTAGO_MPI(MPI_Irecv(s->received[b].get(), int(buffer_bytes_), MPI_BYTE, owner.rank, tag,
                              comms_.response, &r));
        add_request(r, [this, s, b, tag, nodes](const MPI_Status& status) {
          free_tags_.push_back(tag);
          int bytes = 0;
          MPI_Get_count(&status, MPI_BYTE, &bytes);
          input_received(s, b,
                         {reinterpret_cast<const uint8_t*>(s->received[b].get()), size_t(bytes)},
                         nodes, true);
        });
      }
      s->request_payloads[b] = {child_index, pack_block(block), tag, slot};
      PENTAGO_MPI(MPI_Isend(s->request_payloads[b].data(), 4, MPI_INT, owner.rank, slice_,
                            comms_.request, &r));
      add_request(r, nullptr);
    }
  }

  // Communication thread: input b of a line has arrived in `received` (a receive buffer or a
  // shared memory slot). An uncompressed block in a receive buffer is read where it lies;
  // anything else is decoded, or copied, into the input's buffer, which frees a slot for the
  // next block at once rather than when the line is done.
  void input_received(line_state_t* s, int b, std::span<const uint8_t> received, int nodes,
                      bool in_place_allowed) {
    stats_.input_bytes += received.size();
    const superinfo_t* in_place =
        in_place_allowed ? raw_block_nodes(received, size_t(nodes)) : nullptr;
    if (in_place) {
      s->read_in_place(b, in_place);  // an uncompressed block: no copy
      input_arrived(s);
      return;
    }
    pool_.push_back([this, s, b, received, nodes] {
      decompress(received, std::span<superinfo_t>(s->inputs[b].get(), nodes));
      s->drop_received(b);
      input_arrived(s);
    });
  }

  // Slice 35 dropped its blocks (run_plan.h's recomputed): the slice below computes them
  // again instead of reading them.
  bool inputs_recomputed() const { return prev_ && prev_->drops_complete_blocks(); }

  // Which of this rank's lines read which of its own input blocks, by the lines' places: the
  // input cache keeps the copies read soonest.
  void plan_own_input_reads() {
    store_.plan_input_reads(lines_, prev_partition_->lines(), *prev_,
                            [this](const section_t& child, const block_t& block) {
                              return prev_partition_->find_block(child, block).rank == rank_;
                            });
  }

  void decompress(std::span<const uint8_t> bytes, std::span<superinfo_t> out) {
    activity_timer_t timer(pool_, activity_t::decompress);
    trace_scope_t t(trace_, "decompress");
    fast_uncompress(bytes, out);
  }

  // Worker thread: one more input is ready.
  void input_arrived(line_state_t* s) {
    if (--s->missing_inputs == 0) {
      immediate([this] { gathering_--; });
      start_compute(s);
    }
  }

  // Once the last job is queued the line may finish and be freed at any moment, so nothing
  // here may read *s after the loop has queued it.
  void start_compute(line_state_t* s) {
    const int length = s->line.length();
    for (int k = 0; k < length; k++) pool_.push_back([this, s, k] { compute_block(s, k); });
  }

  // Worker thread: compute output block k of a line and deliver it.
  void compute_block(line_state_t* s, int k) {
    const block_t block = s->line.block(k);
    const int nodes = block_nodes(s->line.section, block);
    const block_owner_t owner = partition_.find_block(s->line.section, block);
    // For a rank on this node, computed into a shared memory slot of this rank.
    const int slot = owner.rank != rank_ && staging_.shared_with(owner.rank) ? staging_.take() : -1;
    std::shared_ptr<superinfo_t> buffer;
    superinfo_t* out = nullptr;
    if (slot >= 0) {
      out = reinterpret_cast<superinfo_t*>(staging_.slot(rank_, slot));
    } else {
      buffer = buffers_.take_shared();
      out = buffer.get();
    }
    if (owner.rank == rank_) {
      // Computed straight into this rank's store, merged in the kernel's pass.
      const int flat = store_.flat_id(s->section_index, block);
      PENTAGO_CHECK(flat >= 0, "own output block missing");
      trace_scope_t t(trace_, "compute");
      compute_and_accumulate(store_, flat, s->dep, s->input_pointers, k,
                             std::span<superinfo_t>(out + header_nodes, nodes), pool_);
      output_finished(s);
      return;
    }
    {
      activity_timer_t timer(pool_, activity_t::compute);
      trace_scope_t t(trace_, "compute");
      compute_line_block(s->dep, s->input_pointers, k, out + header_nodes);
    }
    const int32_t header[4] = {s->section_index, pack_block(block), s->line.dimension, nodes};
    std::memcpy(static_cast<void*>(out), header, sizeof header);
    if (slot >= 0) {
      staged_outputs_.fetch_add(1, std::memory_order_relaxed);
      node_staging_t::publish();
      auto note = std::make_shared<std::array<int32_t, staged_note_words>>(
          std::array<int32_t, staged_note_words>{header[0], header[1], header[2], header[3], slot});
      send_output(s, owner.rank, staged_note_tag(), note->data(), staged_note_bytes, note);
    } else {
      send_output(s, owner.rank, slice_, buffer.get(),
                  int((header_nodes + nodes) * sizeof(superinfo_t)), buffer);
    }
  }

  // Any thread: sends an output message to its block's owner; `keep` holds its bytes until sent.
  void send_output(line_state_t* s, int owner, int tag, const void* bytes, int size,
                   std::shared_ptr<const void> keep) {
    if (limits_.mode == thread_mode_t::multiple) {
      trace_scope_t t(trace_, "output send");
      PENTAGO_MPI(MPI_Send(bytes, size, MPI_BYTE, owner, tag, comms_.output));
      output_finished(s);
      return;
    }
    immediate([this, s, bytes, size, owner, tag, keep] {
      MPI_Request r;
      PENTAGO_MPI(MPI_Isend(bytes, size, MPI_BYTE, owner, tag, comms_.output, &r));
      add_request(r, [this, s, keep](const MPI_Status&) { output_finished(s); });
    });
  }

  // Any thread: one output block of a line has been delivered.
  void output_finished(line_state_t* s) {
    const int left = --s->unfinished_outputs;
    if (left) {
      immediate([this] { outputs_done_++; });
      return;
    }
    immediate([this, s] {
      outputs_done_++;
      stats_.outputs_sent += uint64_t(s->line.length());
      line_memory_used_ -= s->memory;
      for (auto it = active_.begin(); it != active_.end(); ++it)
        if (it->get() == s) {
          active_.erase(it);
          break;
        }
    });
  }

  const int slice_, rank_;
  const partition_t& partition_;
  block_store_t& store_;
  const partition_t* prev_partition_;
  block_store_t* prev_;
  const endgame_comms_t& comms_;
  node_staging_t& staging_;
  worker_pool_t& pool_;
  buffer_pool_t& buffers_;
  uint64_t buffer_bytes_ = 0;
  const flow_limits_t limits_;
  trace_recorder_t* trace_;

  std::vector<line_t> lines_;
  size_t next_line_ = 0;
  std::list<std::unique_ptr<line_state_t>> active_;
  int gathering_ = 0;
  uint64_t line_memory_used_ = 0;
  uint64_t incoming_bytes_ = 0;  // buffers of posted or unmerged output receives
  int posted_outputs_ = 0;
  uint64_t total_outputs_ = 0, outputs_done_ = 0;
  std::vector<int> free_tags_;

  std::vector<MPI_Request> requests_, new_requests_;
  // Buffers of sent responses, for the next (used by the communication thread alone).
  static constexpr size_t spare_response_limit = 16;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> spare_responses_;
  std::vector<handler_t> handlers_, new_handlers_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;

  std::mutex immediates_mutex_;
  std::vector<std::function<void()>> immediates_;
  flow_stats_t stats_;
  std::atomic<uint64_t> staged_outputs_{0};  // output blocks sent through slots (workers count)
};

}  // namespace

flow_stats_t compute_slice_flow(int slice, const partition_t& partition, block_store_t& store,
                                const partition_t* prev_partition, block_store_t* prev,
                                const endgame_comms_t& comms, node_staging_t& staging,
                                worker_pool_t& pool, buffer_pool_t& buffers,
                                const flow_limits_t& limits, trace_recorder_t* trace) {
  flow_t f(slice, partition, store, prev_partition, prev, comms, staging, pool, buffers, limits,
           trace);
  try {
    return f.run();
  } catch (const std::exception& e) {
    // Worker threads may still be running jobs that point into this flow (its lines and
    // buffers): the job ends here, before unwinding would free them under those threads.
    abort_job(e.what());
  }
}

}  // namespace pentago
