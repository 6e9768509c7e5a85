#pragma once
// Typed errors returned by every layer below app/. app/ turns them into translated words; the CLI prints describe().

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace delineate::core {

enum class ErrorCode {
  InvalidArgument,   // caller passed something unusable
  InvalidGeometry,   // spacing/direction/dimensions rejected by Geometry::validate
  GeometryMismatch,  // two grids that must agree do not
  NotFound,          // file or entry missing
  ReadFailed,        // the OS refused or the stream broke while reading
  WriteFailed,       // the OS refused or the stream broke while writing
  ParseError,        // malformed content; line is set where it makes sense
  Unsupported,       // a valid file using a feature we do not implement
  SizeLimit,         // a size declared in a header is impossible or exceeds a limit
  Corrupt,           // content contradicts itself (truncated data, bad checksum)
  Cancelled,         // the user cancelled
  OutOfMemory,
};

const char* errorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::InvalidArgument;
  std::string subject;  // the file, peer or object the error is about
  std::string detail;   // the reason, in English, for logs and the CLI
  int line = 0;         // 1-based line number in `subject`, 0 when not applicable

  // "file.txt:12: parse error: expected 6 fields"
  std::string describe() const;
};

inline Error makeError(ErrorCode code, std::string subject, std::string detail, int line = 0) {
  return Error{code, std::move(subject), std::move(detail), line};
}

// A value or an Error. Small on purpose: C++17 has no std::expected.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}  // NOLINT(implicit)
  Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}  // NOLINT(implicit)

  bool ok() const { return m_state.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(m_state); }
  const T& value() const& { assert(ok()); return std::get<0>(m_state); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(m_state)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(m_state); }

 private:
  std::variant<T, Error> m_state;
};

// Success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : m_error(std::move(error)) {}  // NOLINT(implicit)
  static Status success() { return Status(); }

  bool ok() const { return !m_error.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { assert(!ok()); return *m_error; }

 private:
  std::optional<Error> m_error;
};

}  // namespace delineate::core
