#include "io/pacs/multipart_internal.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>

namespace delineate::io::web_detail {
namespace {
using core::ErrorCode;
using core::makeError;

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}
}  // namespace

MultipartParser::MultipartParser(std::string boundary, std::function<core::Status(MultipartPart&&)> onPart,
                                 std::uint64_t maxPartBytes)
    : m_delimiter("\r\n--" + boundary), m_onPart(std::move(onPart)), m_maxPartBytes(maxPartBytes) {
  // The first delimiter may open the body without a CRLF before it: pretend one was there.
  m_buffer = "\r\n";
}

core::Status MultipartParser::feed(const char* data, std::size_t size) {
  if (m_state == State::Done) return core::Status::success();  // the epilogue is ignored
  m_buffer.append(data, size);
  bool progressed = true;
  while (progressed && m_state != State::Done) {
    progressed = false;
    if (core::Status s = step(progressed); !s) return s;
  }
  return core::Status::success();
}

core::Status MultipartParser::step(bool& progressed) {
  switch (m_state) {
    case State::Preamble: {
      const std::size_t at = m_buffer.find(m_delimiter);
      if (at == std::string::npos) {
        if (m_buffer.size() > kMaxHeaderBytes)
          return makeError(ErrorCode::ParseError, "", "no multipart boundary in the answer's first 64 KiB");
        return core::Status::success();
      }
      m_buffer.erase(0, at + m_delimiter.size());
      m_state = State::AfterDelimiter;
      progressed = true;
      return core::Status::success();
    }
    case State::AfterDelimiter: {
      if (m_buffer.size() < 2) return core::Status::success();
      if (m_buffer.compare(0, 2, "--") == 0) {
        m_state = State::Done;
        m_buffer.clear();
        progressed = true;
        return core::Status::success();
      }
      const std::size_t eol = m_buffer.find("\r\n");
      if (eol == std::string::npos) {
        if (m_buffer.size() > kMaxHeaderBytes) return makeError(ErrorCode::ParseError, "", "a boundary line without its end");
        return core::Status::success();
      }
      m_buffer.erase(0, eol + 2);  // transport padding after the boundary is ignored
      m_state = State::Headers;
      progressed = true;
      return core::Status::success();
    }
    case State::Headers: {
      std::size_t end = std::string::npos;
      std::size_t skip = 0;
      if (m_buffer.compare(0, 2, "\r\n") == 0) {
        end = 0;  // no headers at all
        skip = 2;
      } else if ((end = m_buffer.find("\r\n\r\n")) != std::string::npos) {
        skip = end + 4;
      }
      if (end == std::string::npos) {
        if (m_buffer.size() > kMaxHeaderBytes)
          return makeError(ErrorCode::ParseError, "", "part " + std::to_string(m_parts + 1) + ": headers over 64 KiB");
        return core::Status::success();
      }
      m_part = MultipartPart{};
      m_lengthKnown = false;
      std::size_t pos = 0;
      while (pos < end) {
        std::size_t eol = m_buffer.find("\r\n", pos);
        if (eol == std::string::npos || eol > end) eol = end;
        const std::string line = m_buffer.substr(pos, eol - pos);
        pos = eol + 2;
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string name = lower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        value.erase(value.find_last_not_of(" \t") + 1);
        if (name == "content-type") {
          m_part.contentType = value;
        } else if (name == "content-length") {
          char* stop = nullptr;
          const unsigned long long n = std::strtoull(value.c_str(), &stop, 10);
          if (value.empty() || *stop != '\0')
            return makeError(ErrorCode::ParseError, "",
                             "part " + std::to_string(m_parts + 1) + ": Content-Length \"" + value + "\" is no number");
          m_lengthKnown = true;
          m_length = n;
        }
      }
      if (m_lengthKnown && m_length > m_maxPartBytes)
        return makeError(ErrorCode::SizeLimit, "",
                         "part " + std::to_string(m_parts + 1) + " declares " + std::to_string(m_length) +
                             " bytes, over the limit of " + std::to_string(m_maxPartBytes));
      m_buffer.erase(0, skip);
      m_scanned = 0;
      if (m_lengthKnown) m_buffer.reserve(std::size_t(m_length) + m_delimiter.size() + 64);
      m_state = State::Body;
      progressed = true;
      return core::Status::success();
    }
    case State::Body: {
      std::size_t bodyEnd = std::string::npos;
      if (m_lengthKnown) {
        if (m_buffer.size() < m_length + m_delimiter.size()) return core::Status::success();
        if (m_buffer.compare(std::size_t(m_length), m_delimiter.size(), m_delimiter) != 0)
          return makeError(ErrorCode::Corrupt, "",
                           "part " + std::to_string(m_parts + 1) + ": no boundary after its Content-Length of " +
                               std::to_string(m_length) + " bytes");
        bodyEnd = std::size_t(m_length);
      } else {
        // Search only what is new, with an overlap of the delimiter's length less one.
        const std::size_t from = m_scanned > m_delimiter.size() ? m_scanned - m_delimiter.size() : 0;
        const auto it = std::search(m_buffer.begin() + std::ptrdiff_t(from), m_buffer.end(),
                                    std::boyer_moore_horspool_searcher(m_delimiter.begin(), m_delimiter.end()));
        if (it == m_buffer.end()) {
          m_scanned = m_buffer.size();
          if (m_buffer.size() > m_maxPartBytes)
            return makeError(ErrorCode::SizeLimit, "",
                             "part " + std::to_string(m_parts + 1) + " is over the limit of " +
                                 std::to_string(m_maxPartBytes) + " bytes");
          return core::Status::success();
        }
        bodyEnd = std::size_t(it - m_buffer.begin());
      }
      // Hand over the part without copying it: the buffer becomes the body, the rest starts the next buffer.
      std::string rest = m_buffer.substr(bodyEnd + m_delimiter.size());
      m_buffer.resize(bodyEnd);
      m_part.body = std::move(m_buffer);
      m_buffer = std::move(rest);
      ++m_parts;
      m_state = State::AfterDelimiter;
      progressed = true;
      return m_onPart(std::move(m_part));
    }
    case State::Done:
      return core::Status::success();
  }
  return core::Status::success();
}

core::Status MultipartParser::finish() const {
  if (m_state == State::Done) return core::Status::success();
  if (m_state == State::Preamble && m_parts == 0)
    return makeError(ErrorCode::Corrupt, "", "the answer holds no multipart boundary");
  return makeError(ErrorCode::Corrupt, "",
                   "the answer ended after " + std::to_string(m_parts) +
                       " complete part(s) without its closing boundary (the connection closed mid-answer)");
}

}  // namespace delineate::io::web_detail
