#pragma once
// Prepared cases under a memory budget (torch-free): cases are kept in memory while their voxels fit the budget; the
// rest go to files in a local spill folder and patches are read from there a row at a time (pread, no mapping: the
// page cache holds them, not this process). MONAI Label's users lose runs to whole datasets cached in RAM; here the
// resident voxels never exceed the budget, whatever the dataset's size.

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "inference/training/prepared_case.h"

namespace delineate::inference::training {

// What stays in memory of every case, spilled or not.
struct CaseInfo {
  std::string id, split;
  std::array<std::int64_t, 3> size{0, 0, 0};
  std::vector<std::pair<std::uint16_t, std::vector<std::int64_t>>> classVoxels;
  bool spilled = false;
};

// Encrypts spill files as they are written and decrypts what is read back (the same operation on bytes at `offset`
// of spill file number `file`, which must never share key stream with another file or place: a stream cipher such as
// io/base/scratch_cipher.h's, which delineate-train gives; inference has no cipher of its own). Thread-safe.
class SpillCipher {
 public:
  virtual ~SpillCipher() = default;
  virtual core::Status apply(void* data, std::size_t n, std::uint64_t offset, std::uint32_t file) const = 0;
};

class CaseCache {
 public:
  // `spillFolder` is created (0700) when the first case spills; its files (0600) are removed with the cache.
  // `cipher`: spill files are encrypted with it (null: written as they are).
  CaseCache(std::size_t budgetBytes, std::string spillFolder, std::shared_ptr<const SpillCipher> cipher = nullptr);
  ~CaseCache();
  CaseCache(const CaseCache&) = delete;
  CaseCache& operator=(const CaseCache&) = delete;

  // Takes the case; spills it to disk when it does not fit what is left of the budget. Errors: the spill write.
  core::Status add(PreparedCase prepared);
  std::size_t size() const { return m_cases.size(); }
  const CaseInfo& info(std::size_t k) const { return m_cases[k]->info; }

  // The box [start, start + extent) of case k in torch order (Z fastest), into `image` and `labels` (extent's voxel
  // count each); voxels outside the case are 0. Thread-safe.
  core::Status readBox(std::size_t k, const std::array<std::int64_t, 3>& start, const std::array<std::int64_t, 3>& extent,
                       float* image, std::uint16_t* labels) const;

  std::size_t residentBytes() const { return m_resident; }
  std::size_t spilledBytes() const { return m_spilled; }
  std::size_t budgetBytes() const { return m_budget; }

 private:
  struct Case {
    CaseInfo info;
    std::vector<float> image;
    std::vector<std::uint16_t> labels;
    std::string spillPath;
    std::uint32_t spillNumber = 0;  // the cipher's stream
    int fd = -1;
    ~Case();
  };
  std::size_t m_budget;
  std::string m_spillFolder;
  std::shared_ptr<const SpillCipher> m_cipher;
  std::size_t m_resident = 0, m_spilled = 0;
  std::vector<std::unique_ptr<Case>> m_cases;
};

}  // namespace delineate::inference::training
