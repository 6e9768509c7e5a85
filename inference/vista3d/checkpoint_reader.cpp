#include "inference/vista3d/checkpoint_reader.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <new>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/file_source.h"

namespace delineate::inference::vista3d {
namespace {

core::Error fail(const std::string& path, const std::string& why) {
  return core::makeError(core::ErrorCode::ParseError, path, why);
}

std::uint32_t crc32Table(std::uint32_t i) {
  std::uint32_t c = i;
  for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  return c;
}

std::uint32_t crc32(const std::uint8_t* p, std::size_t n) { return crc32Update(0, p, n); }

std::uint64_t le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Reads exactly n bytes at offset; false when the file is shorter.
bool readAt(std::istream& f, std::uint64_t offset, std::size_t n, std::vector<std::uint8_t>& out) {
  out.resize(n);
  f.clear();
  f.seekg(static_cast<std::streamoff>(offset));
  if (!f) return false;
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  return static_cast<std::size_t>(f.gcount()) == n;
}

struct ZipEntry {
  std::uint64_t size = 0;
  std::uint64_t dataOffset = 0;
  std::uint32_t crc = 0;
};

core::Result<std::map<std::string, ZipEntry>> readZipDirectory(std::istream& f, std::uint64_t fileSize,
                                                              const std::string& path) {
  if (fileSize < 22) return fail(path, "not a zip file (too short for a torch.save checkpoint)");
  const std::uint64_t tail = std::min<std::uint64_t>(fileSize, 22 + 65535);
  std::vector<std::uint8_t> t;
  if (!readAt(f, fileSize - tail, static_cast<std::size_t>(tail), t)) return fail(path, "could not read the zip directory");
  std::int64_t eocd = -1;
  for (std::int64_t i = static_cast<std::int64_t>(t.size()) - 22; i >= 0; --i)
    if (le(&t[static_cast<std::size_t>(i)], 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) return fail(path, "not a zip file (no end of central directory): not a torch.save checkpoint");
  const std::uint8_t* e = &t[static_cast<std::size_t>(eocd)];
  std::uint64_t count = le(e + 10, 2), cdSize = le(e + 12, 4), cdOffset = le(e + 16, 4);
  if (count == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
    // ZIP64: the locator sits just before the end record.
    if (eocd < 20 || le(e - 20, 4) != 0x07064b50) return fail(path, "a ZIP64 archive without its locator");
    const std::uint64_t recordOffset = le(e - 20 + 8, 8);
    std::vector<std::uint8_t> r;
    if (recordOffset + 56 > fileSize || !readAt(f, recordOffset, 56, r) || le(r.data(), 4) != 0x06064b50)
      return fail(path, "a damaged ZIP64 end record");
    count = le(r.data() + 32, 8);
    cdSize = le(r.data() + 40, 8);
    cdOffset = le(r.data() + 48, 8);
  }
  if (cdOffset > fileSize || cdSize > fileSize - cdOffset) return fail(path, "the zip directory lies beyond the end of the file");
  std::vector<std::uint8_t> cd;
  if (!readAt(f, cdOffset, static_cast<std::size_t>(cdSize), cd)) return fail(path, "could not read the zip directory");
  std::map<std::string, ZipEntry> entries;
  std::size_t p = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (p + 46 > cd.size() || le(&cd[p], 4) != 0x02014b50) return fail(path, "a damaged zip directory entry");
    const std::uint8_t* h = &cd[p];
    const auto method = le(h + 10, 2);
    ZipEntry z;
    z.crc = static_cast<std::uint32_t>(le(h + 16, 4));
    std::uint64_t compressed = le(h + 20, 4), size = le(h + 24, 4), local = le(h + 42, 4);
    const std::size_t nameLen = le(h + 28, 2), extraLen = le(h + 30, 2), commentLen = le(h + 32, 2);
    if (p + 46 + nameLen + extraLen + commentLen > cd.size()) return fail(path, "a damaged zip directory entry");
    const std::string name(reinterpret_cast<const char*>(h + 46), nameLen);
    // ZIP64 sizes and offsets, in this order, for the fields that hold all ones.
    for (std::size_t x = 46 + nameLen; x + 4 <= 46 + nameLen + extraLen;) {
      const auto id = le(h + x, 2), len = le(h + x + 2, 2);
      if (x + 4 + len > 46 + nameLen + extraLen) break;
      if (id == 0x0001) {
        std::size_t q = x + 4;
        auto next = [&](std::uint64_t& v) {
          if (v == 0xFFFFFFFF && q + 8 <= x + 4 + len) {
            v = le(h + q, 8);
            q += 8;
          }
        };
        next(size);
        next(compressed);
        next(local);
      }
      x += 4 + static_cast<std::size_t>(len);
    }
    p += 46 + nameLen + extraLen + commentLen;
    if (method != 0) return fail(path, "entry " + name + " is compressed (torch.save stores entries uncompressed)");
    if (compressed != size) return fail(path, "entry " + name + " has inconsistent sizes");
    std::vector<std::uint8_t> lh;
    if (local + 30 > fileSize || !readAt(f, local, 30, lh) || le(lh.data(), 4) != 0x04034b50)
      return fail(path, "entry " + name + ": damaged local header");
    z.dataOffset = local + 30 + le(lh.data() + 26, 2) + le(lh.data() + 28, 2);
    z.size = size;
    if (z.dataOffset > fileSize || size > fileSize - z.dataOffset)
      return fail(path, "entry " + name + " runs past the end of the file (truncated?)");
    entries[name] = z;
  }
  return entries;
}

// Opens `path` for reading (through the program's file source: a sealed copy reads as its content) and measures it.
core::Result<std::uint64_t> openChecked(const std::string& path, std::unique_ptr<std::istream>& f) {
  auto opened = core::openInputFile(path);
  if (!opened) return opened.error();
  f = std::move(*opened);
  f->seekg(0, std::ios::end);
  const auto size = f->tellg();
  if (!*f || size < 0) return core::makeError(core::ErrorCode::ReadFailed, path, "cannot measure the checkpoint");
  return static_cast<std::uint64_t>(size);
}

// ---- the pickle subset ----

struct Value;
using ValuePtr = std::shared_ptr<Value>;
struct Global {
  std::string module, name;
};
struct Mark {};
struct None {};
struct Tuple {
  std::vector<ValuePtr> items;
};
struct Dict {
  std::vector<std::pair<ValuePtr, ValuePtr>> items;
};
struct Storage {
  DType dtype;
  std::string key;
  std::int64_t numel;
};
struct Tensor {
  TensorEntry entry;
};
struct Value {
  std::variant<None, bool, std::int64_t, std::string, Global, Mark, Tuple, Dict, Storage, Tensor> v;
};

ValuePtr make(decltype(Value::v) v) { return std::make_shared<Value>(Value{std::move(v)}); }

bool storageType(const std::string& name, DType& t) {
  static const std::pair<const char*, DType> kinds[] = {
      {"FloatStorage", DType::Float32}, {"DoubleStorage", DType::Float64}, {"HalfStorage", DType::Float16},
      {"BFloat16Storage", DType::BFloat16}, {"LongStorage", DType::Int64}, {"IntStorage", DType::Int32},
      {"ShortStorage", DType::Int16}, {"CharStorage", DType::Int8}, {"ByteStorage", DType::UInt8},
      {"BoolStorage", DType::Bool}};
  for (const auto& [n, d] : kinds)
    if (name == n) {
      t = d;
      return true;
    }
  return false;
}

class PickleVm {
 public:
  PickleVm(const std::vector<std::uint8_t>& data, std::string path) : m_d(data), m_path(std::move(path)) {}

