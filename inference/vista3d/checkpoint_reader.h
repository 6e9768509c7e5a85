#pragma once
// Reads PyTorch `torch.save` checkpoints (the zip format: `<name>/data.pkl`, a pickle, and `<name>/data/<key>`, raw
// little-endian storages) without Python and without torch: LibTorch 1.13's own pickle loader cannot read a
// state_dict (an OrderedDict with metadata; see ../shared/reference/vista3d/SPEC.md section 7).
//
// A pickle is a program. This reader runs only the opcodes a state_dict needs and calls only the globals that
// rebuild one (collections.OrderedDict, torch._utils._rebuild_tensor_v2 and the torch storage types); any other
// global or opcode is refused with an error naming it and its byte offset in data.pkl, before anything is built
// from it. Sizes come from the zip's central directory and are checked against the file before anything is read.
//
// Torch-free on purpose (it lives beside the LibTorch engine, which turns the entries into tensors): tests and
// tools can inspect a checkpoint on machines without LibTorch.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::inference::vista3d {

enum class DType { Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool };
std::size_t elementSize(DType t);
const char* dtypeName(DType t);  // as torch prints it: "torch.float32"

struct TensorEntry {
  std::string name;  // without a "module." prefix
  DType dtype = DType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;  // in elements
  std::int64_t storageOffset = 0;    // in elements
  std::string storageKey;            // the zip entry <name>/data/<storageKey>
  std::int64_t storageNumel = 0;
  std::uint64_t fileOffset = 0;  // where the storage's bytes start in the file
  std::uint32_t crc32 = 0;       // of the storage's bytes, from the zip directory
  bool hasCrc = false;           // safetensors files carry none
  std::int64_t numel() const;
};

struct Checkpoint {
  std::string path;
  std::vector<TensorEntry> tensors;  // in the order of the state_dict
  const TensorEntry* find(const std::string& name) const;
};

// The state_dict of `path`: a plain state_dict, or one inside a {"model": ...} or {"state_dict": ...} wrapper;
// "module." prefixes (DataParallel) removed. Errors name the file and the reason: not a zip, a compressed or missing
// entry, a refused pickle global or opcode, a storage smaller than a tensor over it, a truncated file.
core::Result<Checkpoint> readTorchCheckpoint(const std::string& path);

// The tensors of a safetensors file (an 8-byte header length, a JSON header, the data): contiguous row-major
// tensors of the dtypes above. The header's offsets are checked against the data section and each other.
core::Result<Checkpoint> readSafetensors(const std::string& path);

// The zip CRC-32 of `n` more bytes after `crc` (0 to start), as zlib's crc32().
std::uint32_t crc32Update(std::uint32_t crc, const void* data, std::size_t n);

// Either format, told apart by the first bytes (a zip starts "PK\3\4").
core::Result<Checkpoint> readCheckpoint(const std::string& path);

// The entry's elements in row-major order of its shape (its strides applied), as little-endian bytes of its dtype.
// The storage's CRC-32 (torch.save files) is checked on the way.
core::Result<std::vector<std::uint8_t>> readTensorBytes(const Checkpoint& checkpoint, const TensorEntry& entry);
// The same through a stream already open on checkpoint.path (one open for many tensors: a network share pays a
// round trip per open).
core::Result<std::vector<std::uint8_t>> readTensorBytes(std::istream& file, const Checkpoint& checkpoint,
                                                        const TensorEntry& entry);

}  // namespace delineate::inference::vista3d
