#include "io/dicom/dicom_deidentify.h"
#include "io/base/regular_file.h"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <vector>

#include "io/base/file_read.h"
#include "io/base/sha256.h"
#include "io/dicom/confidentiality_profile.h"
#include "io/dicom/dicom_internal.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

std::string hex(const std::array<std::uint8_t, 32>& d, std::size_t bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    out += digits[d[i] >> 4];
    out += digits[d[i] & 15];
  }
  return out;
}

// Beyond PS3.15 Table E.1-1 (confidentiality_profile.h), removed as well because they identify in practice: the
// issuers of the patient's and the accession's identifiers (they name the hospital), the software versions (with the
// manufacturer and model they narrow a scan to a site's scanner), the procedure codes (their meanings repeat the study
// description the profile removes), free text of structured reports (it can name anyone), and the patient's dates in an
// alternative calendar with the calendar's name (a birth date in another form; the 2024b table does not list them).
const DcmTagKey kBeyondTable[] = {DCM_IssuerOfPatientIDQualifiersSequence, DCM_IssuerOfAccessionNumberSequence,
                                  DCM_SoftwareVersions, DCM_ProcedureCodeSequence, DCM_TextValue,
                                  DCM_PatientBirthDateInAlternativeCalendar, DCM_PatientDeathDateInAlternativeCalendar,
                                  DCM_PatientAlternativeCalendar};
// Inside sequences (where the profile's "empty" or "dummy" would leave a second copy of an identifier): removed.
const DcmTagKey kRemoveNested[] = {DCM_PatientID, DCM_PatientName, DCM_AccessionNumber, DCM_StudyID, DCM_PatientBirthDate,
                                   DCM_PatientSex, DCM_IssuerOfPatientID};
// The file meta header: who sent it and private data.
const DcmTagKey kRemoveMeta[] = {DCM_SourceApplicationEntityTitle, DCM_SendingApplicationEntityTitle,
                                 DCM_ReceivingApplicationEntityTitle, DCM_PrivateInformationCreatorUID,
                                 DCM_PrivateInformation};
// SOP classes whose pixels are pictures of screens or documents (secondary capture, encapsulated PDF/CDA): refused
// unless Burned In Annotation says NO.
bool picturesOfText(const std::string& sopClass) {
  return sopClass.rfind("1.2.840.10008.5.1.4.1.1.7", 0) == 0 || sopClass.rfind("1.2.840.10008.5.1.4.1.1.104.", 0) == 0;
}

bool isStandardUid(const std::string& uid) { return uid.rfind("1.2.840.10008.", 0) == 0; }

// YYYYMMDD moved back by `days`; empty when the value is not a plain date.
std::string shiftDate(const std::string& date, int days);

// Every value of a DA or DT ('\\'-separated) moved back by `days`; empty when any is not a plain date (a range, a
// damaged value): such an attribute is removed rather than kept as it was.
std::string shiftDates(const std::string& value, int days) {
  std::string out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find('\\', start);
    if (end == std::string::npos) end = value.size();
    std::string part = value.substr(start, end - start);
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (part.find('-') != std::string::npos) return {};  // a range (queries only)
    const std::string shifted = part.empty() ? std::string() : shiftDate(part, days);
    if (!part.empty() && shifted.empty()) return {};
    if (start > 0) out += '\\';
    out += shifted;
    start = end + 1;
  }
  return out;
}

std::string shiftDate(const std::string& date, int days) {
  if (date.size() < 8) return {};
  for (int i = 0; i < 8; ++i)
    if (date[std::size_t(i)] < '0' || date[std::size_t(i)] > '9') return {};
  std::tm tm{};
  tm.tm_year = std::stoi(date.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(date.substr(4, 2)) - 1;
  tm.tm_mday = std::stoi(date.substr(6, 2)) - days;  // timegm normalises the day count
  tm.tm_hour = 12;
  const std::time_t t = timegm(&tm);
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &out);
  return std::string(buf) + date.substr(8);  // a DT keeps its time part
}

// 1..365 days, per patient and key.
int dateShiftDays(const DeidentifyKey& key, const std::string& patientKey) {
  const auto h = hmacSha256(key.secret, "date-shift:" + patientKey);
  return 1 + int(((std::uint32_t(h[0]) << 8) | h[1]) % 365);
}

