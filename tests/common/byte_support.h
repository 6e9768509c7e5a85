#pragma once
// Byte-level helpers shared by the file-format suites: reading and writing whole files, byte strings, encoding
// values in either byte order and as text, and gzip through io/ (each suite keeps its own independent decoder checks).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/volume.h"
#include "io/base/gzip.h"

namespace delineate::test {

inline std::vector<std::uint8_t> readBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

inline std::vector<std::uint8_t> bytesOf(const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

inline std::vector<std::uint8_t> concat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::vector<std::uint8_t> gz(const std::vector<std::uint8_t>& raw) {
  auto c = io::gzipCompress(raw.data(), raw.size(), 6, "test");
  REQUIRE(c.ok());
  return *c;
}

inline bool hostBigEndian() {
  const std::uint16_t one = 1;
  unsigned char b = 0;
  std::memcpy(&b, &one, 1);
  return b == 0;
}

// `v` stored at buf[offset] in the given byte order.
template <class T>
void put(std::vector<std::uint8_t>& buf, std::size_t offset, T v, bool bigEndian) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  if (bigEndian != hostBigEndian()) std::reverse(b, b + sizeof(T));
  std::memcpy(buf.data() + offset, b, sizeof(T));
}

// Values as raw bytes in the given byte order: an encoder independent of io/, so tests do not share its mistakes.
template <class T>
std::vector<std::uint8_t> encode(const std::vector<T>& values, bool bigEndian) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i) put(out, i * sizeof(T), values[i], bigEndian);
  return out;
}

// Values as whitespace-separated text, five per line, full precision.
template <class T>
std::string asText(const std::vector<T>& values) {
  std::ostringstream s;
  s.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (sizeof(T) == 1)
      s << static_cast<int>(values[i]);
    else
      s << values[i];
    s << (i % 5 == 4 ? "\n" : " ");
  }
  return s.str();
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Full-precision text for a double (header fields written by tests).
inline std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The error names the file (as its subject and in its text) and gives the reason (every word in `words`).
inline void checkError(const core::Error& e, core::ErrorCode code, const std::filesystem::path& subject,
                       const std::vector<std::string>& words) {
  INFO(e.describe());
  CHECK(e.code == code);
  CHECK(e.subject == subject.string());
  CHECK(contains(e.describe(), subject.string()));
  for (const std::string& w : words) CHECK(contains(e.describe(), w));
}

// An image whose voxels are a ramp of non-integer values (so float storage and order both show).
inline core::ImageVolume rampImage(const core::Geometry& g) {
  auto v = core::ImageVolume::create(g);
  REQUIRE(v.ok());
  for (std::size_t i = 0; i < v->size(); ++i) (*v)[i] = static_cast<float>(i % 1000) * 0.25f - 17.0f;
  return std::move(v).value();
}

}  // namespace delineate::test
