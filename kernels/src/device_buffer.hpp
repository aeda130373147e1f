#pragma once
// An owning, move-only buffer of device memory (cudaMalloc / cudaFree).
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

namespace limiter::kernels::detail {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) LIMITER_CUDA_CHECK(cudaMalloc(&data_, bytes()));
  }
  ~DeviceBuffer() {
    if (data_) LIMITER_CUDA_CHECK_NOTHROW(cudaFree(data_));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(std::span<const T> host) {
    LIMITER_CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const { return download(0, count_); }
  std::vector<T> download(std::size_t first, std::size_t count) const {
    std::vector<T> host(count);
    LIMITER_CUDA_CHECK(cudaMemcpy(host.data(), data_ + first, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace limiter::kernels::detail
