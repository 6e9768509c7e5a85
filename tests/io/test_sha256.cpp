// SHA-256 against the FIPS 180-2 example vectors, whole and in odd-sized pieces.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "io/base/sha256.h"
#include "tests/common/test_support.h"

using namespace delineate;

TEST_CASE("sha256: FIPS 180-2 vectors, whole and fed in odd pieces, and files", "[sha256]") {
  CHECK(io::sha256Hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(io::sha256Hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(io::sha256Hex(two.data(), two.size()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  for (std::size_t piece : {std::size_t(1), std::size_t(63), std::size_t(64), std::size_t(65), std::size_t(4099)}) {
    INFO(piece);
    io::Sha256 h;
    for (std::size_t at = 0; at < million.size(); at += piece)
      h.update(million.data() + at, std::min(piece, million.size() - at));
    CHECK(io::toHex(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
  test::ScratchDir dir("sha256");
  test::writeTextFile(dir / "m", million);
  auto f = io::sha256OfFile((dir / "m").string());
  REQUIRE(f.ok());
  CHECK(*f == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  auto missing = io::sha256OfFile((dir / "nope").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::NotFound);
}

TEST_CASE("sha256: both engines give the FIPS digests and agree on every length around the block size",
          "[sha256]") {
  INFO("hardware SHA instructions in use: " << (io::Sha256::hardwareAccelerated() ? "yes" : "no"));
  for (auto engine : {io::Sha256::Engine::Auto, io::Sha256::Engine::Portable}) {
    io::Sha256 h(engine);
    h.update("abc", 3);
    CHECK(io::toHex(h.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // finish() resets with the same engine: a second message hashes as if new.
    const std::string million(1000000, 'a');
    h.update(million.data(), million.size());
    CHECK(io::toHex(h.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
  // Random bytes: lengths 0..300 (every padding case, one to five blocks) and a few large ones fed in pieces that
  // straddle block boundaries, where the multi-block path of the hardware engine starts and stops.
  std::mt19937 rng(20261123);
  std::vector<std::uint8_t> data(1 << 20);
  for (auto& b : data) b = std::uint8_t(rng());
  for (std::size_t n = 0; n <= 300; ++n) {
    io::Sha256 fast, portable(io::Sha256::Engine::Portable);
    fast.update(data.data(), n);
    portable.update(data.data(), n);
    INFO(n);
    REQUIRE(io::toHex(fast.finish()) == io::toHex(portable.finish()));
  }
  for (std::size_t piece : {std::size_t(7), std::size_t(64), std::size_t(1000), std::size_t(65536 + 13)}) {
    io::Sha256 fast, portable(io::Sha256::Engine::Portable);
    for (std::size_t at = 0; at < data.size(); at += piece) {
      const std::size_t n = std::min(piece, data.size() - at);
      fast.update(data.data() + at, n);
      portable.update(data.data() + at, n);
    }
    INFO(piece);
    CHECK(io::toHex(fast.finish()) == io::toHex(portable.finish()));
  }
}
