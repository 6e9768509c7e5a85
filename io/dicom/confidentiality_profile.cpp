#include "io/dicom/confidentiality_profile.h"

#include <algorithm>
#include <cstring>

namespace delineate::io {
namespace {

#include "io/dicom/confidentiality_profile_table.inc"

constexpr std::size_t kRowCount = sizeof(kRows) / sizeof(kRows[0]);

bool isExact(const ConfidentialityProfileRow& r) { return r.groupMask == 0xFFFF && r.elementMask == 0xFFFF; }

}  // namespace

const ConfidentialityProfileRow* confidentialityProfileRows() { return kRows; }
std::size_t confidentialityProfileRowCount() { return kRowCount; }
const char* confidentialityProfileEdition() { return kEdition; }
const char* confidentialityProfileSource() { return kSource; }

const ConfidentialityProfileRow* confidentialityProfileRow(std::uint16_t group, std::uint16_t element) {
  // The generator sorts the rows by tag; the exact rows are found by binary search, the few masked ones by a scan.
  const auto key = std::make_pair(group, element);
  const auto* end = kRows + kRowCount;
  const auto* it = std::lower_bound(kRows, end, key, [](const ConfidentialityProfileRow& r, const auto& k) {
    return std::make_pair(r.group, r.element) < k;
  });
  for (; it != end && it->group == group && it->element == element; ++it)
    if (isExact(*it)) return it;
  for (const auto& r : kRows)
    if (!isExact(r) && r.matches(group, element)) return &r;
  return nullptr;
}

ProfileStep profileStep(const ConfidentialityProfileRow& row, const std::string& vr, bool modifiedDates) {
  if (modifiedDates && std::strcmp(row.option(ProfileOption::RetainLongitudinalModifiedDates), "C") == 0 &&
      (vr == "DA" || vr == "DT" || vr == "TM"))
    return ProfileStep::ShiftDates;
  const std::string basic = row.basic;
  if (basic == "X") return ProfileStep::Remove;
  if (basic == "Z" || basic == "X/Z") return ProfileStep::Empty;
  if (basic == "U") return ProfileStep::MapUids;
  if (basic == "X/Z/U*") return ProfileStep::CleanSequence;
  return ProfileStep::Dummy;  // D, X/D, Z/D, X/Z/D (the generator refuses any other text)
}

const char* profileStepName(ProfileStep step) {
  switch (step) {
    case ProfileStep::Remove: return "remove";
    case ProfileStep::Empty: return "empty";
    case ProfileStep::Dummy: return "dummy";
    case ProfileStep::MapUids: return "map UIDs";
    case ProfileStep::CleanSequence: return "clean sequence";
    case ProfileStep::ShiftDates: return "shift dates";
  }
  return "?";
}

}  // namespace delineate::io