bool listed(const DcmTagKey& tag, const DcmTagKey* begin, const DcmTagKey* end) {
  return std::find(begin, end, tag) != end;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\0')) text.pop_back();
  return text;
}

// A dummy value of a VR (the profile's D: non-empty, meaningless); empty where none can be made up (binary values
// of unknown meaning, attribute tags).
const char* dummyText(DcmEVR vr) {
  switch (vr) {
    case EVR_AE: case EVR_CS: case EVR_LO: case EVR_LT: case EVR_SH: case EVR_ST: case EVR_UC: case EVR_UT:
    case EVR_PN:
      return "ANONYMIZED";
    case EVR_UR: return "urn:anonymized";
    case EVR_DA: return "19000101";
    case EVR_DT: return "19000101000000";
    case EVR_TM: return "000000";
    case EVR_AS: return "000D";
    case EVR_DS: case EVR_IS: case EVR_US: case EVR_SS: case EVR_UL: case EVR_SL: case EVR_FL: case EVR_FD:
    case EVR_SV: case EVR_UV:
      return "0";
    default: return nullptr;
  }
}

class Deidentifier {
 public:
  // Received instances: UIDs mapped with the key, dates shifted by the patient's days (the Modified Dates option).
  Deidentifier(const DeidentifyKey& key, const std::string& patientKey)
      : m_key(&key), m_days(dateShiftDays(key, patientKey)), m_modifiedDates(true) {}
  // Objects this program built for export: their UIDs are fresh already and stay, no date option is claimed (dates
  // and times take the basic action), and `keep` (top-level attributes) are left as they are.
  explicit Deidentifier(std::vector<DcmTagKey> keep) : m_keep(std::move(keep)) {}

  // Applies PS3.15 Table E.1-1 and the rules beyond it to `item` and its sequences at any depth; `top` is the dataset
  // itself. Rows are found by tag, whatever the VR the file stored the element with: an element of a known tag stored
  // as UN was already read with its dictionary VR (ensureDcmtkReady), and one the dictionary does not know is handled
  // as bytes (a UID mapped, anything else removed or emptied).
  OFCondition clean(DcmItem* item, bool top) {
    std::vector<DcmTagKey> remove;
    std::vector<DcmElement*> replacements;
    for (unsigned long i = 0; i < item->card(); ++i) {
      DcmElement* e = item->getElement(i);
      const DcmTag& tag = e->getTag();
      const DcmEVR vr = e->ident();
      // The patient's pseudonym is the caller's to write (the table would empty the name).
      if (top && (tag == DCM_PatientID || tag == DCM_PatientName)) continue;
      if (top && std::find(m_keep.begin(), m_keep.end(), DcmTagKey(tag)) != m_keep.end()) continue;
      if (!top && listed(tag, std::begin(kRemoveNested), std::end(kRemoveNested))) {
        remove.push_back(tag);
        continue;
      }
      if (listed(tag, std::begin(kBeyondTable), std::end(kBeyondTable))) {
        remove.push_back(tag);
        continue;
      }
      if (const ConfidentialityProfileRow* row = confidentialityProfileRow(tag.getGroup(), tag.getElement())) {
        OFCondition c = applyRow(item, e, profileStep(*row, DcmVR(vr).getValidVRName(), m_modifiedDates), remove, replacements);
        if (c.bad()) return c;
        continue;
      }
      if (OFCondition c = applyGeneric(item, e, top, remove, replacements); c.bad()) return c;
    }
    for (const DcmTagKey& k : remove) item->findAndDeleteElement(k, OFFalse, OFFalse);
    for (DcmElement* e : replacements)
      if (OFCondition c = item->insert(e, OFTrue); c.bad()) return c;
    return EC_Normal;
  }

