#include "io/pacs/iso2022_internal.h"

#include <iconv.h>

#include <cerrno>

namespace delineate::io::detail {
namespace {

// A run of bytes in one coded character set, converted through iconv.
bool convert(const std::string& in, const char* from, std::string& out) {
  if (in.empty()) return true;
  iconv_t cd = ::iconv_open("UTF-8", from);
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  std::string buffer(in.size() * 4 + 16, '\0');
  char* src = const_cast<char*>(in.data());
  std::size_t srcLeft = in.size();
  char* dst = buffer.data();
  std::size_t dstLeft = buffer.size();
  const std::size_t r = ::iconv(cd, &src, &srcLeft, &dst, &dstLeft);
  ::iconv_close(cd);
  if (r == static_cast<std::size_t>(-1) || srcLeft != 0) return false;
  out.append(buffer.data(), buffer.size() - dstLeft);
  return true;
}

enum class Set { Ascii, JisRoman, Katakana, Jis0208, Jis0212, Ksc5601, Gb2312, Latin1 };

}  // namespace

std::optional<std::string> iso2022ToUtf8(const std::string& bytes, const std::string& characterSet) {
  // The initial G0 and G1: from the first value ("ISO 2022 IR 13": JIS X 0201, Katakana in G1).
  const std::string first = characterSet.substr(0, characterSet.find('\\'));
  const Set initialG0 = first == "ISO 2022 IR 13" ? Set::JisRoman : Set::Ascii;
  // A multi-byte set as the first value is not what PS3.3 C.12.1.1.2 allows, but PACS write it (Orthanc does, then
  // omits the escape): read GR bytes in that set.
  Set initialG1 = Set::Ascii;
  if (first == "ISO 2022 IR 13") initialG1 = Set::Katakana;
  else if (first == "ISO 2022 IR 100") initialG1 = Set::Latin1;
  else if (first == "ISO 2022 IR 149") initialG1 = Set::Ksc5601;
  else if (first == "ISO 2022 IR 58") initialG1 = Set::Gb2312;
  Set g0 = initialG0, g1 = initialG1;
  std::string out, run;
  Set runSet = Set::Ascii;
  bool ok = true;
  const auto flush = [&] {
    if (run.empty()) return;
    switch (runSet) {
      case Set::Ascii: out += run; break;
      // JIS X 0201 (Roman and half-width Katakana) is Shift JIS's single-byte half: glibc has no table of its own.
      case Set::JisRoman: ok = ok && convert(run, "SHIFT_JIS", out); break;
      case Set::Katakana: ok = ok && convert(run, "SHIFT_JIS", out); break;
      case Set::Latin1: ok = ok && convert(run, "ISO-8859-1", out); break;
      case Set::Jis0208: {
        std::string euc;  // JIS X 0208 in GL is EUC-JP's code set 1 with the high bits set
        for (const char c : run) euc += static_cast<char>(static_cast<unsigned char>(c) | 0x80);
        ok = ok && convert(euc, "EUC-JP", out);
        break;
      }
      case Set::Jis0212: {
        std::string euc;
        for (std::size_t i = 0; i + 1 < run.size(); i += 2) {
          euc += '\x8f';
          euc += static_cast<char>(static_cast<unsigned char>(run[i]) | 0x80);
          euc += static_cast<char>(static_cast<unsigned char>(run[i + 1]) | 0x80);
        }
        ok = ok && run.size() % 2 == 0 && convert(euc, "EUC-JP", out);
        break;
      }
      case Set::Ksc5601: {
        std::string euc;
        for (const char c : run) euc += static_cast<char>(static_cast<unsigned char>(c) | 0x80);
        ok = ok && convert(euc, "EUC-KR", out);
        break;
      }
      case Set::Gb2312: {
        std::string euc;
        for (const char c : run) euc += static_cast<char>(static_cast<unsigned char>(c) | 0x80);
        ok = ok && convert(euc, "EUC-CN", out);
        break;
      }
    }
    run.clear();
  };
  const auto add = [&](Set set, char c) {
    if (set != runSet) {
      flush();
      runSet = set;
    }
    run += c;
  };
  for (std::size_t i = 0; i < bytes.size() && ok; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == 0x1B) {  // an escape sequence designates a set into G0 or G1
      const std::string rest = bytes.substr(i + 1, 3);
      const auto is = [&](const char* seq) { return rest.compare(0, std::char_traits<char>::length(seq), seq) == 0; };
      if (is("$)C")) g1 = Set::Ksc5601, i += 3;
      else if (is("$)A")) g1 = Set::Gb2312, i += 3;
      else if (is("$(D")) g0 = Set::Jis0212, i += 3;
      else if (is("$B")) g0 = Set::Jis0208, i += 2;
      else if (is("(B")) g0 = Set::Ascii, i += 2;
      else if (is("(J")) g0 = Set::JisRoman, i += 2;
      else if (is(")I")) g1 = Set::Katakana, i += 2;
      else if (is("-A")) g1 = Set::Latin1, i += 2;
      else return std::nullopt;
      continue;
    }
    const bool singleByteG0 = g0 == Set::Ascii || g0 == Set::JisRoman;
    if ((singleByteG0 && (c == '^' || c == '=' || c == '\\')) || c == '\r' || c == '\n') {
      // Delimiters are in the default repertoire and reset the designations (PS3.5 6.1.2.5.3); inside a two-byte
      // G0 run the same bytes are halves of characters.
      g0 = initialG0;
      g1 = initialG1;
      add(Set::Ascii, static_cast<char>(c));
      continue;
    }
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) add(Set::Ascii, static_cast<char>(c));
      else add(g0, static_cast<char>(c));
    } else {
      add(g1, static_cast<char>(c & (g1 == Set::Latin1 || g1 == Set::Katakana ? 0xFF : 0x7F)));
    }
  }
  flush();
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace delineate::io::detail
