#include "inference/training/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/file_source.h"
#include "inference/vista3d/checkpoint_reader.h"

namespace delineate::inference::training {

namespace {

constexpr std::uint64_t kAlignment = 64;  // torch's kFieldAlignment
constexpr const char* kPrefix = "archive/";

void put16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

// A pickle (protocol 2) of an OrderedDict of float32 tensors, storage k holding tensor k.
class Pickler {
 public:
  std::string bytes;
  void op(char c) { bytes.push_back(c); }
  void global(const char* module, const char* name) {
    op('c');
    bytes += module;
    bytes += '\n';
    bytes += name;
    bytes += '\n';
  }
  void text(const std::string& s) {
    op('X');
    put32(bytes, static_cast<std::uint32_t>(s.size()));
    bytes += s;
  }
  void integer(std::int64_t v) {
    if (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max()) {
      op('J');
      put32(bytes, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
      return;
    }
    op(static_cast<char>(0x8a));  // LONG1: 8 bytes two's complement
    bytes.push_back(8);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xFF));
  }
  void tuple(const std::vector<std::int64_t>& values) {
    if (values.empty()) {
      op(')');
      return;
    }
    op('(');
    for (const auto v : values) integer(v);
    op('t');
  }
  void emptyOrderedDict() {
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }
};

std::vector<std::int64_t> contiguousStrides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> stride(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  return stride;
}

std::string picklePayload(const std::vector<NamedTensor>& tensors) {
  Pickler p;
  p.op(static_cast<char>(0x80));
  p.bytes.push_back(2);
  p.emptyOrderedDict();
  p.op('(');
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const auto& t = tensors[k];
    p.text(t.name);
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.op('(');
    p.op('(');
    p.text("storage");
    p.global("torch", "FloatStorage");
    p.text(std::to_string(k));
    p.text("cpu");
    p.integer(static_cast<std::int64_t>(t.values.size()));
    p.op('t');
    p.op('Q');  // BINPERSID
    p.integer(0);
    p.tuple(t.shape);
    p.tuple(contiguousStrides(t.shape));
    p.op(static_cast<char>(0x89));  // NEWFALSE: requires_grad
    p.emptyOrderedDict();           // backward hooks
    p.op('t');
    p.op('R');
  }
  p.op('u');
  p.op('.');
  return p.bytes;
}

struct Entry {
  std::string name;
  std::uint32_t crc = 0;
  std::uint64_t size = 0;
  std::uint64_t headerOffset = 0;
};

class ZipWriter {
 public:
  ZipWriter(std::string path, std::unique_ptr<core::OutputFile> file) : m_path(std::move(path)), m_file(std::move(file)) {}

  // One stored record; its data aligned to 64 bytes through the local header's extra field, as torch does.
  core::Status add(const std::string& name, const void* data, std::uint64_t size) {
    Entry e;
    e.name = kPrefix + name;
    e.size = size;
    e.crc = vista3d::crc32Update(0, data, static_cast<std::size_t>(size));
    e.headerOffset = m_offset;
    const std::uint64_t fixed = 30 + e.name.size() + 4;  // the header, the name and the extra field's own header
    const std::uint64_t pad = (kAlignment - (m_offset + fixed) % kAlignment) % kAlignment;
    std::string header;
    put32(header, 0x04034b50);
    put16(header, 20);  // version needed
    put16(header, 0);   // flags
    put16(header, 0);   // stored
    put16(header, 0);   // time
    put16(header, 0x21);  // date (1980-01-01)
    put32(header, e.crc);
    put32(header, static_cast<std::uint32_t>(size));
    put32(header, static_cast<std::uint32_t>(size));
    put16(header, static_cast<std::uint32_t>(e.name.size()));
    put16(header, static_cast<std::uint32_t>(4 + pad));
    header += e.name;
    put16(header, 0x4246);  // "FB": torch's padding field
    put16(header, static_cast<std::uint32_t>(pad));
    header.append(static_cast<std::size_t>(pad), 'Z');
    if (core::Status s = write(header.data(), header.size()); !s) return s;
    if (core::Status s = write(data, size); !s) return s;
    m_entries.push_back(e);
    return core::Status::success();
  }