 private:
  OFCondition applyRow(DcmItem* item, DcmElement* e, ProfileStep step, std::vector<DcmTagKey>& remove,
                       std::vector<DcmElement*>& replacements) {
    const DcmEVR vr = e->ident();
    switch (step) {
      case ProfileStep::Remove:
        remove.push_back(e->getTag());
        return EC_Normal;
      case ProfileStep::Empty:
        return empty(e);
      case ProfileStep::Dummy: {
        if (vr == EVR_UI) return mapUids(e);
        const char* dummy = dummyText(vr);
        if (!dummy) return empty(e);  // a sequence, binary data, a VR the dictionary does not know
        return e->putString(dummy);
      }
      case ProfileStep::MapUids:
        if (vr == EVR_UI) return mapUids(e);
        if (vr == EVR_UN || vr == EVR_OB) return uidFromBytes(e, replacements, remove);
        remove.push_back(e->getTag());  // a UID row stored as something that cannot hold one
        return EC_Normal;
      case ProfileStep::CleanSequence:
        if (vr == EVR_SQ) return cleanItems(e);
        remove.push_back(e->getTag());
        return EC_Normal;
      case ProfileStep::ShiftDates:
        if (vr == EVR_TM) return EC_Normal;  // times are kept: the option moves whole days
        return shiftDatesOf(e);
    }
    (void)item;
    return EC_Normal;
  }

  // Attributes the table does not name: private ones go (the table's own row catches them; this is the guard),
  // sequences are cleaned inside, every person name but the patient's goes, UIDs are mapped, dates moved, and a
  // public attribute whose VR nobody knows (stored as UN, absent from the dictionary) goes, as its content cannot be
  // judged.
  OFCondition applyGeneric(DcmItem* item, DcmElement* e, bool top, std::vector<DcmTagKey>& remove,
                           std::vector<DcmElement*>& replacements) {
    (void)item;
    (void)replacements;
    const DcmTag& tag = e->getTag();
    switch (e->ident()) {
      case EVR_SQ: return cleanItems(e);
      case EVR_PN:
        if (!(top && tag == DCM_PatientName)) remove.push_back(tag);
        return EC_Normal;
      case EVR_UI: return mapUids(e);
      case EVR_DA: case EVR_DT: return shiftDatesOf(e);
      case EVR_UN: case EVR_UNKNOWN: case EVR_UNKNOWN2B:
        remove.push_back(tag);
        return EC_Normal;
      default:
        if (tag.isPrivate()) remove.push_back(tag);
        return EC_Normal;
    }
  }

  OFCondition cleanItems(DcmElement* e) {
    auto* seq = static_cast<DcmSequenceOfItems*>(e);
    for (unsigned long j = 0; j < seq->card(); ++j)
      if (OFCondition c = clean(seq->getItem(j), false); c.bad()) return c;
    return EC_Normal;
  }

  static OFCondition empty(DcmElement* e) {
    if (e->ident() == EVR_SQ) {
      auto* seq = static_cast<DcmSequenceOfItems*>(e);
      while (seq->card() > 0) delete seq->remove(seq->card() - 1);
      return EC_Normal;
    }
    return e->clear();
  }

  std::string mappedUids(const std::string& text) const {
    std::string mapped;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\\', start);
      if (end == std::string::npos) end = text.size();
      const std::string part = trimmed(text.substr(start, end - start));
      if (start > 0) mapped += '\\';
      mapped += part.empty() || isStandardUid(part) || !m_key ? part : pseudonymUid(*m_key, part);
      start = end + 1;
    }
    return mapped;
  }

  OFCondition mapUids(DcmElement* e) {
    OFString value;
    e->getOFStringArray(value);
    return e->putOFStringArray(mappedUids(value.c_str()).c_str());
  }

  // A UID row the file stored as UN (a tag this DCMTK's dictionary does not know): the bytes are the UID's text;
  // written back as UI, mapped.
  OFCondition uidFromBytes(DcmElement* e, std::vector<DcmElement*>& replacements, std::vector<DcmTagKey>& remove) {
    Uint8* bytes = nullptr;
    e->getUint8Array(bytes);
    const std::string text = bytes ? std::string(reinterpret_cast<const char*>(bytes), e->getLength()) : std::string();
    auto* ui = new DcmUniqueIdentifier(DcmTag(e->getTag(), EVR_UI));
    if (OFCondition c = ui->putOFStringArray(mappedUids(text).c_str()); c.bad()) {
      delete ui;
      return c;
    }
    remove.push_back(e->getTag());
    replacements.push_back(ui);
    return EC_Normal;
  }

  OFCondition shiftDatesOf(DcmElement* e) {
    if (!m_modifiedDates) return EC_Normal;  // dates outside the table, in an object built now: kept
    OFString value;
    e->getOFStringArray(value);
    if (value.empty()) return EC_Normal;
    const std::string shifted = shiftDates(value.c_str(), m_days);
    if (shifted.empty()) return e->clear();  // a range or a damaged value: not kept as it was
    return e->putOFStringArray(shifted.c_str());
  }

  const DeidentifyKey* m_key = nullptr;
  int m_days = 1;
  bool m_modifiedDates = false;
  std::vector<DcmTagKey> m_keep;
};

}  // namespace

