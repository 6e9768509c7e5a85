#pragma once
// An image in the type it was stored in (issue 27): uint8, int16, uint16, int32 or float32 voxels on a Geometry, so a
// 16-bit CT costs 16 bits a voxel instead of float32's 32. Code reads its voxels as numbers whatever the type through
// visit() (the typed buffer, for loops the compiler can vectorise) or value(i) (one voxel as a double).
// ImageView is how code that only reads an image takes it: a pointer to a ScalarImage or to any Volume<T> of those
// types, so a float32 ImageVolume and a typed image both pass without a copy. floatVolume() gives a float32 volume: the
// image itself when it is float32, else a copy. Since the engines read the stored type (issue 27) no product code
// calls it; it stays for a float consumer that cannot take a view.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "core/error.h"
#include "core/geometry.h"
#include "core/volume.h"

namespace delineate::core {

enum class ScalarType : std::uint8_t { UInt8, Int16, UInt16, Int32, Float32 };
const char* scalarTypeName(ScalarType type);  // "uint8", "int16", "uint16", "int32", "float32"
std::size_t scalarTypeBytes(ScalarType type);
// The ScalarType of a voxel type ScalarImage keeps.
template <class T>
constexpr ScalarType scalarTypeOf() {
  static_assert(std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int16_t> ||
                    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>,
                "not a type ScalarImage keeps");
  if constexpr (std::is_same_v<T, std::uint8_t>) return ScalarType::UInt8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return ScalarType::Int16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return ScalarType::UInt16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ScalarType::Int32;
  else return ScalarType::Float32;
}

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
  double at(const Index3& ijk) const { return value(geometry().linearIndex(ijk)); }

  Result<ImageVolume> toFloat(const std::string& subject = {}) &&;
  Result<ImageVolume> toFloat(const std::string& subject = {}) const&;
  // `image` in the smallest of uint8, int16, uint16 that holds every voxel exactly (whole numbers in range), else as
  // it is (float32). The narrowed copy is made in one pass after the check; the float buffer is released.
  static Result<ScalarImage> narrowed(ImageVolume image, const std::string& subject = {});

 private:
  Storage m_volume;
};

// A non-owning view of an image in any of the stored types; empty (false) when made from nullptr or nothing. What it
// points at must outlive it, and it must not be made from a temporary.
class ImageView {
 public:
  using Pointer = std::variant<std::monostate, const Volume<float>*, const Volume<std::uint8_t>*,
                               const Volume<std::int16_t>*, const Volume<std::uint16_t>*, const Volume<std::int32_t>*>;

  ImageView() = default;
  ImageView(std::nullptr_t) {}  // NOLINT(implicit): "no image" where a pointer was taken
  template <class T>
  ImageView(const Volume<T>& volume) : m_ptr(&volume) {}  // NOLINT(implicit)
  template <class T>
  ImageView(const Volume<T>* volume) {  // NOLINT(implicit)
    if (volume) m_ptr = volume;
  }
  ImageView(const ScalarImage& image);  // NOLINT(implicit)
  ImageView(const ScalarImage* image);  // NOLINT(implicit)

  explicit operator bool() const { return m_ptr.index() != 0; }
  // Empty views: type Float32, an empty geometry, size 0.
  ScalarType type() const;
  const Geometry& geometry() const;
  std::size_t size() const;
  std::size_t byteSize() const { return size() * scalarTypeBytes(type()); }
  const void* data() const;
  double value(std::size_t i) const;
  double at(const Index3& ijk) const { return value(geometry().linearIndex(ijk)); }
  // The float32 volume when the view is of one, else nullptr.
  const ImageVolume* floatImage() const;
  // f(const Volume<T>&) with the stored type (an empty float32 volume for an empty view).
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(
        [&](auto p) -> decltype(auto) {
          if constexpr (std::is_same_v<decltype(p), std::monostate>) {
            return f(emptyVolume());
          } else {
            return f(*p);
          }
        },
        m_ptr);
  }
  // The same voxels (the same buffer).
  bool operator==(const ImageView& other) const { return data() == other.data() && size() == other.size(); }
  bool operator!=(const ImageView& other) const { return !(*this == other); }

 private:
  static const ImageVolume& emptyVolume();
  Pointer m_ptr;
};

// InvalidArgument naming `source` when a float32 image has no finite voxel (see the ImageVolume overload); images of
// whole-number types always pass.
Status requireFiniteVoxels(ImageView image, const std::string& source);

// The view as float32: the viewed volume itself when it is float32 (nothing copied), else a copy made into `storage`.
// OutOfMemory names `subject`; an empty view is InvalidArgument.
Result<const ImageVolume*> floatVolume(ImageView image, std::optional<ImageVolume>& storage,
                                       const std::string& subject = {});

}  // namespace delineate::core
