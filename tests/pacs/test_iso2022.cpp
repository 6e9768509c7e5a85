// ISO 2022 code extensions to UTF-8 (io/pacs/iso2022_internal.h), on the examples of PS3.5 Annexes H and I.
#include <catch2/catch.hpp>

#include "io/pacs/iso2022_internal.h"

namespace delineate::test {

TEST_CASE("ISO 2022: the standard's Japanese and Korean person names read as UTF-8, a broken escape is refused",
          "[pacs]") {
  // PS3.5 H.3.1: "\ISO 2022 IR 87", JIS X 0208 runs between ESC $ B and ESC ( B.
  const std::string japanese =
      "Yamada^Tarou=\x1b$B;3ED\x1b(B^\x1b$BB@O:\x1b(B=\x1b$B$d$^$@\x1b(B^\x1b$B$?$m$&\x1b(B";
  auto j = io::detail::iso2022ToUtf8(japanese, "\\ISO 2022 IR 87");
  REQUIRE(j);
  CHECK(*j == "Yamada^Tarou=山田^太郎=やまだ^たろう");
  // PS3.5 I.2: "\ISO 2022 IR 149", KS X 1001 in G1 after ESC $ ) C.
  const std::string korean =
      "Hong^Gildong=\x1b$)C\xfb\xf3^\x1b$)C\xd1\xce\xd4\xd7=\x1b$)C\xc8\xab^\x1b$)C\xb1\xe6\xb5\xbf";
  auto k = io::detail::iso2022ToUtf8(korean, "\\ISO 2022 IR 149");
  REQUIRE(k);
  CHECK(*k == "Hong^Gildong=洪^吉洞=홍^길동");
  // Half-width katakana in G1 with ISO 2022 IR 13 first.
  auto kana = io::detail::iso2022ToUtf8("\xd4\xcf\xc0\xde^\xc0\xdb\xb3", "ISO 2022 IR 13\\ISO 2022 IR 87");
  REQUIRE(kana);
  CHECK(*kana == "ﾔﾏﾀﾞ^ﾀﾛｳ");
  CHECK_FALSE(io::detail::iso2022ToUtf8("a\x1b$Zb", "\\ISO 2022 IR 87"));  // an escape nobody defined
  CHECK_FALSE(io::detail::iso2022ToUtf8("\x1b$B\x29\x21", "\\ISO 2022 IR 87"));  // not a JIS X 0208 character
}

}  // namespace delineate::test
