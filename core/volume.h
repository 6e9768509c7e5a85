#pragma once
// One contiguous voxel buffer (x fastest, then y, then z) on a Geometry.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"

namespace delineate::core {

// Leaves elements default-initialised (for numbers: untouched) on resize, so a reader can size a buffer and fill
// it from a file without first writing zeros over every page; a damaged file that declares gigabytes then costs only
// the pages actually inflated before the error. The memory comes from calloc, so it reads as zeros: a large buffer is
// the system's fresh zero pages, which cost nothing until written (an empty label map of a 1 GB study holds no
// memory until labels are painted or opened into it).
template <class T>
struct UninitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}  // NOLINT(implicit)
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
    void* p = std::calloc(n == 0 ? 1 : n, sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
class Volume {
 public:
  using value_type = T;
  // Careful: UninitBuffer(n) and resize(n) leave numbers uninitialised. Use create(geometry, fill) for a filled
  // volume; accumulate into buffers constructed with an explicit value (UninitBuffer(n, T{})).
  using UninitBuffer = std::vector<T, UninitAllocator<T>>;

  Volume() = default;

  // Validates the geometry and allocates, turning allocation failure into an error instead of a crash.
  static Result<Volume> create(const Geometry& geometry, T fill = T{}, const std::string& subject = {}) {
    if (Status s = geometry.validate(subject); !s) return s.error();
    try {
      Volume v;
      v.m_geometry = geometry;
      const T zero{};
      if (std::memcmp(&fill, &zero, sizeof(T)) == 0)  // all-zero bytes (not -0.0): calloc's zeros, left unwritten
        v.m_data.resize(static_cast<std::size_t>(geometry.voxelCount()));
      else v.m_data.assign(static_cast<std::size_t>(geometry.voxelCount()), fill);
      return v;
    } catch (const std::bad_alloc&) {
      return makeError(ErrorCode::OutOfMemory, subject,
                       "cannot allocate " + std::to_string(geometry.voxelCount() * std::int64_t(sizeof(T))) + " bytes");
    }
  }

  // Adopts an existing buffer; its size must equal the geometry's voxel count.
  static Result<Volume> adopt(const Geometry& geometry, UninitBuffer data, const std::string& subject = {}) {
    if (Status s = geometry.validate(subject); !s) return s.error();
    if (data.size() != static_cast<std::size_t>(geometry.voxelCount()))
      return makeError(ErrorCode::Corrupt, subject,
                       "buffer holds " + std::to_string(data.size()) + " voxels, geometry needs " +
                           std::to_string(geometry.voxelCount()));
    Volume v;
    v.m_geometry = geometry;
    v.m_data = std::move(data);
    return v;
  }

  const Geometry& geometry() const { return m_geometry; }
  bool empty() const { return m_data.empty(); }
  std::size_t size() const { return m_data.size(); }
  std::size_t byteSize() const { return m_data.size() * sizeof(T); }

  T* data() { return m_data.data(); }
  const T* data() const { return m_data.data(); }
  UninitBuffer& buffer() { return m_data; }
  const UninitBuffer& buffer() const { return m_data; }

  T& at(const Index3& ijk) { return m_data[m_geometry.linearIndex(ijk)]; }
  const T& at(const Index3& ijk) const { return m_data[m_geometry.linearIndex(ijk)]; }
  T& operator[](std::size_t i) { return m_data[i]; }
  const T& operator[](std::size_t i) const { return m_data[i]; }

 private:
  Geometry m_geometry;
  UninitBuffer m_data;
};

// The study image as engines, statistics and viewers see it. float32 keeps CT (int16) and MR (float) in one type;
// io converts on load.
using ImageVolume = Volume<float>;

// InvalidArgument naming `source` when the image has no finite voxel (every value NaN or infinite: a wrong data type
// or scaling): nothing can be viewed, segmented or measured on it.
Status requireFiniteVoxels(const ImageVolume& image, const std::string& source);

}  // namespace delineate::core
