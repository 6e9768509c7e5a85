#pragma once
// A streaming parser of multipart/related bodies (RFC 2046 5.1, RFC 2387), as WADO-RS answers: bytes are fed as they
// arrive and each part is handed over as soon as it is complete, so a study of hundreds of megabytes is never held
// whole; at most one part (one instance) plus a read buffer is in memory.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.h"

namespace delineate::io::web_detail {

struct MultipartPart {
  std::string contentType;  // the part's Content-Type header ("application/dicom"), empty if it had none
  std::string body;
};

class MultipartParser {
 public:
  // `onPart` gets each complete part; an error it returns stops the parse and is returned by feed().
  MultipartParser(std::string boundary, std::function<core::Status(MultipartPart&&)> onPart,
                  std::uint64_t maxPartBytes = std::uint64_t(4) << 30);

  // Bytes of the body, in order. Errors: malformed framing (subject left empty for the caller to name the URL).
  core::Status feed(const char* data, std::size_t size);
  // The body ended: an error unless the closing delimiter was seen (a connection that closed mid-answer).
  core::Status finish() const;

  int parts() const { return m_parts; }
  bool complete() const { return m_state == State::Done; }

 private:
  enum class State { Preamble, AfterDelimiter, Headers, Body, Done };
  core::Status step(bool& progressed);

  std::string m_delimiter;  // "\r\n--" + boundary
  std::function<core::Status(MultipartPart&&)> m_onPart;
  std::uint64_t m_maxPartBytes;
  State m_state = State::Preamble;
  std::string m_buffer;      // bytes not yet consumed
  std::size_t m_scanned = 0;  // in Body without a length: how far m_buffer was searched for the delimiter
  MultipartPart m_part;
  bool m_lengthKnown = false;
  std::uint64_t m_length = 0;
  int m_parts = 0;
};

}  // namespace delineate::io::web_detail
