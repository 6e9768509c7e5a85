#include "core/error.h"

namespace delineate::core {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::InvalidGeometry: return "invalid geometry";
    case ErrorCode::GeometryMismatch: return "geometry mismatch";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::ReadFailed: return "read failed";
    case ErrorCode::WriteFailed: return "write failed";
    case ErrorCode::ParseError: return "parse error";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::SizeLimit: return "size limit";
    case ErrorCode::Corrupt: return "corrupt data";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::OutOfMemory: return "out of memory";
  }
  return "error";
}

std::string Error::describe() const {
  std::string out;
  if (!subject.empty()) {
    out += subject;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
  }
  out += errorCodeName(code);
  if (!detail.empty()) out += ": " + detail;
  return out;
}

}  // namespace delineate::core
