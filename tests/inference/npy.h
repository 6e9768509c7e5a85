#pragma once
// Reading the float32 .npy arrays of ../shared/reference (C order: the last axis fastest).
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace delineate::test {

// A .npy file's float32 payload and shape.
inline std::vector<float> readNpy(const std::filesystem::path& p, std::vector<std::int64_t>& shape) {
  std::ifstream f(p, std::ios::binary);
  const std::vector<std::uint8_t> d{std::istreambuf_iterator<char>(f), {}};
  REQUIRE(d.size() > 10);
  const std::size_t headerLen = d[8] | (d[9] << 8);
  const std::string header(d.begin() + 10, d.begin() + 10 + static_cast<std::ptrdiff_t>(headerLen));
  REQUIRE(header.find("'<f4'") != std::string::npos);
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
  std::vector<float> v((d.size() - 10 - headerLen) / 4);
  std::memcpy(v.data(), d.data() + 10 + headerLen, v.size() * 4);
  return v;
}


}  // namespace delineate::test