namespace dicom_detail {

core::Status applyConfidentialityProfileToExport(DcmItem* dataset, const std::vector<DcmTagKey>& keep,
                                                 const std::string& path) {
  Deidentifier d(keep);
  if (OFCondition c = d.clean(dataset, true); c.bad())
    return makeError(ErrorCode::WriteFailed, path, std::string("cannot apply the confidentiality profile: ") + c.text());
  return core::Status::success();
}

}  // namespace dicom_detail

core::Result<DeidentifyKey> readDeidentifyKey(const std::string& path) {
  auto text = readSecretFile(path, 1 << 20, "de-identification key");  // refused where others may read it
  if (!text) return text.error();
  if (text->size() < kMinDeidentifyKeyBytes)
    return makeError(ErrorCode::InvalidArgument, path,
                     "a de-identification key needs at least " + std::to_string(kMinDeidentifyKeyBytes) +
                         " bytes (e.g. head -c 32 /dev/urandom > key)");
  return DeidentifyKey{std::move(text).value()};
}

std::string patientKeyOf(const std::string& patientId, const std::string& studyInstanceUid) {
  if (!patientId.empty()) return patientId;
  if (studyInstanceUid.empty()) return {};
  // A Patient ID (LO) cannot hold a control character, so no real ID can take this key.
  return "\x1fstudy:" + studyInstanceUid;
}

std::string pseudonymFor(const DeidentifyKey& key, const std::string& patientKey) {
  return "ANON-" + hex(hmacSha256(key.secret, "patient:" + patientKey), 6);
}

std::string shiftedDate(const DeidentifyKey& key, const std::string& patientKey, const std::string& date) {
  return shiftDate(date, dateShiftDays(key, patientKey));
}

std::string pseudonymUid(const DeidentifyKey& key, const std::string& uid) {
  const auto h = hmacSha256(key.secret, "uid:" + uid);
  __extension__ typedef unsigned __int128 Uint128;  // GCC and Clang; the 128 bits as one decimal number
  Uint128 v = 0;
  for (int i = 0; i < 16; ++i) v = (v << 8) | h[std::size_t(i)];
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v != 0);
  return "2.25." + digits;
}

