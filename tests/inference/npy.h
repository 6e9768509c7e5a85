#pragma once
// Reading the float32 .npy arrays of ../shared/reference (C order: the last axis fastest).
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace delineate::test {

// A .npy file's float32 payload and shape.
template <class T>
std::vector<T> readNpyAs(const std::filesystem::path& p, std::vector<std::int64_t>& shape, const char* descr,
                         bool* fortranOrder = nullptr) {
  std::ifstream f(p, std::ios::binary);
  const std::vector<std::uint8_t> d{std::istreambuf_iterator<char>(f), {}};
  REQUIRE(d.size() > 10);
  const std::size_t headerLen = d[8] | (d[9] << 8);
  const std::string header(d.begin() + 10, d.begin() + 10 + static_cast<std::ptrdiff_t>(headerLen));
  REQUIRE(header.find(descr) != std::string::npos);
  const bool fortran = header.find("'fortran_order': True") != std::string::npos;
  if (fortranOrder) *fortranOrder = fortran;
  else REQUIRE_FALSE(fortran);
  shape.clear();
  const auto open = header.find('(', header.find("shape")), close = header.find(')', open);
  std::string dims = header.substr(open + 1, close - open - 1);
  for (std::size_t p0 = 0; p0 < dims.size();) {
    const auto comma = dims.find(',', p0);
    const std::string t = dims.substr(p0, comma == std::string::npos ? std::string::npos : comma - p0);
    if (t.find_first_of("0123456789") != std::string::npos) shape.push_back(std::stoll(t));
    if (comma == std::string::npos) break;
    p0 = comma + 1;
  }
  std::vector<T> v((d.size() - 10 - headerLen) / sizeof(T));
  std::memcpy(v.data(), d.data() + 10 + headerLen, v.size() * sizeof(T));
  return v;
}

inline std::vector<float> readNpy(const std::filesystem::path& p, std::vector<std::int64_t>& shape) {
  return readNpyAs<float>(p, shape, "'<f4'");
}
// Fortran-ordered arrays (the first axis fastest) are accepted here; `fortranOrder` says which.
inline std::vector<double> readNpy64(const std::filesystem::path& p, std::vector<std::int64_t>& shape, bool& fortranOrder) {
  return readNpyAs<double>(p, shape, "'<f8'", &fortranOrder);
}


// A C-order [channels, nx, ny, nz] array as channel volumes with x fastest (core's order).
inline std::vector<float> toXFastest(const std::vector<float>& c, std::int64_t channels, const std::array<std::int64_t, 3>& n) {
  std::vector<float> out(c.size());
  for (std::int64_t ch = 0; ch < channels; ++ch)
    for (std::int64_t i = 0; i < n[0]; ++i)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t k = 0; k < n[2]; ++k)
          out[static_cast<std::size_t>(((ch * n[2] + k) * n[1] + j) * n[0] + i)] =
              c[static_cast<std::size_t>(((ch * n[0] + i) * n[1] + j) * n[2] + k)];
  return out;
}

}  // namespace delineate::test
