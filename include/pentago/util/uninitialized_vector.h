// A std::vector that does not zero-fill on resize: for large buffers that are overwritten
// before they are read (line inputs, received bytes, output blocks), where the fill would
// cost a pass over memory. Only for implicit-lifetime, trivially copyable types, whose objects
// exist in the allocated storage without a constructor running.
#pragma once
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace pentago {

template <class T>
struct uninitialized_allocator : std::allocator<T> {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  template <class U>
  struct rebind {
    using other = uninitialized_allocator<U>;
  };
  uninitialized_allocator() = default;
  template <class U>
  uninitialized_allocator(const uninitialized_allocator<U>&) noexcept {}

  // Value-initialization (resize, the size constructor) leaves the bytes as they are.
  template <class U>
  void construct(U*) noexcept {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using uninitialized_vector = std::vector<T, uninitialized_allocator<T>>;

}  // namespace pentago
