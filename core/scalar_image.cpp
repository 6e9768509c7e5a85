#include "core/scalar_image.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

namespace delineate::core {

const char* scalarTypeName(ScalarType type) {
  switch (type) {
    case ScalarType::UInt8: return "uint8";
    case ScalarType::Int16: return "int16";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::Int32: return "int32";
    case ScalarType::Float32: return "float32";
  }
  return "?";
}

std::size_t scalarTypeBytes(ScalarType type) {
  switch (type) {
    case ScalarType::UInt8: return 1;
    case ScalarType::Int16:
    case ScalarType::UInt16: return 2;
    case ScalarType::Int32:
    case ScalarType::Float32: return 4;
  }
  return 0;
}

// The accessors are the view's: one definition for both.
ScalarType ScalarImage::type() const { return ImageView(*this).type(); }
const Geometry& ScalarImage::geometry() const { return ImageView(*this).geometry(); }
std::size_t ScalarImage::size() const { return ImageView(*this).size(); }
std::size_t ScalarImage::byteSize() const { return ImageView(*this).byteSize(); }
const void* ScalarImage::data() const { return ImageView(*this).data(); }
double ScalarImage::value(std::size_t i) const { return ImageView(*this).value(i); }

Result<ImageVolume> ScalarImage::toFloat(const std::string& subject) && {
  if (auto* f = std::get_if<Volume<float>>(&m_volume)) return std::move(*f);
  return static_cast<const ScalarImage&>(*this).toFloat(subject);
}

namespace {

// A float32 copy of the viewed voxels.
Result<ImageVolume> floatCopy(ImageView image, const std::string& subject) {
  return image.visit([&](const auto& v) -> Result<ImageVolume> {
    ImageVolume::UninitBuffer out;
    try {
      out.resize(v.size());
    } catch (const std::bad_alloc&) {
      return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate " + std::to_string(v.size() * 4) + " bytes");
    }
    std::transform(v.data(), v.data() + v.size(), out.data(), [](auto x) { return static_cast<float>(x); });
    return ImageVolume::adopt(v.geometry(), std::move(out), subject);
  });
}

}  // namespace

Result<ImageVolume> ScalarImage::toFloat(const std::string& subject) const& { return floatCopy(*this, subject); }

namespace {

template <class T>
Result<ScalarImage> narrowTo(const ImageVolume& image, const std::string& subject) {
  typename Volume<T>::UninitBuffer out;
  try {
    out.resize(image.size());
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate " + std::to_string(image.size() * sizeof(T)) + " bytes");
  }
  std::transform(image.data(), image.data() + image.size(), out.data(), [](float x) { return static_cast<T>(x); });
  auto v = Volume<T>::adopt(image.geometry(), std::move(out), subject);
  if (!v) return v.error();
  return ScalarImage(std::move(*v));
}

}  // namespace

Result<ScalarImage> ScalarImage::narrowed(ImageVolume image, const std::string& subject) {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  bool whole = !image.empty();
  for (const float x : image.buffer()) {
    if (!(x == std::floor(x))) {  // NaN and infinities too (floor(inf) == inf, but inf is out of every range below)
      whole = false;
      break;
    }
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (whole && lo >= 0 && hi <= 255) return narrowTo<std::uint8_t>(image, subject);
  if (whole && lo >= -32768 && hi <= 32767) return narrowTo<std::int16_t>(image, subject);
  if (whole && lo >= 0 && hi <= 65535) return narrowTo<std::uint16_t>(image, subject);
  return ScalarImage(std::move(image));
}

Status requireFiniteVoxels(ImageView image, const std::string& source) {
  if (const ImageVolume* f = image.floatImage()) return requireFiniteVoxels(*f, source);
  return Status::success();
}

ImageView::ImageView(const ScalarImage& image) {
  image.visit([this](const auto& v) { m_ptr = &v; });
}

ImageView::ImageView(const ScalarImage* image) {
  if (image) image->visit([this](const auto& v) { m_ptr = &v; });
}

const ImageVolume& ImageView::emptyVolume() {
  static const ImageVolume empty;
  return empty;
}

ScalarType ImageView::type() const {
  return visit([](const auto& v) { return scalarTypeOf<typename std::decay_t<decltype(v)>::value_type>(); });
}

const Geometry& ImageView::geometry() const {
  return visit([](const auto& v) -> const Geometry& { return v.geometry(); });
}

std::size_t ImageView::size() const {
  return visit([](const auto& v) { return v.size(); });
}

const void* ImageView::data() const {
  return visit([](const auto& v) { return static_cast<const void*>(v.data()); });
}

double ImageView::value(std::size_t i) const {
  return visit([i](const auto& v) { return static_cast<double>(v[i]); });
}

const ImageVolume* ImageView::floatImage() const {
  auto* p = std::get_if<const Volume<float>*>(&m_ptr);
  return p ? *p : nullptr;
}

Result<const ImageVolume*> floatVolume(ImageView image, std::optional<ImageVolume>& storage,
                                       const std::string& subject) {
  if (const ImageVolume* f = image.floatImage()) return f;
  if (!image) return makeError(ErrorCode::InvalidArgument, subject, "no image");
  auto f = floatCopy(image, subject);
  if (!f) return f.error();
  storage = std::move(*f);
  return &*storage;
}

}  // namespace delineate::core
