// SHA-256 against the FIPS 180-2 example vectors, whole and in odd-sized pieces.
#include <catch2/catch.hpp>

#include <string>

#include "io/sha256.h"
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
