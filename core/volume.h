#pragma once
// One contiguous voxel buffer (x fastest, then y, then z) on a Geometry.

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"

namespace delineate::core {

template <class T>
class Volume {
 public:
  using value_type = T;

  Volume() = default;

  // Validates the geometry and allocates, turning allocation failure into an error instead of a crash.
  static Result<Volume> create(const Geometry& geometry, T fill = T{}, const std::string& subject = {}) {
    if (Status s = geometry.validate(subject); !s) return s.error();
    try {
      Volume v;
      v.m_geometry = geometry;
      v.m_data.assign(static_cast<std::size_t>(geometry.voxelCount()), fill);
      return v;
    } catch (const std::bad_alloc&) {
      return makeError(ErrorCode::OutOfMemory, subject,
                       "cannot allocate " + std::to_string(geometry.voxelCount() * std::int64_t(sizeof(T))) + " bytes");
    }
  }

  // Adopts an existing buffer; its size must equal the geometry's voxel count.
  static Result<Volume> adopt(const Geometry& geometry, std::vector<T> data, const std::string& subject = {}) {
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
  std::vector<T>& buffer() { return m_data; }
  const std::vector<T>& buffer() const { return m_data; }

  T& at(const Index3& ijk) { return m_data[m_geometry.linearIndex(ijk)]; }
  const T& at(const Index3& ijk) const { return m_data[m_geometry.linearIndex(ijk)]; }
  T& operator[](std::size_t i) { return m_data[i]; }
  const T& operator[](std::size_t i) const { return m_data[i]; }

 private:
  Geometry m_geometry;
  std::vector<T> m_data;
};

// The study image as engines, statistics and viewers see it. float32 keeps CT (int16) and MR (float) in one type;
// io converts on load.
using ImageVolume = Volume<float>;

}  // namespace delineate::core
