#pragma once
// Shared by the NIfTI reader (nifti.cpp) and writer (nifti_write.cpp): header constants, byte-order helpers and the
// datatype dispatch. Not part of io's interface.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "io/volume/nifti.h"

namespace delineate::io::nifti_detail {

using core::ErrorCode;
using core::Geometry;
using core::Label;
using core::makeError;
using core::Mat3;
using core::Result;
using core::Status;
using core::Vec3;

constexpr std::size_t kNifti1HeaderSize = 348;
constexpr std::size_t kNifti2HeaderSize = 540;
// Header plus the 4-byte extension flag: where voxel data starts when a file has no extensions.
constexpr std::int64_t kNifti1DefaultOffset = 352;
constexpr std::int64_t kNifti2DefaultOffset = 544;
// Extensions beyond 1 GiB are not plausible; a larger offset means a damaged header, not a real file.
constexpr std::int64_t kMaxVoxOffset = std::int64_t(1) << 30;
// Compressed bytes read to find the header of a .nii.gz; a header hidden behind more than this (a huge gzip name or
// extra field) makes us read the whole file instead.
constexpr std::size_t kHeaderPeekBytes = std::size_t(64) << 10;
constexpr int kIntentLabel = 1002;  // NIFTI_INTENT_LABEL
constexpr int kXformScannerAnat = 1;
constexpr std::uint8_t kUnitsMm = 2;

inline bool hostIsLittleEndian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

template <class T>
T byteSwapped(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::reverse(b, b + sizeof(T));
  std::memcpy(&v, b, sizeof(T));
  return v;
}

struct FieldReader {
  const std::uint8_t* p;
  bool swap;
  template <class T>
  T get(std::size_t offset) const {
    T v;
    std::memcpy(&v, p + offset, sizeof(T));
    return swap ? byteSwapped(v) : v;
  }
};

// Writes little-endian fields whatever the host order, so our files are the same bytes everywhere.
struct FieldWriter {
  std::vector<std::uint8_t>& buf;
  bool swap = !hostIsLittleEndian();
  template <class T>
  void put(std::size_t offset, T v) {
    if (swap) v = byteSwapped(v);
    std::memcpy(buf.data() + offset, &v, sizeof(T));
  }
  void putBytes(std::size_t offset, const char* s, std::size_t n) { std::memcpy(buf.data() + offset, s, n); }
};

// Calls fn(Src{}) with the C++ type matching a supported datatype.
template <class Fn>
void visitDatatype(int datatype, Fn&& fn) {
  switch (static_cast<NiftiDatatype>(datatype)) {
    case NiftiDatatype::UInt8: fn(std::uint8_t{}); break;
    case NiftiDatatype::Int8: fn(std::int8_t{}); break;
    case NiftiDatatype::Int16: fn(std::int16_t{}); break;
    case NiftiDatatype::UInt16: fn(std::uint16_t{}); break;
    case NiftiDatatype::Int32: fn(std::int32_t{}); break;
    case NiftiDatatype::UInt32: fn(std::uint32_t{}); break;
    case NiftiDatatype::Float32: fn(float{}); break;
    case NiftiDatatype::Float64: fn(double{}); break;
    case NiftiDatatype::Int64: fn(std::int64_t{}); break;
    case NiftiDatatype::UInt64: fn(std::uint64_t{}); break;
  }
}

inline int bytesPerVoxel(int datatype) {
  int n = 0;  // 0: not a type we read
  visitDatatype(datatype, [&n](auto tag) { n = static_cast<int>(sizeof(tag)); });
  return n;
}

}  // namespace delineate::io::nifti_detail
