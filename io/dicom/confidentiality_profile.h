#pragma once
// PS3.15 Table E.1-1: the Basic Application Level Confidentiality Profile and its options, every row as the standard
// publishes it (generated from a machine-readable copy of the table by scripts/confidentiality_profile.py; the edition
// and the copy are named below), and the one step de-identification takes for each row.
//
// The table's basic actions name alternatives that depend on the IOD (Type 1, 2 or 3); de-identification here does
// not look the IOD up, so each alternative resolves to the one that is valid for every IOD and reveals nothing:
//   X -> remove; Z and X/Z -> zero length; D, X/D, Z/D and X/Z/D -> a dummy value of the attribute's VR (a sequence is
//   emptied: no dummy item can be made up); U -> every UID through the keyed map; X/Z/U* -> the sequence is kept and
//   its items de-identified by the same rules (their UIDs mapped).
// One option is claimed: Retain Longitudinal Temporal Information with Modified Dates. Its "C" rows move dates (DA,
// the date of a DT) by the patient's keyed shift and keep times (TM); a "C" row of another VR takes its basic action.
// No other option's "K" or "C" is applied: UIDs, device and institution identity, patient characteristics,
// descriptions, structured content and graphics all take the basic action.

#include <cstddef>
#include <cstdint>
#include <string>

namespace delineate::io {

// The table's option columns, in its order.
enum class ProfileOption : std::uint8_t {
  RetainSafePrivate,
  RetainUids,
  RetainDeviceIdentity,
  RetainInstitutionIdentity,
  RetainPatientCharacteristics,
  RetainLongitudinalFullDates,
  RetainLongitudinalModifiedDates,
  CleanDescriptors,
  CleanStructuredContent,
  CleanGraphics,
};
inline constexpr std::size_t kProfileOptionCount = 10;

struct ConfidentialityProfileRow {
  // The tag, with masks for the table's "xx" digits ((50xx,xxxx) curves, (60xx,3000) overlays) and the private row
  // ((gggg,eeee) with gggg odd: group 0x0001 under mask 0x0001).
  std::uint16_t group, groupMask, element, elementMask;
  const char* name;
  const char* basic;                            // X, Z, D, U, X/Z, X/D, Z/D, X/Z/D or X/Z/U*, as published
  const char* options[kProfileOptionCount];     // "", "K" or "C" per ProfileOption

  bool matches(std::uint16_t g, std::uint16_t e) const {
    return (g & groupMask) == group && (e & elementMask) == element;
  }
  const char* option(ProfileOption o) const { return options[std::size_t(o)]; }
};

enum class ProfileStep : std::uint8_t {
  Remove,         // X
  Empty,          // Z, X/Z
  Dummy,          // D, X/D, Z/D, X/Z/D
  MapUids,        // U
  CleanSequence,  // X/Z/U*
  ShiftDates,     // C under Retain Longitudinal Temporal Information with Modified Dates (DA, DT; TM kept)
};

// The step for a row; `vr` is the attribute's VR as read ("DA", "SQ", ...; "UN" or "" when unknown), as the date
// option applies only to dates and times. `modifiedDates`: whether Retain Longitudinal Temporal Information with
// Modified Dates is claimed (imports claim it; exports of objects built now do not).
ProfileStep profileStep(const ConfidentialityProfileRow& row, const std::string& vr, bool modifiedDates = true);
const char* profileStepName(ProfileStep step);

const ConfidentialityProfileRow* confidentialityProfileRows();
std::size_t confidentialityProfileRowCount();
// The row for a tag (exact rows before masked ones), or null when the table does not name it.
const ConfidentialityProfileRow* confidentialityProfileRow(std::uint16_t group, std::uint16_t element);
const char* confidentialityProfileEdition();  // e.g. "2024b"
const char* confidentialityProfileSource();   // the machine-readable copy the rows were generated from

}  // namespace delineate::io
