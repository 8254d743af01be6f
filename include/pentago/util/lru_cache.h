// A thread-safe least-recently-used cache bounded by a total weight (bytes, or one per entry)
// that computes each missing value once: concurrent requests for the same key wait for the
// first request's computation instead of repeating it.
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace pentago {

struct lru_cache_stats_t {
  uint64_t hits = 0;                     // served from the cache
  uint64_t misses = 0;                   // computed
  uint64_t waits = 0;                    // joined a computation already under way for the same key
  uint64_t evictions = 0;                // entries dropped to stay within the capacity
  uint64_t weight = 0, peak_weight = 0;  // total weight held now / at most
  uint64_t entries = 0;
};

template <class Key, class Value, class Hash = std::hash<Key>>
class lru_cache_t {
 public:
  using value_ptr_t = std::shared_ptr<const Value>;
  using weigher_t = std::function<uint64_t(const Value&)>;

  // Entries are dropped least recently used first once their total weight passes `capacity`;
  // the entry just added is always kept. Without a weigher every entry weighs 1.
  explicit lru_cache_t(uint64_t capacity, weigher_t weight = {})
      : capacity_(capacity), weight_(std::move(weight)) {}
  lru_cache_t(const lru_cache_t&) = delete;
  lru_cache_t& operator=(const lru_cache_t&) = delete;

  // The cached value of `key`, or `make()` stored under it. If `make` throws, every caller
  // waiting for it gets the exception and nothing is stored (a later call tries again).
  // Returned values stay valid after eviction.
  template <class Make>
  value_ptr_t get(const Key& key, Make&& make) {
    std::shared_ptr<pending_t> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (const auto it = where_.find(key); it != where_.end()) {
        stats_.hits++;
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->second;
      }
      if (const auto it = pending_.find(key); it != pending_.end()) {
        stats_.waits++;
        const std::shared_future<value_ptr_t> result = it->second->result;
        lock.unlock();
        return result.get();
      }
      stats_.misses++;
      job = std::make_shared<pending_t>();
      job->result = job->promise.get_future().share();
      pending_.emplace(key, job);
    }
    value_ptr_t value;
    try {
      value = std::make_shared<const Value>(make());
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.erase(key);
      job->promise.set_exception(std::current_exception());
      throw;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.erase(key);
      insert(key, value);
    }
    job->promise.set_value(value);
    return value;
  }

  // The cached value of `key` (counted as a hit), or null without computing anything.
  value_ptr_t find(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = where_.find(key);
    if (it == where_.end()) return nullptr;
    stats_.hits++;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  // Stores `value` under `key` unless the key is cached or being computed (not a miss).
  void put(const Key& key, Value value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (where_.count(key) || pending_.count(key)) return;
    insert(key, std::make_shared<const Value>(std::move(value)));
  }

  // Whether `key` is cached (changes neither the order nor the counters).
  bool contains(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return where_.count(key) > 0;
  }

  lru_cache_stats_t stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  uint64_t capacity() const { return capacity_; }

 private:
  struct pending_t {
    std::promise<value_ptr_t> promise;
    std::shared_future<value_ptr_t> result;
  };
  using entry_t = std::pair<Key, value_ptr_t>;

  uint64_t weight_of(const Value& v) const { return weight_ ? weight_(v) : 1; }

  void insert(const Key& key, const value_ptr_t& value) {
    lru_.emplace_front(key, value);
    where_[key] = lru_.begin();
    stats_.weight += weight_of(*value);
    while (stats_.weight > capacity_ && lru_.size() > 1) {
      const entry_t& victim = lru_.back();
      stats_.weight -= weight_of(*victim.second);
      where_.erase(victim.first);
      lru_.pop_back();
      stats_.evictions++;
    }
    stats_.entries = lru_.size();
    if (stats_.weight > stats_.peak_weight) stats_.peak_weight = stats_.weight;
  }

  const uint64_t capacity_;
  const weigher_t weight_;
  mutable std::mutex mutex_;
  std::list<entry_t> lru_;  // most recently used first
  std::unordered_map<Key, typename std::list<entry_t>::iterator, Hash> where_;
  std::unordered_map<Key, std::shared_ptr<pending_t>, Hash> pending_;
  lru_cache_stats_t stats_;
};

}  // namespace pentago
