// Structural pre-scan of a DICOM file: an iterative walk over the element headers that never reads a value, so a
// crafted file cannot make DCMTK recurse without bound or trust a length that runs past the end of the file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include <dcmtk/dcmdata/dctag.h>

#include "io/base/regular_file.h"
#include "io/dicom/dicom_internal.h"

namespace delineate::io::dicom_detail {
namespace {

using core::ErrorCode;
using core::makeError;

constexpr std::uint32_t kUndefined = 0xFFFFFFFFu;
constexpr std::int64_t kMaxInflatedDataset = std::int64_t(1) << 30;

// Random access to the bytes of the file (through a 64 KiB window) or of an inflated buffer.
class Source {
 public:
  virtual ~Source() = default;
  virtual std::int64_t size() const = 0;
  // false on an I/O error (errno set)
  virtual bool read(std::int64_t offset, std::size_t n, std::uint8_t* out) = 0;
};

class FileSource final : public Source {
 public:
  explicit FileSource(RandomAccessFile& file) : m_file(file), m_size(std::int64_t(file.size())), m_window(kWindow) {}
  std::int64_t size() const override { return m_size; }
  bool read(std::int64_t offset, std::size_t n, std::uint8_t* out) override {
    if (offset < m_start || offset + std::int64_t(n) > m_start + m_filled) {
      if (n > kWindow) return readAll(offset, n, out);
      m_start = offset;
      m_filled = 0;
      const std::size_t want = std::size_t(std::min<std::int64_t>(kWindow, m_size - offset));
      if (!readAll(offset, want, m_window.data())) return false;
      m_filled = std::int64_t(want);
    }
    std::memcpy(out, m_window.data() + (offset - m_start), n);
    return true;
  }
  // The reason of the last failed read (a sealed chunk that fails its authentication names itself), if any.
  const std::optional<core::Error>& failure() const { return m_failure; }

 private:
  static constexpr std::size_t kWindow = 64 * 1024;
  bool readAll(std::int64_t offset, std::size_t n, std::uint8_t* out) {
    auto got = m_file.readAt(std::uint64_t(offset), out, n);
    if (!got) {
      m_failure = got.error();
      errno = EIO;
      return false;
    }
    if (*got != n) {
      errno = EIO;
      return false;
    }
    return true;
  }
  RandomAccessFile& m_file;
  std::int64_t m_size;
  std::vector<std::uint8_t> m_window;
  std::int64_t m_start = 0;
  std::int64_t m_filled = 0;
  std::optional<core::Error> m_failure;
};

class MemorySource final : public Source {
 public:
  explicit MemorySource(std::vector<std::uint8_t> bytes) : m_bytes(std::move(bytes)) {}
  std::int64_t size() const override { return std::int64_t(m_bytes.size()); }
  bool read(std::int64_t offset, std::size_t n, std::uint8_t* out) override {
    std::memcpy(out, m_bytes.data() + offset, n);
    return true;
  }

 private:
  std::vector<std::uint8_t> m_bytes;
};

enum class Encoding { ExplicitLittle, ImplicitLittle, ExplicitBig };

std::string hex4(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "%04X", v & 0xFFFFu);
  return b;
}
std::string tagName(std::uint16_t g, std::uint16_t e) { return "(" + hex4(g) + "," + hex4(e) + ")"; }

bool isLongVr(char a, char b) {
  const char vr[3] = {a, b, 0};
  static const char* const kLong[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV"};
  for (const char* l : kLong)
    if (std::strcmp(vr, l) == 0) return true;
  return false;
}
bool looksLikeVr(char a, char b) { return a >= 'A' && a <= 'Z' && b >= 'A' && b <= 'Z'; }

bool dictionarySaysSequence(std::uint16_t g, std::uint16_t e) {
  return DcmTag(g, e).getEVR() == EVR_SQ;
}

struct Walker {
  Source& src;
  const std::string& path;
  Encoding enc;
  PrescanResult& out;

  std::uint16_t u16(const std::uint8_t* p, bool big) const {
    return big ? std::uint16_t(p[0] << 8 | p[1]) : std::uint16_t(p[1] << 8 | p[0]);
  }
  std::uint32_t u32(const std::uint8_t* p, bool big) const {
    return big ? (std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3])
               : (std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0]);
  }

  core::Error truncated(std::int64_t at, const std::string& what) const {
    return makeError(ErrorCode::Corrupt, path,
                     "truncated DICOM file: " + what + " at byte " + std::to_string(at) + " but the file ends at byte " +
                         std::to_string(src.size()));
  }