  core::Status finish() {
    const std::uint64_t directoryOffset = m_offset;
    std::string dir;
    for (const auto& e : m_entries) {
      put32(dir, 0x02014b50);
      put16(dir, 20);  // made by
      put16(dir, 20);  // needed
      put16(dir, 0);
      put16(dir, 0);
      put16(dir, 0);
      put16(dir, 0x21);
      put32(dir, e.crc);
      put32(dir, static_cast<std::uint32_t>(e.size));
      put32(dir, static_cast<std::uint32_t>(e.size));
      put16(dir, static_cast<std::uint32_t>(e.name.size()));
      put16(dir, 0);  // extra
      put16(dir, 0);  // comment
      put16(dir, 0);  // disk
      put16(dir, 0);  // internal attributes
      put32(dir, 0);  // external attributes
      put32(dir, static_cast<std::uint32_t>(e.headerOffset));
      dir += e.name;
    }
    std::string end;
    put32(end, 0x06054b50);
    put16(end, 0);
    put16(end, 0);
    put16(end, static_cast<std::uint32_t>(m_entries.size()));
    put16(end, static_cast<std::uint32_t>(m_entries.size()));
    put32(end, static_cast<std::uint32_t>(dir.size()));
    put32(end, static_cast<std::uint32_t>(directoryOffset));
    put16(end, 0);
    if (m_offset + dir.size() + end.size() > 0xFFFFFFFFull)
      return core::makeError(core::ErrorCode::InvalidArgument, m_path, "a checkpoint over 4 GiB needs ZIP64, which is not written");
    if (core::Status s = write(dir.data(), dir.size()); !s) return s;
    if (core::Status s = write(end.data(), end.size()); !s) return s;
    // On disk before the caller renames it into place: a crash never leaves a complete-looking empty file.
    return m_file->finish();
  }

 private:
  core::Status write(const void* data, std::uint64_t size) {
    if (size)
      if (core::Status s = m_file->write(data, static_cast<std::size_t>(size)); !s) return s;
    m_offset += size;
    if (m_offset > 0xFFFFFFFFull)
      return core::makeError(core::ErrorCode::InvalidArgument, m_path, "a checkpoint over 4 GiB needs ZIP64, which is not written");
    return core::Status::success();
  }
  std::string m_path;
  std::unique_ptr<core::OutputFile> m_file;
  std::uint64_t m_offset = 0;
  std::vector<Entry> m_entries;
};

float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF, bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3FF) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

namespace {

// Without a file source: buffered stdio on a file created 0640 (narrowed by the umask).
class PlainTrainingFile final : public core::OutputFile {
 public:
  PlainTrainingFile(std::FILE* file, std::string path) : m_file(file), m_path(std::move(path)) {}
  ~PlainTrainingFile() override {
    if (m_file) std::fclose(m_file);
  }
  core::Status write(const void* data, std::size_t size) override {
    if (!m_file) return core::makeError(core::ErrorCode::WriteFailed, m_path, "written after it was finished");
    if (std::fwrite(data, 1, size, m_file) != size)
      return core::makeError(core::ErrorCode::WriteFailed, m_path, std::strerror(errno));
    return core::Status::success();
  }
  core::Status finish() override {
    if (!m_file) return core::makeError(core::ErrorCode::WriteFailed, m_path, "finished twice");
    const bool ok = std::fflush(m_file) == 0 && !std::ferror(m_file) && ::fsync(fileno(m_file)) == 0;
    const int error = errno;
    const int rc = std::fclose(m_file);
    m_file = nullptr;
    if (!ok) return core::makeError(core::ErrorCode::WriteFailed, m_path, std::strerror(error));
    if (rc != 0) return core::makeError(core::ErrorCode::WriteFailed, m_path, std::strerror(errno));
    return core::Status::success();
  }

