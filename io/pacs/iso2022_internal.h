#pragma once
// Text in DICOM's ISO 2022 code extensions (PS3.5 6.1.2.5: Japanese ISO 2022 IR 87/159 with IR 13, Korean IR 149,
// Chinese IR 58) to UTF-8. DCMTK converts through glibc's iconv here, which has no DICOM ISO 2022 mapping, so such
// answers would reach the user as escape sequences; this reads the escapes and converts each run through iconv's
// EUC tables. Internal to io/pacs.

#include <optional>
#include <string>

namespace delineate::io::detail {

// `bytes` as UTF-8, or nullopt when an escape sequence or byte cannot be read (the caller keeps the bytes).
// `characterSet` is the element's Specific Character Set (backslash-separated), whose first value sets G0/G1 at the
// start of every value (a component delimiter "^" or "=" resets to it, as PS3.5 6.1.2.5.3 says).
std::optional<std::string> iso2022ToUtf8(const std::string& bytes, const std::string& characterSet);

}  // namespace delineate::io::detail