core::Status deidentifyDicomFile(const std::string& inputPath, const std::string& outputPath, const DeidentifyKey& key) {
  dicom_detail::ensureDcmtkReady();
  auto prescan = dicom_detail::prescanDicomFile(inputPath);
  if (!prescan) return prescan.error();
  auto readable = ReadableFile::open(inputPath, "DICOM file");  // a sealed cache file: its content
  if (!readable) return readable.error();
  DcmFileFormat ff;
  if (OFCondition c = ff.loadFile(OFFilename(readable->path().c_str()), EXS_Unknown, EGL_noChange,
                                  readable->sealed() ? 0xFFFFFFFFu : DCM_MaxReadLength);
      c.bad())
    return makeError(ErrorCode::ReadFailed, inputPath, std::string("cannot read as DICOM: ") + c.text());
  DcmDataset* ds = ff.getDataset();
  // The study, series and instance UIDs as stored (DCMTK's input correction removes spaces inside them), so two
  // UIDs that differ only there get pseudonyms of their own, as the series index tells them apart.
  std::vector<std::pair<DcmTagKey, std::string>> storedUids;
  for (const auto& [group, element] : {std::pair{0x0020, 0x000D}, std::pair{0x0020, 0x000E}, std::pair{0x0008, 0x0018}}) {
    const DcmTagKey tag{std::uint16_t(group), std::uint16_t(element)};
    OFString parsed;
    if (ds->findAndGetOFStringArray(tag, parsed).bad()) continue;
    const std::string stored = dicom_detail::storedUid(*prescan, tag.getGroup(), tag.getElement(), parsed.c_str());
    if (stored != parsed.c_str()) storedUids.emplace_back(tag, stored);
  }
  OFString burned, sopClass;
  ds->findAndGetOFString(DCM_BurnedInAnnotation, burned);
  ds->findAndGetOFString(DCM_SOPClassUID, sopClass);
  if (burned == "YES")
    return makeError(ErrorCode::Unsupported, inputPath,
                     "Burned In Annotation is YES: its pixels may show who the patient is, which de-identification "
                     "cannot remove; not imported");
  if (picturesOfText(sopClass.c_str()) && burned != "NO")
    return makeError(ErrorCode::Unsupported, inputPath,
                     "a secondary capture or encapsulated document (" + std::string(sopClass.c_str()) +
                         ") without Burned In Annotation NO: its pixels may show names; not imported");
  // The patient ID and study as the series index reads them (every value, blanks trimmed), so the files and the
  // manifest get the same pseudonym and date shift.
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0'; };
  const auto read = [&](const DcmTagKey& tag) {
    OFString value;
    ds->findAndGetOFStringArray(tag, value);
    std::string text = value.c_str();
    while (!text.empty() && blank(text.back())) text.pop_back();
    while (!text.empty() && blank(text.front())) text.erase(text.begin());
    return text;
  };
  const std::string patientKey = patientKeyOf(read(DCM_PatientID), read(DCM_StudyInstanceUID));
  if (patientKey.empty())
    return makeError(ErrorCode::Unsupported, inputPath,
                     "neither a Patient ID nor a Study Instance UID: nothing tells whose it is, so it cannot get a "
                     "pseudonym of its own; not de-identified");
  Deidentifier d(key, patientKey);
  if (OFCondition c = d.clean(ds, true); c.bad())
    return makeError(ErrorCode::ReadFailed, inputPath, std::string("cannot de-identify: ") + c.text());
  for (const auto& [tag, stored] : storedUids) ds->putAndInsertString(tag, pseudonymUid(key, stored).c_str());
  const std::string pseudonym = pseudonymFor(key, patientKey);
  // The meta header: who sent the file goes; its SOP Instance UID follows the dataset's (below, on writing).
  for (const DcmTagKey& k : kRemoveMeta) ff.getMetaInfo()->findAndDeleteElement(k);
  ds->putAndInsertString(DCM_PatientID, pseudonym.c_str());
  ds->putAndInsertString(DCM_PatientName, pseudonym.c_str());
  ds->putAndInsertString(DCM_PatientIdentityRemoved, "YES");
  ds->putAndInsertString(DCM_LongitudinalTemporalInformationModified, "MODIFIED");
  ds->putAndInsertString(DCM_DeidentificationMethod,
                         "PS3.15 Basic Application Confidentiality Profile, Retain Longitudinal Temporal Information "
                         "with Modified Dates Option (Delineate import)");
  ds->findAndDeleteElement(DCM_DeidentificationMethodCodeSequence);
  for (const auto& [value, meaning] : {std::pair{"113100", "Basic Application Confidentiality Profile"},
                                       std::pair{"113107", "Retain Longitudinal Temporal Information Modified Dates Option"}}) {
    DcmItem* code = nullptr;
    if (ds->findOrCreateSequenceItem(DCM_DeidentificationMethodCodeSequence, code, -2).good() && code) {
      code->putAndInsertString(DCM_CodeValue, value);
      code->putAndInsertString(DCM_CodingSchemeDesignator, "DCM");
      code->putAndInsertString(DCM_CodeMeaning, meaning);
    }
  }
  // The meta header follows the dataset (its SOP Instance UID is the new one); the transfer syntax stays.
  const E_TransferSyntax xfer = ds->getOriginalXfer();
  if (OFCondition c = ff.saveFile(outputPath.c_str(), xfer == EXS_Unknown ? EXS_LittleEndianExplicit : xfer,
                                  EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0, EWM_updateMeta);
      c.bad())
    return makeError(ErrorCode::WriteFailed, outputPath, std::string("cannot write the de-identified file: ") + c.text());
  return core::Status::success();
}

}  // namespace delineate::io