  // true when every byte from `pos` to the end of the file is zero (padding some writers leave after the dataset)
  bool zeroesToEnd(std::int64_t pos) {
    std::uint8_t buf[4096];
    while (pos < src.size()) {
      const std::size_t n = std::size_t(std::min<std::int64_t>(sizeof buf, src.size() - pos));
      if (!src.read(pos, n, buf)) return false;
      for (std::size_t i = 0; i < n; ++i)
        if (buf[i] != 0) return false;
      pos += std::int64_t(n);
    }
    return true;
  }

  // Walks the dataset from `pos` to the end of the file.
  core::Status walk(std::int64_t pos) {
    struct Frame {
      std::int64_t end;  // -1: undefined length
      bool isSequence;   // sequence (holds items) or item (holds elements)
      bool isPixelSequence;
      bool implicitInside = false;  // an explicit-VR UN of undefined length holds implicit VR (CP-246)
    };
    std::vector<Frame> stack;
    const std::int64_t size = src.size();
    const bool big = enc == Encoding::ExplicitBig;
    int sequenceDepth = 0;
    std::uint8_t h[12];
    for (;;) {
      // close containers whose defined length ends here
      while (!stack.empty() && stack.back().end >= 0 && pos >= stack.back().end) {
        if (pos > stack.back().end)
          return makeError(ErrorCode::Corrupt, path,
                           "element ends at byte " + std::to_string(pos) + ", past the end of its enclosing " +
                               (stack.back().isSequence ? "sequence" : "item") + " at byte " +
                               std::to_string(stack.back().end));
        if (stack.back().isSequence && !stack.back().isPixelSequence) --sequenceDepth;
        stack.pop_back();
      }
      if (pos == size) {
        for (const Frame& f : stack)
          if (f.end < 0) return truncated(pos, "a sequence or item with undefined length is not closed");
        return core::Status::success();
      }
      if (pos + 8 > size) return truncated(pos, "an element header needs 8 bytes");
      if (!src.read(pos, 8, h)) return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
      // Item and delimiter tags are always encoded like implicit VR (in the dataset's byte order).
      const std::uint16_t group = u16(h, big), element = u16(h + 2, big);
      const bool inSequence = !stack.empty() && stack.back().isSequence;
      if (stack.empty() && group == 0 && element == 0 && zeroesToEnd(pos)) return core::Status::success();
      const bool implicitHere = enc == Encoding::ImplicitLittle || (!stack.empty() && stack.back().implicitInside);
      if (group == 0xFFFE) {
        const std::uint32_t len = u32(h + 4, big);
        if (element == 0xE000) {
          if (!inSequence)
            return makeError(ErrorCode::ParseError, path,
                             "item tag (FFFE,E000) outside a sequence at byte " + std::to_string(pos));
          pos += 8;
          if (stack.back().isPixelSequence) {  // a fragment: skip its bytes
            if (stack.size() == 1) ++out.pixelItems;
            if (len == kUndefined)
              return makeError(ErrorCode::ParseError, path, "pixel data fragment with undefined length");
            if (pos + std::int64_t(len) > size) return truncated(pos, "a pixel data fragment of " + std::to_string(len) + " bytes starts");
            pos += len;
            continue;
          }
          const std::int64_t end = len == kUndefined ? -1 : pos + std::int64_t(len);
          if (end > size) return truncated(pos, "an item of " + std::to_string(len) + " bytes starts");
          stack.push_back(Frame{end, false, false, stack.back().implicitInside});
          continue;
        }
        if (element == 0xE00D) {  // item delimiter
          if (stack.empty() || stack.back().isSequence || stack.back().end >= 0)
            return makeError(ErrorCode::ParseError, path,
                             "unexpected item delimiter (FFFE,E00D) at byte " + std::to_string(pos));
          stack.pop_back();
          pos += 8;
          continue;
        }
        if (element == 0xE0DD) {  // sequence delimiter
          if (!inSequence || stack.back().end >= 0)
            return makeError(ErrorCode::ParseError, path,
                             "unexpected sequence delimiter (FFFE,E0DD) at byte " + std::to_string(pos));
          if (!stack.back().isPixelSequence) --sequenceDepth;
          stack.pop_back();
          pos += 8;
          continue;
        }
        return makeError(ErrorCode::ParseError, path, "unknown delimiter tag " + tagName(group, element));
      }
      if (inSequence)
        return makeError(ErrorCode::ParseError, path,
                         "element " + tagName(group, element) + " directly inside a sequence (an item was expected) at byte " +
                             std::to_string(pos));

      bool isSq = false;
      std::uint32_t len = 0;
      std::int64_t valuePos = 0;
      bool unknownVr = false;
      if (implicitHere) {
        len = u32(h + 4, false);
        valuePos = pos + 8;
        isSq = len == kUndefined ? !(group == 0x7FE0 && element == 0x0010) : dictionarySaysSequence(group, element);
      } else {
        const char a = char(h[4]), b = char(h[5]);
        if (!looksLikeVr(a, b))
          return makeError(ErrorCode::ParseError, path,
                           "element " + tagName(group, element) + " at byte " + std::to_string(pos) +
                               " has no valid VR (the file is damaged or not DICOM)");
        if (isLongVr(a, b)) {
          if (pos + 12 > size) return truncated(pos, "an element header needs 12 bytes");
          if (!src.read(pos, 12, h)) return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
          len = u32(h + 8, big);
          valuePos = pos + 12;
        } else {
          len = u16(h + 6, big);
          valuePos = pos + 8;
        }
        unknownVr = a == 'U' && b == 'N';
        isSq = (a == 'S' && b == 'Q') || (len == kUndefined && unknownVr);
      }
      const bool implicitChildren = implicitHere || (len == kUndefined && unknownVr);
      const bool isPixelData = group == 0x7FE0 && element == 0x0010 && stack.empty();
      if (len == kUndefined) {
        if (group == 0x7FE0 && element == 0x0010) {
          if (isPixelData) {
            out.pixelDataPresent = true;
            out.pixelDataEncapsulated = true;
            out.pixelDataElementOffset = pos;
          }
          stack.push_back(Frame{-1, true, true});
        } else if (isSq) {
          stack.push_back(Frame{-1, true, false, implicitChildren});
          ++sequenceDepth;
        } else {
          return makeError(ErrorCode::ParseError, path,
                           "element " + tagName(group, element) + " has undefined length but is not a sequence");
        }
        pos = valuePos;
      } else {
        const std::int64_t end = valuePos + std::int64_t(len);
        if (end > size)
          return makeError(ErrorCode::Corrupt, path,
                           "value length " + std::to_string(len) + " of element " + tagName(group, element) +
                               " at byte " + std::to_string(pos) + " runs past the end of the file (" +
                               std::to_string(size) + " bytes): truncated or damaged");
        if (isSq) {
          stack.push_back(Frame{end, true, false, implicitChildren});
          ++sequenceDepth;
          pos = valuePos;
        } else {
          if (isPixelData) {
            out.pixelDataPresent = true;
            out.pixelDataOffset = valuePos;
            out.pixelDataLength = len;
            out.pixelDataElementOffset = pos;
          } else if (stack.empty() && len <= 128 &&
                     ((group == 0x0020 && (element == 0x000D || element == 0x000E)) ||
                      (group == 0x0008 && element == 0x0018))) {
            std::string value(len, '\0');
            if (len > 0 && !src.read(valuePos, len, reinterpret_cast<std::uint8_t*>(value.data())))
              return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
            while (!value.empty() && (value.back() == ' ' || value.back() == '\0')) value.pop_back();
            (group == 0x0008 ? out.storedSopInstanceUid
             : element == 0x000D ? out.storedStudyUid
                                 : out.storedSeriesUid) = value;
          } else if (stack.empty() && group == 0x7FE0 && (element == 0x0008 || element == 0x0009)) {
            out.floatPixelDataPresent = true;
          } else if (stack.empty() && group == 0x0028 && len == 2 &&
                     (element == 0x0010 || element == 0x0011 || (element >= 0x0100 && element <= 0x0103))) {
            std::uint8_t v[2];
            if (!src.read(valuePos, 2, v)) return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
            const int value = u16(v, big);
            switch (element) {
              case 0x0010: out.rows = value; break;
              case 0x0011: out.columns = value; break;
              case 0x0100: out.bitsAllocated = value; break;
              case 0x0101: out.bitsStored = value; break;
              case 0x0102: out.highBit = value; break;
              default: out.pixelRepresentation = value; break;
            }
          }
          pos = end;
        }
      }
      if (sequenceDepth > out.maxSequenceDepth) out.maxSequenceDepth = sequenceDepth;
      if (sequenceDepth > kMaxSequenceDepth)
        return makeError(ErrorCode::SizeLimit, path,
                         "sequences nested more than " + std::to_string(kMaxSequenceDepth) +
                             " levels deep (nesting depth limit; real DICOM objects use fewer than 10)");
    }
  }
};

