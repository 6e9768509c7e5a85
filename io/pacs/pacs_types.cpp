#include "io/pacs/pacs_types.h"

namespace delineate::io {

std::string DimseNode::describe() const {
  return aeTitle + "@" + host + ":" + std::to_string(port) + (tls.enabled ? " (TLS)" : "");
}

std::string DicomWebService::describe() const {
  // A URL may carry "user:password@": never print it.
  std::string url = baseUrl;
  const std::size_t scheme = url.find("://");
  const std::size_t at = url.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  const std::size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme != std::string::npos && at != std::string::npos && (slash == std::string::npos || at < slash))
    url = url.substr(0, scheme + 3) + url.substr(at + 1);
  return url;
}

const char* queryLevelName(QueryLevel level) {
  switch (level) {
    case QueryLevel::Patient: return "PATIENT";
    case QueryLevel::Study: return "STUDY";
    case QueryLevel::Series: return "SERIES";
    case QueryLevel::Instance: return "IMAGE";
  }
  return "STUDY";
}

bool isDicomUid(const std::string& uid) {
  if (uid.empty() || uid.size() > 64) return false;
  bool componentStart = true;
  for (std::size_t i = 0; i < uid.size(); ++i) {
    const char c = uid[i];
    if (c == '.') {
      if (componentStart) return false;  // empty component
      componentStart = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    // A component is "0" or starts with a non-zero digit.
    if (componentStart && c == '0' && i + 1 < uid.size() && uid[i + 1] != '.') return false;
    componentStart = false;
  }
  return !componentStart;
}

bool isAeTitle(const std::string& ae) {
  if (ae.empty() || ae.size() > 16) return false;
  bool allSpaces = true;
  for (const char c : ae) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e || c == '\\') return false;
    if (c != ' ') allSpaces = false;
  }
  return !allSpaces;
}

}  // namespace delineate::io
