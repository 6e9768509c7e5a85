#pragma once
// An image in the type it was stored in (issue 27): uint8, int16, uint16, int32 or float32 voxels on a Geometry, so a
// 16-bit CT costs 16 bits a voxel instead of float32's 32. Code reads its voxels as numbers whatever the type through
// visit() (the typed buffer, for loops the compiler can vectorise) or value(i) (one voxel as a double). The window,
// statistics and engines still take core::ImageVolume (float32): toFloat() is their copy until they read the typed
// image themselves.

#include <cstdint>
#include <string>
#include <variant>

#include "core/error.h"
#include "core/geometry.h"
#include "core/volume.h"

namespace delineate::core {

enum class ScalarType : std::uint8_t { UInt8, Int16, UInt16, Int32, Float32 };
const char* scalarTypeName(ScalarType type);  // "uint8", "int16", "uint16", "int32", "float32"
std::size_t scalarTypeBytes(ScalarType type);

class ScalarImage {
 public:
  using Storage = std::variant<Volume<float>, Volume<std::uint8_t>, Volume<std::int16_t>, Volume<std::uint16_t>,
                               Volume<std::int32_t>>;

  ScalarImage() = default;
  template <class T>
  explicit ScalarImage(Volume<T> volume) : m_volume(std::move(volume)) {}

  ScalarType type() const;
  const Geometry& geometry() const;
  std::size_t size() const;
  std::size_t byteSize() const;
  bool empty() const { return size() == 0; }
  const void* data() const;
  // Voxel i as a number.
  double value(std::size_t i) const;
  // f(const Volume<T>&) with the stored type.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), m_volume);
  }
  template <class F>
  decltype(auto) visit(F&& f) {
    return std::visit(std::forward<F>(f), m_volume);
  }

  // A float32 copy (the same volume when it is float32 already: then moved out). OutOfMemory names `subject`.
  Result<ImageVolume> toFloat(const std::string& subject = {}) &&;
  Result<ImageVolume> toFloat(const std::string& subject = {}) const&;
  // `image` in the smallest of uint8, int16, uint16 that holds every voxel exactly (whole numbers in range), else as
  // it is (float32). The narrowed copy is made in one pass after the check; the float buffer is released.
  static Result<ScalarImage> narrowed(ImageVolume image, const std::string& subject = {});

 private:
  Storage m_volume;
};

}  // namespace delineate::core