core::Result<std::vector<std::uint8_t>> inflateDataset(Source& src, std::int64_t from, const std::string& path) {
  const std::int64_t n = src.size() - from;
  if (n > kMaxInflatedDataset)
    return makeError(ErrorCode::SizeLimit, path, "deflated dataset larger than 1 GiB");
  std::vector<std::uint8_t> in(std::size_t(std::max<std::int64_t>(n, 0)));
  if (n > 0 && !src.read(from, in.size(), in.data())) return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return makeError(ErrorCode::OutOfMemory, path, "zlib init failed");
  std::vector<std::uint8_t> out;
  zs.next_in = in.data();
  zs.avail_in = uInt(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (std::int64_t(out.size()) >= kMaxInflatedDataset) {
      inflateEnd(&zs);
      return makeError(ErrorCode::SizeLimit, path, "deflated dataset inflates beyond 1 GiB (a deflate bomb?)");
    }
    const std::size_t old = out.size();
    out.resize(old + 256 * 1024);
    zs.next_out = out.data() + old;
    zs.avail_out = 256 * 1024;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(out.size() - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // stream ends without a final block: keep what we have
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      inflateEnd(&zs);
      return makeError(ErrorCode::Corrupt, path, "deflated dataset is damaged (zlib: " +
                                                     std::string(zs.msg ? zs.msg : "error") + ")");
    }
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

std::string storedUid(const PrescanResult& pre, std::uint16_t group, std::uint16_t element, const std::string& parsed) {
  const std::string& stored = group == 0x0008 && element == 0x0018   ? pre.storedSopInstanceUid
                              : group == 0x0020 && element == 0x000D ? pre.storedStudyUid
                              : group == 0x0020 && element == 0x000E ? pre.storedSeriesUid
                                                                     : parsed;
  std::size_t start = 0;
  while (start < stored.size() && stored[start] == ' ') ++start;
  return stored.empty() ? parsed : stored.substr(start);
}

bool isJpeg2000Syntax(const std::string& uid) {
  return uid == "1.2.840.10008.1.2.4.90" || uid == "1.2.840.10008.1.2.4.91" || uid == "1.2.840.10008.1.2.4.92" ||
         uid == "1.2.840.10008.1.2.4.93" ||
         // High-Throughput JPEG 2000 (lossless, RPCL lossless, lossy): OpenJPEG 2.5 decodes HTJ2K code streams.
         // No HTJ2K file is in the test data, so this path is untested.
         uid == "1.2.840.10008.1.2.4.201" || uid == "1.2.840.10008.1.2.4.202" || uid == "1.2.840.10008.1.2.4.203";
}

bool isNativeSyntax(const std::string& uid) {
  return uid.empty() || uid == "1.2.840.10008.1.2" || uid == "1.2.840.10008.1.2.1" || uid == "1.2.840.10008.1.2.2";
}

core::Result<PrescanResult> prescanDicomFile(const std::string& path) {
  PrescanResult result;
  core::Status s = prescanDicomFile(path, [&](RandomAccessFile&, const PrescanResult& r) {
    result = r;
    return core::Status::success();
  });
  if (!s) return s.error();
  return result;
}

namespace {

core::Status prescanOpenFile(const std::string& path, RandomAccessFile& opened, FileSource& file,
                             const std::function<core::Status(RandomAccessFile&, const PrescanResult&)>& then);

}  // namespace

core::Status prescanDicomFile(const std::string& path,
                              const std::function<core::Status(RandomAccessFile&, const PrescanResult&)>& then) {
  // Every single-file DICOM read (headers, frames, SEG, SR) starts here, so a pipe, socket, device or folder is
  // refused here before it is opened (a FIFO would block the open, and DCMTK's own open after it, forever). A sealed
  // file (io/base/sealed_file.h) is read as its content, decrypting only the chunks read.
  auto opened = RandomAccessFile::open(path, "DICOM file");
  if (!opened) return opened.error();
  FileSource file(*opened);
  core::Status s = prescanOpenFile(path, *opened, file, then);
  // A read that failed for a reason of its own (a sealed chunk that fails its tag) is named by that reason.
  if (!s && file.failure()) return *file.failure();
  return s;
}

namespace {

core::Status prescanOpenFile(const std::string& path, RandomAccessFile& opened, FileSource& file,
                             const std::function<core::Status(RandomAccessFile&, const PrescanResult&)>& then) {
  PrescanResult out;
  const std::int64_t size = file.size();
  std::uint8_t head[132 + 12];
  std::int64_t pos = 0;
  if (size >= 132 && file.read(0, 132, head) && std::memcmp(head + 128, "DICM", 4) == 0) {
    out.hasPreamble = true;
    pos = 132;
  }

  // File meta group: explicit VR little endian, read element by element (values are small).
  Encoding enc = Encoding::ExplicitLittle;
  if (out.hasPreamble) {
    for (;;) {
      if (pos + 8 > size) break;
      std::uint8_t h[12];
      if (!file.read(pos, 8, h)) return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
      const std::uint16_t group = std::uint16_t(h[1] << 8 | h[0]);
      if (group != 0x0002) break;
      const std::uint16_t element = std::uint16_t(h[3] << 8 | h[2]);
      std::uint32_t len;
      std::int64_t valuePos;
      if (!looksLikeVr(char(h[4]), char(h[5])))
        return makeError(ErrorCode::ParseError, path, "file meta information element has no VR at byte " + std::to_string(pos));
      if (isLongVr(char(h[4]), char(h[5]))) {
        if (pos + 12 > size || !file.read(pos, 12, h)) return makeError(ErrorCode::Corrupt, path, "truncated DICOM file: file meta information ends early");
        len = std::uint32_t(h[11]) << 24 | std::uint32_t(h[10]) << 16 | std::uint32_t(h[9]) << 8 | h[8];
        valuePos = pos + 12;
      } else {
        len = std::uint32_t(h[7] << 8 | h[6]);
        valuePos = pos + 8;
      }
      if (len == kUndefined || valuePos + std::int64_t(len) > size)
        return makeError(ErrorCode::Corrupt, path,
                         "truncated DICOM file: file meta element " + tagName(group, element) + " declares " +
                             std::to_string(len) + " bytes beyond the end of the file");
      if (element == 0x0010) {
        if (len > 256) return makeError(ErrorCode::ParseError, path, "TransferSyntaxUID longer than 256 bytes");
        std::string uid(len, '\0');
        if (len > 0 && !file.read(valuePos, len, reinterpret_cast<std::uint8_t*>(uid.data())))
          return makeError(ErrorCode::ReadFailed, path, std::strerror(errno));
        while (!uid.empty() && (uid.back() == '\0' || uid.back() == ' ')) uid.pop_back();
        out.transferSyntaxUid = uid;
      }
      pos = valuePos + len;
    }
    const std::string& ts = out.transferSyntaxUid;
    if (ts == "1.2.840.10008.1.2") enc = Encoding::ImplicitLittle;
    else if (ts == "1.2.840.10008.1.2.2") enc = Encoding::ExplicitBig;
  } else {
    // No preamble: a bare dataset. Guess the encoding from the first element the way DCMTK does.
    if (size < 8 || !file.read(0, 8, head)) return makeError(ErrorCode::ParseError, path, "not a DICOM file (too short)");
    const std::uint16_t group = std::uint16_t(head[1] << 8 | head[0]);
    if (group != 0x0002 && group != 0x0008 && group != 0x0010 && group != 0x0018 && group != 0x0020 &&
        group != 0x0028)
      return makeError(ErrorCode::ParseError, path, "not a DICOM file (no DICM preamble and no dataset start)");
    enc = looksLikeVr(char(head[4]), char(head[5])) ? Encoding::ExplicitLittle : Encoding::ImplicitLittle;
  }

  if (out.transferSyntaxUid == "1.2.840.10008.1.2.1.99") {  // deflated explicit little endian
    auto inflated = inflateDataset(file, pos, path);
    if (!inflated) return inflated.error();
    MemorySource mem(std::move(*inflated));
    Walker w{mem, path, Encoding::ExplicitLittle, out};
    if (core::Status s = w.walk(0); !s) return s;
    out.pixelDataOffset = -1;  // offsets refer to the inflated stream
    out.pixelDataElementOffset = -1;
    return then(opened, out);
  }
  out.bigEndian = enc == Encoding::ExplicitBig;
  Walker w{file, path, enc, out};
  if (core::Status s = w.walk(pos); !s) return s;
  return then(opened, out);
}

}  // namespace

}  // namespace delineate::io::dicom_detail