  core::Result<ValuePtr> run() {
    while (m_p < m_d.size()) {
      const std::size_t at = m_p;
      const std::uint8_t op = m_d[m_p++];
      core::Status s = step(op, at);
      if (!s) return s.error();
      if (m_stopped) {
        if (m_stack.size() != 1) return error(at, "the pickle ends with " + std::to_string(m_stack.size()) + " values");
        return m_stack.back();
      }
    }
    return error(m_p, "the pickle ends without STOP (truncated?)");
  }

 private:
  core::Error error(std::size_t at, const std::string& why) const {
    return fail(m_path, "data.pkl at byte " + std::to_string(at) + ": " + why);
  }
  bool need(std::size_t n) const { return m_p + n <= m_d.size(); }
  std::uint64_t take(int n) {
    const std::uint64_t v = le(&m_d[m_p], n);
    m_p += static_cast<std::size_t>(n);
    return v;
  }
  core::Status pop(ValuePtr& out, std::size_t at) {
    if (m_stack.empty()) return error(at, "stack underflow");
    out = m_stack.back();
    m_stack.pop_back();
    return core::Status::success();
  }
  // The values above the topmost mark, removed with the mark.
  core::Status popToMark(std::vector<ValuePtr>& out, std::size_t at) {
    for (std::size_t i = m_stack.size(); i-- > 0;)
      if (std::holds_alternative<Mark>(m_stack[i]->v)) {
        out.assign(m_stack.begin() + static_cast<std::ptrdiff_t>(i) + 1, m_stack.end());
        m_stack.resize(i);
        return core::Status::success();
      }
    return error(at, "no MARK on the stack");
  }
  core::Status step(std::uint8_t op, std::size_t at);
  core::Status reduce(const ValuePtr& callable, const ValuePtr& args, std::size_t at);
  core::Status persistentLoad(const ValuePtr& pid, std::size_t at);