 private:
  std::FILE* m_file;
  std::string m_path;
};

}  // namespace

core::Result<std::unique_ptr<core::OutputFile>> createTrainingFile(const std::string& path) {
  if (auto source = core::fileSource()) return source->create(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) return core::makeError(core::ErrorCode::WriteFailed, path, std::string("cannot create: ") + std::strerror(errno));
  std::FILE* file = ::fdopen(fd, "wb");
  if (!file) {
    const int e = errno;
    ::close(fd);
    return core::makeError(core::ErrorCode::WriteFailed, path, std::string("cannot create: ") + std::strerror(e));
  }
  return std::unique_ptr<core::OutputFile>(std::make_unique<PlainTrainingFile>(file, path));
}

core::Status writeTorchStateDict(const std::string& path, const std::vector<NamedTensor>& tensors) {
  for (const auto& t : tensors) {
    std::int64_t n = 1;
    for (const auto d : t.shape) n *= d;
    if (n != static_cast<std::int64_t>(t.values.size()))
      return core::makeError(core::ErrorCode::InvalidArgument, path, "tensor " + t.name + " does not match its shape");
  }
  auto file = createTrainingFile(path);
  if (!file) return file.error();
  ZipWriter zip(path, std::move(*file));
  const std::string pickle = picklePayload(tensors);
  if (core::Status s = zip.add("data.pkl", pickle.data(), pickle.size()); !s) return s;
  const std::string byteorder = "little";
  if (core::Status s = zip.add("byteorder", byteorder.data(), byteorder.size()); !s) return s;
  for (std::size_t k = 0; k < tensors.size(); ++k)
    if (core::Status s = zip.add("data/" + std::to_string(k), tensors[k].values.data(), tensors[k].values.size() * sizeof(float)); !s)
      return s;
  const std::string version = "3\n";
  if (core::Status s = zip.add("version", version.data(), version.size()); !s) return s;
  return zip.finish();
}

core::Result<std::vector<NamedTensor>> readStateDict(const std::string& path) {
  auto checkpoint = vista3d::readCheckpoint(path);
  if (!checkpoint) return checkpoint.error();
  auto file = core::openInputFile(path);
  if (!file) return file.error();
  std::vector<NamedTensor> out;
  for (const auto& e : checkpoint->tensors) {
    auto bytes = vista3d::readTensorBytes(**file, *checkpoint, e);
    if (!bytes) return bytes.error();
    NamedTensor t;
    t.name = e.name;
    t.shape = e.shape;
    const auto n = static_cast<std::size_t>(e.numel());
    t.values.resize(n);
    switch (e.dtype) {
      case vista3d::DType::Float32:
        std::memcpy(t.values.data(), bytes->data(), n * 4);
        break;
      case vista3d::DType::Float64:
        for (std::size_t i = 0; i < n; ++i) {
          double d;
          std::memcpy(&d, bytes->data() + 8 * i, 8);
          t.values[i] = static_cast<float>(d);
        }
        break;
      case vista3d::DType::Float16:
        for (std::size_t i = 0; i < n; ++i)
          t.values[i] = halfToFloat(static_cast<std::uint16_t>((*bytes)[2 * i] | ((*bytes)[2 * i + 1] << 8)));
        break;
      case vista3d::DType::BFloat16:
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t bits = static_cast<std::uint32_t>((*bytes)[2 * i] | ((*bytes)[2 * i + 1] << 8)) << 16;
          std::memcpy(&t.values[i], &bits, 4);
        }
        break;
      default:
        return core::makeError(core::ErrorCode::ParseError, path,
                               "tensor " + e.name + " is " + vista3d::dtypeName(e.dtype) + ", not a float type");
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace delineate::inference::training