  const std::vector<std::uint8_t>& m_d;
  std::string m_path;
  std::size_t m_p = 0;
  bool m_stopped = false;
  std::vector<ValuePtr> m_stack;
  std::map<std::uint64_t, ValuePtr> m_memo;
};

core::Status PickleVm::step(std::uint8_t op, std::size_t at) {
  auto needOr = [&](std::size_t n) -> core::Status {
    if (!need(n)) return error(at, "truncated opcode argument");
    return core::Status::success();
  };
  switch (op) {
    case 0x80: {  // PROTO
      if (core::Status s = needOr(1); !s) return s;
      const auto v = take(1);
      if (v > 5) return error(at, "pickle protocol " + std::to_string(v) + " is not supported");
      return core::Status::success();
    }
    case 'c': {  // GLOBAL "module\nname\n"
      std::string parts[2];
      for (auto& part : parts) {
        const auto nl = std::find(m_d.begin() + static_cast<std::ptrdiff_t>(m_p), m_d.end(), '\n');
        if (nl == m_d.end()) return error(at, "truncated GLOBAL");
        part.assign(m_d.begin() + static_cast<std::ptrdiff_t>(m_p), nl);
        m_p = static_cast<std::size_t>(nl - m_d.begin()) + 1;
      }
      DType t{};
      const bool allowed = (parts[0] == "collections" && parts[1] == "OrderedDict") ||
                           (parts[0] == "torch._utils" && parts[1] == "_rebuild_tensor_v2") ||
                           (parts[0] == "torch" && storageType(parts[1], t));
      if (!allowed)
        return error(at, "refused global " + parts[0] + "." + parts[1] +
                             " (a checkpoint may only rebuild tensors; this pickle would run other code)");
      m_stack.push_back(make(Global{parts[0], parts[1]}));
      return core::Status::success();
    }
    case 'q':  // BINPUT
    case 'r': {  // LONG_BINPUT
      const int n = op == 'q' ? 1 : 4;
      if (core::Status s = needOr(static_cast<std::size_t>(n)); !s) return s;
      if (m_stack.empty()) return error(at, "PUT on an empty stack");
      m_memo[take(n)] = m_stack.back();
      return core::Status::success();
    }
    case 'h':  // BINGET
    case 'j': {  // LONG_BINGET
      const int n = op == 'h' ? 1 : 4;
      if (core::Status s = needOr(static_cast<std::size_t>(n)); !s) return s;
      const auto it = m_memo.find(take(n));
      if (it == m_memo.end()) return error(at, "GET of an unknown memo slot");
      m_stack.push_back(it->second);
      return core::Status::success();
    }
    case '(':  // MARK
      m_stack.push_back(make(Mark{}));
      return core::Status::success();
    case ')':  // EMPTY_TUPLE
      m_stack.push_back(make(Tuple{}));
      return core::Status::success();
    case 't': {  // TUPLE
      Tuple tup;
      if (core::Status s = popToMark(tup.items, at); !s) return s;
      m_stack.push_back(make(std::move(tup)));
      return core::Status::success();
    }
    case 0x85:  // TUPLE1
    case 0x86:  // TUPLE2
    case 0x87: {  // TUPLE3
      const std::size_t n = static_cast<std::size_t>(op - 0x84);
      if (m_stack.size() < n) return error(at, "stack underflow");
      Tuple tup;
      tup.items.assign(m_stack.end() - static_cast<std::ptrdiff_t>(n), m_stack.end());
      m_stack.resize(m_stack.size() - n);
      m_stack.push_back(make(std::move(tup)));
      return core::Status::success();
    }
    case '}':  // EMPTY_DICT
      m_stack.push_back(make(Dict{}));
      return core::Status::success();
    case 's':  // SETITEM
    case 'u': {  // SETITEMS
      std::vector<ValuePtr> items;
      if (op == 's') {
        ValuePtr k, v;
        if (core::Status s = pop(v, at); !s) return s;
        if (core::Status s = pop(k, at); !s) return s;
        items = {k, v};
      } else if (core::Status s = popToMark(items, at); !s) {
        return s;
      }
      if (items.size() % 2) return error(at, "SETITEMS with an odd number of values");
      if (m_stack.empty() || !std::holds_alternative<Dict>(m_stack.back()->v)) return error(at, "SETITEM on a non-dict");
      auto& dict = std::get<Dict>(m_stack.back()->v);
      for (std::size_t i = 0; i < items.size(); i += 2) dict.items.emplace_back(items[i], items[i + 1]);
      return core::Status::success();
    }
    case 'X':     // BINUNICODE
    case 0x8c: {  // SHORT_BINUNICODE (protocol 4)
      const int width = op == 'X' ? 4 : 1;
      if (core::Status s = needOr(static_cast<std::size_t>(width)); !s) return s;
      const auto n = take(width);
      if (!need(static_cast<std::size_t>(n))) return error(at, "truncated string");
      m_stack.push_back(make(std::string(reinterpret_cast<const char*>(&m_d[m_p]), static_cast<std::size_t>(n))));
      m_p += static_cast<std::size_t>(n);
      return core::Status::success();
    }
    case 'J':  // BININT
    case 'K':  // BININT1
    case 'M': {  // BININT2
      const int n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      if (core::Status s = needOr(static_cast<std::size_t>(n)); !s) return s;
      std::int64_t v = static_cast<std::int64_t>(take(n));
      if (n == 4) v = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
      m_stack.push_back(make(v));
      return core::Status::success();
    }
    case 0x8a: {  // LONG1
      if (core::Status s = needOr(1); !s) return s;
      const auto n = static_cast<std::size_t>(take(1));
      if (n > 8 || !need(n)) return error(at, "an integer wider than 64 bits");
      std::uint64_t u = n ? le(&m_d[m_p], static_cast<int>(n)) : 0;
      if (n && n < 8 && (m_d[m_p + n - 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * n);  // sign-extend
      m_p += n;
      m_stack.push_back(make(static_cast<std::int64_t>(u)));
      return core::Status::success();
    }
    case 0x88:  // NEWTRUE
    case 0x89:  // NEWFALSE
      m_stack.push_back(make(op == 0x88));
      return core::Status::success();
    case 'N':  // NONE
      m_stack.push_back(make(None{}));
      return core::Status::success();
    case 'R': {  // REDUCE
      ValuePtr args, callable;
      if (core::Status s = pop(args, at); !s) return s;
      if (core::Status s = pop(callable, at); !s) return s;
      return reduce(callable, args, at);
    }
    case 'Q': {  // BINPERSID
      ValuePtr pid;
      if (core::Status s = pop(pid, at); !s) return s;
      return persistentLoad(pid, at);
    }
    case 'b': {  // BUILD: the OrderedDict's state (state_dict metadata) is not needed
      ValuePtr state;
      if (core::Status s = pop(state, at); !s) return s;
      if (m_stack.empty() || !std::holds_alternative<Dict>(m_stack.back()->v))
        return error(at, "BUILD on something other than a dict");
      return core::Status::success();
    }
    case '.':  // STOP
      m_stopped = true;
      return core::Status::success();
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      return error(at, std::string("refused opcode ") + hex + " (not part of a state_dict pickle)");
    }
  }
}

core::Status PickleVm::persistentLoad(const ValuePtr& pid, std::size_t at) {
  // ('storage', StorageType, key, location, numel)
  const auto* t = std::get_if<Tuple>(&pid->v);
  if (!t || t->items.size() != 5) return error(at, "a persistent id that is not a storage");
  const auto* tag = std::get_if<std::string>(&t->items[0]->v);
  const auto* type = std::get_if<Global>(&t->items[1]->v);
  const auto* key = std::get_if<std::string>(&t->items[2]->v);
  const auto* numel = std::get_if<std::int64_t>(&t->items[4]->v);
  DType d{};
  if (!tag || *tag != "storage" || !type || type->module != "torch" || !storageType(type->name, d) || !key || !numel ||
      *numel < 0)
    return error(at, "a persistent id that is not a storage");
  m_stack.push_back(make(Storage{d, *key, *numel}));
  return core::Status::success();
}

core::Status PickleVm::reduce(const ValuePtr& callable, const ValuePtr& args, std::size_t at) {
  const auto* g = std::get_if<Global>(&callable->v);
  const auto* a = std::get_if<Tuple>(&args->v);
  if (!g || !a) return error(at, "REDUCE of something other than an allowed global");
  if (g->name == "OrderedDict") {
    if (!a->items.empty()) return error(at, "OrderedDict with arguments");
    m_stack.push_back(make(Dict{}));
    return core::Status::success();
  }
  if (g->name != "_rebuild_tensor_v2") return error(at, "REDUCE of " + g->module + "." + g->name);
  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  if (a->items.size() < 4) return error(at, "_rebuild_tensor_v2 with too few arguments");
  const auto* st = std::get_if<Storage>(&a->items[0]->v);
  const auto* off = std::get_if<std::int64_t>(&a->items[1]->v);
  const auto* size = std::get_if<Tuple>(&a->items[2]->v);
  const auto* stride = std::get_if<Tuple>(&a->items[3]->v);
  if (!st || !off || !size || !stride || size->items.size() != stride->items.size())
    return error(at, "_rebuild_tensor_v2 with arguments of the wrong kind");
  Tensor t;
  t.entry.dtype = st->dtype;
  t.entry.storageKey = st->key;
  t.entry.storageNumel = st->numel;
  t.entry.storageOffset = *off;
  for (std::size_t i = 0; i < size->items.size(); ++i) {
    const auto* n = std::get_if<std::int64_t>(&size->items[i]->v);
    const auto* s = std::get_if<std::int64_t>(&stride->items[i]->v);
    if (!n || !s || *n < 0 || *s < 0) return error(at, "a tensor size or stride that is not a natural number");
    t.entry.shape.push_back(*n);
    t.entry.stride.push_back(*s);
  }
  m_stack.push_back(make(std::move(t)));
  return core::Status::success();
}

}  // namespace

// Eight bytes a step through eight tables ("slicing by 8"): the byte-a-step loop took 38 % of reading a checkpoint
// (bench_at_rest, 400 MB: 0.9 s of 2.5 s).
std::uint32_t crc32Update(std::uint32_t crc, const void* data, std::size_t n) {
  using Tables = std::array<std::array<std::uint32_t, 256>, 8>;
  static const Tables table = [] {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) t[0][i] = crc32Table(i);
    for (std::size_t k = 1; k < 8; ++k)
      for (std::uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    return t;
  }();
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t c = crc ^ 0xFFFFFFFFu;
  const auto word = [](const std::uint8_t* q) {
    return std::uint32_t(q[0]) | std::uint32_t(q[1]) << 8 | std::uint32_t(q[2]) << 16 | std::uint32_t(q[3]) << 24;
  };
  for (; n >= 8; n -= 8, p += 8) {
    const std::uint32_t one = word(p) ^ c, two = word(p + 4);
    c = table[7][one & 0xFF] ^ table[6][(one >> 8) & 0xFF] ^ table[5][(one >> 16) & 0xFF] ^ table[4][one >> 24] ^
        table[3][two & 0xFF] ^ table[2][(two >> 8) & 0xFF] ^ table[1][(two >> 16) & 0xFF] ^ table[0][two >> 24];
  }
  for (; n > 0; --n, ++p) c = table[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::size_t elementSize(DType t) {
  switch (t) {
    case DType::Float64:
    case DType::Int64: return 8;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int16: return 2;
    default: return 1;
  }
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    case DType::Float16: return "torch.float16";
    case DType::BFloat16: return "torch.bfloat16";
    case DType::Int64: return "torch.int64";
    case DType::Int32: return "torch.int32";
    case DType::Int16: return "torch.int16";
    case DType::Int8: return "torch.int8";
    case DType::UInt8: return "torch.uint8";
    case DType::Bool: return "torch.bool";
  }
  return "?";
}

std::int64_t TensorEntry::numel() const {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

const TensorEntry* Checkpoint::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

core::Result<Checkpoint> readTorchCheckpoint(const std::string& path) {
  std::unique_ptr<std::istream> file;
  const auto opened = openChecked(path, file);
  if (!opened) return opened.error();
  const std::uint64_t fileSize = *opened;
  std::istream& f = *file;
  try {
    auto entries = readZipDirectory(f, fileSize, path);
    if (!entries) return entries.error();
    // The archive's folder: the one holding data.pkl.
    std::string prefix;
    const ZipEntry* pkl = nullptr;
    for (const auto& [name, e] : *entries)
      if (name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0 &&
          std::count(name.begin(), name.end(), '/') == 1) {
        prefix = name.substr(0, name.size() - 8);
        pkl = &e;
        break;
      }
    if (!pkl) return fail(path, "no data.pkl in the archive: not a torch.save checkpoint");
    if (pkl->size > (std::uint64_t{1} << 30)) return fail(path, "data.pkl is larger than 1 GiB");
    std::vector<std::uint8_t> data;
    if (!readAt(f, pkl->dataOffset, static_cast<std::size_t>(pkl->size), data)) return fail(path, "could not read data.pkl");
    if (crc32(data.data(), data.size()) != pkl->crc) return fail(path, "data.pkl fails its CRC-32 check (damaged file)");
    PickleVm vm(data, path);
    auto root = vm.run();
    if (!root) return root.error();

    // The state_dict: the root, or the value of a "model" / "state_dict" key whose values are not tensors.
    const Dict* dict = std::get_if<Dict>(&(*root)->v);
    if (!dict) return fail(path, "the pickle does not hold a dict");
    for (const char* wrapper : {"model", "state_dict"})
      for (const auto& [k, v] : dict->items) {
        const auto* key = std::get_if<std::string>(&k->v);
        if (key && *key == wrapper && std::holds_alternative<Dict>(v->v)) {
          dict = &std::get<Dict>(v->v);
          goto found;
        }
      }
  found:
    Checkpoint out;
    out.path = path;
    for (const auto& [k, v] : dict->items) {
      const auto* key = std::get_if<std::string>(&k->v);
      const auto* tensor = std::get_if<Tensor>(&v->v);
      if (!key) return fail(path, "a state_dict key that is not a string");
      if (!tensor) continue;  // e.g. a step counter beside the tensors
      TensorEntry e = tensor->entry;
      e.name = key->compare(0, 7, "module.") == 0 ? key->substr(7) : *key;
      const auto it = entries->find(prefix + "data/" + e.storageKey);
      if (it == entries->end()) return fail(path, "tensor " + e.name + ": storage data/" + e.storageKey + " is missing");
      const std::uint64_t el = elementSize(e.dtype);
      // Divided, not multiplied: a crafted element count must not wrap around to the entry's size.
      if (e.storageNumel < 0 || it->second.size % el != 0 || static_cast<std::uint64_t>(e.storageNumel) != it->second.size / el)
        return fail(path, "tensor " + e.name + ": storage data/" + e.storageKey + " holds " +
                              std::to_string(it->second.size) + " bytes, not " + std::to_string(e.storageNumel) +
                              " elements of " + std::to_string(el));
      // The last element the tensor reaches must lie inside its storage (sums and products checked for overflow).
      std::int64_t last = e.storageOffset, count = 1;
      bool empty = false, overflow = false;
      for (std::size_t i = 0; i < e.shape.size(); ++i) {
        std::int64_t reach = 0;
        if (e.shape[i] == 0) empty = true;
        else if (__builtin_mul_overflow(e.shape[i] - 1, e.stride[i], &reach) || __builtin_add_overflow(last, reach, &last))
          overflow = true;
        if (__builtin_mul_overflow(count, e.shape[i], &count)) overflow = true;
      }
      if (overflow) return fail(path, "tensor " + e.name + " has a size or stride too large to address");
      if (!empty && (e.storageOffset < 0 || last >= e.storageNumel))
        return fail(path, "tensor " + e.name + " reaches past the end of its storage");
      e.fileOffset = it->second.dataOffset;
      e.crc32 = it->second.crc;
      e.hasCrc = true;
      out.tensors.push_back(std::move(e));
    }
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, path, "out of memory reading the checkpoint");
  }
}

core::Result<Checkpoint> readSafetensors(const std::string& path) {
  std::unique_ptr<std::istream> file;
  const auto opened = openChecked(path, file);
  if (!opened) return opened.error();
  const std::uint64_t fileSize = *opened;
  std::istream& f = *file;
  try {
    std::vector<std::uint8_t> head;
    if (fileSize < 8 || !readAt(f, 0, 8, head)) return fail(path, "too short for a safetensors file");
    const std::uint64_t headerLen = le(head.data(), 8);
    if (headerLen > fileSize - 8 || headerLen > (std::uint64_t{100} << 20))
      return fail(path, "a safetensors header of " + std::to_string(headerLen) + " bytes does not fit the file");
    std::vector<std::uint8_t> text;
    if (!readAt(f, 8, static_cast<std::size_t>(headerLen), text)) return fail(path, "could not read the safetensors header");
    const auto header = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    if (header.is_discarded() || !header.is_object()) return fail(path, "the safetensors header is not a JSON object");
    const std::uint64_t dataStart = 8 + headerLen, dataSize = fileSize - dataStart;
    static const std::pair<const char*, DType> kinds[] = {
        {"F32", DType::Float32}, {"F64", DType::Float64}, {"F16", DType::Float16}, {"BF16", DType::BFloat16},
        {"I64", DType::Int64},   {"I32", DType::Int32},   {"I16", DType::Int16},   {"I8", DType::Int8},
        {"U8", DType::UInt8},    {"BOOL", DType::Bool}};
    Checkpoint out;
    out.path = path;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const auto& [name, info] : header.items()) {
      if (name == "__metadata__") continue;
      auto bad = [&](const std::string& why) { return fail(path, "tensor " + name + ": " + why); };
      if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") || !info.contains("data_offsets"))
        return bad("needs dtype, shape and data_offsets");
      TensorEntry e;
      e.name = name.compare(0, 7, "module.") == 0 ? name.substr(7) : name;
      const auto& dt = info["dtype"];
      bool known = false;
      for (const auto& [n, d] : kinds)
        if (dt.is_string() && dt.get<std::string>() == n) {
          e.dtype = d;
          known = true;
        }
      if (!known) return bad("unsupported dtype " + dt.dump());
      if (!info["shape"].is_array()) return bad("the shape is not a list");
      std::uint64_t numel = 1;
      for (const auto& n : info["shape"]) {
        if (!n.is_number_unsigned()) return bad("a dimension that is not a natural number");
        const auto v = n.get<std::uint64_t>();
        if (v != 0 && numel > (std::uint64_t{1} << 40) / v) return bad("too many elements");
        numel *= v;
        e.shape.push_back(static_cast<std::int64_t>(v));
      }
      e.stride.assign(e.shape.size(), 1);
      for (std::size_t i = e.shape.size(); i-- > 1;) e.stride[i - 1] = e.stride[i] * std::max<std::int64_t>(1, e.shape[i]);
      const auto& off = info["data_offsets"];
      if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
        return bad("data_offsets is not [begin, end]");
      const auto begin = off[0].get<std::uint64_t>(), end = off[1].get<std::uint64_t>();
      if (begin > end || end > dataSize) return bad("its bytes lie outside the data section (truncated file?)");
      if (end - begin != numel * elementSize(e.dtype))
        return bad("holds " + std::to_string(end - begin) + " bytes, not " + std::to_string(numel * elementSize(e.dtype)));
      e.storageNumel = static_cast<std::int64_t>(numel);
      e.storageKey = name;
      e.fileOffset = dataStart + begin;
      ranges.emplace_back(begin, end);
      out.tensors.push_back(std::move(e));
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].first < ranges[i - 1].second) return fail(path, "two tensors share bytes in the data section");
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, path, "out of memory reading the checkpoint");
  }
}

core::Result<Checkpoint> readCheckpoint(const std::string& path) {
  auto f = core::openInputFile(path);
  if (!f) return f.error();
  char magic[4] = {0, 0, 0, 0};
  (*f)->read(magic, 4);
  if ((*f)->gcount() == 4 && std::memcmp(magic, "PK\3\4", 4) == 0) return readTorchCheckpoint(path);
  return readSafetensors(path);
}

core::Result<std::vector<std::uint8_t>> readTensorBytes(const Checkpoint& checkpoint, const TensorEntry& e) {
  auto f = core::openInputFile(checkpoint.path);
  if (!f) return f.error();
  return readTensorBytes(**f, checkpoint, e);
}

core::Result<std::vector<std::uint8_t>> readTensorBytes(std::istream& f, const Checkpoint& checkpoint, const TensorEntry& e) {
  const std::size_t el = elementSize(e.dtype);
  try {
    std::vector<std::uint8_t> storage;
    if (!readAt(f, e.fileOffset, static_cast<std::size_t>(e.storageNumel) * el, storage))
      return core::makeError(core::ErrorCode::ReadFailed, checkpoint.path, "tensor " + e.name + ": the file is truncated or damaged");
    if (e.hasCrc && crc32(storage.data(), storage.size()) != e.crc32)
      return core::makeError(core::ErrorCode::Corrupt, checkpoint.path,
                             "tensor " + e.name + ": storage data/" + e.storageKey + " fails its CRC-32 check");
    const std::int64_t numel = e.numel();
    if (numel == 0) return std::vector<std::uint8_t>();  // its offset is not checked against the storage
    // A contiguous tensor (what torch.save writes for a state_dict): its bytes as they are stored.
    bool contiguous = true;
    std::int64_t expected = 1;
    for (std::size_t i = e.shape.size(); i-- > 0;) {
      if (e.shape[i] != 1 && e.stride[i] != expected) contiguous = false;
      expected *= e.shape[i];
    }
    if (contiguous) {
      const auto begin = static_cast<std::size_t>(e.storageOffset) * el, bytes = static_cast<std::size_t>(numel) * el;
      if (begin > storage.size() || bytes > storage.size() - begin)  // checked when read; never trusted here
        return core::makeError(core::ErrorCode::Corrupt, checkpoint.path, "tensor " + e.name + " reaches past its storage");
      if (begin == 0 && bytes == storage.size()) return storage;  // moved (a local returned)
      return std::vector<std::uint8_t>(storage.begin() + std::ptrdiff_t(begin), storage.begin() + std::ptrdiff_t(begin + bytes));
    }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(numel) * el);
    // Row-major walk over the shape, gathering through the strides.
    std::vector<std::int64_t> idx(e.shape.size(), 0);
    for (std::int64_t n = 0; n < numel; ++n) {
      std::int64_t src = e.storageOffset;
      for (std::size_t i = 0; i < idx.size(); ++i) src += idx[i] * e.stride[i];
      std::memcpy(&out[static_cast<std::size_t>(n) * el], &storage[static_cast<std::size_t>(src) * el], el);
      for (std::size_t i = idx.size(); i-- > 0;) {
        if (++idx[i] < e.shape[i]) break;
        idx[i] = 0;
      }
    }
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, checkpoint.path, "out of memory reading tensor " + e.name);
  }
}

}  // namespace delineate::inference::vista3d
